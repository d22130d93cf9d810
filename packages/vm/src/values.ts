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
import { compareStrings } from "./strings";

// The code-point string helpers are part of the value model's surface.
export * from "./strings";
export * from "./equality";

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

/** A struct's fields as a plain object, for generated code's field reads. */
export type FieldRecord = Readonly<Record<string, Value | undefined>>;
/** The prototype of every field record: it has no properties and no
 * prototype of its own, so a missing field reads as `undefined` (never
 * `toString` and the like) and a field named `__proto__` is an own data
 * property. `Object.create` of one shared prototype starts every record
 * from the same V8 hidden class. */
const RECORD_PROTO: object = Object.create(null);
/** Reads through `field` before a struct value builds its record: a value
 * read once or twice does not pay for one. */
const RECORD_AFTER_READS = 3;

/** A struct instance. Absent fields are simply not in `fields`. Struct
 * values are never mutated (a field assignment builds a new one), so the
 * record, once built, stays exact. */
export class HStruct {
  readonly tag = Tag.Struct;
  /** The fields as a plain object, built by `field` once the value is read
   * often: values of one struct type built in the same field order share
   * a hidden class, so generated code's `rec[name]` is an inline-cached
   * load where `fields.get(name)` is a hash lookup (bench/vm 13). */
  rec: FieldRecord | undefined = undefined;
  private reads = 0;
  constructor(
    readonly name: string,
    readonly fields: Map<string, Value>,
  ) {}

  /** A field's value, or undefined; what generated code calls when the
   * record is not built yet. */
  field(name: string): Value | undefined {
    if (++this.reads === RECORD_AFTER_READS) {
      const rec = Object.create(RECORD_PROTO) as Record<string, Value>;
      for (const [k, v] of this.fields) rec[k] = v;
      this.rec = rec;
    }
    return this.fields.get(name);
  }
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

export function hex2(b: number): string {
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
