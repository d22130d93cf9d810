/**
 * Operators on values (spec/semantics.md §4): arithmetic with exact 64-bit
 * ints, comparisons, property access, subscripts, slices, membership.
 *
 * The compiled evaluator inlines the int fast paths (`typeof a === "number"`)
 * and calls these general versions only for the remaining cases. Every
 * function here is pure; errors are `HarnError`s without a span (the caller
 * attaches the span of the failing operation).
 */

import { HarnError } from "./errors";
import {
  HDict,
  HDuration,
  HEnum,
  HFloat,
  HPair,
  HRange,
  HSet,
  HStruct,
  type Int,
  type Value,
  compare,
  type CodePoints,
  cpAt,
  cpLength,
  cpSlice,
  display,
  equals,
  isInt,
  normBig,
  typeOf,
} from "./values";

// ---------------------------------------------------------------------------
// Ints

function big(v: Int): bigint {
  return typeof v === "bigint" ? v : BigInt(v);
}

export function intAdd(a: Int, b: Int): Int {
  if (typeof a === "number" && typeof b === "number") {
    const r = a + b;
    if (Number.isSafeInteger(r)) return r;
  }
  return normBig(big(a) + big(b));
}

export function intSub(a: Int, b: Int): Int {
  if (typeof a === "number" && typeof b === "number") {
    const r = a - b;
    if (Number.isSafeInteger(r)) return r;
  }
  return normBig(big(a) - big(b));
}

export function intMul(a: Int, b: Int): Int {
  if (typeof a === "number" && typeof b === "number") {
    const r = a * b;
    if (Number.isSafeInteger(r)) return r + 0; // `+ 0` turns -0 into 0
  }
  return normBig(big(a) * big(b));
}

/** Truncating division; the caller has ruled out a zero divisor. */
export function intDiv(a: Int, b: Int): Int {
  if (typeof a === "number" && typeof b === "number" && a <= 0x7fffffff && a >= -0x80000000 && b <= 0x7fffffff && b >= -0x80000000) {
    return Math.trunc(a / b) + 0; // `+ 0` turns -0 into 0
  }
  return normBig(big(a) / big(b));
}

export function intMod(a: Int, b: Int): Int {
  if (typeof a === "number" && typeof b === "number") return (a % b) + 0;
  return normBig(big(a) % big(b));
}

export function intNeg(a: Int): Int {
  if (typeof a === "number") return a === 0 ? 0 : -a;
  return normBig(-a);
}

function intPow(base: Int, exp: number): Int {
  if (typeof base === "number") {
    const r = Math.pow(base, exp);
    if (Number.isSafeInteger(r)) return r;
  }
  let b = big(base);
  let e = BigInt(exp);
  let r = 1n;
  while (e > 0n) {
    if (e & 1n) r = BigInt.asIntN(64, r * b);
    b = BigInt.asIntN(64, b * b);
    e >>= 1n;
  }
  return normBig(r);
}

/** Float base, int exponent within ±2^31: binary exponentiation (§4.4),
 * which can differ from `Math.pow` in the last digit; `pow` uses it too. */
export function floatPowInt(b: number, n: number): number {
  let r = 1.0;
  let e = Math.abs(n);
  while (e > 0) {
    if (e % 2 === 1) r *= b;
    b *= b;
    e = Math.floor(e / 2);
  }
  return n < 0 ? 1 / r : r;
}

// ---------------------------------------------------------------------------
// Arithmetic

function num(v: Value): number {
  return typeof v === "number" ? v : typeof v === "bigint" ? Number(v) : (v as HFloat).v;
}

function isIntV(v: Value): v is Int {
  return typeof v === "number" || typeof v === "bigint";
}

function isNum(v: Value): boolean {
  return typeof v === "number" || typeof v === "bigint" || v instanceof HFloat;
}

export function add(a: Value, b: Value): Value {
  if (isIntV(a) && isIntV(b)) return intAdd(a, b);
  if (isNum(a) && isNum(b)) return new HFloat(num(a) + num(b));
  if (typeof a === "string" && typeof b === "string") return a + b;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === 0 ? b : b.length === 0 ? a : a.concat(b);
  if (a instanceof HDict && b instanceof HDict) {
    if (b.size === 0) return a;
    const m = new Map(a.map);
    for (const [k, v] of b.map) m.set(k, v);
    return new HDict(m);
  }
  throw HarnError.type(`Cannot add ${typeOf(a)} and ${typeOf(b)}`);
}

export function sub(a: Value, b: Value): Value {
  if (isIntV(a) && isIntV(b)) return intSub(a, b);
  if (isNum(a) && isNum(b)) return new HFloat(num(a) - num(b));
  throw HarnError.type(`Cannot subtract ${typeOf(b)} from ${typeOf(a)}`);
}

