/**
 * Logical task metadata (spec/stdlib.md §21, semantics.md §9.8):
 * `task_current`, `runtime_context`, `runtime_context_get|set|clear|values`.
 * They belong to the always-allowed core set of `--allow` (cli.md §2).
 *
 * Task ids are the evaluator's: `task_root`, `PARENT:spawn:N`,
 * `PARENT:KIND:N:i` for fan-out tasks.
 *
 * This implementation's choices where the spec is silent:
 * - `task_current()` → `{id, parent_id}` (parent_id nil for the root).
 * - `runtime_context()` → `{parent_task_id, task_id, values}`.
 * - Context values are per task and inherited: a task sees its ancestors'
 *   values unless it set the key itself. `runtime_context_set(key, value)`
 *   sets the current task's value and returns the previous visible one;
 *   `runtime_context_get(key, default?)`; `runtime_context_clear(key)`
 *   removes the current task's own value (true if there was one), and
 *   without a key removes all of them (returns nil);
 *   `runtime_context_values()` → the visible values as a dict.
 */
import { display, HDict, RuntimeSlot, Task, type CallContext, type Value } from "@harn/vm";
import { arg } from "./args";
import { builtinModule } from "../registry/define";

const CONTEXTS = new RuntimeSlot<WeakMap<object, Map<string, Value>>>("stdlib.task_context", () => new WeakMap());

function currentTask(ctx: CallContext): Task | null {
  return ctx.task instanceof Task ? ctx.task : null;
}

function taskId(t: Task | null): string {
  return t ? t.id : "task_root";
}

/** Whose values a call sees, outermost first: the task chain from the
 * root, or the runtime itself for a call made outside any task (hand-made
 * contexts). The last owner is the one `set` and `clear` write to. */
function owners(ctx: CallContext): object[] {
  const chain: object[] = [];
  for (let t = currentTask(ctx); t; t = t.parent) chain.push(t);
  if (chain.length === 0) chain.push(ctx.runtime);
  return chain.reverse();
}

/** Visible values: inner owners' keys win. */
function visible(ctx: CallContext): Map<string, Value> {
  const table = ctx.runtime.slot(CONTEXTS);
  const out = new Map<string, Value>();
  for (const owner of owners(ctx)) {
    const own = table.get(owner);
    if (own) for (const [k, v] of own) out.set(k, v);
  }
  return out;
}

/** The current owner's own values (created on first write). */
function own(ctx: CallContext, create: boolean): Map<string, Value> | null {
  const table = ctx.runtime.slot(CONTEXTS);
  const owner = owners(ctx).at(-1)!;
  let m = table.get(owner) ?? null;
  if (!m && create) table.set(owner, (m = new Map()));
  return m;
}

export const TASK_CONTEXT_BUILTINS = builtinModule("core/task_context", (def) => {
  def("task_current", (_args, ctx) => {
    const t = currentTask(ctx);
    return HDict.of({ id: taskId(t), parent_id: t?.parent ? t.parent.id : null });
  });
  def("runtime_context", (_args, ctx) => {
    const t = currentTask(ctx);
    return HDict.of({ parent_task_id: t?.parent ? t.parent.id : null, task_id: taskId(t), values: new HDict(visible(ctx)) });
  });
  def("runtime_context_values", (_args, ctx) => new HDict(visible(ctx)));
  def("runtime_context_get", (args, ctx) => {
    const values = visible(ctx);
    const key = display(arg(args, 0));
    return values.has(key) ? values.get(key)! : arg(args, 1);
  });
  def("runtime_context_set", (args, ctx) => {
    const key = display(arg(args, 0));
    const previous = visible(ctx).get(key) ?? null;
    own(ctx, true)!.set(key, arg(args, 1));
    return previous;
  });
  def("runtime_context_clear", (args, ctx) => {
    const m = own(ctx, false);
    if (args.length > 0 && args[0] !== null) return m ? m.delete(display(args[0]!)) : false;
    m?.clear();
    return null;
  });
});
