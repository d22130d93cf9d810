/**
 * `sleep(d)` (spec/stdlib.md §13.1, semantics.md §9.7): waits `d` (a
 * duration or int milliseconds; anything else, and non-positive values, do
 * not wait). Cancellation of the task ends the wait with the abort reason
 * the evaluator set (its cancellation or deadline error).
 */
import { HarnError, HDuration } from "@harn/vm";
import { clockSleep } from "../time/clock";
import { builtinModule } from "../registry/define";

/** What a cancelled wait raises when the abort carried no Harn error. */
export const CANCELLED = "kind:cancelled:VM cancelled by host";

export const SLEEP_BUILTINS = builtinModule("core/sleep", (def) => {
  def("sleep", (args, ctx) => {
    const d = args.length > 0 ? args[0]! : null;
    const ms = typeof d === "number" ? d : d instanceof HDuration ? d.ms : typeof d === "bigint" && d > 0n ? 2 ** 31 - 1 : 0;
    if (!(ms > 0)) return null;
    return clockSleep(Math.min(ms, 2 ** 31 - 1), ctx).catch((e: unknown) => {
      throw e instanceof HarnError ? e : HarnError.thrown(CANCELLED);
    });
  });
});
