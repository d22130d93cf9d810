/**
 * LLM introspection and the model catalog as builtins
 * (spec/agents-surface.md §8.1–§8.7): what the run has used and spent,
 * the model table (aliases, tiers, providers, prices) of llm/catalog.ts,
 * the provider table of llm/resolve.ts, health checks and the provider
 * capability rules of llm/capabilities.ts with the runtime's overrides.
 */
import { float, HarnError, HDict, isNumeric, toJsNumber, type CallContext, type Runtime, type Value } from "@harn/vm";
import { type Capabilities, parseOverrides } from "../../llm/capabilities";
import {
  ALIASES,
  catalogEntry,
  defaultProvider,
  inferModelProvider,
  MODELS,
  modelTier,
  pricingOf,
  PROVIDER_INFO,
  QC_DEFAULTS,
  resolveSelector,
  type CatalogEntry,
} from "../../llm/catalog";
import { runtimeFetch } from "../../http/transport";
import { authHeaders } from "../../llm/providers/http";
import { ANTHROPIC_VERSION } from "../../llm/providers/anthropic";
import { apiKey, BUILTIN_PROVIDERS, callsDisabled, endpointUrl, hasKey, nonEmpty, type ProviderSpec } from "../../llm/resolve";
import { builtinModule } from "../../registry/define";
import { costUsd, USAGE } from "./budget";
import { agentClient } from "./client";
import { capabilities, CAPABILITY_OVERRIDES } from "./gates";

const AUTH_STYLE = { "x-api-key": "header", bearer: "bearer", none: "none" } as const;

function str(v: Value | undefined): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function keyAvailable(rt: Runtime, provider: string): boolean {
  const spec = BUILTIN_PROVIDERS[provider];
  if (spec) return hasKey(spec, rt.env);
  return agentClient(rt).knownProviders().includes(provider);
}

/** §8.1: the model and provider the environment selects. */
function llmInfo(_args: Value[], ctx: CallContext): HDict {
  const env = ctx.runtime.env;
  const model = nonEmpty(env.HARN_LLM_MODEL);
  const resolved = resolveSelector(model ?? "", env);
  const provider = nonEmpty(env.HARN_LLM_PROVIDER) ?? resolved.provider;
  return HDict.of({ provider, model: model === undefined ? "" : resolved.id, api_key_set: keyAvailable(ctx.runtime, provider) });
}

function capabilitiesDict(provider: string, model: string | null, c: Capabilities): HDict {
  return HDict.of({
    provider,
    model,
    native_tools: c.native_tools,
    defer_loading: c.defer_loading,
    tool_search: [...c.tool_search],
    max_tools: c.max_tools,
    prompt_caching: c.prompt_caching,
    thinking: c.thinking_modes.length > 0,
    thinking_modes: [...c.thinking_modes],
    interleaved_thinking_supported: c.interleaved_thinking_supported,
    anthropic_beta_features: [...c.anthropic_beta_features],
    vision_supported: c.vision_supported,
    audio: c.audio,
    pdf: c.pdf,
    preserve_thinking: c.preserve_thinking,
    requires_completion_tokens: c.requires_completion_tokens,
    reasoning_effort_supported: c.reasoning_effort_supported,
  });
}

/** §8.5 `llm_resolve_model`'s dict as entries (`llm_model_info` adds to it). */
function resolvedModel(rt: Runtime, selector: string): { provider: string; id: string; entries: Record<string, Value> } {
  const r = resolveSelector(selector, rt.env);
  const native = PROVIDER_INFO[r.provider]?.features.includes("native_tools") === true;
  return {
    provider: r.provider,
    id: r.id,
    entries: { id: r.id, provider: r.provider, alias: r.alias, tool_format: native ? "native" : "text", tier: modelTier(r.id) },
  };
}

function selectorArg(name: string, args: Value[]): string {
  const s = args[0];
  if (typeof s !== "string") throw HarnError.runtime(`${name}: model name must be a string`);
  return s;
}

