/**
 * Loops (§6.3, §6.4): `while` and `for … in`. A loop runs synchronously
 * and hands a suspension (a promise from its condition, item or body) to
 * an async driver that resumes it at the same phase, so a long loop never
 * nests promises.
 */
import type * as A from "@harn/parser";
import { truthy, type Value } from "../../values";
import type { Compiler } from "../compile";
import { BRK, CONT, Ctl } from "../control";
import type { Ev, Frame } from "../frame";
import { located, thenMaybe as then } from "../helpers";
import type { Interpreter } from "../interpreter";
import { LoopState, shaped } from "../shape";
import { pattern } from "./patterns";

export function whileLoop(c: Compiler, n: A.WhileLoop): Ev {
  const cond = c.expr(n.condition);
  const body = c.withLoop(() => c.scopedBlock(n.body, false));
  const interp = c.interp;
  const loop = new LoopState(interp.jit.loopThreshold);
  // Phases: 0 evaluate the condition; 1 condition value in `v`, run the
  // body; 2 body result in `v`. Suspensions return to the async driver,
  // which resumes this same synchronous loop at the right phase. Once the
  // loop is hot, phase 0 continues in its generated version (jit.ts),
  // which keeps the same contract: all loop state lives in frame slots.
  const run = (fr: Frame, phase: number, v: any): any => {
    for (;;) {
      if (phase === 0) {
        if (loop.jit !== null) return loop.jit(fr);
        v = cond(fr);
        if (v instanceof Promise) return new Suspend(v, 1);
        phase = 1;
      }
      if (phase === 1) {
        if (!(v === true || (v !== false && truthy(v)))) return null;
        v = body(fr);
        if (v instanceof Promise) return new Suspend(v, 2);
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
  try {
    bind = pattern(c, n.pattern, true);
    body = c.withLoop(() => c.scopedBlock(n.body, false), outer);
  } finally {
    c.popScope();
  }
  const interp = c.interp;
  const file = c.file;
  const span = n.iterable.span;
  return (fr) =>
    then(iterable(fr), (src) => {
      let stepper;
      try {
        stepper = interp.iterate(src, fr);
      } catch (e) {
        throw located(e, span, file);
      }
      return runForLoop(stepper, bind, body, fr, interp);
    });
}

/** A source of loop items: `next()` gives an item, DONE, or a promise. */
export interface Stepper {
  next(): Value | typeof DONE | Promise<Value | typeof DONE>;
}
export const DONE: unique symbol = Symbol("done");

/** A loop waiting for a promise; `drive` resumes it at `phase`. */
export class Suspend {
  constructor(
    readonly pending: Promise<any>,
    readonly phase: number,
  ) {}
}

export async function drive(first: Suspend, resume: (phase: number, v: any) => any): Promise<any> {
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
function forStep(st: Stepper, bind: (fr: Frame, v: Value) => unknown, body: Ev, fr: Frame, interp: Interpreter, phase: number, v: any): any {
  for (;;) {
    if (phase === 0) {
      v = st.next();
      if (v instanceof Promise) return new Suspend(v, 1);
      phase = 1;
    }
    if (phase === 1) {
      if (v === DONE) return null;
      const b = bind(fr, v);
      if (b instanceof Promise) return new Suspend(b, 2);
      phase = 2;
    }
    if (phase === 2) {
      v = body(fr);
      if (v instanceof Promise) return new Suspend(v, 3);
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

function runForLoop(st: Stepper, bind: (fr: Frame, v: Value) => unknown, body: Ev, fr: Frame, interp: Interpreter): any {
  const r = forStep(st, bind, body, fr, interp, 0, null);
  return r instanceof Suspend ? drive(r, (phase, v) => forStep(st, bind, body, fr, interp, phase, v)) : r;
}
