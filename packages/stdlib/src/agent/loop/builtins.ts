/**
 * `agent_loop` (spec/agents.md §2.1, positional and dict form),
 * `agent_resume`, `agent_update`, `agent_resolve` (extensions.md §1.4–§1.5)
 * and `agent_session_current_id` (§2.11).
 */
import { display, HarnError, HBuiltinRef, HClosure, HDict, type CallContext, type Runtime, type Value } from "@harn/vm";
import { fromJson, isJsonObject, type Json, jsonNumber, type JsonObject, stringifyJsonKeepingFloats, toJson } from "../../core/json";
import { longRunState } from "../../longrun/index";
import { agentSessions } from "../sessions";
import { resultText } from "../tools/dispatch";
import { newProgress, resultDict, type LoopProgress, type PendingCall } from "./result";
import { TOOL_UPDATE_KIND, type LoopStart } from "./run";
import { runAgentLoop } from "./start";
import { appendUpdate, messagesFromJson, type Msg } from "./transcript";
import { builtinModule } from "../../registry/define";

function text(v: Value): string {
  return typeof v === "string" ? v : display(v);
}

/** The call forms of §2.1. */
function loopStart(args: Value[]): LoopStart {
  if (args.length === 1 && args[0] instanceof HDict) {
    const d = args[0];
    const task = d.get("task") ?? d.get("prompt");
    if (task === null && !d.has("messages")) throw HarnError.runtime("agent_loop: dict form requires `task`, `prompt` or `messages`");
    const system = d.get("system");
    const options = d.without("task").without("prompt").without("system");
    return { task: task === null ? null : text(task), system: system === null ? null : text(system), options };
  }
  const task = args[0] ?? null;
  const system = args[1] ?? null;
  const options = args[2] instanceof HDict ? args[2] : HDict.empty();
  return { task: task === null ? "" : text(task), system: system === null ? null : text(system), options };
}

/** A yielded state: the result dict of an `input_required` loop, as it
 * came back (possibly through `json_stringify` / `json_parse`), or the
 * session id of a named session that yielded. */
interface Yielded {
  resume: JsonObject;
  messages: Msg[];
  progress: LoopProgress;
}

function yieldedState(rt: Runtime, state: Value, builtin: string): Yielded {
  let dict: JsonObject | null = null;
  let stored: Msg[] | null = null;
  if (typeof state === "string") {
    const sessions = agentSessions(rt);
    const session = sessions.get(state);
    if (!session?.paused) throw HarnError.runtime(`${builtin}: session '${state}' has no yielded loop to resume`);
    // the paused state holds no transcript: the named session keeps it
    dict = session.paused;
    stored = sessions.messages(state);
  } else if (state instanceof HDict) {
    const j = toJson(state);
    if (isJsonObject(j) && isJsonObject(j.resume)) {
      const t = j.transcript;
      dict = { ...j.resume, messages: isJsonObject(t) ? (t.messages ?? []) : [] };
    }
  }
  if (!dict || !isJsonObject(dict.progress)) {
    throw HarnError.runtime(`${builtin}: expected the result of a loop that stopped with status "input_required" (or its session id)`);
  }
  if (typeof dict.session_id !== "string" || dict.session_id === "") {
    throw HarnError.runtime(`${builtin}: malformed yielded state: resume.session_id must be a non-empty string`);
  }
  const messages = stored !== null ? stored.slice() : messagesFromJson(dict.messages ?? []);
  return { resume: dict, messages, progress: progressFrom(dict.progress, builtin) };
}

/**
 * The loop progress of a yielded state, checked field by field: the state
 * may come back from JSON written by another process (or edited by hand),
 * and a wrong shape must be a clear error, not a crash inside the loop.
 */
