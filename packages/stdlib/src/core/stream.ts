/**
 * The `stream` namespace (spec/core-gaps.md §5): a global dict whose
 * members are the builtins `stream.<op>`, combinators over anything `iter`
 * accepts. They return lazy iterators pulling from the shared source.
 *
 * "Ready" (for merge and race) is decided uniformly: a source is ready when
 * a pull of it has produced its step, which for lists and other in-memory
 * sources is at once; a source whose pull is still waiting (an empty open
 * channel, a generator that has not reached its next `emit`) is live but
 * not ready. A merge with no ready source waits for the first pending pull
 * to finish instead of sleeping and looking again.
 */
import { HarnError, HBuiltinRef, HDict, HFloat, HIter, HPair, isPromise, truthy, typeOf, type CallContext, type IterStep, type Value } from "@harn/vm";
import { isCallableValue } from "./args";
import { DONE, item, makeIter, toIter } from "./iter";
import { andThen, type Maybe } from "./maybe";
import { callIterMethod, drain } from "../methods/iter";
import { builtinModule, type Define } from "../registry/define";

const OPS = ["map", "filter", "tap", "scan", "fold", "collect", "take", "take_until", "first", "merge", "interleave", "zip", "broadcast", "race", "throttle", "debounce"] as const;

const typeErr = (op: string, text: string) => HarnError.type(`stream.${op}: ${text}`);

function argAt(op: string, args: Value[], i: number): Value {
  if (i >= args.length) throw typeErr(op, `missing argument ${i + 1}`);
  return args[i]!;
}

function source(op: string, args: Value[], i: number, ctx: CallContext): Maybe<HIter> {
  const v = argAt(op, args, i);
  const it = toIter(v, ctx);
  if (it === null) throw HarnError.type(`iter: value of type ${typeOf(v)} is not iterable`);
  return it;
}

function fnArg(op: string, args: Value[], i: number): Value {
  const f = argAt(op, args, i);
  if (!isCallableValue(f)) throw typeErr(op, `argument ${i + 1} must be callable, got ${typeOf(f)}`);
  return f;
}

function intArg(op: string, args: Value[], i: number, positive: boolean): number {
  const n = argAt(op, args, i);
  const ok = (typeof n === "number" || typeof n === "bigint") && (positive ? n > 0 : n >= 0);
  if (!ok) throw typeErr(op, `argument ${i + 1} must be a ${positive ? "positive" : "non-negative"} int, got ${typeOf(n)}`);
  return typeof n === "bigint" ? Number.MAX_SAFE_INTEGER : n;
}

function positiveNumber(op: string, args: Value[], i: number): number {
  const v = argAt(op, args, i);
  const n = typeof v === "number" ? v : v instanceof HFloat ? v.v : typeof v === "bigint" ? Number(v) : null;
  if (n === null || !(n > 0)) throw typeErr(op, `argument ${i + 1} must be a positive number, got ${typeOf(v)}`);
  if (!Number.isFinite(n)) throw typeErr(op, `argument ${i + 1} must be a positive finite number`);
  return n;
}

/** All the sources from argument `from` on, lifted (some may be async). */
function sources(op: string, args: Value[], from: number, ctx: CallContext): Maybe<HIter[]> {
  const lifted = args.slice(from).map((_, k) => source(op, args, from + k, ctx));
  return lifted.some(isPromise) ? Promise.all(lifted) : (lifted as HIter[]);
}

// ---------------------------------------------------------------------------
// Readiness

/** A source with at most one pull in flight; `ready()` starts one. */
class Cursor {
  private step: IterStep | null = null;
  private pending: Promise<void> | null = null;
  private failure: { e: unknown } | null = null;
  constructor(readonly it: HIter) {}

  /** Whether the next step is known (starting a pull if none is running). */
  ready(): boolean {
    if (this.step !== null || this.failure !== null) return true;
    if (this.pending === null) {
      let s: Maybe<IterStep>;
      try {
        s = this.it.pull();
      } catch (e) {
        this.failure = { e };
        return true;
      }
      if (!isPromise(s)) {
        this.step = s;
        return true;
      }
      this.pending = s.then(
        (x) => {
          this.step = x;
          this.pending = null;
        },
        (e) => {
          this.failure = { e };
          this.pending = null;
        },
      );
    }
    return false;
  }

  /** The ready step (call only after `ready()` said true); errors of the pull are raised here. */
  take(): IterStep {
    if (this.failure) {
      const e = this.failure.e;
      this.failure = null;
      throw e;
    }
    const s = this.step!;
    this.step = null;
    return s;
  }

  wait(): Promise<void> {
    return this.pending ?? Promise.resolve();
  }
}

/** Wait until one of `cursors` has its pull finished, or the task is cancelled. */
function anyReady(cursors: Cursor[], signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    void Promise.race(cursors.map((c) => c.wait())).then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}

