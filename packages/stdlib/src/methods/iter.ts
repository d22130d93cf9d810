/**
 * Iterator methods (spec/stdlib.md §22.6, semantics.md §7.10). Combinators
 * build new lazy iterators over the same source and pull only what they
 * need (`take(n)` pulls exactly n); sinks drain. Errors are type errors.
 *
 * Lazy callbacks run through the CallContext of the call that created the
 * combinator (the pull has no context of its own).
 */
import {
  compare,
  EqualityIndex,
  HarnError,
  HDict,
  HIter,
  HPair,
  HSet,
  isPromise,
  truthy,
  typeOf,
  type CallContext,
  type IterStep,
  type MethodFn,
  type Runtime,
  type Value,
} from "@harn/vm";
import { isCallableValue } from "../core/args";
import { DONE, item, makeIter, toIter } from "../core/iter";
import { andThen, type Maybe } from "../core/maybe";
import { NumberSum } from "../core/numeric";

/** Pull every remaining item into `f` until it returns true (stop). */
export function drain(it: HIter, f: (v: Value) => Maybe<boolean | void>): Maybe<void> {
  for (;;) {
    const s = it.pull();
    if (isPromise(s)) return drainAsync(it, f, s, null);
    if (s.done) return;
    const r = f(s.value);
    if (isPromise(r)) return drainAsync(it, f, null, r);
    if (r === true) return;
  }
}

async function drainAsync(
  it: HIter,
  f: (v: Value) => Maybe<boolean | void>,
  pendingPull: Promise<IterStep> | null,
  pendingItem: Promise<boolean | void> | null,
): Promise<void> {
  if (pendingItem && (await pendingItem) === true) return;
  for (;;) {
    let s: Maybe<IterStep>;
    if (pendingPull) {
      s = await pendingPull;
      pendingPull = null;
    } else {
      s = it.pull();
      if (isPromise(s)) s = await s;
    }
    if (s.done) return;
    let r = f(s.value);
    if (isPromise(r)) r = await r;
    if (r === true) return;
  }
}

function callable(name: string, f: Value): Value {
  if (!isCallableValue(f)) throw HarnError.type(`iter.${name}: expected callable`);
  return f;
}

function count(name: string, n: Value): number {
  if (typeof n === "bigint" && n > 0n) return Number.MAX_SAFE_INTEGER;
  if (typeof n !== "number" || n < 0) throw HarnError.type(`iter.${name}: expected non-negative int`);
  return n;
}

/** A positive int size (ints beyond 2^53 act as "more than any source
 * holds"), else the type error `message`. */
function positive(n: Value, message: string): number {
  if (typeof n === "bigint" && n > 0n) return Number.MAX_SAFE_INTEGER;
  if (typeof n !== "number" || n <= 0) throw HarnError.type(message);
  return n;
}

function iterable(name: string, v: Value, ctx: CallContext): Maybe<HIter> {
  const it = toIter(v, ctx);
  if (it === null) throw HarnError.type(`iter.${name}: expected iterable argument`);
  return it;
}

// ---------------------------------------------------------------------------
// Combinators

function map(src: HIter, f: Value, ctx: CallContext): HIter {
  const onStep = (s: IterStep): Maybe<IterStep> => (s.done ? DONE : andThen(ctx.call(f, [s.value]), item));
  return makeIter(() => andThen(src.pull(), onStep));
}

/** Items whose predicate result passes `keep` (filter, skip_while). */
function filter(src: HIter, f: Value, ctx: CallContext): HIter {
  const next = (): Maybe<IterStep> => {
    for (;;) {
      const s = src.pull();
      if (isPromise(s)) return s.then(check);
      if (s.done) return DONE;
      const k = ctx.call(f, [s.value]);
      if (isPromise(k)) return k.then((k2) => (truthy(k2) ? s : next()));
      if (truthy(k)) return s;
    }
  };
  const check = (s: IterStep): Maybe<IterStep> => {
    if (s.done) return DONE;
    return andThen(ctx.call(f, [s.value]), (k) => (truthy(k) ? s : next()));
  };
  return makeIter(next);
}

function flatMap(src: HIter, f: Value, ctx: CallContext): HIter {
  let inner: HIter | null = null;
  const lift = (r: Value): Maybe<HIter> => {
    const it = toIter(r, ctx);
    if (it === null) throw HarnError.type("flat_map: expected iterable result");
    return it;
  };
  const adopt = (r: Value): Maybe<IterStep> =>
    andThen(lift(r), (it) => {
      inner = it;
      return next();
    });
  const next = (): Maybe<IterStep> => {
    for (;;) {
      if (inner !== null) {
        const s = inner.pull();
        if (isPromise(s)) return s.then((s2) => (s2.done ? ((inner = null), next()) : s2));
        if (!s.done) return s;
        inner = null;
      }
      const o = src.pull();
      if (isPromise(o)) return o.then((o2) => (o2.done ? DONE : andThen(ctx.call(f, [o2.value]), adopt)));
      if (o.done) return DONE;
      const r = ctx.call(f, [o.value]);
      if (isPromise(r)) return r.then(adopt);
      const it = lift(r);
      if (isPromise(it)) return it.then((x) => ((inner = x), next()));
      inner = it;
    }
  };
  return makeIter(next);
}

