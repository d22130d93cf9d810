/**
 * Lazy iterators (spec/semantics.md §7.10, stdlib.md §22.6): construction
 * and lifting of iterable values. Combinators and sinks are the `iter`
 * method table (methods/iter.ts).
 *
 * Every iterator is fused: once a pull reports `done`, `exhausted` is set
 * (display turns into `<iter (exhausted)>`) and later pulls stay done
 * without touching the source again.
 */
import {
  HarnError,
  HChannel,
  HDict,
  HGenerator,
  HIter,
  HPair,
  HRange,
  HSet,
  isPromise,
  normBig,
  typeOf,
  type CallContext,
  type IterStep,
  type Value,
} from "@harn/vm";
import type { Maybe } from "./maybe";
import { builtinModule } from "../registry/define";

export const DONE: IterStep = Object.freeze({ done: true, value: null }) as IterStep;

export function item(value: Value): IterStep {
  return { done: false, value };
}

/** A fused iterator over `next`. */
export function makeIter(next: () => Maybe<IterStep>): HIter {
  const it: HIter = new HIter(() => {
    if (it.exhausted) return DONE;
    const s = next();
    if (isPromise(s)) return s.then(fuse);
    if (s.done) it.exhausted = true;
    return s;
  });
  const fuse = (s: IterStep): IterStep => {
    if (s.done) it.exhausted = true;
    return s;
  };
  return it;
}

export function iterList(xs: Value[]): HIter {
  let i = 0;
  return makeIter(() => (i < xs.length ? item(xs[i++]!) : DONE));
}

export function iterRange(r: HRange): HIter {
  if (r.small) {
    let next = r.start as number;
    const last = r.last as number;
    return makeIter(() => (next <= last ? item(next++) : DONE));
  }
  let next = BigInt(r.start);
  const last = BigInt(r.last);
  return makeIter(() => (next <= last ? item(normBig(next++)) : DONE));
}

export function iterString(s: string): HIter {
  let i = 0;
  return makeIter(() => {
    if (i >= s.length) return DONE;
    const c = s.codePointAt(i)!;
    const ch = c > 0xffff ? s.slice(i, i + 2) : s[i]!;
    i += ch.length;
    return item(ch);
  });
}

export function iterDict(d: HDict): HIter {
  const keys = d.keys();
  let i = 0;
  return makeIter(() => {
    if (i >= keys.length) return DONE;
    const k = keys[i];
    return item(new HPair(k!, d.valueAt(i++)));
  });
}

export function iterGenerator(g: HGenerator): HIter {
  return makeIter(() => (g.done ? DONE : g.pull()));
}

/** The parts of the evaluator's channel state that iteration needs. */
interface ChannelQueue {
  closed: boolean;
  tryTake(): { v: Value } | null;
  changed(signal: AbortSignal): Promise<void>;
}

function isChannelQueue(x: unknown): x is ChannelQueue {
  const q = x as Partial<ChannelQueue> | null;
  return q !== null && typeof q === "object" && typeof q.tryTake === "function" && typeof q.changed === "function" && "closed" in q;
}

/**
 * Items received from a channel until it is closed and drained. Waits honour
 * the signal of the task that created the iterator. The evaluator owns
 * channels; this reads its queue through the small interface above (a
 * channel method table `iter` entry, when registered, takes precedence).
 */
export function iterChannel(q: ChannelQueue, signal: AbortSignal): HIter {
  const next = (): Maybe<IterStep> => {
    const t = q.tryTake();
    if (t) return item(t.v);
    if (q.closed) return DONE;
    return q.changed(signal).then(next);
  };
  return makeIter(next);
}

/**
 * Lift any iterable value into an iterator; an iterator is returned as is.
 * Kinds owned by the evaluator (channels) lift through their method table's
 * `iter` entry. Returns null when `v` is not iterable.
 */
export function toIter(v: Value, ctx: CallContext): Maybe<HIter> | null {
  if (v instanceof HIter) return v;
  if (Array.isArray(v)) return iterList(v);
  if (typeof v === "string") return iterString(v);
  if (v instanceof HDict) return iterDict(v);
  if (v instanceof HSet) return iterList(v.items);
  if (v instanceof HRange) return iterRange(v);
  if (v instanceof HGenerator) return iterGenerator(v);
  if (v !== null && typeof v === "object") {
    const lift = ctx.runtime.methods.get(typeOf(v))?.get("iter");
    if (lift) {
      const r = lift(v, [], ctx);
      if (isPromise(r)) return r.then((x) => (x instanceof HIter ? x : notIterable(v)));
      if (r instanceof HIter) return r;
    }
    if (v instanceof HChannel && isChannelQueue(v.impl)) return iterChannel(v.impl, ctx.signal);
  }
  return null;
}

function notIterable(v: Value): never {
  throw HarnError.type(`iter: value of type ${typeOf(v)} is not iterable`);
}

export const ITER_BUILTINS = builtinModule("core/iter", (def) => {
  def("iter", (args, ctx) => {
    if (args.length === 0) throw HarnError.type("iter: expected 1 argument");
    const v = args[0]!;
    return toIter(v, ctx) ?? notIterable(v);
  });
});
