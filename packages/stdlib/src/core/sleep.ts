/**
 * `sleep(d)` (spec/stdlib.md §13.1, semantics.md §9.7): waits `d` (a
 * duration or int milliseconds; anything else, and non-positive values, do
 * not wait). Cancellation of the task ends the wait with the abort reason
 * the evaluator set (its cancellation or deadline error).
 *
 * `sleep(0)` takes no time but yields (§9.7: sleep yields to other tasks):
 * other tasks and finished I/O run before it returns, one macrotask later
 * (the virtual clock's next idle point under `harn test --deterministic`).
 * A polling loop `while … { sleep(0) }` therefore lets a daemon's disk
 * writes complete; returning at once left them to the interpreter's CPU
 * quantum, and such a loop slowed a daemon about 100x.
 */
import { CANCELLED_TEXT, HarnError, HDuration, type CallContext, type Value } from "@harn/vm";
import { clockSleep } from "../time/clock";
import { builtinModule } from "../registry/define";


export const SLEEP_BUILTINS = builtinModule("core/sleep", (def) => {
  def("sleep", (args, ctx) => {
    const d = args.length > 0 ? args[0]! : null;
    if (d === 0 || (d instanceof HDuration && d.ms === 0)) return yieldTurn(ctx);
    const ms = typeof d === "number" ? d : d instanceof HDuration ? d.ms : typeof d === "bigint" && d > 0n ? 2 ** 31 - 1 : 0;
    if (!(ms > 0)) return null;
    return clockSleep(Math.min(ms, 2 ** 31 - 1), ctx).catch((e: unknown) => {
      throw e instanceof HarnError ? e : HarnError.thrown(CANCELLED_TEXT);
    });
  });
});

function yieldTurn(ctx: CallContext): Promise<Value> {
  const cancelled = (e: unknown) => {
    throw e instanceof HarnError ? e : HarnError.thrown(CANCELLED_TEXT);
  };
  if (ctx.runtime.clock.virtual) return clockSleep(0, ctx).catch(cancelled);
  if (ctx.signal.aborted) return Promise.reject(ctx.signal.reason).catch(cancelled);
  return new Promise<Value>((resolve) => setImmediate(() => resolve(null)));
}
