/**
 * The model table (spec/agents-surface.md §8.3–§8.5, agents.md §3.10):
 * model aliases, which provider a model id belongs to, model tiers,
 * prices, catalog entries and the providers' quick-check defaults. One
 * table for provider resolution (resolve.ts `inferProvider`), cost
 * accounting (agent/llm/budget.ts) and the introspection builtins.
 */
import type { Env } from "./resolve";

export interface ModelRef {
  readonly id: string;
  readonly provider: string;
}

/** Built-in aliases (§8.5). */
export const ALIASES: Readonly<Record<string, ModelRef>> = {
  frontier: { id: "claude-sonnet-4-20250514", provider: "anthropic" },
  "tier/frontier": { id: "claude-sonnet-4-20250514", provider: "anthropic" },
  mid: { id: "gpt-4o-mini", provider: "openai" },
  "tier/mid": { id: "gpt-4o-mini", provider: "openai" },
  small: { id: "Qwen/Qwen3.5-9B", provider: "openrouter" },
  "tier/small": { id: "Qwen/Qwen3.5-9B", provider: "openrouter" },
  "local-gemma4": { id: "gemma-4-26b-a4b-it", provider: "local" },
  "local-gemma4-26b": { id: "gemma-4-26b-a4b-it", provider: "local" },
  "local-gemma4-31b": { id: "gemma-4-31b-it", provider: "local" },
  "local-gemma4-e4b": { id: "gemma-4-e4b-it", provider: "local" },
  "local-gemma4-e2b": { id: "gemma-4-e2b-it", provider: "local" },
};

/** A `*` glob over the whole text. */
export function glob(pattern: string, text: string, ignoreCase = false): boolean {
  const esc = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(`^${esc}$`, ignoreCase ? "is" : "s").test(text);
}

const PREFIXES: readonly [string, string][] = [
  ["local:", "ollama"],
  ["ollama:", "ollama"],
  ["huggingface:", "huggingface"],
  ["hf:", "huggingface"],
];

const FAMILIES: readonly [string[], string][] = [
  [["claude-*"], "anthropic"],
  [["gpt-*", "o1*", "o3*", "o4*"], "openai"],
  [["anthropic.claude-*", "meta.llama*", "amazon.*", "mistral.*", "cohere.*"], "bedrock"],
  [["gemini-*"], "gemini"],
];

/**
 * The provider a model id names (§8.4), or undefined when only the
 * default provider is left.
 */
export function inferModelProvider(model: string): string | undefined {
  for (const [prefix, provider] of PREFIXES) if (model.startsWith(prefix)) return provider;
  for (const [globs, provider] of FAMILIES) if (globs.some((g) => glob(g, model))) return provider;
  if (model.split("/").length === 2) return "openrouter";
  if (model.includes(":")) return "ollama";
  return undefined;
}

/** `HARN_DEFAULT_PROVIDER` unless empty or `auto`, else `anthropic`. */
export function defaultProvider(env: Env): string {
  const d = (env.HARN_DEFAULT_PROVIDER ?? "").trim();
  return d === "" || d === "auto" ? "anthropic" : d;
}

/** The id without a provider prefix (`local:`, `ollama:`, `hf:`, …). */
export function bareId(model: string): string {
  for (const [prefix] of PREFIXES) if (model.startsWith(prefix)) return model.slice(prefix.length);
  return model;
}

/** `alias` or id → `{id, provider, alias}` (§8.5). */
export function resolveSelector(selector: string, env: Env): { id: string; provider: string; alias: string | null } {
  const a = ALIASES[selector];
  if (a) return { id: a.id, provider: a.provider, alias: selector };
  return { id: bareId(selector), provider: inferModelProvider(selector) ?? defaultProvider(env), alias: null };
}

export type Tier = "small" | "mid" | "frontier";

/** §8.3, first match wins. */
export function modelTier(id: string): Tier {
  if (id.includes("9b") || id.includes("a3b")) return "small";
  if (id.includes("gemma-4-e2b") || id.includes("gemma-4-e4b")) return "small";
  if (id.includes("gemma-4-26b") || id.includes("gemma4:26b")) return "mid";
  if (id.includes("gemma-4-31b") || id.includes("gemma4:31b")) return "frontier";
  if (glob("claude-*", id) || id === "gpt-4o") return "frontier";
  const lower = id.toLowerCase();
  if (lower.includes("9b") || lower.includes("a3b")) return "small";
  if (lower.startsWith("claude-") || lower === "gpt-4o") return "frontier";
  return "mid";
}

export interface Pricing {
  /** USD per million tokens. */
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number | null;
  readonly cacheWrite: number | null;
}

/** agents.md §3.10: first substring match wins; Claude models price
 * cache reads at 10 % and writes at 125 % of the input rate. */