function progressFrom(x: JsonObject, builtin: string): LoopProgress {
  const count = (v: Json | undefined) => {
    const n = jsonNumber(v);
    return n !== undefined && Number.isInteger(n) && n >= 0 ? n : 0;
  };
  const text = (v: Json | undefined) => (typeof v === "string" ? v : "");
  const names = (v: Json | undefined) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : []);
  const rawPending = x.pending ?? [];
  if (!Array.isArray(rawPending)) throw HarnError.runtime(`${builtin}: malformed yielded state: progress.pending must be a list`);
  const pending: PendingCall[] = rawPending.map((c, i) => {
    if (!isJsonObject(c) || typeof c.call_id !== "string" || typeof c.tool !== "string") {
      throw HarnError.runtime(`${builtin}: malformed yielded state: pending call ${i + 1} needs a string call_id and tool`);
    }
    return {
      call_id: c.call_id,
      tool: c.tool,
      args: isJsonObject(c.args) ? c.args : {},
      initial: c.initial ?? null,
      handle_id: typeof c.handle_id === "string" ? c.handle_id : null,
    };
  });
  return {
    ...newProgress(),
    iteration: count(x.iteration),
    text: text(x.text),
    lastText: text(x.lastText),
    inputTokens: count(x.inputTokens),
    outputTokens: count(x.outputTokens),
    calls: names(x.calls),
    successful: names(x.successful),
    rejected: names(x.rejected),
    consecutiveTextOnly: count(x.consecutiveTextOnly),
    consecutiveSingleToolTurns: count(x.consecutiveSingleToolTurns),
    toolEverCalled: x.toolEverCalled === true,
    pending,
    summary: typeof x.summary === "string" ? x.summary : null,
    events: Array.isArray(x.events) ? x.events : [],
  };
}

/** `results`: `{call_id: value}` or a list of `{call_id, result}` /
 * `{call_id, error}`. */
function resultTexts(results: Value): Map<string, string> {
  const out = new Map<string, string>();
  if (results instanceof HDict) {
    for (const id of results.keys()) out.set(id, resultText(results.get(id)));
  } else if (Array.isArray(results)) {
    for (const r of results) {
      if (!(r instanceof HDict)) continue;
      const id = r.get("call_id");
      if (typeof id !== "string") throw HarnError.runtime("agent_resume: every result needs a string `call_id`");
      out.set(id, r.has("error") ? `Error: ${text(r.get("error"))}` : resultText(r.get("result")));
    }
  } else if (results !== null) {
    throw HarnError.runtime("agent_resume: results must be a dict {call_id: value} or a list of {call_id, result} / {call_id, error}");
  }
  return out;
}

function applyResults(y: Yielded, results: Map<string, string>): void {
  const pending = y.progress.pending;
  for (const id of results.keys()) {
    if (!pending.some((p) => p.call_id === id)) {
      const ids = pending.map((p) => p.call_id);
      throw HarnError.runtime(`agent_resume: unknown tool call id '${id}' (pending: ${ids.length > 0 ? ids.join(", ") : "none"})`);
    }
  }
  for (const [id, t] of results) appendUpdate(y.messages, id, t);
  y.progress.pending = pending.filter((p) => !results.has(p.call_id));
}

async function agentResume(args: Value[], ctx: CallContext): Promise<Value> {
  const rt = ctx.runtime;
  const y = yieldedState(rt, args[0] ?? null, "agent_resume");
  applyResults(y, resultTexts(args[1] ?? null));
  const extra = args[2] instanceof HDict ? args[2] : HDict.empty();
  const r = y.resume;
  const sessionId = String(r.session_id);
  const anonymous = r.anonymous === true;
  if (y.progress.pending.length > 0 && extra.get("partial") !== true) {
    // Still waiting for some calls: no model call is made.
    const resume: JsonObject = { ...r, progress: structuredClone(y.progress) as unknown as Json };
    delete resume.messages;
    if (!anonymous) storeYielded(rt, sessionId, y.messages, resume);
    return resultDict({
      rt,
      status: "input_required",
      sessionId,
      messages: y.messages,
      progress: y.progress,
      durationMs: 0,
      toolMode: (isJsonObject(r.options) && r.options.tool_format === "native") ? "native" : "text",
      resume,
    });
  }
  const base = fromJson(isJsonObject(r.options) ? r.options : {}) as HDict;
  const m = new Map(base.map);
  for (const k of extra.keys()) if (k !== "partial") m.set(k, extra.get(k));
  if (!anonymous) m.set("session_id", sessionId);
  return runAgentLoop(ctx, {
    task: null,
    system: typeof r.system === "string" ? r.system : null,
    options: new HDict(m),
    resumed: {
      sessionId,
      anonymous,
      messages: y.messages,
      progress: y.progress,
      tools: Array.isArray(r.tools) ? r.tools.filter(isJsonObject) : [],
    },
  });
}

