/**
 * List methods (spec/stdlib.md §22.2, semantics.md §7.7). Lists are never
 * mutated: every method returns a new value. Callback methods return nil
 * (or the documented false/true/-1) when the callback is not callable, and
 * run with a synchronous fast path that turns async only when a callback
 * actually suspends.
 */
import { compare, HDict, isPromise, truthy, type CallContext, type Callback, type MethodFn, type Runtime, type Value } from "@harn/vm";
import { arg, isCallableValue, smallIntArg, strArg } from "../core/args";
import { chunk, flattenOnce, groupBy, indexOfEqual, tally, uniqueByKey, windows } from "../core/collections";
import { iterList } from "../core/iter";
import { andThen, type Maybe } from "../core/maybe";
import { NumberSum } from "../core/numeric";
import { joinDisplay } from "../core/strings";

type ListMethod = (xs: Value[], args: Value[], ctx: CallContext) => Value | Promise<Value>;

// The hot paths below (map, filter, find/any/all, reduce) are plain loops
// over a prepared callback (CallContext.prepare: dispatch once, and a leaf
// closure reuses one frame) that switch to an async continuation only at
// the first callback that returns a promise.

/** Results of `f(x)` for every item. */
export function mapList(xs: Value[], f: Value, ctx: CallContext): Maybe<Value[]> {
  const cb = ctx.prepare(f);
  const n = xs.length;
  const out: Value[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const r = cb.one(xs[i]!);
    if (isPromise(r)) return mapRest(xs, cb, out, i, r);
    out[i] = r;
  }
  return out;
}

async function mapRest(xs: Value[], cb: Callback, out: Value[], i: number, pending: Promise<Value>): Promise<Value[]> {
  out[i] = await pending;
  for (i++; i < xs.length; i++) {
    const r = cb.one(xs[i]!);
    out[i] = isPromise(r) ? await r : r;
  }
  return out;
}

/** The items whose callback result is truthy, and the others, in order
 * (the method's pair and the builtin's `{match, no_match}`). */
export function partitionList(xs: Value[], f: Value, ctx: CallContext): Maybe<[Value[], Value[]]> {
  return andThen(mapList(xs, f, ctx), (keys) => {
    const yes: Value[] = [];
    const no: Value[] = [];
    for (let i = 0; i < xs.length; i++) (truthy(keys[i]!) ? yes : no).push(xs[i]!);
    return [yes, no];
  });
}

/** Items whose callback result is truthy (`keep`) or falsy (`!keep`). */
export function filterList(xs: Value[], f: Value, ctx: CallContext, keep = true): Maybe<Value[]> {
  const cb = ctx.prepare(f);
  const out: Value[] = [];
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    const k = cb.one(x);
    if (isPromise(k)) return filterRest(xs, cb, keep, out, i, k);
    if (truthy(k) === keep) out.push(x);
  }
  return out;
}

async function filterRest(xs: Value[], cb: Callback, keep: boolean, out: Value[], i: number, pending: Promise<Value>): Promise<Value[]> {
  if (truthy(await pending) === keep) out.push(xs[i]!);
  for (i++; i < xs.length; i++) {
    const x = xs[i]!;
    let k = cb.one(x);
    if (isPromise(k)) k = await k;
    if (truthy(k) === keep) out.push(x);
  }
  return out;
}

/** Index of the first item whose callback result is truthy (or falsy, with
 * `want` false), or -1. Stops calling the callback at the first hit. */
export function findIndex(xs: Value[], f: Value, ctx: CallContext, want = true): Maybe<number> {
  const cb = ctx.prepare(f);
  for (let i = 0; i < xs.length; i++) {
    const k = cb.one(xs[i]!);
    if (isPromise(k)) return findRest(xs, cb, want, i, k);
    if (truthy(k) === want) return i;
  }
  return -1;
}

async function findRest(xs: Value[], cb: Callback, want: boolean, i: number, pending: Promise<Value>): Promise<number> {
  if (truthy(await pending) === want) return i;
  for (i++; i < xs.length; i++) {
    let k = cb.one(xs[i]!);
    if (isPromise(k)) k = await k;
    if (truthy(k) === want) return i;
  }
  return -1;
}

