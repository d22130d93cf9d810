/**
 * The Harn value model (spec/semantics.md §2, spec/stdlib.md §2.1).
 *
 * Representation choices, made for speed of the common cases:
 * - nil is `null`, bools are JS booleans, strings are JS strings.
 * - ints are JS `number`s while they are safe integers, and `bigint`s
 *   only outside ±(2^53-1) (always within the signed 64-bit range). A
 *   `bigint` value is therefore never a safe integer: `normInt` keeps that
 *   invariant, so equality of ints never needs to mix the two.
 * - floats are boxed (`HFloat`) so that `typeof v === "number"` means int.
 *   Ints are far more common in hot loops than floats.
 * - lists are plain JS arrays that are never mutated once they are values
 *   (value semantics: every "mutation" builds a new array).
 * - every other kind is an instance of a class below with a numeric `tag`.
 */
import type { ClosureImpl } from "./eval/frame";

export enum Tag {
  Float = 1,
  Dict,
  Set,
  Closure,
  Builtin,
  Enum,
  Struct,
  Duration,
  Range,
  Pair,
  Iter,
  Generator,
  Task,
  Channel,
  Atomic,
  Bytes,
  Opaque,
}

export type Int = number | bigint;

export type Value =
  | null
  | boolean
  | number
  | bigint
  | string
  | Value[]
  | HFloat
  | HDict
  | HSet
  | HClosure
  | HBuiltinRef
  | HEnum
  | HStruct
  | HDuration
  | HRange
  | HPair
  | HIter
  | HGenerator
  | HTask
  | HChannel
  | HAtomic
  | HBytes
  | HOpaque;

export type HList = Value[];

export class HFloat {
  readonly tag = Tag.Float;
  constructor(readonly v: number) {}
}

/**
 * Dicts have string keys and are always seen in sorted key order. Entries
 * are never changed after the dict became a value.
 *
 * Two layouts, one behaviour:
 * - a `Map` (`new HDict(map)`, `HDict.from`, `HDict.of`): the general case;
 * - a *record* (`HDict.record(keys, values)`): a key array shared by many
 *   dicts plus one values array per dict. Builtins that return many
 *   same-shaped dicts at once (walk_dir entries, find_text matches) use it:
 *   110,000 `Map`s that all stay alive cost ~35-50 ms of GC copying in a
 *   walk of the bench tree, an array of four values a fraction of that.
 *
 * A record answers `get`/`has`/`size`/`keys()` (and so display, equality,
 * `identityKey`, JSON) from its arrays; the `map` property builds the `Map`
 * on first access only (then the dict keeps it and drops the values array),
 * so every caller that reads `.map` keeps working unchanged.
 */
export class HDict {
  readonly tag = Tag.Dict;
  /** Keys in code-point order: computed on demand for a map, and for a
   * record the shared key array it was made with. */
  private sorted: readonly string[] | undefined;
  /** The entries; `undefined` only while a record has no map yet. */
  private m: Map<string, Value> | undefined;
  /** A record's values, index for index with `sorted`; `undefined` once
   * the dict has a map. */
  private vals: readonly Value[] | undefined;

  constructor(map: Map<string, Value>) {
    this.sorted = undefined;
    this.m = map;
    this.vals = undefined;
  }

  static empty(): HDict {
    return new HDict(new Map());
  }

  static from(entries: Iterable<[string, Value]>): HDict {
    return new HDict(new Map(entries));
  }

  /** Plain JS object to dict (values must already be Harn values). */
  static of(obj: Record<string, Value>): HDict {
    return new HDict(new Map(Object.entries(obj)));
  }

  /** Widest key set worth a record: lookups scan the keys, and past a
   * handful of keys a Map's hashed lookup wins. Builders of bulk dicts use
   * a Map above it. */
  static readonly RECORD_MAX_KEYS = 16;

  /**
   * The shared key array for `record`: the names sorted in code-point
   * order (the order `keys()` returns), checked to be distinct. Make it
   * once per shape (a module constant), not per dict.
   */
  static recordKeys(...names: string[]): readonly string[] {
    const keys = [...names].sort(compareStrings);
    for (let i = 1; i < keys.length; i++) {
      if (keys[i] === keys[i - 1]) throw new Error(`HDict.recordKeys: duplicate key ${JSON.stringify(keys[i])}`);
    }
    return Object.freeze(keys);
  }

