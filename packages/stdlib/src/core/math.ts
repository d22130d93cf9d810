/**
 * Math builtins and the `pi` / `e` globals (spec/stdlib.md §10). Unless an
 * error is listed, a non-numeric argument yields nil.
 */
import { float, HarnError, HFloat, normBig, ops, truthy, type Int, type Value } from "@harn/vm";
import { arg } from "./args";
import { intPowChecked } from "./numeric";
import { builtinModule, type Define } from "../registry/define";

type Num = Int | HFloat;

function isNum(v: Value): v is Num {
  return typeof v === "number" || typeof v === "bigint" || v instanceof HFloat;
}

function jsNum(v: Num): number {
  return v instanceof HFloat ? v.v : Number(v);
}

const I64_LIMIT = 9223372036854775808; // 2^63 as a double

/** A float that must become an int (floor/ceil/round results). */
function floatToInt(x: number): Int {
  if (!Number.isFinite(x)) throw HarnError.runtime("cannot convert non-finite float to int");
  if (x >= I64_LIMIT || x < -I64_LIMIT) throw HarnError.runtime("float is outside the representable int range");
  if (Number.isSafeInteger(x)) return x === 0 ? 0 : x;
  return normBig(BigInt(x));
}

/** Rust `f64::round`: half away from zero. */
export function roundHalfAway(x: number): number {
  const t = Math.trunc(x);
  return Math.abs(x - t) >= 0.5 ? t + Math.sign(x) : t;
}

function rounding(def: Define, name: string, f: (x: number) => number): void {
  def(name, (args) => {
    const v = arg(args, 0);
    if (typeof v === "number" || typeof v === "bigint") return v;
    if (v instanceof HFloat) return floatToInt(f(v.v));
    return null;
  });
}

function unary(def: Define, name: string, f: (x: number) => number): void {
  def(name, (args) => {
    const v = arg(args, 0);
    return isNum(v) ? float(f(jsNum(v))) : null;
  });
}

/** Validated numeric list for the statistics builtins. */
function numbers(name: string, v: Value): number[] {
  if (!Array.isArray(v)) throw HarnError.type(`${name}: items must be a list`);
  return v.map((x) => {
    if (!isNum(x)) throw HarnError.type(`${name} must be numeric`);
    return jsNum(x);
  });
}

function nonEmpty(name: string, xs: number[]): number[] {
  if (xs.length === 0) throw HarnError.runtime(`${name}: items must not be empty`);
  return xs;
}

function variance(name: string, args: Value[]): number {
  const xs = nonEmpty(name, numbers(name, arg(args, 0)));
  const sample = truthy(arg(args, 1));
  if (sample && xs.length < 2) throw HarnError.runtime("sample variance requires at least 2 values");
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const ss = xs.reduce((a, x) => a + (x - mean) * (x - mean), 0);
  return ss / (sample ? xs.length - 1 : xs.length);
}

function minMax(args: Value[], pickFirst: (a: number, b: number) => boolean): Value {
  if (args.length < 2) return null;
  const a = args[0]!;
  const b = args[1]!;
  if (!isNum(a) || !isNum(b)) return null;
  const x = jsNum(a);
  const y = jsNum(b);
  const anyFloat = a instanceof HFloat || b instanceof HFloat;
  if (!anyFloat) {
    const ai = a as Int;
    const bi = b as Int;
    if (typeof ai === "number" && typeof bi === "number") return pickFirst(ai, bi) ? ai : bi;
    return pickFirst(Number(BigInt(ai) - BigInt(bi)), 0) ? ai : bi;
  }
  if (Number.isNaN(x)) return float(y);
  if (Number.isNaN(y)) return float(x);
  return float(pickFirst(x, y) ? x : y);
}

export const MATH_BUILTINS = builtinModule("core/math", (def, rt) => {
  rt.globals.set("pi", float(Math.PI));
  rt.globals.set("e", float(Math.E));

  def("abs", (args) => {
    const v = arg(args, 0);
    if (typeof v === "number") return Math.abs(v);
    if (typeof v === "bigint") return v >= 0n ? v : v === -(2n ** 63n) ? float(9223372036854775808) : normBig(-v);
    if (v instanceof HFloat) return float(Math.abs(v.v));
    return null;
  });
  def("min", (args) => minMax(args, (a, b) => a <= b));
  def("max", (args) => minMax(args, (a, b) => a >= b));
  rounding(def, "floor", Math.floor);
  rounding(def, "ceil", Math.ceil);
  rounding(def, "round", roundHalfAway);

  unary(def, "sqrt", Math.sqrt);
  unary(def, "sin", Math.sin);
  unary(def, "cos", Math.cos);
  unary(def, "tan", Math.tan);
  unary(def, "asin", Math.asin);
  unary(def, "acos", Math.acos);
  unary(def, "atan", Math.atan);
  unary(def, "ln", Math.log);
  unary(def, "log2", Math.log2);
  unary(def, "log10", Math.log10);
  unary(def, "exp", Math.exp);
  def("atan2", (args) => {
    const y = arg(args, 0);
    const x = arg(args, 1);
    return isNum(y) && isNum(x) ? float(Math.atan2(jsNum(y), jsNum(x))) : null;
  });

  def("pow", (args) => {
    const b = arg(args, 0);
    const n = arg(args, 1);
    if (!isNum(b) || !isNum(n)) return null;
    if (!(n instanceof HFloat)) {
      const exp = Number(n);
      if (!(b instanceof HFloat)) {
        if (exp >= 0 && exp <= 4294967295) {
          const r = intPowChecked(b, exp);
          return r !== null ? r : float(Math.pow(Number(b), exp));
        }
        return float(Math.pow(Number(b), exp));
      }
      if (Math.abs(exp) <= 2147483647) return float(ops.floatPowInt(b.v, exp));
    }
    return float(Math.pow(jsNum(b), jsNum(n)));
  });

  def("sign", (args) => {
    const v = arg(args, 0);
    if (typeof v === "number") return Math.sign(v) || 0;
    if (typeof v === "bigint") return v > 0n ? 1 : -1;
    if (v instanceof HFloat) return Number.isNaN(v.v) ? v : Math.sign(v.v) || 0;
    return null;
  });
  def("is_nan", (args) => {
    const v = arg(args, 0);
    return v instanceof HFloat && Number.isNaN(v.v);
  });
  def("is_infinite", (args) => {
    const v = arg(args, 0);
    return v instanceof HFloat && (v.v === Infinity || v.v === -Infinity);
  });

  def("mean", (args) => {
    const xs = numbers("mean", arg(args, 0));
    return float(xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  });
  def("median", (args) => {
    const xs = nonEmpty("median", numbers("median", arg(args, 0))).sort((a, b) => a - b);
    const mid = xs.length >> 1;
    return float(xs.length % 2 === 1 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2);
  });
  def("variance", (args) => float(variance("variance", args)));
  def("stddev", (args) => float(Math.sqrt(variance("stddev", args))));
  def("percentile", (args) => {
    const xs = numbers("percentile", arg(args, 0));
    const p = arg(args, 1);
    if (!isNum(p)) throw HarnError.type("percentile must be numeric");
    const pv = jsNum(p);
    if (!(pv >= 0 && pv <= 100)) throw HarnError.runtime("percentile must be between 0 and 100");
    nonEmpty("percentile", xs).sort((a, b) => a - b);
    const h = 1 + ((xs.length - 1) * pv) / 100;
    const lo = Math.floor(h);
    const hi = Math.ceil(h);
    const a = xs[lo - 1]!;
    const b = xs[hi - 1]!;
    return float(a + (h - lo) * (b - a));
  });
});