function pricingDict(id: string): HDict | null {
  const p = pricingOf(id);
  if (p === null) return null;
  const d: Record<string, Value> = { input_per_mtok: float(p.input), output_per_mtok: float(p.output) };
  if (p.cacheRead !== null) d.cache_read_per_mtok = float(p.cacheRead);
  if (p.cacheWrite !== null) d.cache_write_per_mtok = float(p.cacheWrite);
  return HDict.of(d);
}

function catalogDict(m: CatalogEntry): HDict {
  return HDict.of({
    id: m.id,
    name: m.name,
    provider: m.provider,
    context_window: m.contextWindow,
    stream_timeout: m.streamTimeout,
    capabilities: [...m.capabilities],
    pricing: pricingDict(m.id),
  });
}

/** §8.5 `llm_config`: a provider's definition. */
function configDict(rt: Runtime, spec: ProviderSpec): HDict {
  const env = rt.env;
  const d: Record<string, Value> = {
    display_name: PROVIDER_INFO[spec.name]?.displayName ?? spec.name,
    base_url: spec.baseUrlEnv ? (nonEmpty(env[spec.baseUrlEnv]) ?? spec.defaultBaseUrl) : spec.defaultBaseUrl,
    auth_style: AUTH_STYLE[spec.auth],
    auth_envs: [...spec.keyEnv],
    auth_available: hasKey(spec, env),
    chat_endpoint: spec.path,
    features: [...(PROVIDER_INFO[spec.name]?.features ?? [])],
  };
  if (spec.baseUrlEnv) d.base_url_env = spec.baseUrlEnv;
  if (spec.auth === "x-api-key") d.auth_header = "x-api-key";
  const limit = rt.env[`HARN_RATE_LIMIT_${spec.name.toUpperCase()}`];
  if (limit !== undefined && Number(limit) > 0) d.rpm = Math.floor(Number(limit));
  return HDict.of(d);
}

function allConfigs(rt: Runtime): HDict {
  return HDict.from(
    Object.keys(BUILTIN_PROVIDERS)
      .sort()
      .map((name): [string, Value] => [name, configDict(rt, BUILTIN_PROVIDERS[name]!)]),
  );
}

function aliasesDict(): HDict {
  return HDict.from(Object.entries(ALIASES).map(([alias, m]): [string, Value] => [alias, HDict.of({ id: m.id, provider: m.provider })]));
}

// ---- health checks (§8.6) ----

function healthResult(provider: string, valid: boolean, message: string, metadata: Record<string, Value>, extra: Record<string, Value> = {}): HDict {
  return HDict.of({ provider, valid, message, metadata: HDict.of({ provider, ...metadata }), ...extra });
}

/** The endpoint a provider is probed at: its model list (Ollama's tags). */
function probeUrl(spec: ProviderSpec, env: Record<string, string | undefined>, path: string): string {
  const chat = endpointUrl(spec, env);
  const base = chat.slice(0, chat.length - spec.path.length);
  if (spec.style === "ollama") return `${base}${path}`;
  // the models list sits beside the chat endpoint (…/v1/models)
  const dir = spec.path.startsWith("/v1/") ? "/v1" : "";
  return `${base}${dir}${path}`;
}

async function probe(ctx: CallContext, spec: ProviderSpec, key: string | undefined, method: "GET" | "POST", path: string, body?: unknown): Promise<{ status: number; statusText: string; url: string } | { error: string; url: string }> {
  const url = probeUrl(spec, ctx.runtime.env, path);
  const headers: Record<string, string> = { ...authHeaders(spec.auth, key) };
  if (spec.style === "anthropic") headers["anthropic-version"] = ANTHROPIC_VERSION;
  if (body !== undefined) headers["content-type"] = "application/json";
  try {
    const res = await (runtimeFetch(ctx.runtime) ?? fetch)(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(30_000)]),
    });
    await res.arrayBuffer().catch(() => undefined);
    return { status: res.status, statusText: res.statusText, url };
  } catch (e) {
    if (ctx.signal.aborted) throw e;
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    return { error: cause?.code ?? cause?.message ?? (e as Error).message, url };
  }
}

