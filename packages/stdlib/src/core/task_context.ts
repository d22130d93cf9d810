/**
 * Logical task metadata (spec/core-gaps.md §6.4, stdlib.md §21):
 * `task_current`, `runtime_context`, `runtime_context_get|set|clear|values`.
 * They belong to the always-allowed core set of `--allow` (cli.md §2).
 *
 * Task ids, names and groups are the evaluator's (§6.3): `task_root`,
 * `PARENT:spawn:N`, `PARENT:KIND:N:i` for fan-out tasks, and what
 * supervisors give their children. Context values live on the task; a
 * child starts with a copy of its parent's (vm `Task.contextValues`).
 */
import { HarnError, HDict, RuntimeSlot, Task, type CallContext, type Value } from "@harn/vm";
import { builtinModule } from "../registry/define";
import { arg } from "./args";
import { supervisorStates } from "./supervisor";

function currentTask(ctx: CallContext): Task | null {
  return ctx.task instanceof Task ? ctx.task : null;
}

/** Values of a call made outside any evaluator task (hand-made contexts):
 * the runtime's own. */
const OUTSIDE = new RuntimeSlot<Map<string, Value>>("stdlib.task_context.outside", () => new Map());

function values(ctx: CallContext, create: boolean): Map<string, Value> | null {
  const t = currentTask(ctx);
  if (!t) return ctx.runtime.slot(OUTSIDE);
  if (!t.contextValues && create) t.contextValues = new Map();
  return t.contextValues;
}

function stringKey(args: Value[], name: string): string {
  const key = arg(args, 0);
  if (typeof key !== "string") throw HarnError.runtime(`${name}: first argument must be a string key`);
  return key;
}

function rootOf(t: Task): Task {
  let r = t;
  while (r.parent) r = r.parent;
  return r;
}

/** Ids of the tasks of this program still running, root first. */
function activeTaskIds(t: Task): string[] {
  const ids: string[] = [];
  const stack = [rootOf(t)];
  while (stack.length > 0) {
    const task = stack.pop()!;
    if (!task.done) ids.push(task.id);
    const children = [...task.children];
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return ids;
}

/** The context dict of §6.4: every key present, nil when unknown. */
function contextOf(ctx: CallContext): HDict {
  const t = currentTask(ctx);
  const cancelled = t ? t.cancelRequested || t.ac.signal.aborted : false;
  const session = t && t.sessionId !== "" ? t.sessionId : null;
  return HDict.of({
    agent_name: null,
    agent_session_id: session,
    binding_key: null,
    cancelled,
    capacity_class: null,
    context_values: new HDict(new Map(values(ctx, false) ?? [])),
    debug: HDict.of({
      active_task_ids: t ? activeTaskIds(t) : ["task_root"],
      cancelled,
      held_synchronization: [],
      supervisors: supervisorStates(ctx.runtime),
      waiting_reason: null,
    }),
    parent_agent_session_id: null,
    parent_task_id: t?.parent ? t.parent.id : null,
    provider: null,
    root_agent_session_id: null,
    root_task_id: t ? rootOf(t).id : "task_root",
    run_id: null,
    runner: null,
    scheduler_key: null,
    scope_id: null,
    span_id: null,
    stage_id: null,
    task_group_id: t ? t.groupId : null,
    task_id: t ? t.id : "task_root",
    task_name: t ? t.name : "root",
    tenant_id: null,
    trace_id: null,
    trigger_event_id: null,
    trigger_id: null,
    worker_id: null,
    workflow_id: null,
  });
}

export const TASK_CONTEXT_BUILTINS = builtinModule("core/task_context", (def) => {
  def("task_current", (_args, ctx) => contextOf(ctx));
  def("runtime_context", (_args, ctx) => contextOf(ctx));
  def("runtime_context_values", (_args, ctx) => new HDict(new Map(values(ctx, false) ?? [])));
  def("runtime_context_get", (args, ctx) => {
    const key = stringKey(args, "runtime_context_get");
    const m = values(ctx, false);
    return m?.has(key) ? m.get(key)! : arg(args, 1);
  });
  def("runtime_context_set", (args, ctx) => {
    const key = stringKey(args, "runtime_context_set");
    const m = values(ctx, true)!;
    const previous = m.get(key) ?? null;
    m.set(key, arg(args, 1));
    return previous;
  });
  def("runtime_context_clear", (args, ctx) => {
    const key = stringKey(args, "runtime_context_clear");
    const m = values(ctx, false);
    const previous = m?.get(key) ?? null;
    m?.delete(key);
    return previous;
  });
});
