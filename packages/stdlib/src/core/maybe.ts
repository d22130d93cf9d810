/**
 * Maybe-async plumbing for higher-order builtins (runtime.ts: callbacks may
 * return a value or a Promise). Each helper runs a synchronous loop and
 * switches to an async continuation only from the first step that actually
 * returned a promise, so the common all-sync case never allocates promises.
 */
import { isPromise, type Value } from "@harn/vm";

export type Maybe<T> = T | Promise<T>;

/** `f(v)` now, or once `v` resolves. (Not named `then`: a module exporting
 * `then` is a thenable, so `await import()` of it would call it.) */
export function andThen<T, U>(v: Maybe<T>, f: (t: T) => Maybe<U>): Maybe<U> {
  return isPromise<T>(v) ? v.then(f) : f(v);
}

/**
 * Run `step(i)` for i = 0 … n-1 in order. `step` returns true to stop early.
 * Returns the index it stopped at (n when it ran to the end).
 */
export function loop(n: number, step: (i: number) => Maybe<boolean | void>): Maybe<number> {
  for (let i = 0; i < n; i++) {
    const r = step(i);
    if (isPromise(r)) return loopAsync(n, step, i, r);
    if (r === true) return i;
  }
  return n;
}

async function loopAsync(n: number, step: (i: number) => Maybe<boolean | void>, i: number, pending: Promise<boolean | void>): Promise<number> {
  if ((await pending) === true) return i;
  for (i++; i < n; i++) {
    let r = step(i);
    if (isPromise(r)) r = await r;
    if (r === true) return i;
  }
  return n;
}

/** `[f(0), …, f(n-1)]`, evaluated in order. */
export function mapN(n: number, f: (i: number) => Maybe<Value>): Maybe<Value[]> {
  const out: Value[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const r = f(i);
    if (isPromise(r)) return mapAsync(n, f, out, i, r);
    out[i] = r;
  }
  return out;
}

async function mapAsync(n: number, f: (i: number) => Maybe<Value>, out: Value[], i: number, pending: Promise<Value>): Promise<Value[]> {
  out[i] = await pending;
  for (i++; i < n; i++) {
    const r = f(i);
    out[i] = isPromise(r) ? await r : r;
  }
  return out;
}

/**
 * A `while (true)` over a maybe-async `step` that returns true when done.
 * Used to drain iterators: `pull` is maybe-async per item.
 */
export function repeat(step: () => Maybe<boolean>): Maybe<void> {
  for (;;) {
    const r = step();
    if (isPromise(r)) return repeatAsync(step, r);
    if (r) return;
  }
}

async function repeatAsync(step: () => Maybe<boolean>, pending: Promise<boolean>): Promise<void> {
  if (await pending) return;
  for (;;) {
    let r = step();
    if (isPromise(r)) r = await r;
    if (r) return;
  }
}