  /**
   * A dict in the compact layout: `keys` from `recordKeys` (shared, never
   * copied), `values[i]` the value of `keys[i]`, none of them `undefined`.
   * The dict owns `values` from now on: the caller must not change it.
   * Meant for small key sets (lookups scan the keys; see RECORD_MAX_KEYS).
   * In a loop that builds very many, fill `values` from `new Array(n)`
   * rather than an array literal: V8 pretenures a literal's allocation site
   * mid-loop and deoptimises the loop for it (walk_dir measured this).
   */
  static record(keys: readonly string[], values: readonly Value[]): HDict {
    const d = new HDict(EMPTY_MAP);
    d.sorted = keys;
    d.m = undefined;
    d.vals = values;
    return d;
  }

  /** The entries as a `Map` (built on first access for a record). Do not
   * mutate it. */
  get map(): Map<string, Value> {
    const m = this.m;
    return m !== undefined ? m : this.materialise();
  }

  get size(): number {
    const m = this.m;
    return m !== undefined ? m.size : this.sorted!.length;
  }

  get(key: string): Value {
    const m = this.m;
    if (m !== undefined) {
      const v = m.get(key);
      return v === undefined ? null : v;
    }
    const i = this.sorted!.indexOf(key);
    return i < 0 ? null : this.vals![i]!;
  }

  has(key: string): boolean {
    const m = this.m;
    return m !== undefined ? m.has(key) : this.sorted!.includes(key);
  }

  /** Keys in code-point order (spec/semantics.md §2.5). Cached; do not
   * mutate the array. */
  keys(): string[] {
    let s = this.sorted;
    if (s === undefined) this.sorted = s = [...this.m!.keys()].sort(compareStrings);
    return s as string[];
  }

  /** The value of `keys()[i]`. */
  valueAt(i: number): Value {
    const vals = this.vals;
    return vals !== undefined ? vals[i]! : this.m!.get(this.keys()[i]!)!;
  }

  /** A new dict with `key` set. */
  with(key: string, value: Value): HDict {
    const vals = this.vals;
    if (vals !== undefined) {
      const i = this.sorted!.indexOf(key);
      if (i >= 0) {
        const copy = vals.slice();
        copy[i] = value;
        return HDict.record(this.sorted!, copy);
      }
    }
    const m = this.copyMap();
    m.set(key, value);
    return new HDict(m);
  }

  /** A new dict without `key`. */
  without(key: string): HDict {
    if (!this.has(key)) return this;
    const m = this.copyMap();
    m.delete(key);
    return new HDict(m);
  }

  /** Same keys, and `eq` holds for each key's two values (`equals` passes
   * itself: this file's functions are declared below the class). */
  sameEntries(other: HDict, eq: (a: Value, b: Value) => boolean): boolean {
    if (this.size !== other.size) return false;
    const vals = this.vals;
    if (vals !== undefined) {
      const keys = this.sorted!;
      const otherVals = other.vals;
      if (otherVals !== undefined && other.sorted === keys) {
        for (let i = 0; i < vals.length; i++) if (!eq(vals[i]!, otherVals[i]!)) return false;
        return true;
      }
      for (let i = 0; i < keys.length; i++) {
        if (!other.has(keys[i]!) || !eq(vals[i]!, other.get(keys[i]!))) return false;
      }
      return true;
    }
    const otherMap = other.m;
    for (const [k, v] of this.m!) {
      if (otherMap !== undefined) {
        const w = otherMap.get(k);
        if (w === undefined || !eq(v, w)) return false;
      } else if (!other.has(k) || !eq(v, other.get(k))) return false;
    }
    return true;
  }

  /** A fresh, caller-owned `Map` of the entries (a record stays compact). */
  private copyMap(): Map<string, Value> {
    const m = this.m;
    if (m !== undefined) return new Map(m);
    return this.buildMap();
  }

  private buildMap(): Map<string, Value> {
    const keys = this.sorted!;
    const vals = this.vals!;
    const m = new Map<string, Value>();
    for (let i = 0; i < keys.length; i++) m.set(keys[i]!, vals[i]!);
    return m;
  }

  private materialise(): Map<string, Value> {
    const m = this.buildMap();
    this.m = m;
    this.vals = undefined;
    return m;
  }
}

/** Placeholder handed to the constructor by `record` (never read). */
const EMPTY_MAP: Map<string, Value> = new Map();

