/**
 * Tool search (spec/workflows.md §3.2–§3.4): the `tool_search` option, the
 * native/client resolution per provider and model, the native meta-tool,
 * and the client-side index (BM25 and regex strategies) with promotion
 * under a token budget. The loop owns the promoted set (loop/run.ts); a
 * single `llm_call` only gets its tools list changed.
 */
import { HarnError, HDict, type Runtime, type Value } from "@harn/vm";
import type { LlmToolDefinition } from "../../llm/types";
import { compileRegex, findAll, RegexError } from "../../regex/compile";
import { inputSchema, nativeDefinition, specOf, toolEntries, type ToolSpec } from "./spec";

export type SearchVariant = "bm25" | "regex";
export type SearchMode = "auto" | "native" | "client";

export interface ToolSearchConfig {
  variant: SearchVariant;
  mode: SearchMode;
  strategy: string;
  alwaysLoaded: string[];
  budgetTokens: number | null;
  name: string;
  includeStubListing: boolean;
}

export const DEFAULT_SEARCH_TOOL = "__harn_tool_search";
const MAX_RESULTS = 20;

const thrown = (text: string) => HarnError.thrown(text);

function variantOf(v: Value, key: string): SearchVariant {
  if (typeof v !== "string") throw thrown(`tool_search.${key}: expected a string`);
  if (v !== "bm25" && v !== "regex") throw thrown(`tool_search.variant: expected "bm25" or "regex", got "${v}"`);
  return v;
}

/** The `tool_search` option, or null when it is off (§3.2). */
export function readToolSearch(v: Value): ToolSearchConfig | null {
  if (v === null || v === false) return null;
  const c: ToolSearchConfig = { variant: "bm25", mode: "auto", strategy: "bm25", alwaysLoaded: [], budgetTokens: null, name: DEFAULT_SEARCH_TOOL, includeStubListing: false };
  if (v === true) return c;
  if (typeof v === "string") {
    c.variant = c.strategy = variantOf(v, "variant");
    return c;
  }
  if (!(v instanceof HDict)) return null;
  if (v.get("variant") !== null) c.variant = c.strategy = variantOf(v.get("variant"), "variant");
  const mode = v.get("mode");
  if (mode !== null) {
    if (typeof mode !== "string") throw thrown("tool_search.mode: expected a string");
    if (mode !== "auto" && mode !== "native" && mode !== "client") throw thrown(`tool_search.mode: expected "auto" | "native" | "client", got "${mode}"`);
    c.mode = mode;
  }
  const strategy = v.get("strategy");
  if (strategy !== null) {
    if (typeof strategy !== "string") throw thrown("tool_search.strategy: expected a string");
    if (!["bm25", "regex", "semantic", "host"].includes(strategy)) throw thrown(`tool_search.strategy: expected "bm25" | "regex" | "semantic" | "host", got "${strategy}"`);
    c.strategy = strategy;
  }
  const always = v.get("always_loaded");
  if (always !== null) {
    if (!Array.isArray(always) || always.some((x) => typeof x !== "string")) throw thrown("tool_search.always_loaded: expected a list of tool names");
    c.alwaysLoaded = always as string[];
  }
  const budget = v.get("budget_tokens");
  if (budget !== null) {
    if (typeof budget !== "number" && typeof budget !== "bigint") throw thrown("tool_search.budget_tokens: expected an integer");
    c.budgetTokens = Number(budget);
  }
  const name = v.get("name");
  if (name !== null) {
    if (typeof name !== "string") throw thrown("tool_search.name: expected a string");
    if (name.trim() !== "") c.name = name;
  }
  const stub = v.get("include_stub_listing");
  if (stub !== null) {
    if (typeof stub !== "boolean") throw thrown("tool_search.include_stub_listing: expected a bool");
    c.includeStubListing = stub;
  }
  return c;
}

/** What a (provider, model) pair offers natively: the request shape and
 * its variants, or null. The mock follows the model name (§3.2). */
