/**
 * Type conversion and inspection (spec/stdlib.md §4): type_of, to_string,
 * to_int, to_float, to_list, len, is_same, addr_of, hash_value, unreachable,
 * pair, range.
 */
import {
  display,
  equals,
  float,
  HBuiltinRef,
  HBytes,
  HDict,
  HFloat,
  HPair,
  HRange,
  HSet,
  identityKey,
  cpLength,
  type CpLengthMemo,
  HarnError,
  normBig,
  RuntimeSlot,
  typeOf,
  type Int,
  type Runtime,
  type Value,
} from "@harn/vm";
import { arg } from "./args";
import { builtinModule } from "../registry/define";

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** Float → int, truncating toward zero and saturating at the i64 bounds
 * (NaN → 0), like Rust's `as i64`. */
export function truncToInt(x: number): Int {
  if (Number.isNaN(x)) return 0;
  const t = Math.trunc(x);
  if (Number.isSafeInteger(t)) return t === 0 ? 0 : t; // no -0
  if (t >= 9223372036854775807) return I64_MAX;
  if (t <= -9223372036854775808) return I64_MIN;
  return normBig(BigInt(t));
}

const INT_TEXT = /^[+-]?[0-9]+$/;

/** Strict int parsing: optional sign and ASCII digits; null otherwise or
 * when out of the i64 range. */
export function parseIntStrict(s: string): Int | null {
  if (!INT_TEXT.test(s)) return null;
  if (s.length < 16) return Number(s);
  const b = BigInt(s);
  if (b < I64_MIN || b > I64_MAX) return null;
  return normBig(b);
}

const FLOAT_TEXT = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const FLOAT_SPECIAL = /^[+-]?(?:inf|infinity|nan)$/i;

/** Rust `f64::from_str` syntax; null on failure. */
export function parseFloatStrict(s: string): number | null {
  if (FLOAT_TEXT.test(s)) return Number(s); // JS accepts the same shapes ("5.", ".5", "1.e3")
  if (FLOAT_SPECIAL.test(s)) {
    const neg = s[0] === "-";
    const body = s.replace(/^[+-]/, "").toLowerCase();
    if (body === "nan") return NaN;
    return neg ? -Infinity : Infinity;
  }
  return null;
}

/** `len(v)`: code points, bytes, elements, entries, range length; 0 else. */
export function lengthOf(v: Value, memo?: CpLengthMemo): Int {
  if (typeof v === "string") return memo ? memo.length(v) : cpLength(v);
  if (Array.isArray(v)) return v.length;
  if (v instanceof HDict) return v.size;
  if (v instanceof HSet) return v.items.length;
  if (v instanceof HRange) return v.count();
  if (v instanceof HBytes) return v.data.length;
  return 0;
}

/** Per-runtime allocation numbers for `addr_of`: stable for the lifetime of
 * the object, never reused, without keeping the object alive. */
const ADDRESSES = new RuntimeSlot("stdlib.addresses", () => ({ next: 1, ids: new WeakMap<object, number>() }));

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK64 = (1n << 64n) - 1n;

function fnv1a(text: string): Int {
  let h = FNV_OFFSET;
  for (const b of Buffer.from(text, "utf8")) h = ((h ^ BigInt(b)) * FNV_PRIME) & MASK64;
  return normBig(BigInt.asIntN(64, h));
}

export const CONVERT_BUILTINS = builtinModule("core/convert", (def, rt) => {
  def("type_of", (args) => typeOf(arg(args, 0)));

  def("to_string", (args) => {
    const v = arg(args, 0);
    return typeof v === "string" ? v : display(v);
  });

  def("to_int", (args) => {
    const v = arg(args, 0);
    if (typeof v === "number" || typeof v === "bigint") return v;
    if (v instanceof HFloat) return truncToInt(v.v);
    if (typeof v === "string") return parseIntStrict(v);
    return null;
  });

  def("to_float", (args) => {
    const v = arg(args, 0);
    if (v instanceof HFloat) return v;
    if (typeof v === "number") return float(v);
    if (typeof v === "bigint") return float(Number(v));
    if (typeof v === "string") {
      const x = parseFloatStrict(v);
      return x === null ? null : float(x);
    }
    return null;
  });

  def("to_list", (args) => {
    const v = arg(args, 0);
    if (Array.isArray(v)) return v;
    if (v instanceof HSet) return v.items.slice();
    return [v];
  });

  const memo = rt.cpMemo;
  def("len", (args) => lengthOf(arg(args, 0), memo), { unary: (v) => lengthOf(v, memo) });

  def("is_same", (args) => {
    const a = arg(args, 0);
    const b = arg(args, 1);
    if (Array.isArray(a) || a instanceof HDict || a instanceof HSet || a instanceof HPair || typeOf(a) === "closure") return a === b;
    if (a instanceof HBytes) return equals(a, b);
    if (a instanceof HBuiltinRef) return b instanceof HBuiltinRef && a.name === b.name;
    return equals(a, b);
  });

  def("addr_of", (args, ctx) => {
    const v = arg(args, 0);
    // Boxed floats and durations are scalars to the user.
    if (v !== null && typeof v === "object" && !(v instanceof HFloat) && typeOf(v) !== "duration") {
      const table = ctx.runtime.slot(ADDRESSES);
      let id = table.ids.get(v);
      if (id === undefined) table.ids.set(v, (id = table.next++));
      return `${typeOf(v)}@0x${(0x1000 + id * 16).toString(16)}`;
    }
    return `${typeOf(v)}@${display(v)}`;
  });

  def("hash_value", (args, ctx) => {
    const v = arg(args, 0);
    let key = identityKey(v);
    if (key === null) {
      // kinds without structural identity hash by allocation
      const table = ctx.runtime.slot(ADDRESSES);
      let id = table.ids.get(v as object);
      if (id === undefined) table.ids.set(v as object, (id = table.next++));
      key = "@" + id;
    }
    return fnv1a(key);
  });

  def("unreachable", (args) => {
    if (args.length === 0) throw HarnError.runtime("unreachable code was reached");
    throw HarnError.runtime("unreachable code was reached: " + display(args[0]!));
  });

  def("pair", (args) => {
    if (args.length !== 2) throw HarnError.type(`pair: expected 2 arguments, got ${args.length}`);
    return new HPair(args[0]!, args[1]!);
  });

  def("range", (args) => {
    if (args.length === 1) {
      const n = args[0]!;
      if (typeof n !== "number" && typeof n !== "bigint") throw HarnError.type("range(n): expected integer argument");
      return new HRange(0, n, false);
    }
    if (args.length === 2) {
      const a = args[0]!;
      const b = args[1]!;
      if ((typeof a !== "number" && typeof a !== "bigint") || (typeof b !== "number" && typeof b !== "bigint")) {
        throw HarnError.type("range(a, b): expected integer arguments");
      }
      return new HRange(a, b, false);
    }
    throw HarnError.type(`range expects 1 or 2 integer arguments, got ${args.length}`);
  });
});
