/**
 * Agent-loop options (spec/agents.md §2.2–§2.3, extensions.md §1.3 and §2).
 */
import { display, HarnError, HBuiltinRef, HClosure, HDict, HDuration, type Value } from "@harn/vm";
import { num } from "../llm/options";
import { DEFAULT_FEEDBACK_MAX_BYTES } from "./bounded";

interface Profile {
  maxIterations: number;
  maxNudges: number;
  toolRetries: number;
  llmRetries: number;
  schemaRetries: number;
}

const PROFILES: Readonly<Record<string, Profile>> = {
  tool_using: { maxIterations: 50, maxNudges: 8, toolRetries: 0, llmRetries: 2, schemaRetries: 0 },
  researcher: { maxIterations: 30, maxNudges: 4, toolRetries: 0, llmRetries: 2, schemaRetries: 0 },
  verifier: { maxIterations: 5, maxNudges: 0, toolRetries: 0, llmRetries: 2, schemaRetries: 3 },
  completer: { maxIterations: 1, maxNudges: 0, toolRetries: 0, llmRetries: 2, schemaRetries: 0 },
};

export const AGENT_LOOP_BACKOFF_MS = 2000;

export type OnPending = "continue" | "yield" | "wait";

export interface LoopSettings {
  profile: Profile;
  persistent: boolean;
  maxIterations: number;
  maxNudges: number;
  nudge: string | null;
  toolFormat: "text" | "native";
  /** Text-protocol calls in a native-format reply: always, once, never. */
  nativeToolFallback: "allow" | "allow_once" | "reject";
  toolRetries: number;
  toolBackoffMs: number;
  /** Named session (`session_id` given), or null for an anonymous one. */
  sessionId: string | null;
  doneSentinel: string;
  tokenBudget: number | null;
  stopAfterSuccessfulTools: string[] | null;
  requireSuccessfulTools: string[] | null;
  postTurnCallback: Value;
  onPending: OnPending;
  /** `wait` mode: how long a batch may wait for its pending calls. */
  pendingTimeoutMs: number;
  backgroundTasks: boolean;
  maxBackgroundTasks: number;
  backgroundOptions: HDict | null;
  /** Cap, in UTF-8 bytes, of a text a tool or the feedback queue hands
   * the model (bounded.ts); 0: no cap. */
  feedbackMaxBytes: number;
}

/** Default bound of an `on_pending: "wait"` batch: long enough for real
 * work, short enough that a forgotten resolution cannot hang a run. */
export const DEFAULT_PENDING_TIMEOUT_MS = 10 * 60 * 1000;

function names(v: Value): string[] | null {
  if (!Array.isArray(v)) return null;
  return v.map((x) => (typeof x === "string" ? x : display(x)));
}

export function durationMs(v: Value): number | undefined {
  if (v instanceof HDuration) return v.ms;
  return num(v);
}

export function profileOf(options: HDict): Profile {
  const p = options.get("profile");
  if (p === null) return PROFILES.tool_using!;
  const name = typeof p === "string" ? p : display(p);
  const profile = PROFILES[name];
  if (!profile) throw HarnError.runtime(`agent_loop: profile must be one of tool_using, researcher, verifier, completer; got \`${name}\``);
  return profile;
}

/** `feedback_max_bytes`: an int >= 0 (0 turns the cap off), default 50,000. */
function feedbackMaxBytes(v: Value): number {
  if (v === null) return DEFAULT_FEEDBACK_MAX_BYTES;
  if (typeof v === "number" && Number.isInteger(v) && v >= 0) return v;
  if (typeof v === "bigint" && v >= 0n) return 0;
  throw HarnError.runtime(`agent_loop: feedback_max_bytes must be an int >= 0 (0: no cap); got \`${display(v)}\``);
}

export function readLoopSettings(options: HDict): LoopSettings {
  const profile = profileOf(options);
  const fallback = options.get("native_tool_fallback");
  if (fallback !== null && !["allow", "allow_once", "reject"].includes(fallback as string)) {
    throw HarnError.runtime(`agent_loop: native_tool_fallback must be one of allow, allow_once, reject; got \`${display(fallback)}\``);
  }
  const onPending = options.get("on_pending") ?? "continue";
  if (onPending !== "continue" && onPending !== "yield" && onPending !== "wait") {
    throw HarnError.runtime(`agent_loop: on_pending must be one of continue, yield, wait; got \`${display(onPending)}\``);
  }
  const format = options.get("tool_format");
  if (format !== null && format !== "text" && format !== "native") {
    throw HarnError.runtime(`agent_loop: tool_format must be one of text, native; got \`${display(format)}\``);
  }
  const session = options.get("session_id");
  const callback = options.get("post_turn_callback");
  const nudge = options.get("nudge");
  const sentinel = options.get("done_sentinel");
  const bg = options.get("background_options");
  return {
    profile,
    persistent: options.get("persistent") === true,
    maxIterations: Math.max(0, num(options.get("max_iterations")) ?? profile.maxIterations),
    maxNudges: Math.max(0, num(options.get("max_nudges")) ?? profile.maxNudges),
    nudge: typeof nudge === "string" && nudge !== "" ? nudge : null,
    toolFormat: format === "native" ? "native" : "text",
    nativeToolFallback: fallback === "reject" || fallback === "allow_once" ? fallback : "allow",
    toolRetries: Math.max(0, num(options.get("tool_retries")) ?? profile.toolRetries),
    toolBackoffMs: Math.max(0, num(options.get("tool_backoff_ms")) ?? 1000),
    sessionId: typeof session === "string" && session !== "" ? session : null,
    doneSentinel: typeof sentinel === "string" && sentinel !== "" ? sentinel : "##DONE##",
    tokenBudget: num(options.get("token_budget")) ?? null,
    stopAfterSuccessfulTools: names(options.get("stop_after_successful_tools")),
    requireSuccessfulTools: names(options.get("require_successful_tools")),
    postTurnCallback: callback instanceof HClosure || callback instanceof HBuiltinRef ? callback : null,
    onPending,
    pendingTimeoutMs: Math.max(0, durationMs(options.get("pending_timeout_ms")) ?? DEFAULT_PENDING_TIMEOUT_MS),
    backgroundTasks: options.get("background_tasks") === true,
    maxBackgroundTasks: Math.max(1, num(options.get("max_background_tasks")) ?? 4),
    backgroundOptions: bg instanceof HDict ? bg : null,
    feedbackMaxBytes: feedbackMaxBytes(options.get("feedback_max_bytes")),
  };
}