/** Insertion-ordered, de-duplicated collection. Never mutated once a value. */
export class HSet {
  readonly tag = Tag.Set;
  constructor(readonly items: Value[]) {}
}

/**
 * A function value. `params` are the display names (`<fn(a, b)>`); `impl`
 * belongs to the evaluator (compiled body, captured environment) and is
 * opaque to everything else. Call it through the runtime.
 */
export class HClosure {
  readonly tag = Tag.Closure;
  constructor(
    readonly name: string | null,
    readonly params: string[],
    /** The evaluator's half: prototype, captured values, native body. */
    readonly impl: ClosureImpl,
  ) {}
}

/** A builtin used as a value (`xs.map(to_string)`); displays `<builtin NAME>`. */
export class HBuiltinRef {
  readonly tag = Tag.Builtin;
  constructor(readonly name: string) {}
}

export class HEnum {
  readonly tag = Tag.Enum;
  constructor(
    readonly enumName: string,
    readonly variant: string,
    readonly fields: Value[],
  ) {}
}

/** A struct instance. Absent fields are simply not in `fields`. */
export class HStruct {
  readonly tag = Tag.Struct;
  constructor(
    readonly name: string,
    readonly fields: Map<string, Value>,
  ) {}
}

export class HDuration {
  readonly tag = Tag.Duration;
  constructor(readonly ms: number) {}
}

/**
 * `a to b` / `range(a, b)`. The endpoints are ints in the usual form (JS
 * numbers when safe, bigints beyond), so `0 to 9223372036854775807` is the
 * exact, lazy range it says. Code that walks a range should use `length`,
 * `at(i)`, `last` and `includes`, which are exact for every int.
 */
export class HRange {
  readonly tag = Tag.Range;
  constructor(
    readonly start: Int,
    readonly end: Int,
    readonly inclusive: boolean,
  ) {}

  /** Both endpoints are safe JS numbers (the common, fast case). */
  get small(): boolean {
    return typeof this.start === "number" && typeof this.end === "number";
  }

  /** Number of values as a JS number (approximate beyond 2^53, where no
   * range can be walked to its end anyway). */
  get length(): number {
    if (typeof this.start === "number" && typeof this.end === "number") {
      const n = (this.inclusive ? this.end + 1 : this.end) - this.start;
      return n > 0 ? n : 0;
    }
    return Number(this.exactLength());
  }

  /** Exact number of values as an int (saturating at the largest int). */
  count(): Int {
    if (this.small) return this.length;
    const n = this.exactLength();
    return normBig(n > I64_MAX ? I64_MAX : n);
  }

  /** Exact number of values (may exceed the largest int by one). */
  exactLength(): bigint {
    const n = BigInt(this.end) + (this.inclusive ? 1n : 0n) - BigInt(this.start);
    return n > 0n ? n : 0n;
  }

  /** The value at offset `i` (0 <= i < length). */
  at(i: number): Int {
    if (typeof this.start === "number") {
      const v = this.start + i;
      if (Number.isSafeInteger(v)) return v;
    }
    return normBig(BigInt(this.start) + BigInt(i));
  }

  /** The last value (meaningful only when the range is not empty). */
  get last(): Int {
    if (this.inclusive) return this.end;
    return typeof this.end === "number" ? this.end - 1 : normBig(this.end - 1n);
  }

  /** `v in range`: an int between the first and the last value. */
  includes(v: Value): boolean {
    if (typeof v === "number" && this.small) return v >= (this.start as number) && v <= (this.last as number);
    if (typeof v !== "number" && typeof v !== "bigint") return false;
    const x = BigInt(v);
    return x >= BigInt(this.start) && x <= BigInt(this.last);
  }
}

export class HPair {
  readonly tag = Tag.Pair;
  constructor(
    readonly first: Value,
    readonly second: Value,
  ) {}
}

export interface IterStep {
  done: boolean;
  value: Value;
}

/**
 * A lazy, single-pass, fused iterator (spec/semantics.md §7.10). `pull`
 * returns the next step, possibly asynchronously (a generator source may
 * suspend). Once a pull reports `done`, `exhausted` becomes true and the
 * iterator stays done.
 */
export class HIter {
  readonly tag = Tag.Iter;
  exhausted = false;
  constructor(readonly pull: () => IterStep | Promise<IterStep>) {}
}

