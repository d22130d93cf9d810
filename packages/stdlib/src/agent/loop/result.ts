/**
 * The loop result dict (spec/agents.md §2.10) and, for
 * `input_required`, the pending calls and the resumable state
 * (extensions.md §1.3–§1.4).
 */
import { HDict, type Runtime, type Value } from "@harn/vm";
import type { Msg } from "./transcript";
import { visibleText } from "../tools/text_protocol";
import { buildTranscript } from "../transcript/values";
import { fromJson, type Json, type JsonObject } from "../../core/json";

export type LoopStatus = "done" | "stuck" | "budget_exhausted" | "failed" | "input_required" | "idle" | "watchdog" | "interrupted";

/** A long-running tool call whose final result has not arrived. */
export interface PendingCall {
  call_id: string;
  tool: string;
  args: JsonObject;
  /** The initial response, as JSON. */
  initial: Json;
  /** The handle whose completion is this call's final result. */
  handle_id: string | null;
}

/** The counters and texts a loop accumulates (all JSON, so a yielded
 * state can be persisted and resumed in a later process). */
export interface LoopProgress {
  iteration: number;
  text: string;
  lastText: string;
  inputTokens: number;
  outputTokens: number;
  calls: string[];
  successful: string[];
  rejected: string[];
  consecutiveTextOnly: number;
  consecutiveSingleToolTurns: number;
  toolEverCalled: boolean;
  pending: PendingCall[];
  /** The transcript summary built by compaction (§2.14), if any. */
  summary?: string | null;
  /** Runtime events recorded so far (agents-surface.md §1.10), as JSON so
   * a yielded state keeps them. */
  events?: Json[];
}

export function newProgress(): LoopProgress {
  return {
    iteration: 0,
    text: "",
    lastText: "",
    inputTokens: 0,
    outputTokens: 0,
    calls: [],
    successful: [],
    rejected: [],
    consecutiveTextOnly: 0,
    consecutiveSingleToolTurns: 0,
    toolEverCalled: false,
    pending: [],
  };
}

export interface ResultInput {
  rt: Runtime;
  status: LoopStatus;
  sessionId: string;
  messages: Msg[];
  progress: LoopProgress;
  durationMs: number;
  toolMode: string;
  /** Present for `input_required`: what `agent_resume` needs. */
  resume: JsonObject | null;
  /** Daemon loops (§4.1): the final daemon state and snapshot file. */
  daemon?: { state: string; snapshotPath: string | null };
}

function dict(entries: [string, Value][]): HDict {
  return new HDict(new Map(entries));
}

/** The transcript of a loop or call (agents-surface.md §1.10): JSON
 * messages, then the recorded runtime events. */
export function transcriptDict(rt: Runtime, id: string, messages: Msg[], state: string, summary: string | null = null, events: readonly Json[] = []): HDict {
  return buildTranscript(rt, {
    id,
    messages: fromJson(messages as unknown as Json) as Value[],
    extras: events.map((e) => fromJson(e)),
    summary,
    state,
  });
}

export function pendingList(pending: PendingCall[]): Value {
  return pending.map((p) =>
    dict([
      ["call_id", p.call_id],
      ["tool", p.tool],
      ["args", fromJson(p.args)],
      ["initial", fromJson(p.initial)],
    ]),
  );
}

export function resultDict(r: ResultInput): HDict {
  const p = r.progress;
  const entries: [string, Value][] = [
    ["status", r.status],
    ["text", p.text],
    ["visible_text", visibleText(p.lastText)],
    [
      "llm",
      dict([
        ["iterations", p.iteration],
        ["duration_ms", Math.max(0, Math.round(r.durationMs))],
        ["input_tokens", p.inputTokens],
        ["output_tokens", p.outputTokens],
      ]),
    ],
    [
      "tools",
      dict([
        ["calls", p.calls.slice()],
        ["successful", p.successful.slice()],
        ["rejected", p.rejected.slice()],
        ["mode", r.toolMode],
      ]),
    ],
    ["transcript", transcriptDict(r.rt, r.sessionId, r.messages, r.status === "done" ? "active" : "paused", p.summary ?? null, p.events ?? [])],
    ["deferred_user_messages", []],
    ["daemon_state", r.daemon ? r.daemon.state : p.iteration > 0 ? "active" : "idle"],
    ["daemon_snapshot_path", r.daemon?.snapshotPath ?? null],
  ];
  // Also after a partial resume or any end with calls still pending: the
  // script sees what never got its result.
  if (r.status === "input_required" || p.pending.length > 0) entries.push(["pending_tool_calls", pendingList(p.pending)]);
  if (r.status === "input_required") entries.push(["resume", fromJson(r.resume)]);
  return dict(entries);
}