const PRICES: readonly [string[], number, number][] = [
  [["claude-3-5-haiku", "claude-haiku-4"], 0.8, 4.0],
  [["claude-3-5-sonnet", "claude-sonnet-4"], 3.0, 15.0],
  [["claude-3-opus", "claude-opus-4"], 15.0, 75.0],
  [["gpt-4o-mini"], 0.15, 0.6],
  [["gpt-4o"], 2.5, 10.0],
  [["gpt-4-turbo"], 10.0, 30.0],
  [["o1-mini"], 3.0, 12.0],
  [["o1", "o3"], 15.0, 60.0],
];

export function pricingOf(model: string): Pricing | null {
  for (const [names, input, output] of PRICES) {
    if (!names.some((n) => model.includes(n))) continue;
    const claude = model.includes("claude");
    return { input, output, cacheRead: claude ? input * 0.1 : null, cacheWrite: claude ? input * 1.25 : null };
  }
  return null;
}

export interface CatalogEntry {
  readonly id: string;
  readonly name: string;
  readonly provider: string;
  readonly contextWindow: number;
  readonly streamTimeout: number;
  readonly capabilities: readonly string[];
}

const TOOLS_VISION = ["tools", "vision", "streaming"];

/** The models the catalog describes (`llm_model_info(...).catalog`). */
export const MODELS: readonly CatalogEntry[] = [
  { id: "claude-sonnet-4-20250514", name: "Claude Sonnet 4", provider: "anthropic", contextWindow: 200_000, streamTimeout: 300, capabilities: [...TOOLS_VISION, "thinking", "prompt_caching"] },
  { id: "claude-opus-4-20250514", name: "Claude Opus 4", provider: "anthropic", contextWindow: 200_000, streamTimeout: 300, capabilities: [...TOOLS_VISION, "thinking", "prompt_caching"] },
  { id: "claude-3-5-haiku-20241022", name: "Claude 3.5 Haiku", provider: "anthropic", contextWindow: 200_000, streamTimeout: 120, capabilities: [...TOOLS_VISION, "prompt_caching"] },
  { id: "gpt-4o", name: "GPT-4o", provider: "openai", contextWindow: 128_000, streamTimeout: 120, capabilities: [...TOOLS_VISION, "audio"] },
  { id: "gpt-4o-mini", name: "GPT-4o mini", provider: "openai", contextWindow: 128_000, streamTimeout: 120, capabilities: [...TOOLS_VISION] },
  { id: "o3", name: "o3", provider: "openai", contextWindow: 200_000, streamTimeout: 300, capabilities: ["tools", "streaming", "reasoning"] },
  { id: "Qwen/Qwen3.5-9B", name: "Qwen3.5 9B", provider: "openrouter", contextWindow: 32_768, streamTimeout: 120, capabilities: ["tools", "streaming"] },
  { id: "gemma-4-26b-a4b-it", name: "Gemma 4 26B", provider: "local", contextWindow: 131_072, streamTimeout: 300, capabilities: ["streaming"] },
  { id: "gemma-4-31b-it", name: "Gemma 4 31B", provider: "local", contextWindow: 131_072, streamTimeout: 300, capabilities: ["streaming"] },
  { id: "gemma-4-e4b-it", name: "Gemma 4 E4B", provider: "local", contextWindow: 131_072, streamTimeout: 300, capabilities: ["streaming"] },
  { id: "gemma-4-e2b-it", name: "Gemma 4 E2B", provider: "local", contextWindow: 131_072, streamTimeout: 300, capabilities: ["streaming"] },
];

export function catalogEntry(id: string): CatalogEntry | null {
  return MODELS.find((m) => m.id === id) ?? null;
}

/** The model each provider's quick checks use. */
export const QC_DEFAULTS: Readonly<Record<string, string>> = {
  anthropic: "claude-3-5-haiku-20241022",
  openai: "gpt-4o-mini",
  openai_responses: "gpt-4o-mini",
  openrouter: "Qwen/Qwen3.5-9B",
  huggingface: "Qwen/Qwen3.5-9B",
  ollama: "llama3.2",
  local: "gemma-4-e4b-it",
  mock: "mock",
};

/** What the provider table (resolve.ts) does not say about a provider:
 * its display name and the features its config lists (`native_tools`
 * makes `llm_resolve_model` report `tool_format: "native"`). */
export const PROVIDER_INFO: Readonly<Record<string, { displayName: string; features: readonly string[] }>> = {
  anthropic: { displayName: "Anthropic", features: ["native_tools", "prompt_caching", "thinking", "vision"] },
  openai: { displayName: "OpenAI", features: ["native_tools", "vision"] },
  openai_responses: { displayName: "OpenAI Responses", features: ["native_tools", "vision"] },
  openrouter: { displayName: "OpenRouter", features: ["native_tools"] },
  huggingface: { displayName: "Hugging Face", features: ["native_tools"] },
  ollama: { displayName: "Ollama", features: [] },
  local: { displayName: "Local (OpenAI-compatible)", features: [] },
  mock: { displayName: "Mock", features: ["native_tools"] },
};
