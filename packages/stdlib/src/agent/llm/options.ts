/**
 * The LLM options shared by `llm_call` and `agent_loop` (spec/agents.md
 * §2.2), read from a Harn options dict, and the provider target they
 * resolve to (§5.1, with mock interception of §3.1).
 */
import { display, HarnError, HDict, HDuration, HFloat, type Runtime, type Value } from "@harn/vm";
import { LlmSetupError } from "../../llm/errors";
import { RetryBudget } from "../../llm/retry";
import type { LlmConfig } from "../../llm/config";
import { llmConfig } from "../../llm/config-read";
import type { ReprobePolicy, StickyFallback } from "../../llm/fallback";
import type { LlmEvent, LlmToolChoice } from "../../llm/types";
import { resolveStream, resolveTimeoutMs } from "../../llm/resolve";
import type { Asked } from "./gates";
import { mockState } from "../mock/state";
import { readBudget, type Budget } from "./budget";
import { agentClient } from "./client";
import { type JsonObject } from "../../core/json";

export const TRANSCRIPT_REMOVED =
  "llm_call / agent_loop: the `transcript` option was removed. Open or open-and-resume a session with agent_session_open(id) and pass `session_id: id` instead.";

export interface LlmSettings {
  /** The provider and model the script asked for (what errors report). */
  provider: string;
  model: string;
  /** Answered by the mock (provider `mock`, or mocks queued). */
  intercept: boolean;
  maxTokens: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string | string[];
  seed?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  timeoutMs: number;
  stream: boolean;
  toolChoice?: LlmToolChoice;
  retries: number;
  backoffMs: number;
  /** `fallback_chain`, then `[llm] fallback` of harn.toml. */
  fallbackChain?: string[];
  /** `[llm] fallback_models`, overridden entry by entry by the option. */
  fallbackModels?: Record<string, string>;
  /** When a loop that failed over asks its primary again
   * (`fallback_reprobe_turns` / `fallback_reprobe_ms`). */
  reprobe: ReprobePolicy;
  /** The loop's (or chat session's) memory of a fallback that answered. */
  sticky?: StickyFallback | null;
  thinking: JsonObject;
  /** `cache: true`: ask for prompt caching (the mock simulates it, §3.4). */
  cache: boolean;
  /** The budget envelope (§3.10), or null. */
  budget: Budget | null;
  /** Options that need a capability of the model (agents-surface.md §8.8). */
  asked: Asked;
  /** `retry_budget_ms` (extensions.md §3.4): time all retries of the
   * calls sharing it may take. The agent loop shares one per loop
   * (default 120 s); `llm_call` has one only when the option is given. */
  retryBudget: RetryBudget | null;
  /** The script's `on_event` callback, bound to its call context by the
   * builtin (which has the context); see `events.ts`. */
  onEvent?: ((ev: LlmEvent) => unknown) | null;
  /** Calls of a background sub-agent: Ctrl-C does not interrupt them
   * (extensions.md §2: they are stopped with the program). */
  background?: boolean;
}

/** Convert a provider-layer setup failure into the script-visible shape. */
export function setupError(e: LlmSetupError): HarnError {
  return e.shape === "thrown" ? HarnError.thrown(e.message) : HarnError.runtime(e.message);
}

export function num(v: Value): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof HFloat) return v.v;
  return undefined;
}

function str(v: Value): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

function toolChoice(v: Value): LlmToolChoice | undefined {
  if (v === "auto" || v === "none" || v === "required") return v;
  if (v instanceof HDict && typeof v.get("name") === "string") return { name: v.get("name") as string };
  return undefined;
}

/**
 * `thinking` normalised as §3.7 describes (a dict tagged by `mode`). The
 * spec gives the normalised shapes, not every spelling; accepted (a
 * decision, pinned by conformance/tests/agents/thinking_option_forms):
 * `true`, `"enabled"`, `"on"` or an int budget → enabled; `false`, nil,
 * `"disabled"`, `"off"`, `"none"` → disabled; `"adaptive"`; any other
 * string is an effort level (`"high"`, as `reasoning_effort` takes it);
 * a dict by its `mode` (or Anthropic's wire key `type`), `effort`/`level`
 * and `budget_tokens`. Without `thinking`, `reasoning_effort` gives the
 * effort form.
 */
