/**
 * String methods (spec/stdlib.md §22.1, semantics.md §7.7). Several differ
 * from the same-named builtin: `split` defaults to ",", `substring` takes an
 * end index, `replace` needs both arguments.
 */
import { cpArray, cpLength, type CallContext, type MethodFn, type Runtime, type Value } from "@harn/vm";
import { smallIntArg, strArg } from "../core/args";
import { iterString } from "../core/iter";
import {
  checkLength,
  firstCodePoint,
  indexOf,
  lastIndexOf,
  lines,
  lowercase,
  replaceAll,
  reverse,
  splitLiteral,
  trim,
  trimEnd,
  trimStart,
  uppercase,
} from "../core/text";

function pad(s: string, args: Value[], left: boolean): string {
  const width = Math.max(smallIntArg(args, 0) ?? 0, 0);
  const have = cpLength(s);
  if (have >= width) return s;
  const unit = firstCodePoint(args.length > 1 ? strArg(args, 1) : " ", " ");
  checkLength(left ? "pad_left" : "pad_right", s.length + unit.length * (width - have));
  const fill = unit.repeat(width - have);
  return left ? fill + s : s + fill;
}

const METHODS: Record<string, (s: string, args: Value[], ctx: CallContext) => Value> = {
  count: (s, _a, ctx) => ctx.runtime.codePoints.length(s),
  len: (s, _a, ctx) => ctx.runtime.codePoints.length(s),
  empty: (s) => s === "",
  iter: (s) => iterString(s),
  contains: (s, a) => s.includes(strArg(a, 0)),
  starts_with: (s, a) => s.startsWith(strArg(a, 0)),
  ends_with: (s, a) => s.endsWith(strArg(a, 0)),
  replace: (s, a) => (a.length < 2 ? null : replaceAll(s, strArg(a, 0), strArg(a, 1))),
  split: (s, a) => splitLiteral(s, a.length > 0 ? strArg(a, 0) : ","),
  trim: (s) => trim(s),
  trim_start: (s) => trimStart(s),
  trim_end: (s) => trimEnd(s),
  lowercase: (s) => lowercase(s),
  uppercase: (s) => uppercase(s),
  substring: (s, a, ctx) => {
    const endArg = smallIntArg(a, 1);
    // a negative end means "to the end" (reference quirk); slice clamps
    const end = endArg === null || endArg < 0 ? Infinity : endArg;
    return ctx.runtime.codePoints.slice(s, smallIntArg(a, 0) ?? 0, end);
  },
  index_of: (s, a, ctx) => indexOf(ctx.runtime, s, strArg(a, 0)),
  last_index_of: (s, a, ctx) => lastIndexOf(ctx.runtime, s, strArg(a, 0)),
  chars: (s) => cpArray(s),
  repeat: (s, a) => {
    const n = smallIntArg(a, 0) ?? 1;
    if (n <= 0) return "";
    checkLength("repeat", s.length * n);
    return s.repeat(n);
  },
  reverse: (s) => reverse(s),
  pad_left: (s, a) => pad(s, a, true),
  pad_right: (s, a) => pad(s, a, false),
  lines: (s) => lines(s),
  char_at: (s, a, ctx) => {
    const i = smallIntArg(a, 0);
    // a negative index is nil here, unlike s[i]
    return i === null || i < 0 ? null : ctx.runtime.codePoints.at(s, i);
  },
};
METHODS.lower = METHODS.lowercase!;
METHODS.to_lower = METHODS.lowercase!;
METHODS.upper = METHODS.uppercase!;
METHODS.to_upper = METHODS.uppercase!;

export function installStringMethods(rt: Runtime): void {
  for (const [name, m] of Object.entries(METHODS)) {
    const fn: MethodFn = (recv, args, ctx) => m(recv as string, args, ctx);
    rt.defineMethod("string", name, fn);
  }
}
