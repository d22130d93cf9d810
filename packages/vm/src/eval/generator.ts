/**
 * Generators and streams (spec/semantics.md §7.9): the body runs as a
 * coroutine. `yield v` hands `v` to the waiting pull and suspends the body
 * on a promise that the next pull resolves; the body only ever runs while
 * a consumer is pulling, so it is lazy and never runs ahead.
 */
import { HarnError } from "../errors";
import { HGenerator, type IterStep, type Value } from "../values";
import { convertJsError } from "./helpers";
import type { Frame } from "./frame";
import type { Interpreter } from "./interpreter";

const DONE_STEP: IterStep = { done: true, value: null };

class GenState {
  started = false;
  finished = false;
  /** The pull waiting for the next value. */
  waiting: { resolve: (s: IterStep) => void; reject: (e: unknown) => void } | null = null;
  /** Resumes the suspended body. */
  resume: (() => void) | null = null;
  gen!: HGenerator;
  constructor(
    readonly interp: Interpreter,
    readonly fr: Frame,
  ) {}

  /** The latest pull in progress: a pull from another task while the body
   * runs queues behind it (each consumer gets the next value). */
  private current: Promise<IterStep> | null = null;

  pull(): IterStep | Promise<IterStep> {
    if (this.waiting) {
      const after = this.current!.then(
        () => this.pull(),
        () => this.pull(),
      );
      this.current = after;
      return after;
    }
    if (this.finished) return DONE_STEP;
    const p = this.start();
    this.current = p;
    return p;
  }

  private start(): Promise<IterStep> {
    return new Promise<IterStep>((resolve, reject) => {
      this.waiting = { resolve, reject };
      if (!this.started) {
        this.started = true;
        let r;
        try {
          r = this.interp.runFrame(this.fr);
        } catch (e) {
          this.fail(e);
          return;
        }
        if (r instanceof Promise) r.then(() => this.finish(), (e) => this.fail(e));
        else this.finish();
      } else {
        const k = this.resume!;
        this.resume = null;
        k();
      }
    });
  }

  yield(v: Value): Promise<null> {
    const w = this.waiting!;
    this.waiting = null;
    w.resolve({ done: false, value: v });
    return new Promise<null>((resolve) => {
      this.resume = () => resolve(null);
    });
  }

  private finish(): void {
    this.finished = true;
    this.gen.done = true;
    const w = this.waiting;
    this.waiting = null;
    w?.resolve(DONE_STEP);
  }

  private fail(e: unknown): void {
    this.finished = true;
    this.gen.done = true;
    const w = this.waiting;
    this.waiting = null;
    // The body is its own execution context: an error leaving it gets the
    // ` (line N)` suffix like one leaving a task (spec/semantics.md §8.1).
    e = convertJsError(e);
    if (e instanceof HarnError) e = e.escaped(e.span?.line ?? 0);
    if (w) w.reject(e);
  }
}

export function makeGenerator(interp: Interpreter, fr: Frame): HGenerator {
  const st = new GenState(interp, fr);
  fr.gen = st;
  const g = new HGenerator(fr.proto.generator === "stream", () => st.pull(), st);
  st.gen = g;
  return g;
}

export function yieldFromFrame(fr: Frame, v: Value): Promise<null> | null {
  const st = fr.gen as GenState | null;
  if (!st) return null; // `yield` outside a generator: no effect
  return st.yield(v);
}
