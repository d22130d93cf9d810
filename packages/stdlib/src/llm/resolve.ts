/**
 * Which provider and model a call uses, where its endpoint is, and which
 * key it sends (spec/agents.md §5.1). Everything reads a passed-in env
 * object, never `process.env`, so many runtimes can coexist in one process.
 */

import { LlmSetupError } from "./errors";
import type { AuthStyle } from "./providers/http";

export type Env = Readonly<Record<string, string | undefined>>;

export type WireStyle = "anthropic" | "openai-chat" | "openai-responses" | "ollama" | "offline";

export interface ProviderSpec {
  readonly name: string;
  readonly style: WireStyle;
  /** Env vars holding the key, in preference order; empty = keyless. */
  readonly keyEnv: readonly string[];
  readonly auth: AuthStyle;
  readonly baseUrlEnv?: string;
  readonly defaultBaseUrl: string;
  readonly path: string;
  /** `undefined`: the provider needs an explicit model. */
  readonly defaultModel: (env: Env) => string | undefined;
  readonly tiers?: Readonly<Record<string, string>>;
}

const GENERIC_DEFAULT_MODEL = "claude-sonnet-4-20250514";

/**
 * Built-in providers. `openai_responses` (OpenAI's Responses API with the
 * OpenAI key and endpoint) is an extension (extensions.md §3.1); `mock` is
 * listed so resolution knows the name, but its implementation is the
 * mock provider registered on the client by the agent layer.
 */
export const BUILTIN_PROVIDERS: Readonly<Record<string, ProviderSpec>> = Object.freeze({
  anthropic: {
    name: "anthropic",
    style: "anthropic",
    keyEnv: ["ANTHROPIC_API_KEY"],
    auth: "x-api-key",
    baseUrlEnv: "ANTHROPIC_BASE_URL",
    defaultBaseUrl: "https://api.anthropic.com/v1",
    path: "/messages",
    defaultModel: () => GENERIC_DEFAULT_MODEL,
    tiers: { small: "claude-3-5-haiku-20241022", mid: "claude-sonnet-4-20250514", frontier: "claude-opus-4-20250514" },
  },
  openai: {
    name: "openai",
    style: "openai-chat",
    keyEnv: ["OPENAI_API_KEY"],
    auth: "bearer",
    baseUrlEnv: "OPENAI_BASE_URL",
    defaultBaseUrl: "https://api.openai.com/v1",
    path: "/chat/completions",
    defaultModel: () => "gpt-4o",
    tiers: { small: "gpt-4o-mini", mid: "gpt-4o", frontier: "o3" },
  },
  openai_responses: {
    name: "openai_responses",
    style: "openai-responses",
    keyEnv: ["OPENAI_API_KEY"],
    auth: "bearer",
    baseUrlEnv: "OPENAI_BASE_URL",
    defaultBaseUrl: "https://api.openai.com/v1",
    path: "/responses",
    defaultModel: () => "gpt-4o",
    tiers: { small: "gpt-4o-mini", mid: "gpt-4o", frontier: "o3" },
  },
  openrouter: {
    name: "openrouter",
    style: "openai-chat",
    keyEnv: ["OPENROUTER_API_KEY"],
    auth: "bearer",
    baseUrlEnv: "OPENROUTER_BASE_URL",
    defaultBaseUrl: "https://openrouter.ai/api/v1",
    path: "/chat/completions",
    defaultModel: () => "anthropic/claude-sonnet-4.6",
  },
  huggingface: {
    name: "huggingface",
    style: "openai-chat",
    keyEnv: ["HF_TOKEN", "HUGGINGFACE_API_KEY"],
    auth: "bearer",
    baseUrlEnv: "HUGGINGFACE_BASE_URL",
    defaultBaseUrl: "https://router.huggingface.co/v1",
    path: "/chat/completions",
    defaultModel: () => undefined,
  },
  ollama: {
    name: "ollama",
    style: "ollama",
    keyEnv: [],
    auth: "none",
    baseUrlEnv: "OLLAMA_HOST",
    defaultBaseUrl: "http://localhost:11434",
    path: "/api/chat",
    defaultModel: () => "llama3.2",
  },
  local: {
    name: "local",
    style: "openai-chat",
    keyEnv: [],
    auth: "none",
    baseUrlEnv: "LOCAL_LLM_BASE_URL",
    defaultBaseUrl: "http://localhost:8000",
    path: "/v1/chat/completions",
    defaultModel: (env) => nonEmpty(env.LOCAL_LLM_MODEL) ?? nonEmpty(env.HARN_LLM_MODEL) ?? "gpt-4o",
  },
  mock: {
    name: "mock",
    style: "offline",
    keyEnv: [],
    auth: "none",
    defaultBaseUrl: "",
    path: "",
    defaultModel: () => GENERIC_DEFAULT_MODEL,
  },
} satisfies Record<string, ProviderSpec>);

