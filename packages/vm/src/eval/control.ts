/**
 * Control-flow signals. Statements return them (never throw them) so that
 * `break`/`continue`/`return` cost no more than returning a value; only an
 * expression-position block (`let v = if c { return 1 } else { 2 }`, or the
 * `?` operator) throws one, and the enclosing statement converts it back.
 */
import type { HClosure, Value } from "../values";
import type { Frame, Site } from "./frame";

export class Ctl {
  constructor(readonly kind: "break" | "continue" | "return" | "tail") {}
}

export const BRK = new Ctl("break");
export const CONT = new Ctl("continue");
/** The return value is in `frame.ret`. */
export const RET = new Ctl("return");

/** `return f(args)` on a user closure: the caller's trampoline runs it
 * without growing the JS stack or the frame count (spec/semantics.md §7.6). */
export class TailCall extends Ctl {
  constructor(
    readonly fn: HClosure,
    readonly args: Value[],
    readonly from: Frame,
    readonly site: Site,
  ) {
    super("tail");
  }
}

export function isPromiseLike(v: unknown): v is Promise<unknown> {
  return v instanceof Promise;
}
