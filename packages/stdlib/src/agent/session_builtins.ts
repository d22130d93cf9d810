/**
 * `agent_session_*`: scripts managing named sessions (spec/agents.md §2.11)
 * directly, on top of the per-runtime store `agentSessions(rt).named` that
 * `agent_loop(..., {session_id})` reads its prefix from and stores its final
 * transcript into. The spec lists only the names (stdlib.md §1.2, §25); the
 * semantics below are ours.
 *
 * [TS decision] The builtins:
 * - `agent_session_open(id?) -> string`: opens the named session `id`,
 *   creating it empty if it does not exist (an existing one is left as it
 *   is); with nil or "" a new id `agent_session_<uuidv7>` is minted. A
 *   following `agent_loop(task, nil, {session_id: id})` continues it.
 * - `agent_session_exists(id) -> bool`.
 * - `agent_session_length(id) -> int`: the number of stored messages.
 * - `agent_session_snapshot(id) -> dict`: a copy of the stored conversation
 *   in the shape of `agent_loop(...).transcript` (`_type: "transcript"`,
 *   `id`, `messages`, …; `state` is "paused" while the session holds a
 *   yielded loop, else "active"). Later changes to the session do not show
 *   in it.
 * - `agent_session_inject(id, message) -> nil`: appends one message
 *   `{role, content, …}` (role one of system/user/assistant/tool, content a
 *   string; other keys such as `tool_call_id` are kept); the next loop on
 *   the session sees it after the earlier messages.
 * - `agent_session_fork(id, new_id?) -> string`: copies the session (its
 *   messages and any yielded loop, which then resumes under the new id) to
 *   `new_id` (minted when nil or ""), which must not exist yet; the two
 *   evolve independently.
 * - `agent_session_reset(id) -> nil`: clears the messages and any yielded
 *   loop; the session stays open.
 * - `agent_session_close(id) -> nil`: removes the session, and runs the
 *   session-end cleanup of agents.md §1.15 for it: its in-flight handles
 *   are cancelled, its queued feedback is dropped, its `agent_subscribe`
 *   callbacks are forgotten.
 *
 * Errors are runtime errors prefixed with the call shape, as §2.12 does:
 * `agent_session_length(id): unknown session 'x'`,
 * `agent_session_X(...): id must be a string`. A session whose loop is
 * running now (a tool handler of that loop, say) is stored back when the
 * loop ends, so inject, reset and close refuse it (`…: session 'x' is
 * running`; `agent_inject_feedback` reaches a running loop); length,
 * snapshot and fork see what was stored when it started.
 */
import { HarnError, HDict, type CallContext, type Runtime, type Value } from "@harn/vm";
import { uuidV7 } from "../core/encoding";
import { longRunState } from "../longrun/index";
import { toJson, type JsonObject } from "./json";
import { transcriptDict } from "./loop/result";
import type { Msg } from "./loop/transcript";
import { agentSessions, type StoredSession } from "./sessions";
import { builtinModule } from "../registry/define";

const ROLES = ["system", "user", "assistant", "tool"];

/** What each builtin is called with, for error prefixes. */
const SHAPES: Record<string, string> = {
  agent_session_open: "agent_session_open(id)",
  agent_session_exists: "agent_session_exists(id)",
  agent_session_length: "agent_session_length(id)",
  agent_session_snapshot: "agent_session_snapshot(id)",
  agent_session_inject: "agent_session_inject(id, message)",
  agent_session_fork: "agent_session_fork(id, new_id)",
  agent_session_reset: "agent_session_reset(id)",
  agent_session_close: "agent_session_close(id)",
};

function fail(builtin: string, message: string): HarnError {
  return HarnError.runtime(`${SHAPES[builtin]}: ${message}`);
}

function idArg(builtin: string, v: Value | undefined, name = "id"): string {
  if (typeof v !== "string") throw fail(builtin, `${name} must be a string`);
  return v;
}