export function nonEmpty(v: string | undefined | null): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
}

/** The provider family a model name belongs to, when the name says so:
 * `claude-*` Anthropic, `gpt-*` / o-series OpenAI, `vendor/model`
 * OpenRouter, `name:tag` Ollama. */
export function inferProvider(model: string): string | undefined {
  if (/^claude-/i.test(model)) return "anthropic";
  if (/^(?:gpt-|chatgpt-|o[134](?:-|$))/i.test(model)) return "openai";
  if (model.includes("/")) return "openrouter";
  if (model.includes(":")) return "ollama";
  return undefined;
}

export function apiKey(spec: ProviderSpec, env: Env): string | undefined {
  for (const name of spec.keyEnv) {
    const v = nonEmpty(env[name]);
    if (v !== undefined) return v;
  }
  return undefined;
}

export function hasKey(spec: ProviderSpec, env: Env): boolean {
  return spec.keyEnv.length === 0 || apiKey(spec, env) !== undefined;
}

/** The exact missing-key error (spec §5.1), as a thrown string. */
export function missingKeyError(spec: ProviderSpec): LlmSetupError {
  const what =
    spec.keyEnv.length === 1
      ? `set ${spec.keyEnv[0]} environment variable`
      : `set one of ${spec.keyEnv.join(", ")} environment variables`;
  return new LlmSetupError(
    `Missing API key: ${what} (provider '${spec.name}' selected via LLM_PROVIDER / llm.toml @ <built-in defaults>; ` +
      "set HARN_LLM_PROVIDER=mock or LLM_PROVIDER=mock for offline use)",
    "thrown",
  );
}

/** `HARN_LLM_CALLS_DISABLED` is `1`/`true`/`yes`/`on`. */
export function callsDisabled(env: Env): boolean {
  const v = (env.HARN_LLM_CALLS_DISABLED ?? "").trim().toLowerCase();
  return v === "1" || v === "true" || v === "yes" || v === "on";
}

/** The exact kill-switch error (spec §5.1), as a runtime error. */
export function callsDisabledError(provider: string): LlmSetupError {
  return new LlmSetupError(
    `LLM calls are disabled by HARN_LLM_CALLS_DISABLED; provider \`${provider}\` would make a real LLM request`,
    "runtime",
  );
}

export function unknownProviderError(name: string, known: readonly string[]): LlmSetupError {
  return new LlmSetupError(`unknown LLM provider '${name}' (known: ${[...known].sort().join(", ")})`, "runtime");
}

/**
 * The endpoint URL. Lenient with the usual spellings of base URLs:
 * `OLLAMA_HOST` may omit the scheme, `ANTHROPIC_BASE_URL` is usually given
 * without `/v1` (as the Anthropic SDKs take it), `LOCAL_LLM_BASE_URL` may
 * or may not end in `/v1`.
 */
export function endpointUrl(spec: ProviderSpec, env: Env): string {
  let base = (spec.baseUrlEnv ? nonEmpty(env[spec.baseUrlEnv]) : undefined) ?? spec.defaultBaseUrl;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(base)) base = `http://${base}`;
  base = base.replace(/\/+$/, "");
  if (spec.style === "anthropic" && !/\/v1$/.test(base)) base += "/v1";
  if (spec.path.startsWith("/v1/") && /\/v1$/.test(base)) base = base.slice(0, -3);
  return base + spec.path;
}

export interface TargetInput {
  provider?: string | null;
  model?: string | null;
  model_tier?: string | null;
}

export interface Target {
  provider: string;
  model: string;
}

/** Provider resolution (spec §5.1); `spec` looks up a built-in provider
 * (to see whether the default provider has its key). */