/** A generator (`yield`) or stream (`gen fn` / `emit`). The evaluator
 * supplies `pull`, which resumes the body to its next `yield`/`emit` (or to
 * its end, then `done` becomes true). Errors of the body are raised by the
 * pull. `impl` is the evaluator's own state. */
export class HGenerator {
  readonly tag = Tag.Generator;
  done = false;
  constructor(
    readonly isStream: boolean,
    readonly pull: () => IterStep | Promise<IterStep>,
    readonly impl: unknown,
  ) {}
}

export class HTask {
  readonly tag = Tag.Task;
  constructor(
    readonly id: string,
    readonly impl: unknown,
  ) {}
}

export class HChannel {
  readonly tag = Tag.Channel;
  constructor(
    readonly name: string,
    readonly impl: unknown,
  ) {}
}

export class HAtomic {
  readonly tag = Tag.Atomic;
  constructor(public value: Int) {}
}

export class HBytes {
  readonly tag = Tag.Bytes;
  constructor(readonly data: Uint8Array) {}
}

/** Any other opaque handle (`rng`, `sync_permit`, `mcp_client`, …). */
export class HOpaque {
  readonly tag = Tag.Opaque;
  constructor(
    readonly typeName: string,
    readonly displayText: string,
    readonly payload: unknown,
  ) {}
}

export type Tagged = Exclude<Value, null | boolean | number | bigint | string | Value[]>;

// ---------------------------------------------------------------------------
// Ints

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** Normalize a bigint result to the int representation, wrapping to i64. */
export function normBig(b: bigint): Int {
  if (b < I64_MIN || b > I64_MAX) b = BigInt.asIntN(64, b);
  if (b >= -9007199254740991n && b <= 9007199254740991n) return Number(b);
  return b;
}

/** An int from a JS number that is known to be integral; goes through
 * bigint only when it is not a safe integer (then wraps to i64). */
export function intFromNumber(n: number): Int {
  if (Number.isSafeInteger(n)) return n;
  return normBig(BigInt(n));
}

export function isInt(v: Value): v is Int {
  return typeof v === "number" || typeof v === "bigint";
}

export function isNumeric(v: Value): v is Int | HFloat {
  return typeof v === "number" || typeof v === "bigint" || (v instanceof HFloat);
}

/** JS number for an int or float (may lose precision for big ints). */
export function toJsNumber(v: Int | HFloat): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  return v.v;
}

export function float(v: number): HFloat {
  return new HFloat(v);
}

// ---------------------------------------------------------------------------
// Common constructors

export function ok(v: Value): HEnum {
  return new HEnum("Result", "Ok", [v]);
}

export function err(v: Value): HEnum {
  return new HEnum("Result", "Err", [v]);
}

export function isResult(v: Value): v is HEnum {
  return v instanceof HEnum && v.enumName === "Result" && (v.variant === "Ok" || v.variant === "Err");
}

export function isCallable(v: Value): v is HClosure | HBuiltinRef {
  return v instanceof HClosure || v instanceof HBuiltinRef;
}

// ---------------------------------------------------------------------------
// type_of

export function typeOf(v: Value): string {
  switch (typeof v) {
    case "number":
    case "bigint":
      return "int";
    case "string":
      return "string";
    case "boolean":
      return "bool";
  }
  if (v === null) return "nil";
  if (Array.isArray(v)) return "list";
  switch (v.tag) {
    case Tag.Float:
      return "float";
    case Tag.Dict:
      return "dict";
    case Tag.Set:
      return "set";
    case Tag.Closure:
      return "closure";
    case Tag.Builtin:
      return "builtin";
    case Tag.Enum:
      return "enum";
    case Tag.Struct:
      return "struct";
    case Tag.Duration:
      return "duration";
    case Tag.Range:
      return "range";
    case Tag.Pair:
      return "pair";
    case Tag.Iter:
      return "iter";
    case Tag.Generator:
      return v.isStream ? "stream" : "generator";
    case Tag.Task:
      return "task_handle";
    case Tag.Channel:
      return "channel";
    case Tag.Atomic:
      return "atomic";
    case Tag.Bytes:
      return "bytes";
    case Tag.Opaque:
      return v.typeName;
  }
}

// ---------------------------------------------------------------------------
// Truthiness (spec/semantics.md §4.1)