export function nativeSearchSupport(provider: string, model: string): { shape: "anthropic" | "openai"; variants: string[] } | null {
  const m = model.toLowerCase();
  const claude = /claude-(opus|sonnet|haiku)-(\d+)(?:[-.](\d{1,2})(?!\d))?/.exec(m) ?? null;
  const gpt = /gpt-(\d+)(?:\.(\d+))?/.exec(m);
  const isClaude = claude !== null && (() => {
    const major = Number(claude[2]);
    const minor = claude[3] === undefined ? 0 : Number(claude[3]);
    return claude[1] === "haiku" ? major > 4 || (major === 4 && minor >= 5) : major >= 4;
  })();
  const isGpt = gpt !== null && (Number(gpt[1]) > 5 || (Number(gpt[1]) === 5 && Number(gpt[2] ?? 0) >= 4));
  const anthropic = { shape: "anthropic" as const, variants: ["bm25", "regex"] };
  const openai = { shape: "openai" as const, variants: ["hosted", "client"] };
  if (provider === "mock") return isClaude ? anthropic : isGpt ? openai : null;
  if (provider === "anthropic") return isClaude ? anthropic : null;
  if (provider === "openai" || provider === "openrouter") return isGpt ? openai : null;
  return null;
}

export interface ResolvedSearch {
  config: ToolSearchConfig;
  mode: "native" | "client";
  /** Native: the request shape. */
  shape: "anthropic" | "openai" | null;
}

/** Native or client for this call, with the §3.2 errors. `deferred` tells
 * whether every user tool is deferred (then nothing can start). */
export function resolveSearch(config: ToolSearchConfig, provider: string, model: string, options: HDict, tools: readonly ToolSpec[]): ResolvedSearch {
  // The mock's capability follows the model the script named; its bare
  // default model offers none (§3.2).
  const asked = options.get("model");
  if (provider === "mock") model = typeof asked === "string" && asked !== "" ? asked : "mock";
  const support = nativeSearchSupport(provider, model);
  const override = options.get(provider);
  const forced = override instanceof HDict && override.get("force_native_tool_search") === true;
  const native = support !== null || forced;
  if (config.mode === "native" && !native) {
    throw thrown(
      `tool_search: provider "${provider}" does not expose native tool-search for model "${model}". Set \`tool_search: { mode: "client" }\` to use the client-executed fallback, or omit tool_search to ship tools eagerly.`,
    );
  }
  if (tools.length > 0 && tools.every((t) => t.deferLoading === true)) {
    throw thrown(
      "tool_search: all tools have defer_loading set. At least one tool must be non-deferred so the model has somewhere to start. (Matches Anthropic's 400 on the same condition.)",
    );
  }
  if (config.mode === "client" || !native) return { config, mode: "client", shape: null };
  return { config, mode: "native", shape: support?.shape ?? (provider === "anthropic" ? "anthropic" : "openai") };
}

/** The native meta-tool prepended to the tools (§3.3). */
export function nativeMetaTool(r: ResolvedSearch, tools: readonly ToolSpec[]): LlmToolDefinition {
  if (r.shape === "anthropic") {
    const variant = r.config.variant;
    return { type: `tool_search_tool_${variant}_20251119`, name: `tool_search_tool_${variant}` } as unknown as LlmToolDefinition;
  }
  const namespaces = [...new Set(tools.map((t) => t.namespace).filter((n): n is string => typeof n === "string"))].sort();
  return { type: "tool_search", mode: "hosted", ...(namespaces.length > 0 ? { namespaces } : {}) } as unknown as LlmToolDefinition;
}

/** The client-mode synthetic tool (§3.4). */
export function searchToolSpec(config: ToolSearchConfig): ToolSpec {
  const how =
    config.strategy === "regex"
      ? "a case-insensitive regular expression matched against tool names, descriptions and parameters"
      : "keywords ranked with BM25 against tool names, descriptions and parameters";
  return {
    name: config.name,
    description: `Search the tools that are not loaded yet and load the best matches for your next turn. The query is ${how}.`,
    parameters: HDict.of({ query: HDict.of({ type: "string", description: "What to search for" }) }),
    handler: null,
    executor: "harn",
    longRunning: false,
    declared: false,
    builtin: config.name,
  };
}

/** `name description p1: d1 p2 …`: the text a tool is found by. */
function corpusText(t: ToolSpec): string {
  const parts = [t.name, t.description];
  for (const p of t.parameters.keys()) {
    const raw = t.parameters.get(p);
    const d = raw instanceof HDict ? raw.get("description") : null;
    parts.push(typeof d === "string" && d !== "" ? `${p}: ${d}` : p);
  }
  return parts.join(" ");
}

const tokenize = (s: string): string[] =>
  s
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((x) => x !== "");

