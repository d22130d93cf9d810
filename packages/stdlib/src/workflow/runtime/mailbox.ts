/**
 * The workflow mailbox (spec/workflows.md §1.10): `workflow.signal`,
 * `query`, `update`, `publish_query`, `receive`, `respond_update`,
 * `pause`, `resume`, `status`, `continue_as_new` and the global
 * `continue_as_new`. State is one JSON file per workflow id under
 * `<state root>/workflows/<id>/state.json`, replaced atomically on every
 * change and read again on every call, so several processes (or a
 * restarted one) see the same mailbox.
 */
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import nodePath from "node:path";
import { HDict, type CallContext, type Runtime, type Value } from "@harn/vm";
import { writeFileAtomicSync } from "../../core/atomic-file";
import { uuidV7 } from "../../core/encoding";
import { fromJson, parseJsonKeepingFloats, stringifyJsonKeepingFloats, toJson, type Json } from "../../core/json";
import { osErrorText } from "../../core/oserror";
import { rfc3339 } from "../../core/wait";
import { builtinModule } from "../../registry/define";
import { fail } from "../artifacts/record";

interface Message {
  seq: number;
  kind: string;
  name: string | null;
  request_id: string | null;
  payload: Json;
  enqueued_at: string;
}

interface State {
  workflow_id: string;
  generation: number;
  paused: boolean;
  mailbox: Message[];
  queries: Record<string, Json>;
  responses: Record<string, Json>;
  continue_as_new_count: number;
  last_continue_as_new_at: string | null;
  next_seq: number;
}

/** `.harn` under the base directory (the working directory), or
 * `HARN_STATE_DIR` when set (as `harn test` does for each test). */
function stateRoot(rt: Runtime): string {
  return rt.env.HARN_STATE_DIR ?? nodePath.join(rt.cwd, ".harn");
}

function statePath(rt: Runtime, id: string): string {
  return nodePath.join(stateRoot(rt), "workflows", id, "state.json");
}