/** `acc = f(acc, x)` over the items. */
function reduceList(xs: Value[], acc: Value, f: Value, ctx: CallContext): Maybe<Value> {
  const cb = ctx.prepare(f);
  for (let i = 0; i < xs.length; i++) {
    const r = cb.two(acc, xs[i]!);
    if (isPromise(r)) return reduceRest(xs, cb, i, r);
    acc = r;
  }
  return acc;
}

async function reduceRest(xs: Value[], cb: Callback, i: number, pending: Promise<Value>): Promise<Value> {
  let acc = await pending;
  for (i++; i < xs.length; i++) {
    const r = cb.two(acc, xs[i]!);
    acc = isPromise(r) ? await r : r;
  }
  return acc;
}

/** The item with the smallest (sign -1) or largest (sign 1) key; ties keep
 * the first. */
function bestBy(xs: Value[], keys: Value[], sign: 1 | -1): Value {
  if (xs.length === 0) return null;
  let bi = 0;
  for (let i = 1; i < xs.length; i++) if (compare(keys[i]!, keys[bi]!) === sign) bi = i;
  return xs[bi]!;
}

/** Rust's stable sort sorts slices of up to 20 elements by insertion. */
const INSERTION_SORT_MAX = 20;

/**
 * Sorts `xs` in place, stably, as the reference's Rust `sort_by` does.
 * Values of different kinds compare as equal, so the comparison is not a
 * total order and the result depends on the algorithm: short lists use
 * Rust's insertion sort (`[3, 1, nil, 2]` stays `[1, 3, nil, 2]`, where a
 * merge sort gives `[1, 2, 3, nil]`). Longer lists use V8's stable sort,
 * which agrees with Rust's wherever the order is total.
 */
function stableSort<T>(xs: T[], cmp: (a: T, b: T) => number): T[] {
  if (xs.length > INSERTION_SORT_MAX) return xs.sort(cmp);
  for (let i = 1; i < xs.length; i++) {
    const tail = xs[i]!;
    let j = i;
    while (j > 0 && cmp(tail, xs[j - 1]!) < 0) {
      xs[j] = xs[j - 1]!;
      j--;
    }
    xs[j] = tail;
  }
  return xs;
}

/** Clamp a possibly negative index to `[0, len]`, counting negatives from the end. */
function fromEnd(i: number, len: number): number {
  if (i < 0) i += len;
  return Math.min(Math.max(i, 0), len);
}

function withCallback(xs: Value[], f: Value, otherwise: Value, run: (f: Value) => Value | Promise<Value>): Value | Promise<Value> {
  return isCallableValue(f) ? run(f) : otherwise;
}