export interface SearchOutcome {
  names: string[];
  diagnostic: string | null;
}

const byScoreThenName = (a: { name: string; score: number }, b: { name: string; score: number }) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function bm25(index: readonly ToolSpec[], query: string): SearchOutcome {
  if (index.length === 0) return { names: [], diagnostic: "no candidate tools in the index" };
  const q = [...new Set(tokenize(query))];
  if (q.length === 0) return { names: [], diagnostic: "empty query after tokenization; use alphanumeric search terms" };
  const docs = index.map((t) => ({ name: t.name, tokens: tokenize(corpusText(t)) }));
  const avg = docs.reduce((n, d) => n + d.tokens.length, 0) / docs.length || 1;
  const N = docs.length;
  const k1 = 1.5;
  const b = 0.75;
  const scored = docs.map((d) => {
    let score = 0;
    for (const term of q) {
      const f = d.tokens.filter((x) => x === term).length;
      if (f === 0) continue;
      const n = docs.filter((x) => x.tokens.includes(term)).length;
      const idf = Math.log((N - n + 0.5) / (n + 0.5) + 1);
      score += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * d.tokens.length) / avg));
    }
    return { name: d.name, score };
  });
  const hits = scored.filter((s) => s.score > 0).sort(byScoreThenName);
  if (hits.length === 0) return { names: [], diagnostic: "no tools matched your BM25 query; try shorter or more generic terms" };
  return { names: hits.slice(0, MAX_RESULTS).map((h) => h.name), diagnostic: null };
}

function regex(rt: Runtime, index: readonly ToolSpec[], query: string): SearchOutcome {
  let re;
  try {
    re = compileRegex(rt, query, "i");
  } catch (e) {
    if (e instanceof RegexError) return { names: [], diagnostic: `regex compile error: ${e.detail}` };
    throw e;
  }
  const hits = index
    .map((t) => ({ name: t.name, score: findAll(re, corpusText(t)).length }))
    .filter((h) => h.score > 0)
    .sort(byScoreThenName);
  if (hits.length === 0) return { names: [], diagnostic: "no tools matched your regex; widen the alternation or relax quantifiers" };
  return { names: hits.slice(0, MAX_RESULTS).map((h) => h.name), diagnostic: null };
}

/** Run the configured strategy over the deferred tools. */
export function runSearch(rt: Runtime, strategy: string, index: readonly ToolSpec[], query: string): SearchOutcome {
  if (query.trim() === "") return { names: [], diagnostic: "empty query; specify search terms or a regex pattern" };
  if (index.length === 0) return { names: [], diagnostic: "no deferred tools in the search index; declare tools with defer_loading: true to populate it" };
  if (strategy === "regex") return regex(rt, index, query);
  if (strategy === "bm25") return bm25(index, query);
  return {
    names: [],
    diagnostic: "tool_search strategy requires a host bridge but none is attached; run the VM via `harn run --bridge` or switch to bm25 / regex",
  };
}

/** `ceil(len(compact JSON of the tool's body) / 4)`. */
export function estimateTokens(t: ToolSpec): number {
  const body = { name: t.name, description: t.description, parameters: inputSchema(t.parameters) };
  return Math.ceil(JSON.stringify(body).length / 4);
}

/** Whether a tool goes into the client index: deferred and not always
 * loaded. */
export function isIndexed(config: ToolSearchConfig, t: ToolSpec): boolean {
  return t.deferLoading === true && !config.alwaysLoaded.includes(t.name);
}

/** The tools the model is offered by one `llm_call` (or stream): with
 * tool search, the native meta-tool and flags, or the client-mode search
 * tool in place of the deferred tools (no promotion without a loop). */
export function callTools(options: HDict, provider: string, model: string): LlmToolDefinition[] {
  const specs = toolEntries(options.get("tools"))
    .entries.map(specOf)
    .filter((s): s is ToolSpec => s !== null);
  const config = readToolSearch(options.get("tool_search"));
  if (config === null || specs.length === 0) return specs.map((s) => nativeDefinition(s));
  const r = resolveSearch(config, provider, model, options, specs);
  if (r.mode === "native") return [nativeMetaTool(r, specs), ...specs.map((s) => nativeDefinition(s, true))];
  return [searchToolSpec(config), ...specs.filter((s) => !isIndexed(config, s))].map((s) => nativeDefinition(s));
}
