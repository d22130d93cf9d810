/**
 * Argument habits shared by most builtins (spec/stdlib.md §2.4): missing
 * arguments read as nil, extra ones are ignored, "string" parameters are
 * display-coerced — where an *omitted* argument becomes `""` but an explicit
 * `nil` becomes `"nil"`.
 */
import { display, HBuiltinRef, HClosure, type Int, type Value } from "@harn/vm";

/** The argument at `i`, nil when omitted. */
export function arg(args: Value[], i: number): Value {
  return i < args.length ? args[i]! : null;
}

/** A display-coerced string parameter; omitted → `""`. */
export function strArg(args: Value[], i: number): string {
  if (i >= args.length) return "";
  const v = args[i]!;
  return typeof v === "string" ? v : display(v);
}

/** An int parameter, or null when absent or not an int. */
export function intArg(args: Value[], i: number): Int | null {
  const v = i < args.length ? args[i]! : null;
  return typeof v === "number" || typeof v === "bigint" ? v : null;
}

/** An int parameter as a JS number (big ints saturate to ±Infinity-safe
 * bounds, which every clamping caller handles), or null. */
export function smallIntArg(args: Value[], i: number): number | null {
  const v = i < args.length ? args[i]! : null;
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return v > 0n ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
  return null;
}

export function isCallableValue(v: Value): v is HClosure | HBuiltinRef {
  return v instanceof HClosure || v instanceof HBuiltinRef;
}