function take(src: HIter, n: number): HIter {
  let left = n;
  return makeIter(() => {
    if (left <= 0) return DONE;
    left--;
    return src.pull();
  });
}

function skip(src: HIter, n: number): HIter {
  let toSkip = n;
  const next = (): Maybe<IterStep> => {
    while (toSkip > 0) {
      toSkip--;
      const s = src.pull();
      if (isPromise(s)) return s.then((s2) => (s2.done ? DONE : next()));
      if (s.done) return DONE;
    }
    return src.pull();
  };
  return makeIter(next);
}

function takeWhile(src: HIter, f: Value, ctx: CallContext): HIter {
  let stopped = false;
  const onStep = (s: IterStep): Maybe<IterStep> => {
    if (s.done) return DONE;
    return andThen(ctx.call(f, [s.value]), (k) => {
      if (truthy(k)) return s;
      stopped = true; // the failing item is consumed and dropped
      return DONE;
    });
  };
  return makeIter(() => (stopped ? DONE : andThen(src.pull(), onStep)));
}

function skipWhile(src: HIter, f: Value, ctx: CallContext): HIter {
  let skipping = true;
  const next = (): Maybe<IterStep> => {
    for (;;) {
      const s = src.pull();
      if (isPromise(s)) return s.then(check);
      if (!skipping || s.done) return s;
      const k = ctx.call(f, [s.value]);
      if (isPromise(k)) return k.then((k2) => (truthy(k2) ? next() : ((skipping = false), s)));
      if (!truthy(k)) {
        skipping = false;
        return s;
      }
    }
  };
  const check = (s: IterStep): Maybe<IterStep> => {
    if (!skipping || s.done) return s;
    return andThen(ctx.call(f, [s.value]), (k) => (truthy(k) ? next() : ((skipping = false), s)));
  };
  return makeIter(next);
}

function zip(a: HIter, b: HIter): HIter {
  return makeIter(() =>
    andThen(a.pull(), (x) => {
      if (x.done) return DONE;
      return andThen(b.pull(), (y) => (y.done ? DONE : item(new HPair(x.value, y.value))));
    }),
  );
}

function enumerate(src: HIter): HIter {
  let i = 0;
  const onStep = (s: IterStep): IterStep => (s.done ? DONE : item(new HPair(i++, s.value)));
  return makeIter(() => andThen(src.pull(), onStep));
}

function chain(a: HIter, b: HIter): HIter {
  let first = true;
  const next = (): Maybe<IterStep> => {
    if (!first) return b.pull();
    return andThen(a.pull(), (s) => {
      if (!s.done) return s;
      first = false;
      return b.pull();
    });
  };
  return makeIter(next);
}

/**
 * Collecting more items than this into one list is refused with a runtime
 * error. A lazy source is cheap to ask for (`iter(1 to 100000000000)`), and
 * V8 does not throw when an array outgrows its limit (about 1.1 * 10^8
 * elements) but aborts the whole process with a native stack trace.
 */
const MAX_COLLECT = 100_000_000;
/** A JS Map holds at most 2^24 entries (beyond: a RangeError). */
const MAX_DICT = (1 << 24) - 1;

function collect(name: string, out: Value[], v: Value): void {
  if (out.length >= MAX_COLLECT) throw HarnError.runtime(`iter.${name}: too many items to collect (more than ${MAX_COLLECT})`);
  out.push(v);
}

function chunks(src: HIter, n: number): HIter {
  return makeIter(() => {
    const chunk: Value[] = [];
    const r = drain(src, (v) => {
      collect("chunks", chunk, v);
      return chunk.length >= n;
    });
    return andThen(r, () => (chunk.length > 0 ? item(chunk) : DONE));
  });
}

function windows(src: HIter, n: number): HIter {
  let window: Value[] = [];
  return makeIter(() => {
    if (window.length === n) window = window.slice(1);
    const r = drain(src, (v) => {
      collect("windows", window, v);
      return window.length >= n;
    });
    return andThen(r, () => (window.length === n ? item(window.slice()) : DONE));
  });
}

// ---------------------------------------------------------------------------
// Sinks

function toList(it: HIter): Maybe<Value> {
  const out: Value[] = [];
  return andThen(
    drain(it, (v) => {
      collect("to_list", out, v);
    }),
    () => out,
  );
}

function toSet(it: HIter): Maybe<Value> {
  const out: Value[] = [];
  const seen = new EqualityIndex();
  return andThen(
    drain(it, (v) => {
      if (seen.add(v)) collect("to_set", out, v);
    }),
    () => new HSet(out),
  );
}