export function mul(a: Value, b: Value): Value {
  if (isIntV(a) && isIntV(b)) return intMul(a, b);
  if (isNum(a) && isNum(b)) return new HFloat(num(a) * num(b));
  if (typeof a === "string" && isIntV(b)) return repeat(a, b);
  if (isIntV(a) && typeof b === "string") return repeat(b, a);
  throw HarnError.type(`Cannot multiply ${typeOf(a)} and ${typeOf(b)}`);
}

function repeat(s: string, n: Int): string {
  const k = Number(n);
  if (k <= 0) return "";
  if (s.length * k > 0x1fffffe8) throw HarnError.runtime("string repetition result too large");
  return s.repeat(k);
}

export function div(a: Value, b: Value): Value {
  if (isIntV(a) && isIntV(b)) {
    if (b === 0) throw HarnError.divisionByZero();
    return intDiv(a, b);
  }
  if (isNum(a) && isNum(b)) return new HFloat(num(a) / num(b));
  throw HarnError.runtime(`Cannot divide ${typeOf(a)} by ${typeOf(b)}`);
}

export function mod(a: Value, b: Value): Value {
  if (isIntV(a) && isIntV(b)) {
    if (b === 0) throw HarnError.divisionByZero();
    return intMod(a, b);
  }
  if (isNum(a) && isNum(b)) {
    const d = num(b);
    if (d === 0) throw HarnError.divisionByZero();
    return new HFloat(num(a) % d);
  }
  throw HarnError.runtime(`Cannot modulo ${typeOf(a)} by ${typeOf(b)}`);
}

export function pow(a: Value, b: Value): Value {
  if (isIntV(a) && isIntV(b)) {
    if (b >= 0 && b <= 4294967295) return intPow(a, Number(b));
    return new HFloat(Math.pow(num(a), num(b)));
  }
  if (a instanceof HFloat && isIntV(b) && b >= -2147483648 && b <= 2147483647) return new HFloat(floatPowInt(a.v, Number(b)));
  if (isNum(a) && isNum(b)) return new HFloat(Math.pow(num(a), num(b)));
  throw HarnError.type(`Cannot exponentiate ${typeOf(a)} by ${typeOf(b)}`);
}

export function neg(a: Value): Value {
  if (isIntV(a)) return intNeg(a);
  if (a instanceof HFloat) return new HFloat(-a.v);
  throw HarnError.runtime(`Cannot negate value of type ${typeOf(a)}`);
}

// ---------------------------------------------------------------------------
// Comparison (§4.3): incomparable operands compare "equal".

export function lt(a: Value, b: Value): boolean {
  return compare(a, b) < 0 && !isNaNPair(a, b);
}
export function gt(a: Value, b: Value): boolean {
  return compare(a, b) > 0 && !isNaNPair(a, b);
}
export function le(a: Value, b: Value): boolean {
  return compare(a, b) <= 0;
}
export function ge(a: Value, b: Value): boolean {
  return compare(a, b) >= 0;
}

function isNaNPair(a: Value, b: Value): boolean {
  return (a instanceof HFloat && Number.isNaN(a.v)) || (b instanceof HFloat && Number.isNaN(b.v));
}

// ---------------------------------------------------------------------------
// Membership (§4.10)

export function contains(coll: Value, item: Value): boolean {
  if (Array.isArray(coll)) {
    for (let i = 0; i < coll.length; i++) if (equals(coll[i]!, item)) return true;
    return false;
  }
  if (typeof coll === "string") return coll.includes(typeof item === "string" ? item : display(item));
  if (coll instanceof HDict) return coll.has(typeof item === "string" ? item : display(item));
  if (coll instanceof HSet) {
    for (const x of coll.items) if (equals(x, item)) return true;
    return false;
  }
  if (coll instanceof HRange) return coll.includes(item);
  return false;
}

// ---------------------------------------------------------------------------
// Property access (§4.7)

export function getProperty(obj: Value, name: string, optional: boolean, codePoints?: CodePoints): Value {
  if (obj instanceof HDict) return obj.get(name);
  if (obj instanceof HStruct) {
    const v = obj.fields.get(name);
    return v === undefined ? null : v;
  }
  if (Array.isArray(obj)) {
    switch (name) {
      case "count":
        return obj.length;
      case "empty":
        return obj.length === 0;
      case "first":
        return obj.length > 0 ? obj[0]! : null;
      case "last":
        return obj.length > 0 ? obj[obj.length - 1]! : null;
    }
    return null;
  }
  if (typeof obj === "string") {
    if (name === "count") return codePoints ? codePoints.length(obj) : cpLength(obj);
    if (name === "empty") return obj.length === 0;
    return null;
  }
  if (obj instanceof HEnum) {
    if (name === "variant") return obj.variant;
    if (name === "fields") return obj.fields;
    return null;
  }
  if (obj instanceof HPair) {
    if (name === "first") return obj.first;
    if (name === "second") return obj.second;
    if (optional) return null;
    throw HarnError.type(`cannot access property \`${name}\` on pair (expected \`first\` or \`second\`)`);
  }
  if (optional && obj !== null) return null;
  throw HarnError.type(`cannot access property \`${name}\` on ${typeOf(obj)}`);
}

