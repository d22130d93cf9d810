/**
 * Loops (§6.3, §6.4): `while` and `for … in`. A loop runs synchronously
 * and hands a suspension (a promise from its condition, item or body) to
 * an async driver that resumes it at the same phase, so a long loop never
 * nests promises.
 */
import type * as A from "@harn/parser";
import * as ops from "../../ops";
import { HRange, truthy, type Value } from "../../values";
import type { Compiler } from "../compile";
import { BRK, CONT, Ctl } from "../control";
import type { Ev, Frame, Outcome, Result } from "../frame";
import { located, thenMaybe as then } from "../helpers";
import type { Interpreter } from "../interpreter";
import { LoopState, shaped } from "../shape";
import { pattern } from "./patterns";

export function whileLoop(c: Compiler, n: A.WhileLoop): Ev {
  const cond = c.expr(n.condition);
  const body = c.withLoop(() => c.scopedBlock(n.body, false));
  return loopWhile(c.interp, cond, body);
}

/** `while cond { body }` from compiled parts. */
function loopWhile(interp: Interpreter, cond: Ev, body: Ev): Ev {
  const loop = new LoopState(interp.jit.loopThreshold);
  // Phases: 0 evaluate the condition; 1 condition value in `v`, run the
  // body; 2 body result in `v`. Suspensions return to the async driver,
  // which resumes this same synchronous loop at the right phase. Once the
  // loop is hot, phase 0 continues in its generated version (jit.ts),
  // which keeps the same contract: all loop state lives in frame slots.
  const run = (fr: Frame, phase: number, v: unknown): LoopStep => {
    for (;;) {
      if (phase === 0) {
        if (loop.jit !== null) {
          const r = loop.jit(fr);
          if (r === AGAIN) continue;
          if (r !== ONCE) return r;
          // The generated loop declined this iteration: it runs here.
          interp.jit.exited(shape);
        }
        const c = cond(fr);
        if (c instanceof Promise) return new Suspend(c, 1);
        v = c;
        phase = 1;
      }
      if (phase === 1) {
        // `v` is the condition's value.
        if (!(v === true || (v !== false && truthy(v as Value)))) return null;
        const b = body(fr);
        if (b instanceof Promise) return new Suspend(b, 2);
        v = b;
      }
      if (v instanceof Ctl) {
        if (v === BRK) return null;
        if (v !== CONT) return v;
      }
      if (++interp.ticks >= 1024) {
        const y = interp.slowTick(fr.task);
        if (y) return new Suspend(y, 0);
      }
      if (loop.countdown > 0 && --loop.countdown === 0) interp.jit.compileLoop(shape);
      phase = 0;
    }
  };
  const shape = { k: "while", c: cond, body, loop, run } as const;
  return shaped((fr) => {
    const r = run(fr, 0, null);
    return r instanceof Suspend ? drive(r, (phase, v) => run(fr, phase, v)) : r;
  }, shape);
}

export function forIn(c: Compiler, n: A.ForIn): Ev {
  const iterable = c.expr(n.iterable);
  const outer = c.scope;
  c.pushScope();
  let bind: (fr: Frame, v: Value) => unknown;
  let body: Ev;
  let counter: Counter | null = null;
  try {
    bind = pattern(c, n.pattern, true);
    const p = n.pattern;
    if (p.kind === "ident" && p.name !== "_") {
      const v = c.scope.resolve(p.name);
      // Hidden slots of the loop's scope (no name a program can write).
      if (v) counter = { v: v.slot, i: c.scope.declare("\0for-i", true).slot, last: c.scope.declare("\0for-last", true).slot };
    }
    body = c.withLoop(() => c.scopedBlock(n.body, false), outer);
  } finally {
    c.popScope();
  }
  const interp = c.interp;
  const file = c.file;
  const span = n.iterable.span;
  const counted = counter !== null ? countedLoop(interp, counter, body) : null;
  return (fr) =>
    then(iterable(fr), (src) => {
      if (counted !== null && counter !== null && src instanceof HRange && src.small && (src.last as number) < Number.MAX_SAFE_INTEGER) {
        fr.s[counter.i] = src.start;
        fr.s[counter.last] = src.last;
        return counted(fr);
      }
      let stepper;
      try {
        stepper = interp.iterate(src, fr);
      } catch (e) {
        throw located(e, span, file);
      }
      return runForLoop(stepper, bind, body, fr, interp);
    });
}

/** The slots of a counted `for v in range`: the variable, the next value,
 * the last value. */