async function llmHealthcheck(args: Value[], ctx: CallContext): Promise<HDict> {
  const rt = ctx.runtime;
  const first = args[0];
  const opts = first instanceof HDict ? first : args[1] instanceof HDict ? args[1] : HDict.empty();
  const second = args[1] instanceof HDict ? args[1] : HDict.empty();
  const provider = (typeof first === "string" && first !== "" ? first : str(opts.get("provider"))) ?? "anthropic";
  const spec = BUILTIN_PROVIDERS[provider];
  if (!spec && !agentClient(rt).knownProviders().includes(provider)) {
    return healthResult(provider, false, `Unknown provider: ${provider}`, { reason: "unknown_provider" });
  }
  if (!spec || spec.style === "offline") {
    return healthResult(provider, false, `No healthcheck configured for ${provider}`, { reason: "no_healthcheck" });
  }
  const warm = opts.get("warm") === true || opts.get("preload") === true;
  if (spec.style === "ollama" && warm) {
    const model = str(opts.get("model")) ?? nonEmpty(rt.env.HARN_LLM_MODEL) ?? nonEmpty(rt.env.LOCAL_LLM_MODEL);
    if (model === undefined) {
      return healthResult(provider, false, "Ollama warmup requires options.model", { reason: "invalid_request" }, { status: "invalid_request" });
    }
  }
  const key = str(second.get("api_key")) ?? str(opts.get("api_key")) ?? apiKey(spec, rt.env);
  if (spec.keyEnv.length > 0 && key === undefined) {
    return healthResult(provider, false, `Missing credentials for ${provider}: set ${spec.keyEnv.join(", ")} or pass an api_key`, {
      reason: "missing_credentials",
    });
  }
  if (callsDisabled(rt.env)) {
    return healthResult(provider, false, `LLM calls are disabled by HARN_LLM_CALLS_DISABLED; no request was made to ${provider}`, { reason: "calls_disabled" });
  }
  const r =
    spec.style === "ollama" && warm
      ? await probe(ctx, spec, key, "POST", "/api/generate", { model: str(opts.get("model")) ?? nonEmpty(rt.env.HARN_LLM_MODEL) ?? nonEmpty(rt.env.LOCAL_LLM_MODEL), prompt: "", stream: false, keep_alive: "30m" })
      : await probe(ctx, spec, key, "GET", spec.style === "ollama" ? "/api/tags" : "/models");
  if ("error" in r) {
    return healthResult(provider, false, `${provider} is unreachable at ${r.url}: ${r.error}`, { reason: "unreachable", url: r.url, error: r.error });
  }
  const ok = r.status >= 200 && r.status < 300;
  const reason = ok ? "ok" : r.status === 401 || r.status === 403 ? "invalid_credentials" : "http_error";
  const message = ok ? `${provider} is reachable and accepted the credentials` : `${provider} answered HTTP ${r.status}${r.statusText ? ` ${r.statusText}` : ""} at ${r.url}`;
  const extra: Record<string, Value> = spec.style === "ollama" && warm && ok ? { status: "warm" } : {};
  return healthResult(provider, ok, message, { reason, url: r.url, status: r.status }, extra);
}

// ---- provider capabilities (§8.7) ----

function providerCapabilities(args: Value[], ctx: CallContext): HDict {
  const provider = args[0];
  if (typeof provider !== "string" || provider === "") throw HarnError.runtime("provider_capabilities: provider name is required");
  const model = typeof args[1] === "string" ? args[1] : null;
  return capabilitiesDict(provider, model, capabilities(ctx.runtime, provider, model ?? ""));
}

function capabilitiesInstall(args: Value[], ctx: CallContext): boolean {
  const toml = args[0];
  if (typeof toml !== "string" || toml.trim() === "") throw HarnError.runtime("provider_capabilities_install: TOML source string required");
  try {
    ctx.runtime.slot(CAPABILITY_OVERRIDES).overrides = parseOverrides(toml);
  } catch (e) {
    throw HarnError.runtime(`provider_capabilities_install: parse error: ${typeof e === "string" ? e : (e as Error).message}`);
  }
  return true;
}

