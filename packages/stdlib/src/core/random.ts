/**
 * Randomness (spec/stdlib.md §10 "Randomness"): the unseeded builtins use
 * `Math.random`; `rng_seed(n)` returns an `rng` handle whose sequence is
 * fully determined by the seed (sfc32, seeded through splitmix64). Under
 * `harn test --deterministic` the unseeded ones draw from an sfc32 seeded
 * with the scheduler's seed (0 without one), so a run replays exactly.
 */
import { float, HarnError, HOpaque, normBig, RuntimeSlot, seededRandom, Sfc32, VirtualClock, type Int, type Runtime, type Value } from "@harn/vm";
import { arg } from "./args";
import { builtinModule } from "../registry/define";

type Source = () => number;

const UNSEEDED = new RuntimeSlot<Source>("core.random.unseeded", (rt) => {
  if (!(rt.clock instanceof VirtualClock)) return Math.random;
  return seededRandom(rt.clock.seed ?? 0);
});

/** Uniform [0, 1) for the unseeded builtins and retry jitter: `Math.random`,
 * or the deterministic source of a virtual-clock run. */
export function unseededRandom(rt: Runtime): Source {
  return rt.slot(UNSEEDED);
}

function sourceOf(v: Value): Source | null {
  if (v instanceof HOpaque && v.typeName === "rng") {
    const g = v.payload as Sfc32;
    return () => g.float();
  }
  return null;
}

/** Split `(rng?, ...rest)` arguments. */
function withSource(args: Value[], rt: Runtime): [Source, Value[]] {
  const s = sourceOf(arg(args, 0));
  return s ? [s, args.slice(1)] : [unseededRandom(rt), args];
}

/** Uniform int in [min, max]; exact for spans beyond 2^53 too. */
function randomIntIn(rand: Source, min: Int, max: Int): Int {
  if (typeof min === "number" && typeof max === "number" && max - min < 2 ** 52) {
    return min + Math.floor(rand() * (max - min + 1));
  }
  const lo = BigInt(min);
  const span = BigInt(max) - lo + 1n;
  let r = 0n;
  for (let i = 0; i < 4; i++) r = (r << 32n) | BigInt(Math.floor(rand() * 4294967296));
  return normBig(lo + (r % span));
}

function shuffle(rand: Source, xs: Value[]): Value[] {
  const out = xs.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const t = out[i]!;
    out[i] = out[j]!;
    out[j] = t;
  }
  return out;
}

export const RANDOM_BUILTINS = builtinModule("core/random", (def) => {
  def("random", (args, ctx) => float((sourceOf(arg(args, 0)) ?? unseededRandom(ctx.runtime))()));

  def("random_int", (args, ctx) => {
    const [rand, rest] = withSource(args, ctx.runtime);
    if (rest.length < 2) return null;
    const min = rest[0]!;
    const max = rest[1]!;
    if (typeof min !== "number" && typeof min !== "bigint") throw HarnError.type("random_int: min must be an integer");
    if (typeof max !== "number" && typeof max !== "bigint") throw HarnError.type("random_int: max must be an integer");
    if (min > max) return null;
    return randomIntIn(rand, min, max);
  });

  def("random_choice", (args, ctx) => {
    const [rand, rest] = withSource(args, ctx.runtime);
    const xs = arg(rest, 0);
    if (!Array.isArray(xs) || xs.length === 0) return null;
    return xs[Math.floor(rand() * xs.length)]!;
  });

  def("random_shuffle", (args, ctx) => {
    const [rand, rest] = withSource(args, ctx.runtime);
    const xs = arg(rest, 0);
    return Array.isArray(xs) ? shuffle(rand, xs) : null;
  });

  def("rng_seed", (args) => {
    const seed = arg(args, 0);
    if (typeof seed !== "number" && typeof seed !== "bigint") throw HarnError.type("rng_seed(seed): seed must be an integer");
    return new HOpaque("rng", "<rng>", new Sfc32(BigInt(seed)));
  });
});
