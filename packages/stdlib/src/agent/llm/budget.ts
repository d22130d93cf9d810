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

/** USD per million input/output tokens; first substring match wins. */
const PRICING: ReadonlyArray<readonly [string[], number, number]> = [
  [["claude-3-5-haiku", "claude-haiku-4"], 0.8, 4.0],
  [["claude-3-5-sonnet", "claude-sonnet-4"], 3.0, 15.0],
  [["claude-3-opus", "claude-opus-4"], 15.0, 75.0],
  [["gpt-4o-mini"], 0.15, 0.6],
  [["gpt-4o"], 2.5, 10.0],
  [["gpt-4-turbo"], 10.0, 30.0],
  [["o1-mini"], 3.0, 12.0],
  [["o1", "o3"], 15.0, 60.0],
];

/** Per-token input and output rates of a model, or null when unpriced. */
export function rates(model: string): { input: number; output: number } | null {
  for (const [names, input, output] of PRICING) {
    if (names.some((n) => model.includes(n))) return { input: input / 1_000_000, output: output / 1_000_000 };
  }
  return null;
}

export function costUsd(model: string, inputTokens: number, outputTokens: number): number {
  const r = rates(model);
  return r === null ? 0 : inputTokens * r.input + outputTokens * r.output;
}

/** Savings from prompt caching: Claude models read cache at 10 % and write
 * it at 125 % of the input rate; other models have no cache prices. */
export function cacheSavings(model: string, read: number, write: number): number {
  const r = rates(model);
  if (r === null || !model.includes("claude")) return 0;
  return read * (r.input - r.input * 0.1) + write * (r.input - r.input * 1.25);
}

/** The LLM cost a runtime has spent so far (for `total_budget_usd`). */
export const SPENT = new RuntimeSlot<{ usd: number }>("agent.llm_cost", () => ({ usd: 0 }));

export function recordCost(rt: Runtime, model: string, inputTokens: number, outputTokens: number): void {
  rt.slot(SPENT).usd += costUsd(model, inputTokens, outputTokens);
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

/** The first limit the projected call exceeds, as `llm_call` throws it
 * (a dict), or null when the call fits. */
export function overBudget(rt: Runtime, budget: Budget, p: Projection): HarnError | null {
  const cost = costUsd(p.model, p.inputTokens, p.outputTokens);
  const spent = rt.slot(SPENT).usd;
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
