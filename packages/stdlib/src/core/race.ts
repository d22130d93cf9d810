/**
 * `parallel_race(items, callable, options?)` (spec/core-gaps.md §2): the
 * callable runs for each item in a child task, at most `max_concurrent` at
 * a time; the first success wins and the other runs are cancelled. As with
 * a spawned task, only the output of the run whose value is taken (the
 * winner) reaches the caller.
 */
import { display, HarnError, HDict, HEnum, Task, typeOf, type CallContext, type SessionCallContext, type Value } from "@harn/vm";
import { isCallableValue } from "./args";
import { builtinModule } from "../registry/define";

function capOf(v: Value, n: number): number {
  let max: Value = v;
  if (v instanceof HDict) max = v.get("max_concurrent");
  else if (v !== null && typeof v !== "number" && typeof v !== "bigint") {
    throw HarnError.type(`parallel_race: third argument must be max_concurrent int or options dict, got ${typeOf(v)}`);
  }
  if (max === null) return n;
  if (typeof max !== "number" && typeof max !== "bigint") throw HarnError.type(`parallel_race: max_concurrent must be an int, got ${typeOf(max)}`);
  const m = Number(max);
  return m <= 0 ? n : Math.min(m, n);
}

type Outcome = { ok: true; value: Value } | { ok: false; message: string };

function outcomeOf(v: Value): Outcome {
  if (v instanceof HEnum && v.enumName === "Result") {
    return v.variant === "Ok" ? { ok: true, value: v.fields[0] ?? null } : { ok: false, message: display(v.fields[0] ?? null) };
  }
  return { ok: true, value: v };
}

function race(items: Value[], fn: Value, cap: number, ctx: CallContext): Promise<Value> {
  const parent = ctx.task instanceof Task ? ctx.task : null;
  const group = `${parent ? parent.id : "task_root"}:parallel_race:${parent ? ++parent.fanoutCount : 1}`;
  const live = new Map<number, SessionCallContext>();
  const failures: string[] = [];
  let next = 0;
  let finished = false;
  return new Promise<Value>((resolve, reject) => {
    const onAbort = () => {
      for (const t of live.values()) t.cancel();
    };
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    const end = (f: () => void) => {
      finished = true;
      ctx.signal.removeEventListener("abort", onAbort);
      for (const t of live.values()) t.cancel();
      live.clear();
      f();
    };
    const settle = (i: number, o: Outcome) => {
      if (finished) return;
      const task = live.get(i)!;
      live.delete(i);
      if (o.ok) {
        ctx.out((task.task as Task).output());
        return end(() => resolve(o.value));
      }
      failures.push(o.message);
      if (failures.length === items.length) {
        return end(() => reject(HarnError.runtime(`parallel_race: all ${items.length} task(s) failed: ${failures.join("; ")}`)));
      }
      launch();
    };
    const launch = () => {
      while (!finished && next < items.length && live.size < cap) {
        const i = next++;
        const task = ctx.inTask!({ id: `${group}:${i}`, name: "parallel_race", groupId: group, buffered: true });
        live.set(i, task);
        void ctx.runtime.clock
          .turn()
          .then(() => {
            task.signal.throwIfAborted();
            return task.call(fn, [items[i]!]);
          })
          .then(
            (v) => settle(i, outcomeOf(v)),
            (e) => settle(i, { ok: false, message: e instanceof HarnError ? e.description() : String(e) }),
          );
      }
    };
    launch();
  });
}

export const RACE_BUILTINS = builtinModule("core/race", (def) => {
  def("parallel_race", (args, ctx) => {
    if (args.length < 2) throw HarnError.type(`parallel_race: missing argument ${args.length + 1}`);
    const items = args[0]!;
    if (!Array.isArray(items)) throw HarnError.type(`parallel_race: first argument must be a list, got ${typeOf(items)}`);
    const fn = args[1]!;
    if (!isCallableValue(fn)) throw HarnError.type(`parallel_race: argument 2 must be callable, got ${typeOf(fn)}`);
    const cap = capOf(args.length > 2 ? args[2]! : null, items.length);
    if (items.length === 0) throw HarnError.runtime("parallel_race: expected at least one item");
    if (!ctx.inTask) throw HarnError.runtime("parallel_race: this host cannot start tasks");
    return race(items, fn, cap, ctx);
  });
});