const METHODS: Record<string, ListMethod> = {
  count: (xs) => xs.length,
  empty: (xs) => xs.length === 0,
  iter: (xs) => iterList(xs),

  map: (xs, a, ctx) => withCallback(xs, arg(a, 0), null, (f) => mapList(xs, f, ctx)),
  filter: (xs, a, ctx) => withCallback(xs, arg(a, 0), null, (f) => filterList(xs, f, ctx)),
  reduce: (xs, a, ctx) => withCallback(xs, arg(a, 1), null, (f) => reduceList(xs, arg(a, 0), f, ctx)),
  find: (xs, a, ctx) => withCallback(xs, arg(a, 0), null, (f) => andThen(findIndex(xs, f, ctx), (i) => (i < 0 ? null : xs[i]!))),
  find_index: (xs, a, ctx) => withCallback(xs, arg(a, 0), -1, (f) => findIndex(xs, f, ctx)),
  any: (xs, a, ctx) => withCallback(xs, arg(a, 0), false, (f) => andThen(findIndex(xs, f, ctx), (i) => i >= 0)),
  all: (xs, a, ctx) => withCallback(xs, arg(a, 0), true, (f) => andThen(findIndex(xs, f, ctx, false), (i) => i < 0)),
  none: (xs, a, ctx) => withCallback(xs, arg(a, 0), xs.length === 0, (f) => andThen(findIndex(xs, f, ctx), (i) => i < 0)),
  flat_map: (xs, a, ctx) => withCallback(xs, arg(a, 0), null, (f) => andThen(mapList(xs, f, ctx), flattenOnce)),
  partition: (xs, a, ctx) => withCallback(xs, arg(a, 0), null, (f) => partitionList(xs, f, ctx)),
  group_by: (xs, a, ctx) => withCallback(xs, arg(a, 0), null, (f) => andThen(mapList(xs, f, ctx), (keys) => groupBy(xs, keys))),
  sort_by: (xs, a, ctx) =>
    withCallback(xs, arg(a, 0), null, (f) =>
      andThen(mapList(xs, f, ctx), (keys) => {
        const idx = xs.map((_, i) => i);
        stableSort(idx, (i, j) => compare(keys[i]!, keys[j]!));
        return idx.map((i) => xs[i]!);
      }),
    ),
  min_by: (xs, a, ctx) => withCallback(xs, arg(a, 0), null, (f) => andThen(mapList(xs, f, ctx), (keys) => bestBy(xs, keys, -1))),
  max_by: (xs, a, ctx) => withCallback(xs, arg(a, 0), null, (f) => andThen(mapList(xs, f, ctx), (keys) => bestBy(xs, keys, 1))),

  sort: (xs) => stableSort(xs.slice(), compare),
  reverse: (xs) => xs.slice().reverse(),
  join: (xs, a) => joinDisplay(xs, strArg(a, 0)),
  contains: (xs, a) => indexOfEqual(xs, arg(a, 0)) >= 0,
  index_of: (xs, a) => indexOfEqual(xs, arg(a, 0)),
  enumerate: (xs) => xs.map((value, index) => HDict.of({ index, value })),
  zip: (xs, a) => {
    const ys = arg(a, 0);
    if (!Array.isArray(ys)) return [];
    const n = Math.min(xs.length, ys.length);
    const out: Value[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = [xs[i]!, ys[i]!];
    return out;
  },
  slice: (xs, a) => {
    const start = fromEnd(smallIntArg(a, 0) ?? 0, xs.length);
    const endArg = smallIntArg(a, 1);
    const end = endArg === null ? xs.length : fromEnd(endArg, xs.length);
    return end <= start ? [] : xs.slice(start, end);
  },
  unique: (xs) => uniqueByKey(xs),
  take: (xs, a) => xs.slice(0, Math.max(smallIntArg(a, 0) ?? 0, 0)),
  skip: (xs, a) => xs.slice(Math.max(smallIntArg(a, 0) ?? 0, 0)),
  first: (xs, a) => {
    const n = smallIntArg(a, 0);
    if (n === null) return xs.length > 0 ? xs[0]! : null;
    return xs.slice(0, Math.max(n, 0));
  },
  last: (xs, a) => {
    const n = smallIntArg(a, 0);
    if (n === null) return xs.length > 0 ? xs[xs.length - 1]! : null;
    return n <= 0 ? [] : xs.slice(Math.max(xs.length - n, 0));
  },
  sum: (xs) => {
    const total = new NumberSum();
    for (const x of xs) total.add(x);
    return total.value;
  },
  min: (xs) => bestBy(xs, xs, -1),
  max: (xs) => bestBy(xs, xs, 1),
  flatten: (xs) => flattenOnce(xs),
  push: (xs, a) => [...xs, arg(a, 0)],
  pop: (xs) => xs.slice(0, -1),
  chunk: (xs, a) => chunk(xs, smallIntArg(a, 0) ?? 1),
  window: (xs, a) => windows(xs, smallIntArg(a, 0) ?? 2, smallIntArg(a, 1) ?? 1),
  compact: (xs) => xs.filter((x) => x !== null),
  tally: (xs) => tally(xs),
};

METHODS.every = METHODS.all!;
METHODS["all?"] = METHODS.all!;
METHODS["none?"] = METHODS.none!;
METHODS.each_slice = METHODS.chunk!;
METHODS.each_cons = (xs, a) => windows(xs, smallIntArg(a, 0) ?? 2, 1);
METHODS.sliding_window = METHODS.each_cons;

export function installListMethods(rt: Runtime): void {
  for (const [name, m] of Object.entries(METHODS)) {
    const fn: MethodFn = (recv, args, ctx) => m(recv as Value[], args, ctx);
    rt.defineMethod("list", name, fn);
  }
}