function thinkingOf(options: HDict): JsonObject {
  const t = options.get("thinking");
  const effort = options.get("reasoning_effort");
  if (t === true) return { mode: "enabled", budget_tokens: null };
  const budget = num(t);
  if (budget !== undefined) return { mode: "enabled", budget_tokens: budget };
  if (typeof t === "string" && t.trim() !== "") {
    const word = t.trim().toLowerCase();
    if (word === "enabled" || word === "on") return { mode: "enabled", budget_tokens: null };
    if (word === "disabled" || word === "off" || word === "none") return { mode: "disabled" };
    if (word === "adaptive") return { mode: "adaptive" };
    return { mode: "effort", level: t.trim() };
  }
  if (t instanceof HDict) {
    const mode = t.get("mode") ?? t.get("type");
    if (mode === "adaptive") return { mode: "adaptive" };
    if (mode === "disabled" || t.get("enabled") === false) return { mode: "disabled" };
    const level = t.get("effort") ?? t.get("level");
    if (typeof level === "string") return { mode: "effort", level };
    return { mode: "enabled", budget_tokens: num(t.get("budget_tokens")) ?? null };
  }
  if (t === false) return { mode: "disabled" };
  if (typeof effort === "string" && effort !== "") return { mode: "effort", level: effort };
  return { mode: "disabled" };
}

/** `timeout`: seconds (agents.md §2.2), or a duration literal (`30s`). */
function timeoutSeconds(v: Value): number | undefined {
  return v instanceof HDuration ? v.ms / 1000 : num(v);
}

/** Milliseconds: a number, or a duration literal (`90s`). */
function millis(v: Value): number | undefined {
  return v instanceof HDuration ? v.ms : num(v);
}

function retryBudgetOf(options: HDict, config: LlmConfig): RetryBudget | null {
  const ms = millis(options.get("retry_budget_ms")) ?? config.retryBudgetMs;
  return ms === undefined ? null : new RetryBudget(Math.max(0, ms));
}

function fallbackChainOf(v: Value, config: LlmConfig): string[] {
  const given = typeof v === "string" ? v.split(",") : Array.isArray(v) ? v.filter((c): c is string => typeof c === "string") : [];
  return [...given.map((c) => c.trim()).filter((c) => c !== ""), ...config.fallback];
}

export interface LlmDefaults {
  retries: number;
  backoffMs: number;
}

/**
 * Read the LLM options. Resolves provider and model; unless the mock
 * answers, checks that the provider's API key is there (§5.1: the key check
 * happens when options are parsed, before any request).
 */
export function readLlmSettings(rt: Runtime, options: HDict, defaults: LlmDefaults): LlmSettings {
  if (options.has("transcript")) throw HarnError.thrown(TRANSCRIPT_REMOVED);
  const client = agentClient(rt);
  let target;
  try {
    target = client.resolve({
      provider: str(options.get("provider")),
      model: str(options.get("model")),
      model_tier: str(options.get("model_tier")),
    });
  } catch (e) {
    if (e instanceof LlmSetupError) throw setupError(e);
    throw e;
  }
  let config: LlmConfig;
  try {
    config = llmConfig(rt);
  } catch (e) {
    if (e instanceof LlmSetupError) throw setupError(e);
    throw e;
  }
  const intercept = target.provider === "mock" || mockState(rt).intercepting;
  if (!intercept) {
    try {
      client.requireKey(target.provider);
    } catch (e) {
      if (e instanceof LlmSetupError) throw setupError(e);
      throw e;
    }
  }
  const stop = options.get("stop");
  const chain = options.get("fallback_chain");
  const models = options.get("fallback_models");
  const settings: LlmSettings = {
    provider: target.provider,
    model: target.model,
    intercept,
    maxTokens: num(options.get("max_tokens")) ?? 16384,
    temperature: num(options.get("temperature")),
    topP: num(options.get("top_p")),
    topK: num(options.get("top_k")),
    stop: typeof stop === "string" ? stop : Array.isArray(stop) ? stop.map((s) => (typeof s === "string" ? s : display(s))) : undefined,
    seed: num(options.get("seed")),
    frequencyPenalty: num(options.get("frequency_penalty")),
    presencePenalty: num(options.get("presence_penalty")),
    timeoutMs: resolveTimeoutMs(timeoutSeconds(options.get("timeout")), rt.env),
    stream: resolveStream(typeof options.get("stream") === "boolean" ? (options.get("stream") as boolean) : null, rt.env),
    toolChoice: toolChoice(options.get("tool_choice")),
    retries: Math.max(0, num(options.get("llm_retries")) ?? config.retries ?? defaults.retries),
    backoffMs: Math.max(0, num(options.get("llm_backoff_ms")) ?? defaults.backoffMs),
    thinking: thinkingOf(options),
    cache: options.get("cache") === true,
    budget: readBudget(options),
    asked: { vision: options.get("vision") === true, audio: options.get("audio") === true, pdf: options.get("pdf") === true },
    retryBudget: retryBudgetOf(options, config),
    fallbackChain: fallbackChainOf(chain, config),
    fallbackModels: { ...config.fallbackModels },
    reprobe: {
      turns: num(options.get("fallback_reprobe_turns")) ?? config.reprobeTurns,
      ms: millis(options.get("fallback_reprobe_ms")) ?? config.reprobeMs,
    },
  };
  if (models instanceof HDict) {
    for (const k of models.keys()) {
      const m = models.get(k);
      if (typeof m === "string") settings.fallbackModels![k] = m;
    }
  }
  return settings;
}