interface Counter {
  v: number;
  i: number;
  last: number;
}

/**
 * `for v in a to b` (or `range(a, b)`) over safe ints, as the `while` loop
 * `while i <= last { v = i; i = i + 1; body }`, so it tiers up to
 * generated code like any `while` (the stepper path never does). The
 * values, their order and `break`/`continue` are the stepper's; `i + 1`
 * stays safe because `last` is below the largest safe int.
 */
function countedLoop(interp: Interpreter, k: Counter, body: Ev): Ev {
  const { v, i, last } = k;
  const slot = (n: number): Ev => shaped((fr) => fr.s[n]!, { k: "slot", slot: n });
  const cond = shaped((fr) => (fr.s[i] as number) <= (fr.s[last] as number), { k: "bin", op: "<=", l: slot(i), r: slot(last), slow: ops.le });
  const setV = shaped((fr) => {
    fr.s[v] = fr.s[i]!;
    return null;
  }, { k: "store", slot: v, value: slot(i) });
  const next = shaped((fr) => (fr.s[i] as number) + 1, { k: "bin", op: "+", l: slot(i), r: shaped(() => 1, { k: "lit", v: 1 }), slow: ops.add });
  const step = shaped((fr) => {
    fr.s[i] = next(fr) as number;
    return null;
  }, { k: "store", slot: i, value: next });
  const block = shaped((fr) => {
    setV(fr);
    step(fr);
    return body(fr);
  }, { k: "block", evs: [setV, step, body], useLast: false });
  return loopWhile(interp, cond, block);
}

/** A source of loop items: `next()` gives an item, DONE, or a promise. */
export interface Stepper {
  next(): Value | typeof DONE | Promise<Value | typeof DONE>;
}
export const DONE: unique symbol = Symbol("done");

/** A loop waiting for a promise; `drive` resumes it at `phase` with the
 * promise's value (what that value is depends on the phase). */
export class Suspend {
  constructor(
    readonly pending: Promise<unknown>,
    readonly phase: number,
  ) {}
}

/** What a resumable loop step returns: the loop's outcome, or where it
 * waits. */
export type LoopStep = Outcome | Suspend;

/** A generated loop (jit.ts) returns these besides a `LoopStep`: `AGAIN`
 * at a back-edge, where it leaves to be called again (after a tick, or
 * after an exit finished the iteration in the closure tier); `ONCE` when
 * it declines to run the next iteration (a slot it keeps as a number holds
 * something else), which the closure loop then runs. */
export const AGAIN: unique symbol = Symbol("again");
export const ONCE: unique symbol = Symbol("once");
export type JitStep = LoopStep | typeof AGAIN | typeof ONCE;

export async function drive(first: Suspend, resume: (phase: number, v: unknown) => LoopStep): Promise<Outcome> {
  let s = first;
  for (;;) {
    const v = await s.pending;
    const r = resume(s.phase, v);
    if (!(r instanceof Suspend)) return r;
    s = r;
  }
}

/** Phases: 0 pull the next item; 1 item in `v`, bind it; 2 bound, run the
 * body; 3 body result in `v`. */
function forStep(st: Stepper, bind: (fr: Frame, v: Value) => unknown, body: Ev, fr: Frame, interp: Interpreter, phase: number, v: unknown): LoopStep {
  for (;;) {
    if (phase === 0) {
      const x = st.next();
      if (x instanceof Promise) return new Suspend(x, 1);
      v = x;
      phase = 1;
    }
    if (phase === 1) {
      // `v` is the next item.
      if (v === DONE) return null;
      const b = bind(fr, v as Value);
      if (b instanceof Promise) return new Suspend(b, 2);
      phase = 2;
    }
    if (phase === 2) {
      const r = body(fr);
      if (r instanceof Promise) return new Suspend(r, 3);
      v = r;
    }
    if (v instanceof Ctl) {
      if (v === BRK) return null;
      if (v !== CONT) return v;
    }
    if (++interp.ticks >= 1024) {
      const y = interp.slowTick(fr.task);
      if (y) return new Suspend(y, 0);
    }
    phase = 0;
  }
}

function runForLoop(st: Stepper, bind: (fr: Frame, v: Value) => unknown, body: Ev, fr: Frame, interp: Interpreter): Result {
  const r = forStep(st, bind, body, fr, interp, 0, null);
  return r instanceof Suspend ? drive(r, (phase, v) => forStep(st, bind, body, fr, interp, phase, v)) : r;
}