export function truthy(v: Value): boolean {
  switch (typeof v) {
    case "boolean":
      return v;
    case "number":
      return v !== 0;
    case "bigint":
      return true; // never zero: zero is a number
    case "string":
      return v.length > 0;
  }
  if (v === null) return false;
  if (Array.isArray(v)) return v.length > 0;
  switch (v.tag) {
    case Tag.Float:
      return v.v !== 0; // NaN !== 0 is true: NaN is truthy
    case Tag.Dict:
      return v.size > 0;
    case Tag.Set:
      return v.items.length > 0;
    case Tag.Bytes:
      return v.data.length > 0;
    case Tag.Duration:
      return v.ms !== 0;
    default:
      return true;
  }
}

// ---------------------------------------------------------------------------
// Strings: code-point aware helpers (spec/semantics.md §2.4)

const SURROGATE = /[\uD800-\uDFFF]/;

export function hasSurrogates(s: string): boolean {
  return SURROGATE.test(s);
}

/** Length in code points: UTF-16 length minus one per surrogate pair.
 * Strings built by concatenation are measured often (`len(text)` after
 * `text = "${text}${c}"`): a charCodeAt loop over such a string pays an
 * indirection per character, so an ASCII string (UTF-8 length equal to its
 * UTF-16 length, which native code computes in one flat pass) returns its
 * length without the loop. */
export function cpLength(s: string): number {
  const len = s.length;
  // Short strings (every piece appended to a built string) are cheaper to
  // scan here than to hand to native code.
  if (len > SHORT_STRING && Buffer.byteLength(s, "utf8") === len) return len;
  let n = len;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < len) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

const SHORT_STRING = 16;

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/**
 * The code-point length of the string most recently measured or extended.
 * A JS string cannot carry its code-point count (CPython's str does), so
 * the string-builder pattern, `text = "${text}${piece}"` then `len(text)`,
 * would measure the whole text every round; with the memo, extending the
 * remembered string measures only the piece, and measuring it again is a
 * pointer comparison. Sound for any string: one equal (`===`) to the
 * remembered one has the same code points. One per Runtime
 * (`Runtime.cpMemo`); the evaluator extends it at interpolations, `len`
 * reads it.
 */
export class CpLengthMemo {
  private s = "";
  private n = 0;
  /** `s` ends with a high surrogate: a piece starting with a low one
   * completes a pair (one code point, not two). */
  private highEnd = false;

  /** `cpLength(s)`, remembering `s`. */
  length(s: string): number {
    if (s === this.s) return this.n;
    const n = cpLength(s);
    this.s = s;
    this.n = n;
    this.highEnd = s.length > 0 && isHighSurrogate(s.charCodeAt(s.length - 1));
    return n;
  }

  /** `a + b`; when `a` is the remembered string, the result is remembered
   * with its length worked out from `b` alone. */
  concat(a: string, b: string): string {
    const r = a + b;
    if (b.length > 0 && a === this.s) {
      let n = this.n + cpLength(b);
      if (this.highEnd && isLowSurrogate(b.charCodeAt(0))) n--;
      this.s = r;
      this.n = n;
      this.highEnd = isHighSurrogate(b.charCodeAt(b.length - 1));
    }
    return r;
  }
}

/** The string as an array of code points (one string each). */
export function cpArray(s: string): string[] {
  return Array.from(s);
}

/** Slice by code-point indices (already clamped, start <= end). */
export function cpSlice(s: string, start: number, end: number): string {
  if (!SURROGATE.test(s)) return s.slice(start, end);
  const from = cpOffset(s, start, 0);
  return s.slice(from, cpOffset(s, end - start, from));
}

/** The UTF-16 offset of the code point `n` code points after UTF-16 offset
 * `from` (clamped to the end of `s`). A scan, without splitting `s` into an
 * array: indexing a long string must not allocate a string per code point. */