// ---- usage and cost (§8.2) ----

function intArg(v: Value | undefined): number {
  return v !== undefined && isNumeric(v) ? toJsNumber(v) : 0;
}

export const LLM_INTROSPECTION_BUILTINS = builtinModule("agent/llm/introspection", (def) => {
  def("llm_info", llmInfo);
  def("llm_usage", (_args, ctx) => {
    const u = ctx.runtime.slot(USAGE);
    return HDict.of({ input_tokens: u.inputTokens, output_tokens: u.outputTokens, total_duration_ms: u.durationMs, call_count: u.calls, total_calls: u.calls });
  });
  def("llm_cost", (args) => {
    const model = typeof args[0] === "string" ? args[0] : "";
    return float(costUsd(model, intArg(args[1]), intArg(args[2])));
  });
  def("llm_session_cost", (_args, ctx) => {
    const u = ctx.runtime.slot(USAGE);
    return HDict.of({ total_cost: float(u.usd), input_tokens: u.inputTokens, output_tokens: u.outputTokens, call_count: u.calls });
  });
  def("llm_budget", (args, ctx) => {
    const max = args[0];
    if (max === undefined || !isNumeric(max)) throw HarnError.thrown("llm_budget: requires a numeric argument");
    ctx.runtime.slot(USAGE).budgetUsd = toJsNumber(max);
    return null;
  });
  def("llm_budget_remaining", (_args, ctx) => {
    const u = ctx.runtime.slot(USAGE);
    return u.budgetUsd === null ? null : float(u.budgetUsd - u.usd);
  });
  def("llm_model_tier", (args) => modelTier(selectorArg("llm_model_tier", args)));
  def("llm_infer_provider", (args, ctx) => {
    const model = selectorArg("llm_infer_provider", args);
    return inferModelProvider(model) ?? defaultProvider(ctx.runtime.env);
  });
  def("llm_resolve_model", (args, ctx) => HDict.of(resolvedModel(ctx.runtime, selectorArg("llm_resolve_model", args)).entries));
  def("llm_model_info", (args, ctx) => {
    const rt = ctx.runtime;
    const r = resolvedModel(rt, selectorArg("llm_model_info", args));
    const entry = catalogEntry(r.id);
    return HDict.of({
      ...r.entries,
      capabilities: capabilitiesDict(r.provider, r.id, capabilities(rt, r.provider, r.id)),
      catalog: entry === null ? null : catalogDict(entry),
      qc_default_model: QC_DEFAULTS[r.provider] ?? null,
      auth_available: keyAvailable(rt, r.provider),
    });
  });
  def("llm_known_models", () => Object.keys(ALIASES).sort());
  def("llm_providers", (_args, ctx) => agentClient(ctx.runtime).knownProviders().sort());
  def("llm_available_providers", (_args, ctx) =>
    agentClient(ctx.runtime)
      .knownProviders()
      .filter((p) => keyAvailable(ctx.runtime, p))
      .sort(),
  );
  def("llm_config", (args, ctx) => {
    const name = args[0];
    if (name === undefined || name === null) return allConfigs(ctx.runtime);
    const spec = typeof name === "string" ? BUILTIN_PROVIDERS[name] : undefined;
    return spec ? configDict(ctx.runtime, spec) : null;
  });
  def("llm_provider_catalog", (_args, ctx) =>
    HDict.of({
      providers: allConfigs(ctx.runtime),
      aliases: aliasesDict(),
      models: MODELS.map(catalogDict),
      qc_defaults: HDict.of({ ...QC_DEFAULTS }),
      default_provider: defaultProvider(ctx.runtime.env),
    }),
  );
  def("llm_healthcheck", llmHealthcheck);
  def("provider_capabilities", providerCapabilities);
  def("provider_capabilities_install", capabilitiesInstall);
  def("provider_capabilities_clear", (_args, ctx) => {
    ctx.runtime.slot(CAPABILITY_OVERRIDES).overrides = null;
    return true;
  });
});
