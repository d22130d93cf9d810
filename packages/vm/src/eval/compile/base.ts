/**
 * What every part of the closure compiler shares: the compile-time error
 * and the nil closure.
 */
import type * as A from "@harn/parser";
import type { ExprEv } from "../frame";

/** A compile-time error reported before anything runs (§10). */
export class CompileError extends Error {
  constructor(
    message: string,
    readonly span: A.Span,
    readonly file: string,
  ) {
    super(message);
  }
}

/** The empty block and the nil literal (shared: never given a shape). */
export const NIL_EV: ExprEv = () => null;
