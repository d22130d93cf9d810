/**
 * Clocks (spec/stdlib.md §13.1): the wall clock, the monotonic clock, the
 * `mock_time` test clock that replaces both, and timers. The mock lives in
 * a runtime slot; other stdlib modules read time through `nowMs` so that
 * they honour it too.
 */
import { HarnError, HDict, HDuration, HFloat, RuntimeSlot, type CallContext, type Runtime, type Value } from "@harn/vm";
import { strArg } from "../core/args";
import { builtinModule } from "../registry/define";

interface ClockState {
  /** Mock wall clock in Unix ms, or null when no mock is installed. */
  mockWallMs: number | null;
  /** Mock monotonic ms (advanced with the wall clock). */
  mockMonoMs: number;
  /** The runtime clock's monotonic reading at the first reading. */
  monoOrigin: number | null;
}

const clockSlot = new RuntimeSlot<ClockState>("time.clock", () => ({ mockWallMs: null, mockMonoMs: 0, monoOrigin: null }));

/** Unix milliseconds, honouring `mock_time`. */
export function nowMs(rt: Runtime): number {
  const c = rt.slot(clockSlot);
  return c.mockWallMs ?? rt.clock.now();
}

/** Milliseconds on the monotonic clock (zero at its first reading), or the
 * milliseconds advanced since `mock_time` was installed. */
export function monotonicMs(rt: Runtime): number {
  const c = rt.slot(clockSlot);
  if (c.mockWallMs !== null) return c.mockMonoMs;
  const now = rt.clock.monotonic();
  if (c.monoOrigin === null) c.monoOrigin = now;
  return Math.floor(now - c.monoOrigin);
}

/** Wait `ms` milliseconds on the runtime's clock (virtual under `harn test
 * --deterministic`); cancellation (`ctx.signal`) ends the wait with the
 * evaluator's abort reason. The timer never outlives the wait. */
export function clockSleep(ms: number, ctx: CallContext): Promise<Value> {
  return ctx.runtime.clock.sleep(ms, ctx.signal).then(() => null);
}

function msArg(v: Value): number | null {
  if (typeof v === "number") return v;
  if (v instanceof HDuration) return v.ms;
  return null;
}

export const CLOCK_BUILTINS = builtinModule("time/clock", (def) => {
  def("timestamp", (_args, ctx) => new HFloat(nowMs(ctx.runtime) / 1000));
  def("now_ms", (_args, ctx) => nowMs(ctx.runtime));
  def("elapsed", (_args, ctx) => monotonicMs(ctx.runtime));
  def("monotonic_ms", (_args, ctx) => monotonicMs(ctx.runtime));

  def("mock_time", (args, ctx) => {
    const ms = args.length > 0 ? args[0]! : null;
    if (typeof ms !== "number") throw HarnError.thrown("mock_time(ms): expected an integer millisecond timestamp");
    const c = ctx.runtime.slot(clockSlot);
    c.mockWallMs = ms;
    c.mockMonoMs = 0;
    return null;
  });

  def("advance_time", (args, ctx) => {
    const c = ctx.runtime.slot(clockSlot);
    if (c.mockWallMs === null) throw HarnError.thrown("advance_time: no mock active. Call mock_time(ms) first.");
    const ms = msArg(args.length > 0 ? args[0]! : null) ?? 0;
    c.mockWallMs += ms;
    c.mockMonoMs += ms;
    return c.mockWallMs;
  });

  def("unmock_time", (_args, ctx) => {
    const c = ctx.runtime.slot(clockSlot);
    c.mockWallMs = null;
    c.mockMonoMs = 0;
    return null;
  });

  def("sleep_ms", (args, ctx) => {
    const ms = msArg(args.length > 0 ? args[0]! : null);
    if (ms === null || ms <= 0) return null;
    const c = ctx.runtime.slot(clockSlot);
    if (c.mockWallMs !== null) {
      c.mockWallMs += ms;
      c.mockMonoMs += ms;
      return null;
    }
    return clockSleep(ms, ctx);
  });

  def("timer_start", (args, ctx) => {
    const name = args.length > 0 && args[0] !== null ? strArg(args, 0) : "default";
    return HDict.of({ name, start_ms: ctx.runtime.clock.now() });
  });

  def("timer_end", (args, ctx) => {
    const t = args.length > 0 ? args[0]! : null;
    if (!(t instanceof HDict)) throw HarnError.thrown("timer_end: argument must be a timer dict from timer_start");
    const start = t.get("start_ms");
    const startMs = typeof start === "number" ? start : start instanceof HFloat ? start.v : ctx.runtime.clock.now();
    const elapsedMs = Math.max(0, Math.floor(ctx.runtime.clock.now() - startMs));
    const name = t.has("name") ? strArg([t.get("name")], 0) : "default";
    ctx.out(`[timer] ${name}: ${elapsedMs}ms\n`);
    return elapsedMs;
  });
});