/** `agent_update(state_or_session, call_id, update)`: a progress (or final)
 * response for a pending call. A live loop (session id) picks it up at its
 * next preflight; a yielded state comes back with the update recorded. */
function agentUpdate(args: Value[], ctx: CallContext, builtin: string, final: boolean): Value {
  const target = args[0] ?? null;
  const callId = args[1] ?? null;
  if (typeof callId !== "string") throw HarnError.runtime(`${builtin}: call_id must be a string`);
  const value = args[2] ?? null;
  const update: JsonObject = final ? { call_id: callId, status: "completed", text: resultText(value) } : updateBody(callId, value);
  if (typeof target === "string" && !agentSessions(ctx.runtime).get(target)?.paused) {
    longRunState(ctx.runtime).inject(target, TOOL_UPDATE_KIND, stringifyJsonKeepingFloats(update));
    return null;
  }
  const y = yieldedState(ctx.runtime, target, builtin);
  const call = y.progress.pending.find((p: PendingCall) => p.call_id === callId);
  if (!call) {
    const ids = y.progress.pending.map((p) => p.call_id);
    throw HarnError.runtime(`${builtin}: unknown tool call id '${callId}' (pending: ${ids.length > 0 ? ids.join(", ") : "none"})`);
  }
  appendUpdate(y.messages, callId, typeof update.text === "string" ? update.text : resultText(value));
  if (final) y.progress.pending = y.progress.pending.filter((p) => p !== call);
  const resume: JsonObject = { ...y.resume, progress: structuredClone(y.progress) as unknown as Json };
  delete resume.messages;
  if (typeof target === "string") storeYielded(ctx.runtime, target, y.messages, resume);
  return resultDict({
    rt: ctx.runtime,
    status: "input_required",
    sessionId: String(y.resume.session_id),
    messages: y.messages,
    progress: y.progress,
    durationMs: 0,
    toolMode: isJsonObject(y.resume.options) && y.resume.options.tool_format === "native" ? "native" : "text",
    resume,
  });
}

/** A yielded loop's conversation and state, kept in its named session. */
function storeYielded(rt: Runtime, sessionId: string, messages: Msg[], resume: JsonObject): void {
  agentSessions(rt).setMessages(sessionId, fromJson(messages as unknown as Json) as Value[], { ...resume, messages: messages as unknown as Json });
}

function updateBody(callId: string, value: Value): JsonObject {
  if (value instanceof HDict) {
    const j = toJson(value) as JsonObject;
    return { ...j, call_id: callId, status: typeof j.status === "string" ? j.status : "running", text: display(value) };
  }
  return { call_id: callId, status: "running", text: resultText(value) };
}

/** `agent_subscribe(session_id, callback)` (§2.12, P2): agent events of
 * that session (`{type: "feedback_injected", session_id, kind, content}`
 * per injected feedback item) go to the callback. */
function agentSubscribe(args: Value[], ctx: CallContext): Value {
  const prefix = "agent_subscribe(session_id, callback): ";
  const sessionId = args[0];
  if (typeof sessionId !== "string") throw HarnError.runtime(`${prefix}session_id must be a string`);
  const cb = args[1];
  if (cb === undefined || cb === null) throw HarnError.runtime(`${prefix}callback closure required`);
  if (!(cb instanceof HClosure || cb instanceof HBuiltinRef)) throw HarnError.runtime(`${prefix}callback must be a closure`);
  const subs = agentSessions(ctx.runtime).subscribers;
  subs.set(sessionId, [...(subs.get(sessionId) ?? []), cb]);
  return null;
}

export const AGENT_LOOP_BUILTINS = builtinModule("agent/loop/builtins", (def) => {
  def("agent_subscribe", agentSubscribe);
  def("agent_loop", (args, ctx) => runAgentLoop(ctx, loopStart(args)));
  def("agent_resume", agentResume);
  def("agent_update", (args, ctx) => agentUpdate(args, ctx, "agent_update", false));
  def("agent_resolve", (args, ctx) => agentUpdate(args, ctx, "agent_resolve", true));
  def("agent_session_current_id", (_args, ctx) => {
    const id = ctx.sessionId;
    return id === undefined || id === "" ? null : id;
  });
});