export function cpOffset(s: string, n: number, from: number): number {
  const len = s.length;
  let i = from;
  for (let k = 0; k < n && i < len; k++) {
    const c = s.charCodeAt(i++);
    if (c >= 0xd800 && c <= 0xdbff && i < len) {
      const d = s.charCodeAt(i);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return i;
}

/** Code point `i` of `s` (negative: from the end), or null out of range,
 * by a scan: `CodePoints.at` without the index. */
export function cpAt(s: string, i: number): string | null {
  const cps = hasSurrogates(s) ? cpArray(s) : s;
  if (i < 0) i += cps.length;
  return i >= 0 && i < cps.length ? cps[i]! : null;
}

/** Code points `[start, end)` with both clamped to `[0, len]`. */
export function cpSubstring(s: string, start: number, end: number): string {
  const n = cpLength(s);
  start = Math.min(Math.max(start, 0), n);
  end = Math.min(Math.max(end, start), n);
  return cpSlice(s, start, end);
}

/** Strings shorter than this are indexed by a plain scan. */
const SHORT = 256;
/** One breadcrumb per STEP code points. */
const STEP = 64;

/**
 * Code-point indexing of the long string most recently indexed. A JS string
 * is indexed by UTF-16 units, so finding code point `i` of a string with
 * astral characters is a scan from the start, and a script walking a text
 * with `s[i]`, `s.char_at(i)` or `substring(s, i, 1)` would be quadratic
 * (so would one without astral characters but outside Latin-1: telling
 * that it has no surrogates is a scan too). This keeps
 * the UTF-16 offset of every STEP-th code point of one string: building it
 * is one scan, each lookup after that a short one. Sound for any string:
 * one equal (`===`) to the remembered string has the same code points.
 */
export class CodePoints {
  private s = "";
  private n = 0;
  /** marks[k] = UTF-16 offset of code point k * STEP; null: no surrogates. */
  private marks: number[] | null = null;

  private use(s: string): void {
    if (s === this.s) return;
    this.s = s;
    if (!hasSurrogates(s)) {
      this.n = s.length;
      this.marks = null;
      return;
    }
    const marks: number[] = [];
    const len = s.length;
    let n = 0;
    for (let i = 0; i < len; n++) {
      if (n % STEP === 0) marks.push(i);
      const c = s.charCodeAt(i++);
      if (c >= 0xd800 && c <= 0xdbff && i < len) {
        const d = s.charCodeAt(i);
        if (d >= 0xdc00 && d <= 0xdfff) i++;
      }
    }
    this.n = n;
    this.marks = marks;
  }

  length(s: string): number {
    if (s.length < SHORT) return cpLength(s);
    this.use(s);
    return this.n;
  }

  /** UTF-16 offset of code point `i` (0 <= i <= length). */
  private offset(i: number): number {
    const marks = this.marks;
    if (marks === null) return i;
    if (i >= this.n) return this.s.length;
    const k = Math.floor(i / STEP);
    return cpOffset(this.s, i - k * STEP, marks[k]!);
  }

  /** Code point `i` of `s` (negative: from the end), or null out of range:
   * `s[i]` (semantics.md §4.9). */
  at(s: string, i: number): string | null {
    if (s.length < SHORT) return cpAt(s, i);
    this.use(s);
    if (i < 0) i += this.n;
    if (i < 0 || i >= this.n) return null;
    if (this.marks === null) return s[i]!;
    const from = this.offset(i);
    return s.slice(from, cpOffset(s, 1, from));
  }

  /** Code points `[start, end)` with both clamped to `[0, len]`. */
  slice(s: string, start: number, end: number): string {
    if (s.length < SHORT) return cpSubstring(s, start, end);
    this.use(s);
    start = Math.min(Math.max(start, 0), this.n);
    end = Math.min(Math.max(end, start), this.n);
    const from = this.offset(start);
    return s.slice(from, end - start <= STEP ? cpOffset(s, end - start, from) : this.offset(end));
  }

  /** The code-point index of UTF-16 offset `unit` (a code-point boundary). */
  indexAt(s: string, unit: number): number {
    if (unit <= 0) return unit;
    if (s.length < SHORT) return hasSurrogates(s) ? cpLength(s.slice(0, unit)) : unit;
    this.use(s);
    const marks = this.marks;
    if (marks === null) return unit;
    let lo = 0;
    let hi = marks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (marks[mid]! <= unit) lo = mid;
      else hi = mid - 1;
    }
    return lo * STEP + cpLength(s.slice(marks[lo]!, unit));
  }
}

/** Code-point order (equivalent to UTF-8 byte order), not UTF-16 order. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      // Surrogates (D800-DFFF) encode code points above FFFF, so they must
      // sort after E000-FFFF; remap both ranges before comparing.
      if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
      return x < y ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

// ---------------------------------------------------------------------------
// Display (spec/semantics.md §3)

/** Float display: `3.0`, shortest round-trip digits, never an exponent. */
export function formatFloat(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (Number.isInteger(x) && Math.abs(x) < 1e15) {
    if (x === 0 && Object.is(x, -0)) return "-0.0";
    return String(x) + ".0";
  }
  const s = String(x);
  const e = s.indexOf("e");
  if (e < 0) return s;
  return expandExponent(s.slice(0, e), Number(s.slice(e + 1)));
}

function expandExponent(mantissa: string, exp: number): string {
  let sign = "";
  if (mantissa[0] === "-") {
    sign = "-";
    mantissa = mantissa.slice(1);
  }
  const dot = mantissa.indexOf(".");
  const digits = dot < 0 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  const intLen = (dot < 0 ? mantissa.length : dot) + exp;
  if (intLen <= 0) return sign + "0." + "0".repeat(-intLen) + digits;
  if (intLen >= digits.length) return sign + digits + "0".repeat(intLen - digits.length);
  return sign + digits.slice(0, intLen) + "." + digits.slice(intLen);
}

/** Duration display: largest exact unit of h, m, s, else ms. */
export function formatDuration(ms: number): string {
  const sign = ms < 0 ? "-" : "";
  const a = Math.abs(ms);
  if (a >= 3600000 && a % 3600000 === 0) return `${sign}${a / 3600000}h`;
  if (a >= 60000 && a % 60000 === 0) return `${sign}${a / 60000}m`;
  if (a >= 1000 && a % 1000 === 0) return `${sign}${a / 1000}s`;
  return `${sign}${a}ms`;
}

function hex2(b: number): string {
  return (b < 16 ? "0" : "") + b.toString(16);
}

export function formatBytes(data: Uint8Array): string {
  let s = 'b"';
  const n = Math.min(32, data.length);
  for (let i = 0; i < n; i++) s += hex2(data[i]!);
  if (data.length > 32) s += `...+${data.length - 32}`;
  return s + '"';
}

/**
 * Hooks for kinds whose display depends on evaluator state (task ids,
 * atomic values are plain; generators need their `done` flag, which lives
 * on the value). Kept as a parameter-free function: every kind's display is
 * derivable from the value itself.
 */
export function display(v: Value): string {
  switch (typeof v) {
    case "string":
      return v;
    case "number":
      return String(v);
    case "bigint":
      return v.toString();
    case "boolean":
      return v ? "true" : "false";
  }
  if (v === null) return "nil";
  if (Array.isArray(v)) {
    let s = "[";
    for (let i = 0; i < v.length; i++) {
      if (i > 0) s += ", ";
      s += display(v[i]!);
    }
    return s + "]";
  }
  switch (v.tag) {
    case Tag.Float:
      return formatFloat(v.v);
    case Tag.Dict: {
      const keys = v.keys();
      let s = "{";
      for (let i = 0; i < keys.length; i++) {
        if (i > 0) s += ", ";
        s += keys[i] + ": " + display(v.valueAt(i));
      }
      return s + "}";
    }
    case Tag.Set:
      return "set(" + v.items.map(display).join(", ") + ")";
    case Tag.Closure:
      return "<fn(" + v.params.join(", ") + ")>";
    case Tag.Builtin:
      return "<builtin " + v.name + ">";
    case Tag.Enum:
      if (v.fields.length === 0) return v.enumName + "." + v.variant;
      return v.enumName + "." + v.variant + "(" + v.fields.map(display).join(", ") + ")";
    case Tag.Struct: {
      const keys = [...v.fields.keys()].sort(compareStrings);
      if (keys.length === 0) return v.name + " {}";
      return v.name + " {" + keys.map((k) => k + ": " + display(v.fields.get(k)!)).join(", ") + "}";
    }
    case Tag.Duration:
      return formatDuration(v.ms);
    case Tag.Range:
      return `${v.start} to ${v.end}${v.inclusive ? "" : " exclusive"}`;
    case Tag.Pair:
      return "(" + display(v.first) + ", " + display(v.second) + ")";
    case Tag.Iter:
      return v.exhausted ? "<iter (exhausted)>" : "<iter>";
    case Tag.Generator: {
      const name = v.isStream ? "stream" : "generator";
      return v.done ? `<${name} (done)>` : `<${name}>`;
    }
    case Tag.Task:
      return "<task:" + v.id + ">";
    case Tag.Channel:
      return "<channel:" + v.name + ">";
    case Tag.Atomic:
      return "<atomic:" + String(v.value) + ">";
    case Tag.Bytes:
      return formatBytes(v.data);
    case Tag.Opaque:
      return v.displayText;
  }
}

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