/** `obj.name = value` on a copy (§5.3). */
export function setProperty(obj: Value, name: string, value: Value): Value {
  if (obj instanceof HDict) return obj.with(name, value);
  if (obj instanceof HStruct) {
    const m = new Map(obj.fields);
    m.set(name, value);
    return new HStruct(obj.name, m);
  }
  throw HarnError.type(`cannot set property \`${name}\` on ${typeOf(obj)}`);
}

// ---------------------------------------------------------------------------
// Subscripts (§4.9)

/** `obj[idx]`. `codePoints` (the runtime's) keeps a loop over a long
 * string's indices linear; without it each index scans the string. */
export function getIndex(obj: Value, idx: Value, codePoints?: CodePoints): Value {
  if (Array.isArray(obj)) {
    if (typeof idx === "number") {
      const i = idx < 0 ? obj.length + idx : idx;
      return i >= 0 && i < obj.length ? obj[i]! : null;
    }
    if (typeof idx === "bigint") return null;
  } else if (obj instanceof HDict) {
    return obj.get(typeof idx === "string" ? idx : display(idx));
  } else if (typeof obj === "string") {
    if (typeof idx === "number") return codePoints ? codePoints.at(obj, idx) : cpAt(obj, idx);
    if (typeof idx === "bigint") return null;
  } else if (obj instanceof HRange) {
    if (typeof idx === "number" && obj.small) {
      const n = obj.length;
      const i = idx < 0 ? n + idx : idx;
      if (i < 0 || i >= n) throw HarnError.runtime(`range index out of range: index ${idx} for range of length ${n}`);
      return obj.at(i);
    }
    if (typeof idx === "number" || typeof idx === "bigint") {
      const n = obj.exactLength();
      let i = BigInt(idx);
      if (i < 0n) i += n;
      if (i < 0n || i >= n) throw HarnError.runtime(`range index out of range: index ${idx} for range of length ${n}`);
      return normBig(BigInt(obj.start) + i);
    }
  }
  throw HarnError.type(`cannot index into ${typeOf(obj)} with ${typeOf(idx)}`);
}

/** `obj[idx] = value` on a copy; `undefined` means "silently ignored". */
export function setIndex(obj: Value, idx: Value, value: Value): Value | undefined {
  if (Array.isArray(obj)) {
    if (typeof idx === "bigint") throw HarnError.runtime(`Index ${idx} out of bounds for list of length ${obj.length}`);
    if (typeof idx !== "number") return undefined;
    const i = idx < 0 ? obj.length + idx : idx;
    if (i < 0 || i >= obj.length) throw HarnError.runtime(`Index ${idx} out of bounds for list of length ${obj.length}`);
    const copy = obj.slice();
    copy[i] = value;
    return copy;
  }
  if (obj instanceof HDict) return obj.with(typeof idx === "string" ? idx : display(idx), value);
  if (obj instanceof HStruct && typeof idx === "string") return setProperty(obj, idx, value);
  return undefined;
}

export function slice(obj: Value, start: Value, end: Value): Value {
  const isList = Array.isArray(obj);
  if (!isList && typeof obj !== "string") throw HarnError.type(`cannot slice ${typeOf(obj)}`);
  // Ints beyond 2^53 are far outside any length: as JS numbers they clamp
  // exactly like the exact values would.
  if (typeof start === "bigint") start = Number(start);
  if (typeof end === "bigint") end = Number(end);
  if (start !== null && typeof start !== "number") throw HarnError.type(`slice start must be an integer, got ${typeOf(start)}`);
  if (end !== null && typeof end !== "number") throw HarnError.type(`slice end must be an integer, got ${typeOf(end)}`);
  const len = isList ? (obj as Value[]).length : cpLength(obj as string);
  let s = start === null ? 0 : start < 0 ? Math.max(0, len + start) : Math.min(start, len);
  let e = end === null ? len : end < 0 ? Math.max(0, len + end) : Math.min(end, len);
  if (s >= e) return isList ? [] : "";
  return isList ? (obj as Value[]).slice(s, e) : cpSlice(obj as string, s, e);
}

// ---------------------------------------------------------------------------
// Ranges (§2.9)

export function makeRange(a: Value, b: Value, inclusive: boolean): HRange {
  return new HRange(isInt(a) ? a : 0, isInt(b) ? b : 0, inclusive);
}

export { HDuration };
