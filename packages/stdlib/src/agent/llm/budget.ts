/**
 * Prices and the budget envelope (spec/agents.md §3.10): before a call is
 * sent (to a provider or the mock), its tokens and cost are projected and
 * checked against `budget: {max_input_tokens, max_output_tokens,
 * max_cost_usd, total_budget_usd}` (the same keys also at the top level of
 * the options). `total_budget_usd` compares the runtime's accumulated LLM
 * cost plus the projection.
 */
import { float, HarnError, HDict, HFloat, RuntimeSlot, type Runtime, type Value } from "@harn/vm";
import type { LlmMessage, LlmToolDefinition } from "../../llm/types";
import { pricingOf } from "../../llm/catalog";

/** Per-token input and output rates of a model, or null when unpriced
 * (the prices are the model table's, llm/catalog.ts). */
export function rates(model: string): { input: number; output: number } | null {
  const p = pricingOf(model);
  return p === null ? null : { input: p.input / 1_000_000, output: p.output / 1_000_000 };
}

export function costUsd(model: string, inputTokens: number, outputTokens: number): number {
  const r = rates(model);
  return r === null ? 0 : inputTokens * r.input + outputTokens * r.output;
}

/** Savings from prompt caching at the catalog's cache prices (models
 * without them save nothing). */
export function cacheSavings(model: string, read: number, write: number): number {
  const p = pricingOf(model);
  if (p === null || p.cacheRead === null || p.cacheWrite === null) return 0;
  return (read * (p.input - p.cacheRead) + write * (p.input - p.cacheWrite)) / 1_000_000;
}

/** What a runtime's LLM calls have used so far (`total_budget_usd`,
 * `llm_usage`, `llm_session_cost`, `llm_budget_remaining`). */
export interface Usage {
  usd: number;
  inputTokens: number;
  outputTokens: number;
  durationMs: number;
  calls: number;
  /** `llm_budget(max_usd)`, or null. */
  budgetUsd: number | null;
}

export const USAGE = new RuntimeSlot<Usage>("agent.llm_usage", () => ({ usd: 0, inputTokens: 0, outputTokens: 0, durationMs: 0, calls: 0, budgetUsd: null }));

export function recordUsage(rt: Runtime, res: { model: string; input_tokens: number; output_tokens: number }, durationMs: number): void {
  const u = rt.slot(USAGE);
  u.usd += costUsd(res.model, res.input_tokens, res.output_tokens);
  u.inputTokens += res.input_tokens;
  u.outputTokens += res.output_tokens;
  u.durationMs += Math.max(0, Math.round(durationMs));
  u.calls++;
}

const LIMIT_KEYS = ["max_input_tokens", "max_output_tokens", "max_cost_usd", "total_budget_usd"] as const;
type LimitKey = (typeof LIMIT_KEYS)[number];
export type Budget = Partial<Record<LimitKey, number>>;

function number(v: Value): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof HFloat) return v.v;
  return undefined;
}

/** The budget of a call, or null when it has none. */
export function readBudget(options: HDict): Budget | null {
  const nested = options.get("budget");
  const sources = [options, ...(nested instanceof HDict ? [nested] : [])];
  const out: Budget = {};
  let any = false;
  for (const src of sources) {
    for (const key of LIMIT_KEYS) {
      if (!src.has(key) || src.get(key) === null) continue;
      const v = src.get(key);
      const n = number(v);
      const tokens = key.endsWith("_tokens");
      if (n === undefined || n < 0 || (tokens && !(typeof v === "number" || typeof v === "bigint"))) {
        throw HarnError.thrown(`budget.${key}: expected a non-negative ${tokens ? "integer" : "number"}`);
      }
      out[key] = n;
      any = true;
    }
  }
  return any ? out : null;
}

function textTokens(s: string): number {
  return Math.ceil(Buffer.byteLength(s, "utf8") / 4);
}

function jsonTokens(x: unknown): number {
  if (typeof x === "string") return textTokens(x);
  if (Array.isArray(x)) return x.reduce((n: number, y) => n + jsonTokens(y), 0);
  if (x !== null && typeof x === "object") {
    let n = 0;
    for (const [k, v] of Object.entries(x)) if (v !== undefined) n += textTokens(k) + jsonTokens(v);
    return n;
  }
  return 1;
}

/** Projected input tokens: system prompt, every string leaf and key of the
 * messages, and the serialised native tools. */
export function projectInput(system: string | null, messages: readonly LlmMessage[], tools: readonly LlmToolDefinition[] | null): number {
  return (system ? textTokens(system) : 0) + jsonTokens(messages) + (tools && tools.length > 0 ? textTokens(JSON.stringify(tools)) : 0);
}

export interface Projection {
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
}

/**
 * A call's budget with the run's `llm_budget(max_usd)` as its
 * `total_budget_usd` when the call sets none. [TS decision] agents-surface.md
 * §8.2 says only that `llm_budget` sets the maximum `llm_budget_remaining`
 * counts down from; a user setting it expects calls that would overspend
 * it to be refused, so it is enforced like `total_budget_usd` (§3.10).
 */
export function withRunBudget(rt: Runtime, budget: Budget | null): Budget | null {
  const max = rt.slot(USAGE).budgetUsd;
  if (max === null || budget?.total_budget_usd !== undefined) return budget;
  return { ...budget, total_budget_usd: max };
}

/** The first limit the projected call exceeds, as `llm_call` throws it
 * (a dict), or null when the call fits. */
export function overBudget(rt: Runtime, budget: Budget, p: Projection): HarnError | null {
  const cost = costUsd(p.model, p.inputTokens, p.outputTokens);
  const spent = rt.slot(USAGE).usd;
  const checks: [LimitKey, number, string][] = [
    ["max_input_tokens", p.inputTokens, `projected input tokens (${p.inputTokens})`],
    ["max_output_tokens", p.outputTokens, `projected output tokens (${p.outputTokens})`],
    ["max_cost_usd", cost, `projected cost ($${cost.toFixed(6)})`],
    ["total_budget_usd", spent + cost, `session cost plus projected cost ($${(spent + cost).toFixed(6)})`],
  ];
  for (const [key, value, what] of checks) {
    const limit = budget[key];
    if (limit === undefined || value <= limit) continue;
    return HarnError.thrown(
      new HDict(
        new Map<string, Value>([
          ["category", "budget_exceeded"],
          ["kind", "terminal"],
          ["reason", "budget_exceeded"],
          ["limit", key],
          ["limit_value", key.endsWith("_tokens") ? limit : float(limit)],
          ["projected_cost_usd", float(cost)],
          ["session_cost_usd", float(spent)],
          ["projected_input_tokens", p.inputTokens],
          ["projected_output_tokens", p.outputTokens],
          ["provider", p.provider],
          ["model", p.model],
          ["message", `LLM budget exceeded before provider call: ${what} would exceed ${key}`],
        ]),
      ),
    );
  }
  return null;
}

/** Whether an over-budget error is the `total_budget_usd` one (an agent
 * loop stops with `budget_exhausted` instead of throwing it). */
export function isTotalBudget(e: HarnError): boolean {
  return e.value instanceof HDict && e.value.get("limit") === "total_budget_usd";
}
