/**
 * Which provider and model a call uses, where its endpoint is, and which
 * key it sends (spec/agents.md §5.1). Everything reads a passed-in env
 * object, never `process.env`, so many runtimes can coexist in one process.
 */

import { LlmSetupError } from "./errors";
import { inferModelProvider } from "./catalog";
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

/** The provider a model name belongs to, when the name says so (the
 * model table's rules, catalog.ts `inferModelProvider`, agents-surface.md
 * §8.4): `claude-*` Anthropic, `gpt-*` / o-series OpenAI, `vendor/model`
 * OpenRouter, `name:tag` Ollama, …; undefined for any other name. */
export function inferProvider(model: string): string | undefined {
  return inferModelProvider(model);
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

/**
 * Why a 404 from this endpoint may be the base URL's fault: a hint when
 * the provider's base-URL variable is set and its path does not look like
 * what the provider expects (an OpenAI-style root without `/v1`, an
 * `OLLAMA_HOST` with a path, …); undefined otherwise.
 */
export function endpointHint(spec: ProviderSpec, env: Env): string | undefined {
  const name = spec.baseUrlEnv;
  const value = name ? nonEmpty(env[name]) : undefined;
  if (name === undefined || value === undefined) return undefined;
  let path: string;
  try {
    path = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`).pathname.replace(/\/+$/, "");
  } catch {
    return `${name} (${value}) is not a URL`;
  }
  const is = `${name} is ${value}`;
  switch (spec.style) {
    case "ollama":
      return path === "" ? undefined : `${is}; it should name the host and port only, without a path`;
    case "anthropic":
      return path === "" || path === "/v1" ? undefined : `${is}; it should be the API root (like https://api.anthropic.com)`;
    case "openai-chat":
    case "openai-responses":
      if (spec.path.startsWith("/v1/")) return path === "" || path === "/v1" ? undefined : `${is}; it is usually the server's address, with or without /v1`;
      return /\/v\d+\w*$/.test(path) ? undefined : `${is}, which usually ends in /v1`;
    case "offline":
      return undefined;
  }
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

/**
 * [TS decision] The providers a set environment variable selects when
 * nothing else chose one, in this order: the first whose key (or, for a
 * keyless server, whose address variable) is set answers. Agents.md §5.1
 * only looks at the default provider's key and otherwise reports it
 * missing; here a user who exported any one key gets that provider, and a
 * user with none gets the offline mock (announced once, naming these
 * variables).
 */
export const ENV_SELECTED_PROVIDERS: readonly string[] = ["anthropic", "openai", "openrouter", "huggingface", "ollama", "local"];

/** The variables that select a provider of `ENV_SELECTED_PROVIDERS`: its
 * keys, or the address of a keyless server. */
export function selectingEnv(spec: ProviderSpec): readonly string[] {
  if (spec.keyEnv.length > 0) return spec.keyEnv;
  return spec.baseUrlEnv ? [spec.baseUrlEnv] : [];
}

/** The first provider of the documented order that the environment
 * selects, or undefined. */
export function envSelectedProvider(env: Env): string | undefined {
  return ENV_SELECTED_PROVIDERS.find((name) => selectingEnv(BUILTIN_PROVIDERS[name]!).some((v) => nonEmpty(env[v]) !== undefined));
}

/** What `harn` prints once when nothing selected a provider. */
export function implicitMockNotice(): string {
  const vars = ENV_SELECTED_PROVIDERS.map((name) => selectingEnv(BUILTIN_PROVIDERS[name]!)[0]!);
  return `note: no LLM provider configured; using the offline mock provider (set one of ${vars.join(", ")}, or HARN_LLM_PROVIDER)`;
}

/**
 * Provider resolution: an explicit `provider` (with `auto`, inferred from
 * the model), `HARN_LLM_PROVIDER` / `LLM_PROVIDER`, `local` when
 * `LOCAL_LLM_BASE_URL` and a model are given, the family of the model
 * (option, then `HARN_LLM_MODEL`), `HARN_DEFAULT_PROVIDER` (whose missing
 * key is reported), the first provider whose variable is set
 * (`ENV_SELECTED_PROVIDERS`); undefined when nothing chose one (the
 * caller then uses `IMPLICIT_OFFLINE_PROVIDER`).
 */
export function resolveProvider(input: TargetInput, env: Env): string | undefined {
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
  for (const m of [model, envModel]) {
    const inferred = m === undefined ? undefined : inferProvider(m);
    if (inferred !== undefined) return slashNameHost(inferred, env);
  }
  return nonEmpty(env.HARN_DEFAULT_PROVIDER) ?? envSelectedProvider(env);
}

/** `vendor/model` names are OpenRouter's and Hugging Face's alike: with
 * only a Hugging Face key, such a model goes there. */
function slashNameHost(inferred: string, env: Env): string {
  if (inferred !== "openrouter") return inferred;
  const hf = BUILTIN_PROVIDERS.huggingface!;
  return !hasKey(BUILTIN_PROVIDERS.openrouter!, env) && hasKey(hf, env) ? hf.name : inferred;
}

/** The provider used when nothing selects one. */
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
    // openai_responses takes OpenAI's names, huggingface `vendor/model` ones
    const kin = (provider === "openai_responses" && family === "openai") || (provider === "huggingface" && family === "openrouter");
    if (anyModel || family === provider || kin) {
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
