/**
 * Equality, ordering and the hash keys of the value model (spec/semantics.md
 * §4.2, §4.3; spec/stdlib.md §2.3).
 */
import { HFloat, HPair, type Int, Tag, type Value, float, hex2, isNumeric, toJsNumber } from "./values";
import { compareStrings } from "./strings";

// ---------------------------------------------------------------------------
// Equality (spec/semantics.md §4.2)

export function equals(a: Value, b: Value): boolean {
  if (typeof a === "number") {
    if (typeof b === "number") return a === b;
    if (b instanceof HFloat) return a === b.v;
    return false;
  }
  if (typeof a === "string" || typeof a === "boolean") return a === b;
  if (a === null) return b === null;
  if (typeof a === "bigint") {
    if (typeof b === "bigint") return a === b;
    // Mixed int/float compares the int converted to a double, like the
    // ordering operators (compare) and the reference's `as f64`.
    if (b instanceof HFloat) return Number(a) === b.v;
    return false;
  }
  if (typeof b !== "object" || b === null) {
    return a instanceof HFloat && (typeof b === "number" ? a.v === b : typeof b === "bigint" && a.v === Number(b));
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equals(a[i]!, b[i]!)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  switch (a.tag) {
    case Tag.Float:
      return b.tag === Tag.Float && a.v === b.v;
    case Tag.Dict: {
      return b.tag === Tag.Dict && a.sameEntries(b, equals);
    }
    case Tag.Set: {
      if (b.tag !== Tag.Set || a.items.length !== b.items.length) return false;
      if (a.items.length > 16) {
        const ia = new EqualityIndex(a.items);
        const ib = new EqualityIndex(b.items);
        return a.items.every((x) => ib.has(x)) && b.items.every((y) => ia.has(y));
      }
      return a.items.every((x) => b.items.some((y) => equals(x, y))) && b.items.every((y) => a.items.some((x) => equals(x, y)));
    }
    case Tag.Builtin:
      return b.tag === Tag.Builtin && a.name === b.name;
    case Tag.Enum:
      if (b.tag !== Tag.Enum || a.enumName !== b.enumName || a.variant !== b.variant) return false;
      if (a.fields.length !== b.fields.length) return false;
      for (let i = 0; i < a.fields.length; i++) if (!equals(a.fields[i]!, b.fields[i]!)) return false;
      return true;
    case Tag.Struct: {
      if (b.tag !== Tag.Struct || a.name !== b.name || a.fields.size !== b.fields.size) return false;
      for (const [k, v] of a.fields) {
        const w = b.fields.get(k);
        if (w === undefined || !equals(v, w)) return false;
      }
      return true;
    }
    case Tag.Range:
      return b.tag === Tag.Range && a.start === b.start && a.end === b.end && a.inclusive === b.inclusive;
    case Tag.Pair:
      return b.tag === Tag.Pair && equals(a.first, b.first) && equals(a.second, b.second);
    case Tag.Iter:
      return a === b;
    case Tag.Task:
      return b.tag === Tag.Task && a.id === b.id;
    case Tag.Atomic:
      return b.tag === Tag.Atomic && equals(a.value, b.value);
    case Tag.Bytes: {
      if (b.tag !== Tag.Bytes || a.data.length !== b.data.length) return false;
      for (let i = 0; i < a.data.length; i++) if (a.data[i] !== b.data[i]) return false;
      return true;
    }
    case Tag.Opaque:
      return a === b && a.typeName !== "rng";
    // closures, durations, channels, generators, streams: never equal
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------
// Ordering (spec/semantics.md §4.3): numbers, strings, pairs; anything else
// compares as equal.

export function compare(a: Value, b: Value): -1 | 0 | 1 {
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "string") return typeof b === "string" ? (compareStrings(a, b) as -1 | 0 | 1) : 0;
  if (isNumeric(a) && isNumeric(b)) {
    if (typeof a === "bigint" || typeof b === "bigint") {
      if ((a instanceof HFloat && !Number.isFinite(a.v)) || (b instanceof HFloat && !Number.isFinite(b.v))) {
        return compareNumbers(toJsNumber(a), toJsNumber(b));
      }
      if (a instanceof HFloat || b instanceof HFloat) return compareNumbers(toJsNumber(a), toJsNumber(b));
      const x = BigInt(a as Int);
      const y = BigInt(b as Int);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    return compareNumbers(toJsNumber(a), toJsNumber(b));
  }
  if (a instanceof HPair && b instanceof HPair) {
    const c = compare(a.first, b.first);
    return c !== 0 ? c : compare(a.second, b.second);
  }
  return 0;
}

function compareNumbers(x: number, y: number): -1 | 0 | 1 {
  return x < y ? -1 : x > y ? 1 : 0; // NaN: neither, so "equal"
}

// ---------------------------------------------------------------------------
// Structural identity key (spec/stdlib.md §2.3): type-sensitive, so `1` and
// `1.0` differ. Returns null for kinds without structural identity (those
// de-duplicate by reference).

export function identityKey(v: Value): string | null {
  switch (typeof v) {
    case "number":
    case "bigint":
      return "i" + String(v);
    case "string":
      return "s" + JSON.stringify(v);
    case "boolean":
      return v ? "T" : "F";
  }
  if (v === null) return "N";
  if (Array.isArray(v)) {
    const parts: string[] = [];
    for (const x of v) {
      const k = identityKey(x);
      if (k === null) return null;
      parts.push(k);
    }
    return "[" + parts.join(",") + "]";
  }
  switch (v.tag) {
    case Tag.Float:
      return "f" + (Object.is(v.v, -0) ? "-0" : String(v.v));
    case Tag.Dict: {
      const parts: string[] = [];
      const keys = v.keys();
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i]!;
        const x = identityKey(v.valueAt(i));
        if (x === null) return null;
        parts.push(JSON.stringify(k) + ":" + x);
      }
      return "{" + parts.join(",") + "}";
    }
    case Tag.Set: {
      const parts: string[] = [];
      for (const x of v.items) {
        const k = identityKey(x);
        if (k === null) return null;
        parts.push(k);
      }
      return "S(" + parts.sort().join(",") + ")";
    }
    case Tag.Enum: {
      const parts: string[] = [];
      for (const x of v.fields) {
        const k = identityKey(x);
        if (k === null) return null;
        parts.push(k);
      }
      return "E" + JSON.stringify(v.enumName + "." + v.variant) + "(" + parts.join(",") + ")";
    }
    case Tag.Struct: {
      const parts: string[] = [];
      for (const k of [...v.fields.keys()].sort(compareStrings)) {
        const x = identityKey(v.fields.get(k)!);
        if (x === null) return null;
        parts.push(JSON.stringify(k) + ":" + x);
      }
      return "R" + JSON.stringify(v.name) + "{" + parts.join(",") + "}";
    }
    case Tag.Range:
      return `r${v.start}:${v.end}:${v.inclusive ? 1 : 0}`;
    case Tag.Pair: {
      const a = identityKey(v.first);
      const b = identityKey(v.second);
      return a === null || b === null ? null : "P(" + a + "," + b + ")";
    }
    case Tag.Duration:
      return "d" + v.ms;
    case Tag.Builtin:
      return "b" + v.name;
    case Tag.Bytes:
      return "y" + Array.from(v.data, hex2).join("");
    default:
      return null;
  }
}

// ---------------------------------------------------------------------------
// Equality buckets: a coarse key with `equals(a, b)` ⇒ `equalityBucket(a) ===
// equalityBucket(b)`, so collections compared with `==` (set methods,
// `iter.to_set`, set equality) can look members up in a hash map and call
// `equals` only within a bucket instead of scanning every member. Unlike
// `identityKey` it is type-blind for numbers (`1` and `1.0` share a bucket)
// and need not be injective.

export function equalityBucket(v: Value): string {
  switch (typeof v) {
    case "number":
    case "bigint":
      return "n" + String(Number(v)); // the int as a double, like equals' mixed comparison
    case "string":
      return "s" + v;
    case "boolean":
      return v ? "T" : "F";
  }
  if (v === null) return "N";
  if (Array.isArray(v)) return "[" + v.map(equalityBucket).join(",") + "]";
  switch (v.tag) {
    case Tag.Float:
      return "n" + String(v.v); // -0 and 0 share "n0"
    case Tag.Dict: {
      const keys = v.keys();
      let s = "{";
      for (let i = 0; i < keys.length; i++) s += JSON.stringify(keys[i]) + ":" + equalityBucket(v.valueAt(i)) + ",";
      return s + "}";
    }
    case Tag.Set:
      // mutual membership: equal sets have the same distinct member buckets
      return "S(" + [...new Set(v.items.map(equalityBucket))].sort().join(",") + ")";
    case Tag.Enum:
      return "E" + v.enumName + "." + v.variant + "(" + v.fields.map(equalityBucket).join(",") + ")";
    case Tag.Struct:
      return "R" + v.name + "{" + [...v.fields.keys()].sort().map((k) => k + ":" + equalityBucket(v.fields.get(k)!)).join(",") + "}";
    case Tag.Range:
      return `r${v.start}:${v.end}:${v.inclusive ? 1 : 0}`;
    case Tag.Pair:
      return "P(" + equalityBucket(v.first) + "," + equalityBucket(v.second) + ")";
    case Tag.Builtin:
      return "b" + v.name;
    case Tag.Task:
      return "t" + v.id;
    case Tag.Atomic:
      return "a" + equalityBucket(v.value);
    case Tag.Bytes:
      return "y" + v.data.length;
    default:
      return "o" + v.tag; // identity-compared or never-equal kinds
  }
}

/** Members of a collection indexed for `==` lookups (see equalityBucket). */
export class EqualityIndex {
  private readonly buckets = new Map<string, Value[]>();

  constructor(items: Iterable<Value> = []) {
    for (const v of items) this.add(v);
  }

  has(v: Value): boolean {
    const b = this.buckets.get(equalityBucket(v));
    if (b === undefined) return false;
    for (let i = 0; i < b.length; i++) if (equals(b[i]!, v)) return true;
    return false;
  }

  /** Adds `v` unless an `==` member is present; true when added. */
  add(v: Value): boolean {
    const key = equalityBucket(v);
    const b = this.buckets.get(key);
    if (b === undefined) {
      this.buckets.set(key, [v]);
      return true;
    }
    for (let i = 0; i < b.length; i++) if (equals(b[i]!, v)) return false;
    b.push(v);
    return true;
  }
}