function merge(its: HIter[], signal: AbortSignal): HIter {
  const live = its.map((it) => new Cursor(it));
  let cursor = 0;
  const next = (): Maybe<IterStep> => {
    while (live.length > 0) {
      let found = false;
      for (let k = 0; k < live.length; k++) {
        const idx = (cursor + k) % live.length;
        const c = live[idx]!;
        if (!c.ready()) continue;
        const s = c.take();
        if (s.done) {
          live.splice(idx, 1);
          if (cursor > idx) cursor--;
          found = true;
          break;
        }
        cursor = live.length === 0 ? 0 : (idx + 1) % live.length;
        return s;
      }
      if (!found && live.length > 0) return anyReady(live, signal).then(next);
    }
    return DONE;
  };
  return makeIter(next);
}

function race(its: HIter[], signal: AbortSignal): HIter {
  const live = its.map((it) => new Cursor(it));
  let winner: HIter | null = null;
  const next = (): Maybe<IterStep> => {
    if (winner) return winner.pull();
    while (live.length > 0) {
      let dropped = false;
      for (let idx = 0; idx < live.length; idx++) {
        const c = live[idx]!;
        if (!c.ready()) continue;
        const s = c.take();
        if (s.done) {
          live.splice(idx, 1);
          dropped = true;
          break;
        }
        winner = c.it;
        live.length = 0;
        return s;
      }
      if (!dropped && live.length > 0) return anyReady(live, signal).then(next);
    }
    return DONE;
  };
  return makeIter(next);
}

// ---------------------------------------------------------------------------
// Combinators the iterator methods do not have

function tap(src: HIter, f: Value, ctx: CallContext): HIter {
  return makeIter(() => andThen(src.pull(), (s) => (s.done ? DONE : andThen(ctx.call(f, [s.value]), () => s))));
}

function scan(src: HIter, init: Value, f: Value, ctx: CallContext): HIter {
  let acc = init;
  return makeIter(() =>
    andThen(src.pull(), (s) =>
      s.done
        ? DONE
        : andThen(ctx.call(f, [acc, s.value]), (r) => {
            acc = r;
            return item(r);
          }),
    ),
  );
}

function takeUntil(src: HIter, p: Value, ctx: CallContext): HIter {
  return makeIter(() => andThen(src.pull(), (s) => (s.done ? DONE : andThen(ctx.call(p, [s.value]), (stop) => (truthy(stop) ? DONE : s)))));
}

function zip(a: HIter, b: HIter): HIter {
  return makeIter(() => andThen(a.pull(), (x) => (x.done ? DONE : andThen(b.pull(), (y) => (y.done ? DONE : item(new HPair(x.value, y.value)))))));
}

function interleave(its: HIter[]): HIter {
  const live = [...its];
  let i = 0;
  const next = (): Maybe<IterStep> => {
    if (live.length === 0) return DONE;
    const idx = i % live.length;
    return andThen(live[idx]!.pull(), (s) => {
      if (s.done) {
        live.splice(idx, 1);
        i = idx;
        return next();
      }
      i = idx + 1;
      return s;
    });
  };
  return makeIter(next);
}

function broadcast(src: HIter, n: number): HIter[] {
  const buffer: Value[] = [];
  let ended = false;
  let pulling: Promise<void> | null = null;
  const branch = (): HIter => {
    let pos = 0;
    const next = (): Maybe<IterStep> => {
      if (pos < buffer.length) return item(buffer[pos++]!);
      if (ended) return DONE;
      if (pulling) return pulling.then(next);
      const s = src.pull();
      const record = (x: IterStep) => {
        if (x.done) ended = true;
        else buffer.push(x.value);
      };
      if (!isPromise(s)) {
        record(s);
        return next();
      }
      pulling = s.then(record).finally(() => {
        pulling = null;
      });
      return pulling.then(next);
    };
    return makeIter(next);
  };
  return Array.from({ length: n }, branch);
}

function throttle(src: HIter, perSec: number, ctx: CallContext): HIter {
  const gap = Math.max(1, Math.ceil(1000 / perSec));
  const clock = ctx.runtime.clock;
  const signal = ctx.signal;
  let last: number | null = null;
  return makeIter(() =>
    andThen(src.pull(), (s): Maybe<IterStep> => {
      if (s.done) return DONE;
      const now = clock.monotonic();
      const wait = last === null ? 0 : last + gap - now;
      const emit = () => {
        last = clock.monotonic();
        return s;
      };
      return wait > 0 ? clock.sleep(wait, signal).then(emit) : emit();
    }),
  );
}