function toDict(it: HIter): Maybe<Value> {
  const m = new Map<string, Value>();
  return andThen(
    drain(it, (v) => {
      if (!(v instanceof HPair)) throw HarnError.type(`iter.to_dict: expected pair, got ${typeOf(v)}`);
      if (typeof v.first !== "string") throw HarnError.type(`iter.to_dict: expected string key, got ${typeOf(v.first)}`);
      if (m.size >= MAX_DICT && !m.has(v.first)) throw HarnError.runtime(`iter.to_dict: too many keys (more than ${MAX_DICT})`);
      m.set(v.first, v.second);
    }),
    () => new HDict(m),
  );
}

function best(it: HIter, sign: 1 | -1): Maybe<Value> {
  let found = false;
  let cur: Value = null;
  return andThen(
    drain(it, (v) => {
      if (!found || compare(v, cur) === sign) {
        cur = v;
        found = true;
      }
    }),
    () => cur,
  );
}

function short(it: HIter, f: Value, ctx: CallContext, stopWhen: boolean, onStop: (v: Value) => Value, otherwise: Value): Maybe<Value> {
  let result: Value = otherwise;
  return andThen(
    drain(it, (v) =>
      andThen(ctx.call(f, [v]), (k) => {
        if (truthy(k) !== stopWhen) return false;
        result = onStop(v);
        return true;
      }),
    ),
    () => result,
  );
}

// ---------------------------------------------------------------------------

type IterMethod = (it: HIter, args: Value[], ctx: CallContext) => Value | Promise<Value>;

const METHODS: Record<string, IterMethod> = {
  iter: (it) => it,
  map: (it, a, ctx) => map(it, callable("map", a[0] ?? null), ctx),
  filter: (it, a, ctx) => filter(it, callable("filter", a[0] ?? null), ctx),
  flat_map: (it, a, ctx) => flatMap(it, callable("flat_map", a[0] ?? null), ctx),
  take: (it, a) => take(it, count("take", a[0] ?? null)),
  skip: (it, a) => skip(it, count("skip", a[0] ?? null)),
  take_while: (it, a, ctx) => takeWhile(it, callable("take_while", a[0] ?? null), ctx),
  skip_while: (it, a, ctx) => skipWhile(it, callable("skip_while", a[0] ?? null), ctx),
  zip: (it, a, ctx) => andThen(iterable("zip", a[0] ?? null, ctx), (b) => zip(it, b)),
  enumerate: (it) => enumerate(it),
  chain: (it, a, ctx) => andThen(iterable("chain", a[0] ?? null, ctx), (b) => chain(it, b)),
  chunks: (it, a) => chunks(it, positive(a[0] ?? null, "iter.chunks: chunk size must be positive")),
  windows: (it, a) => windows(it, positive(a[0] ?? null, "iter.windows: window size must be positive")),

  to_list: (it) => toList(it),
  to_set: (it) => toSet(it),
  to_dict: (it) => toDict(it),
  count: (it) => {
    let n = 0;
    return andThen(
      drain(it, () => {
        n++;
      }),
      () => n,
    );
  },
  sum: (it) => {
    const total = new NumberSum();
    return andThen(
      drain(it, (v) => {
        if (!total.add(v)) throw HarnError.type(`iter.sum: expected number, got ${typeOf(v)}`);
      }),
      () => total.value,
    );
  },
  min: (it) => best(it, -1),
  max: (it) => best(it, 1),
  reduce: (it, a, ctx) => {
    if (a.length < 2) throw HarnError.type("iter.reduce: expected (init, fn)");
    const f = a[1]!;
    if (!isCallableValue(f)) throw HarnError.type("iter.reduce: second arg must be callable");
    let acc: Value = a[0]!;
    return andThen(
      drain(it, (v) =>
        andThen(ctx.call(f, [acc, v]), (r) => {
          acc = r;
        }),
      ),
      () => acc,
    );
  },
  first: (it) => andThen(it.pull(), (s) => (s.done ? null : s.value)),
  last: (it) => {
    let last: Value = null;
    return andThen(
      drain(it, (v) => {
        last = v;
      }),
      () => last,
    );
  },
  any: (it, a, ctx) => short(it, callable("any", a[0] ?? null), ctx, true, () => true, false),
  all: (it, a, ctx) => short(it, callable("all", a[0] ?? null), ctx, false, () => false, true),
  find: (it, a, ctx) => short(it, callable("find", a[0] ?? null), ctx, true, (v) => v, null),
  for_each: (it, a, ctx) => {
    const f = callable("for_each", a[0] ?? null);
    return andThen(
      drain(it, (v) => andThen(ctx.call(f, [v]), () => false)),
      () => null,
    );
  },
};

/** Names every iterator method answers to; ranges lift to iterators for
 * these. */
export const ITER_METHOD_NAMES = Object.keys(METHODS);

/** Apply iterator method `name` (which must exist) to `it`. */
export function callIterMethod(it: HIter, name: string, args: Value[], ctx: CallContext): Value | Promise<Value> {
  return METHODS[name]!(it, args, ctx);
}

export function installIterMethods(rt: Runtime): void {
  for (const [name, m] of Object.entries(METHODS)) {
    const fn: MethodFn = (recv, args, ctx) => m(recv as HIter, args, ctx);
    rt.defineMethod("iter", name, fn);
  }
}