export function resolveProvider(input: TargetInput, env: Env, spec: (name: string) => ProviderSpec | undefined): string {
  const explicit = nonEmpty(input.provider);
  const model = nonEmpty(input.model);
  if (explicit !== undefined && explicit !== "auto") return explicit;
  if (explicit === "auto" && model !== undefined) {
    const inferred = inferProvider(model);
    if (inferred !== undefined) return inferred;
  }
  for (const name of ["HARN_LLM_PROVIDER", "LLM_PROVIDER"]) {
    const v = nonEmpty(env[name]);
    if (v !== undefined && v !== "auto") return v;
  }
  const envModel = nonEmpty(env.HARN_LLM_MODEL);
  if (nonEmpty(env.LOCAL_LLM_BASE_URL) !== undefined && (model ?? envModel ?? nonEmpty(env.LOCAL_LLM_MODEL))) {
    return "local";
  }
  if (model !== undefined) {
    const inferred = inferProvider(model);
    if (inferred !== undefined) return inferred;
  }
  if (envModel !== undefined) {
    const inferred = inferProvider(envModel);
    if (inferred !== undefined) return inferred;
  }
  const fallback = nonEmpty(env.HARN_DEFAULT_PROVIDER) ?? "anthropic";
  const fallbackSpec = spec(fallback);
  if (fallbackSpec && hasKey(fallbackSpec, env)) return fallback;
  // A keyless provider counts as available when the user pointed us at it.
  if (nonEmpty(env.OLLAMA_HOST) !== undefined) return "ollama";
  if (nonEmpty(env.LOCAL_LLM_BASE_URL) !== undefined) return "local";
  // [TS decision] With nothing configured at all, run offline on the mock
  // rather than failing on the default provider's missing key: a fresh
  // checkout runs its agent examples without an account. An explicitly
  // chosen default (HARN_DEFAULT_PROVIDER) still reports its missing key.
  if (nonEmpty(env.HARN_DEFAULT_PROVIDER) !== undefined) return fallback;
  return IMPLICIT_OFFLINE_PROVIDER;
}

/** The provider used when nothing selects one and no key is set. */
export const IMPLICIT_OFFLINE_PROVIDER = "mock";

/** Model resolution (spec §5.1): explicit model → tier → `HARN_LLM_MODEL`
 * when it belongs to the provider → the provider's default.
 *
 * "Aliases resolved": the spec names no alias table beyond the tier names
 * (`small`, `mid`, `frontier`, §2.2 `model_tier`), so those are the
 * aliases: `model: "small"` is the provider's small-tier model. Any other
 * model string is sent as written; we do not invent vendor nicknames. */
export function resolveModel(provider: string, input: TargetInput, env: Env, spec: ProviderSpec | undefined): string {
  const model = nonEmpty(input.model);
  if (model !== undefined) return spec?.tiers?.[model] ?? model;
  const tier = nonEmpty(input.model_tier);
  if (tier !== undefined && spec?.tiers?.[tier] !== undefined) return spec.tiers[tier];
  const envModel = nonEmpty(env.HARN_LLM_MODEL);
  if (envModel !== undefined) {
    const family = inferProvider(envModel);
    const anyModel = family === undefined || spec?.style === "offline";
    if (anyModel || family === provider || (provider === "openai_responses" && family === "openai")) {
      return envModel;
    }
  }
  const dflt = spec?.defaultModel(env);
  if (dflt !== undefined) return dflt;
  throw new LlmSetupError(`provider '${provider}' needs an explicit model (set the \`model\` option or HARN_LLM_MODEL)`, "runtime");
}

/** `timeout` option (seconds) → milliseconds; else `HARN_LLM_TIMEOUT`;
 * else 120 s. */
export function resolveTimeoutMs(timeoutSeconds: number | null | undefined, env: Env): number {
  if (typeof timeoutSeconds === "number" && timeoutSeconds > 0) return Math.round(timeoutSeconds * 1000);
  const fromEnv = Number(nonEmpty(env.HARN_LLM_TIMEOUT));
  if (Number.isFinite(fromEnv) && fromEnv > 0) return Math.round(fromEnv * 1000);
  return 120_000;
}

/** `stream` option; else `HARN_LLM_STREAM` (`0`/`false` disables); else on. */
export function resolveStream(stream: boolean | null | undefined, env: Env): boolean {
  if (typeof stream === "boolean") return stream;
  const v = (env.HARN_LLM_STREAM ?? "").trim().toLowerCase();
  return !(v === "0" || v === "false");
}