function debounce(src: HIter, windowMs: number, ctx: CallContext): HIter {
  const clock = ctx.runtime.clock;
  const signal = ctx.signal;
  const cursor = new Cursor(src);
  const next = async (): Promise<IterStep> => {
    while (!cursor.ready()) await cursor.wait();
    let s = cursor.take();
    if (s.done) return DONE;
    if (windowMs > 0) await clock.sleep(windowMs, signal);
    while (cursor.ready()) {
      const t = cursor.take();
      if (t.done) break;
      s = t;
    }
    return s;
  };
  return makeIter(next);
}

function collectMax(v: Value): number {
  if (v === null) return 10_000;
  if (typeof v === "number" && v >= 0) return v;
  if (typeof v === "bigint" && v >= 0n) return Number.MAX_SAFE_INTEGER;
  if (v instanceof HDict) {
    const m = v.get("max");
    if (m === null) return 10_000;
    if ((typeof m === "number" && m >= 0) || (typeof m === "bigint" && m >= 0n)) return typeof m === "bigint" ? Number.MAX_SAFE_INTEGER : m;
    throw HarnError.type(`stream.collect: max must be a non-negative int, got ${typeOf(m)}`);
  }
  throw HarnError.type(`stream.collect: second argument must be max int or options dict, got ${typeOf(v)}`);
}

function collect(it: HIter, max: number): Maybe<Value> {
  const out: Value[] = [];
  return andThen(
    drain(it, (v) => {
      if (out.length >= max) throw HarnError.runtime(`stream.collect: max cap ${max} exceeded`);
      out.push(v);
    }),
    () => out,
  );
}

function defineOps(def: Define): void {
  const on = (op: string, fn: (args: Value[], ctx: CallContext) => Maybe<Value>) => def(`stream.${op}`, fn);
  const one = (op: string, args: Value[], ctx: CallContext, f: (it: HIter) => Maybe<Value>) => andThen(source(op, args, 0, ctx), f);
  on("map", (a, ctx) => one("map", a, ctx, (it) => callIterMethod(it, "map", [fnArg("map", a, 1)], ctx)));
  on("filter", (a, ctx) => one("filter", a, ctx, (it) => callIterMethod(it, "filter", [fnArg("filter", a, 1)], ctx)));
  on("tap", (a, ctx) => one("tap", a, ctx, (it) => tap(it, fnArg("tap", a, 1), ctx)));
  on("scan", (a, ctx) => one("scan", a, ctx, (it) => scan(it, argAt("scan", a, 1), fnArg("scan", a, 2), ctx)));
  on("fold", (a, ctx) => one("fold", a, ctx, (it) => callIterMethod(it, "reduce", [argAt("fold", a, 1), fnArg("fold", a, 2)], ctx)));
  on("collect", (a, ctx) => one("collect", a, ctx, (it) => collect(it, collectMax(a.length > 1 ? a[1]! : null))));
  on("first", (a, ctx) => one("first", a, ctx, (it) => callIterMethod(it, "first", [], ctx)));
  on("take", (a, ctx) => one("take", a, ctx, (it) => callIterMethod(it, "take", [intArg("take", a, 1, false)], ctx)));
  on("take_until", (a, ctx) => one("take_until", a, ctx, (it) => takeUntil(it, fnArg("take_until", a, 1), ctx)));
  on("zip", (a, ctx) => {
    if (a.length !== 2) throw typeErr("zip", `expected 2 streams, got ${a.length}`);
    return andThen(sources("zip", a, 0, ctx), ([x, y]) => zip(x!, y!));
  });
  on("merge", (a, ctx) => {
    if (a.length < 1) throw typeErr("merge", "expected at least one stream");
    return andThen(sources("merge", a, 0, ctx), (its) => merge(its, ctx.signal));
  });
  on("interleave", (a, ctx) => {
    if (a.length < 2) throw typeErr("interleave", "expected at least two streams");
    return andThen(sources("interleave", a, 0, ctx), interleave);
  });
  on("race", (a, ctx) => {
    if (a.length < 1) throw typeErr("race", "expected at least one stream");
    return andThen(sources("race", a, 0, ctx), (its) => race(its, ctx.signal));
  });
  on("broadcast", (a, ctx) => one("broadcast", a, ctx, (it) => broadcast(it, intArg("broadcast", a, 1, true))));
  on("throttle", (a, ctx) => one("throttle", a, ctx, (it) => throttle(it, positiveNumber("throttle", a, 1), ctx)));
  on("debounce", (a, ctx) => one("debounce", a, ctx, (it) => debounce(it, intArg("debounce", a, 1, false), ctx)));
}

export const STREAM_BUILTINS = builtinModule("core/stream", (def, rt) => {
  defineOps(def);
  const members: Record<string, Value> = { _namespace: "stream" };
  for (const op of OPS) members[op] = new HBuiltinRef(`stream.${op}`);
  rt.globals.set("stream", HDict.of(members));
});