/** An optional id: nil or "" mints a fresh one. */
function idOrMint(rt: Runtime, builtin: string, v: Value | undefined, name: string): string {
  if (v === undefined || v === null || v === "") return `agent_session_${uuidV7(rt)}`;
  return idArg(builtin, v, name);
}

function stored(rt: Runtime, builtin: string, id: string): StoredSession {
  const s = agentSessions(rt).named.get(id);
  if (!s) throw fail(builtin, `unknown session '${id}'`);
  return s;
}

/** A stored session that may be changed now: not one a loop is running. */
function idle(rt: Runtime, builtin: string, id: string): StoredSession {
  const s = stored(rt, builtin, id);
  if (agentSessions(rt).active.has(id)) throw fail(builtin, `session '${id}' is running`);
  return s;
}

function messageArg(builtin: string, v: Value | undefined): Msg {
  if (!(v instanceof HDict)) throw fail(builtin, "message must be a dict");
  const j = toJson(v) as JsonObject;
  const { role, ...rest } = j;
  if (typeof role !== "string" || !ROLES.includes(role)) {
    throw fail(builtin, `message.role must be one of ${ROLES.join(", ")}`);
  }
  if (typeof rest.content !== "string") throw fail(builtin, "message.content must be a string");
  // Role first, as the loop stores messages (the mock matches in key order).
  return { role, ...rest };
}

function open(args: Value[], ctx: CallContext): Value {
  const rt = ctx.runtime;
  const id = idOrMint(rt, "agent_session_open", args[0], "id");
  const named = agentSessions(rt).named;
  if (!named.has(id)) named.set(id, { messages: [], paused: null });
  return id;
}

function fork(args: Value[], ctx: CallContext): Value {
  const rt = ctx.runtime;
  const b = "agent_session_fork";
  const id = idArg(b, args[0]);
  const source = stored(rt, b, id);
  const newId = idOrMint(rt, b, args[1], "new_id");
  const named = agentSessions(rt).named;
  if (named.has(newId)) throw fail(b, `session '${newId}' already exists`);
  const paused = source.paused === null ? null : { ...structuredClone(source.paused), session_id: newId };
  named.set(newId, { messages: structuredClone(source.messages), paused });
  return newId;
}

function close(args: Value[], ctx: CallContext): Value {
  const rt = ctx.runtime;
  const b = "agent_session_close";
  const id = idArg(b, args[0]);
  idle(rt, b, id);
  const sessions = agentSessions(rt);
  sessions.named.delete(id);
  sessions.subscribers.delete(id);
  const lr = longRunState(rt);
  lr.cancelSession(id);
  lr.discardSession(id);
  return null;
}

export const SESSION_BUILTINS = builtinModule("agent/session_builtins", (def) => {
  def("agent_session_open", open);
  def("agent_session_exists", (args, ctx) =>
    agentSessions(ctx.runtime).named.has(idArg("agent_session_exists", args[0])),
  );
  def("agent_session_length", (args, ctx) => {
    const b = "agent_session_length";
    return stored(ctx.runtime, b, idArg(b, args[0])).messages.length;
  });
  def("agent_session_snapshot", (args, ctx) => {
    const b = "agent_session_snapshot";
    const id = idArg(b, args[0]);
    const s = stored(ctx.runtime, b, id);
    // transcriptDict converts the messages to fresh Harn values: a copy.
    return transcriptDict(ctx.runtime, id, s.messages, s.paused ? "paused" : "active");
  });
  def("agent_session_inject", (args, ctx) => {
    const b = "agent_session_inject";
    const id = idArg(b, args[0]);
    const s = idle(ctx.runtime, b, id);
    // agent_resume(id, …) of a yielded loop reads these messages too.
    s.messages = [...s.messages, messageArg(b, args[1])];
    return null;
  });
  def("agent_session_fork", fork);
  def("agent_session_reset", (args, ctx) => {
    const b = "agent_session_reset";
    const id = idArg(b, args[0]);
    idle(ctx.runtime, b, id);
    agentSessions(ctx.runtime).named.set(id, { messages: [], paused: null });
    return null;
  });
  def("agent_session_close", close);
});