function load(rt: Runtime, id: string, builtin: string): State {
  const fresh: State = { workflow_id: id, generation: 1, paused: false, mailbox: [], queries: {}, responses: {}, continue_as_new_count: 0, last_continue_as_new_at: null, next_seq: 1 };
  let raw: string;
  try {
    raw = readFileSync(statePath(rt, id), "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return fresh;
    throw fail(`${builtin}: failed to read workflow state: ${osErrorText(e)}`);
  }
  try {
    return { ...fresh, ...(parseJsonKeepingFloats(raw) as object) } as State;
  } catch (e) {
    throw fail(`${builtin}: invalid workflow state in ${statePath(rt, id)}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function save(rt: Runtime, s: State, builtin: string): void {
  try {
    writeFileAtomicSync(statePath(rt, s.workflow_id), stringifyJsonKeepingFloats(s as unknown as Json, 2) + "\n");
  } catch (e) {
    throw fail(`${builtin}: failed to write workflow state: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** A workflow id names a directory of the state root: no separators. */
function checked(id: string, builtin: string): string {
  if (id === "." || id === ".." || /[\\/\0]/.test(id)) throw fail(`${builtin}: invalid workflow id: ${id}`);
  return id;
}

function target(args: Value[], builtin: string): string {
  return checked(rawTarget(args, builtin), builtin);
}

function rawTarget(args: Value[], builtin: string): string {
  const t = args[0] ?? null;
  if (t === null) throw fail(`${builtin}: missing target`);
  if (typeof t === "string" && t !== "") return t;
  if (t instanceof HDict) {
    const id = t.get("workflow_id") ?? t.get("workflow");
    if (typeof id === "string" && id !== "") return id;
    if (id instanceof HDict && typeof id.get("id") === "string") return id.get("id") as string;
  }
  throw fail(`${builtin}: target must be a workflow id string or dict with workflow_id/workflow`);
}

function nameArg(v: Value | undefined, builtin: string, what = "name"): string {
  if (typeof v !== "string" || v === "") throw fail(`${builtin}: missing ${what}`);
  return v;
}

function status(rt: Runtime, s: State): HDict {
  return HDict.of({
    workflow_id: s.workflow_id,
    base_dir: rt.cwd,
    generation: s.generation,
    paused: s.paused,
    pending_count: s.mailbox.length,
    query_count: Object.keys(s.queries).length,
    response_count: Object.keys(s.responses).length,
    continue_as_new_count: s.continue_as_new_count,
    last_continue_as_new_at: s.last_continue_as_new_at,
  });
}

const messageDict = (id: string, m: Message): HDict =>
  HDict.of({ workflow_id: id, seq: m.seq, kind: m.kind, name: m.name, request_id: m.request_id, payload: fromJson(m.payload), enqueued_at: m.enqueued_at });

function enqueue(rt: Runtime, s: State, kind: string, name: string | null, payload: Value, requestId: string | null = null): Message {
  const m: Message = { seq: s.next_seq++, kind, name, request_id: requestId, payload: toJson(payload ?? null), enqueued_at: rfc3339(rt) };
  s.mailbox.push(m);
  return m;
}

/** `continue_as_new` (both names): a new generation, responses cleared. */
function continueAsNew(rt: Runtime, args: Value[], builtin: string): HDict {
  const id = target(args, builtin);
  const s = load(rt, id, builtin);
  s.generation += 1;
  s.continue_as_new_count += 1;
  s.last_continue_as_new_at = rfc3339(rt);
  s.responses = {};
  save(rt, s, builtin);
  return status(rt, s);
}

const POLL_MS = 20;
const DEFAULT_UPDATE_TIMEOUT_MS = 5000;

async function update(ctx: CallContext, args: Value[]): Promise<Value> {
  const rt = ctx.runtime;
  const b = "workflow.update";
  const id = target(args, b);
  const name = nameArg(args[1], b);
  const opts = args[3] instanceof HDict ? args[3] : HDict.empty();
  const t = opts.get("timeout_ms");
  const timeout = typeof t === "number" && t >= 0 ? t : DEFAULT_UPDATE_TIMEOUT_MS;
  const s = load(rt, id, b);
  const requestId = `update_${uuidV7(rt)}`;
  enqueue(rt, s, "update", name, args[2] ?? null, requestId);
  save(rt, s, b);
  const deadline = Date.now() + timeout;
  for (;;) {
    const now = load(rt, id, b);
    if (Object.prototype.hasOwnProperty.call(now.responses, requestId)) return fromJson(now.responses[requestId]!);
    if (Date.now() >= deadline) throw fail(`${b}: timed out after ${timeout}ms waiting for a response to ${name} (${requestId})`);
    await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())), undefined, { signal: ctx.signal });
  }
}

export const WORKFLOW_MAILBOX_BUILTINS = builtinModule("workflow/mailbox", (def, rt) => {
  def("workflow.signal", (args) => {
    const b = "workflow.signal";
    const id = target(args, b);
    const name = nameArg(args[1], b);
    const s = load(rt, id, b);
    const m = enqueue(rt, s, "signal", name, args[2] ?? null);
    save(rt, s, b);
    return HDict.of({ workflow_id: id, message: messageDict(id, m), status: status(rt, s) });
  });
  def("workflow.publish_query", (args) => {
    const b = "workflow.publish_query";
    const id = target(args, b);
    const name = nameArg(args[1], b);
    const s = load(rt, id, b);
    s.queries[name] = toJson(args[2] ?? null);
    save(rt, s, b);
    return status(rt, s);
  });
  def("workflow.query", (args) => {
    const b = "workflow.query";
    const id = target(args, b);
    const name = nameArg(args[1], b);
    const q = load(rt, id, b).queries;
    return Object.prototype.hasOwnProperty.call(q, name) ? fromJson(q[name]!) : null;
  });
  def("workflow.update", (args, ctx) => update(ctx, args));
  def("workflow.receive", (args) => {
    const b = "workflow.receive";
    const id = target(args, b);
    const s = load(rt, id, b);
    const m = s.mailbox.shift();
    if (m === undefined) return null;
    save(rt, s, b);
    return messageDict(id, m);
  });
  def("workflow.respond_update", (args) => {
    const b = "workflow.respond_update";
    const id = target(args, b);
    const requestId = nameArg(args[1], b, "request id");
    const s = load(rt, id, b);
    s.responses[requestId] = toJson(args[2] ?? null);
    save(rt, s, b);
    const name = args[3];
    return HDict.of({ workflow_id: id, request_id: requestId, name: typeof name === "string" ? name : null, status: status(rt, s) });
  });
  for (const [op, paused] of [["pause", true], ["resume", false]] as const) {
    def(`workflow.${op}`, (args) => {
      const b = `workflow.${op}`;
      const id = target(args, b);
      const s = load(rt, id, b);
      s.paused = paused;
      enqueue(rt, s, "control", op, null);
      save(rt, s, b);
      return status(rt, s);
    });
  }
  def("workflow.status", (args) => status(rt, load(rt, target(args, "workflow.status"), "workflow.status")));
  def("workflow.continue_as_new", (args) => continueAsNew(rt, args, "workflow.continue_as_new"));
  def("continue_as_new", (args) => continueAsNew(rt, args, "continue_as_new"));
  // std/agents' continue_as_new(prev, options) shadows both names above
  def("__workflow_continue_as_new", (args) => continueAsNew(rt, args, "continue_as_new"));
});
