/**
 * Circuit breakers (spec/stdlib.md §18.3): a per-runtime registry keyed by
 * name. A circuit opens when its failure count reaches the threshold and
 * reads `half_open` once `reset_ms` have passed since it opened (time is
 * the runtime clock, so `mock_time` drives it in tests).
 */
import { display, RuntimeSlot, type Runtime, type Value } from "@harn/vm";
import { nowMs } from "../time/clock";
import { builtinModule } from "../registry/define";

interface Circuit {
  threshold: number;
  resetMs: number;
  failures: number;
  openedAt: number | null;
}

const CIRCUITS = new RuntimeSlot("stdlib.circuits", () => new Map<string, Circuit>());

function nameArg(args: Value[]): string {
  return args.length > 0 && args[0] !== null ? display(args[0]!) : "default";
}

function positive(v: Value | undefined, fallback: number): number {
  return typeof v === "number" && v > 0 ? v : fallback;
}

function state(rt: Runtime, c: Circuit | undefined): "closed" | "open" | "half_open" {
  if (!c || c.openedAt === null) return "closed";
  return nowMs(rt) - c.openedAt >= c.resetMs ? "half_open" : "open";
}

export const CIRCUITS_BUILTINS = builtinModule("core/circuit", (def) => {
  def("circuit_breaker", (args, ctx) => {
    const name = nameArg(args);
    ctx.runtime.slot(CIRCUITS).set(name, { threshold: positive(args[1], 5), resetMs: positive(args[2], 30000), failures: 0, openedAt: null });
    return name;
  });

  def("circuit_record_failure", (args, ctx) => {
    const circuits = ctx.runtime.slot(CIRCUITS);
    const name = nameArg(args);
    let c = circuits.get(name);
    if (!c) circuits.set(name, (c = { threshold: 5, resetMs: 30000, failures: 0, openedAt: null }));
    c.failures++;
    const s = state(ctx.runtime, c);
    if (s === "open") return false;
    if (s === "half_open" || c.failures >= c.threshold) {
      c.openedAt = nowMs(ctx.runtime);
      return true;
    }
    return false;
  });

  const close = (args: Value[], rt2: Runtime): Value => {
    const c = rt2.slot(CIRCUITS).get(nameArg(args));
    if (c) {
      c.failures = 0;
      c.openedAt = null;
    }
    return null;
  };
  def("circuit_record_success", (args, ctx) => close(args, ctx.runtime));
  def("circuit_reset", (args, ctx) => close(args, ctx.runtime));
  def("circuit_check", (args, ctx) => state(ctx.runtime, ctx.runtime.slot(CIRCUITS).get(nameArg(args))));
});
