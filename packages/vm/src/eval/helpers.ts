/**
 * Maybe-async plumbing shared by compiled nodes: evaluate a list of nodes
 * synchronously and switch to an async continuation only when one of them
 * returned a promise, so code that never suspends never allocates one.
 */
import type { Span } from "@harn/parser";
import { HarnError } from "../errors";
import { HDict, type Value, typeOf } from "../values";
import { Ctl } from "./control";
import type { Ev, ExprEv, Frame, Outcome, Result } from "./frame";

/** JS failures that are really Harn ones: a host stack overflow becomes the
 * Harn stack-overflow error, and a string, list or buffer too large for
 * the host (`"a".repeat(1e13)`, `range(1e11).to_list()`) a runtime error —
 * never a JS trace or an "internal error". */
export function convertJsError(e: unknown): unknown {
  if (e instanceof RangeError) {
    if (/call stack/i.test(e.message)) return HarnError.stackOverflow();
    if (/^Invalid (string|array|typed array) length|allocation failed/i.test(e.message)) return HarnError.runtime(OUT_OF_MEMORY);
  }
  return e;
}

/** The internalized copy of `s`. V8 compares two internalized strings by
 * pointer; a name sliced out of the source is not internalized until it
 * is used as a property key, so round-trip it through one. */
export function intern(s: string): string {
  // No prototype: on a plain object `o["__proto__"] = …` would set the
  // prototype instead of a key, and the name `__proto__` would be lost.
  const o: Record<string, true> = Object.create(null);
  o[s] = true;
  return Object.keys(o)[0] ?? s;
}

/** The message of a value too large to allocate. */
export const OUT_OF_MEMORY = "out of memory: the value would be too large";

/** Attach a location to an error that has none yet. */
export function located(e: unknown, span: Span | null, file: string): unknown {
  e = convertJsError(e);
  if (e instanceof HarnError && e.span === null && span) {
    e.span = span;
    e.file = file;
  }
  return e;
}

export function spreadList(v: Value): Value[] {
  if (Array.isArray(v)) return v;
  throw HarnError.type(`cannot destructure ${typeOf(v)} with [...] pattern — expected list`);
}

export function spreadDict(v: Value): HDict {
  if (v instanceof HDict) return v;
  throw HarnError.type(`cannot destructure ${typeOf(v)} with {...} pattern — expected dict`);
}

/** Evaluate argument/element nodes left to right; `spread[i]` flattens. */
export function evalArgs(evs: ExprEv[], spread: boolean[] | null, fr: Frame): Value[] | Promise<Value[]> {
  if (spread === null) {
    // Fixed arity: fill a preallocated list (no growth on push).
    const n = evs.length;
    const out: Value[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const v = evs[i]!(fr);
      if (v instanceof Promise) return evalArgsAsync(evs, null, fr, out.slice(0, i), i, v);
      out[i] = v;
    }
    return out;
  }
  const out: Value[] = [];
  for (let i = 0; i < evs.length; i++) {
    const v = evs[i]!(fr);
    if (v instanceof Promise) return evalArgsAsync(evs, spread, fr, out, i, v);
    if (spread !== null && spread[i]) {
      const xs = spreadList(v);
      for (let j = 0; j < xs.length; j++) out.push(xs[j]!);
    } else out.push(v);
  }
  return out;
}

async function evalArgsAsync(evs: ExprEv[], spread: boolean[] | null, fr: Frame, out: Value[], i: number, first: Promise<Value>): Promise<Value[]> {
  let v: Value = await first;
  for (;;) {
    if (spread !== null && spread[i]) out.push(...spreadList(v));
    else out.push(v);
    if (++i >= evs.length) return out;
    const r = evs[i]!(fr);
    v = r instanceof Promise ? await r : r;
  }
}

/** Run statements in order. Returns the last value when `lastValue`, a
 * control signal if one occurred, otherwise nil. */
export function runBlock(stmts: Ev[], lastValue: boolean, fr: Frame): Result {
  let v: Outcome = null;
  for (let i = 0; i < stmts.length; i++) {
    const r = stmts[i]!(fr);
    if (r instanceof Promise) return runBlockAsync(stmts, lastValue, fr, i, r);
    if (r instanceof Ctl) return r;
    v = r;
  }
  return lastValue ? v : null;
}

/** The rest of a block after statement `i - 1` finished with `v` (a
 * statement of generated code that suspended, jit.ts): its result as the
 * block's closure would have returned it. */
/** Continue the rest of an enclosing block after one of its statements
 * finished asynchronously with `v`. */
export type Link = (fr: Frame, v: Outcome) => Result;

export async function chain(fr: Frame, p: Promise<Outcome>, links: Link[]): Promise<Outcome> {
  let v = await p;
  for (let i = 0; i < links.length; i++) {
    const r = links[i]!(fr, v);
    v = r instanceof Promise ? await r : r;
  }
  return v;
}

export function continueBlock(stmts: Ev[], i: number, lastValue: boolean, fr: Frame, v: Outcome): Result {
  if (v instanceof Ctl) return v;
  for (; i < stmts.length; i++) {
    const r = stmts[i]!(fr);
    if (r instanceof Promise) return runBlockAsync(stmts, lastValue, fr, i, r);
    if (r instanceof Ctl) return r;
    v = r;
  }
  return lastValue ? v : null;
}

async function runBlockAsync(stmts: Ev[], lastValue: boolean, fr: Frame, i: number, first: Promise<Outcome>): Promise<Outcome> {
  let v = await first;
  for (;;) {
    if (v instanceof Ctl) return v;
    if (++i >= stmts.length) return lastValue ? v : null;
    const r = stmts[i]!(fr);
    v = r instanceof Promise ? await r : r;
  }
}

/** `then` for maybe-promises (allocates only on the async path). Not
 * exported as `then`: a module namespace with a `then` export is a
 * thenable, so `await import()` of any module that (transitively) loads
 * this one would call it — vitest's module runner does exactly that. */
export function thenMaybe<T, U>(v: T | Promise<T>, k: (x: T) => U | Promise<U>): U | Promise<U> {
  return v instanceof Promise ? v.then(k) : k(v);
}
