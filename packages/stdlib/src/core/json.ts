/**
 * JSON (spec/stdlib.md §11.1–§11.3). A hand-written parser, because
 * `JSON.parse` cannot tell `1` from `1.0` nor keep ints beyond 2^53 exact,
 * and because error texts follow serde_json (`expected value at line 1
 * column 1`). The serializer is compact with sorted keys and Rust-style
 * float formatting. Also the one place where Harn values meet plain JSON
 * (JS objects): long-running payloads, transcripts, provider data, yielded
 * states and daemon files (`fromJson`, `toJson`, `dataOnly`).
 */
import {
  display,
  float,
  formatFloat,
  HarnError,
  HBuiltinRef,
  HBytes,
  HClosure,
  HDict,
  HDuration,
  HFloat,
  HRange,
  HSet,
  HStruct,
  compareStrings,
  intFromNumber,
  isInt,
  normBig,
  type Runtime,
  type Value,
} from "@harn/vm";
import { ryu } from "../template/json";
import { strArg } from "./args";
import { trim } from "./text";
import { builtinModule } from "../registry/define";

// ---------------------------------------------------------------------------
// Parsing

/** A parse failure; `message` is the serde_json-style detail. */
export class JsonError {
  constructor(readonly message: string) {}
}

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** serde_json's nesting limit. */
const MAX_DEPTH = 128;

/**
 * An integral float read from JSON text written as a float (`2.0`, `1e3`)
 * in a plain JS JSON value (see `parseJsonKeepingFloats`). A plain number
 * cannot carry the difference, and the reference keeps it (serde_json's
 * `is_i64` is false for `2.0`). It extends `Number` so `JSON.stringify`
 * still writes it as a number (`2`; `stringifyJsonKeepingFloats` writes
 * `2.0`) and arithmetic on it still works; `typeof` is
 * "object", so code reading numbers out of such values must accept it
 * (`jsonNumber`).
 */
export class JsonFloat extends Number {}

/** The number a JSON value holds (a plain number or a `JsonFloat`), or
 * undefined. */
export function jsonNumber(x: unknown): number | undefined {
  if (typeof x === "number") return x;
  return x instanceof JsonFloat ? x.valueOf() : undefined;
}

class Parser {
  private i = 0;
  private depth = 0;
  /** `plain`: produce plain JS JSON values (objects, numbers, `JsonFloat`)
   * instead of Harn values; `exactInts`: in plain values, an integer
   * beyond 2^53 is a `bigint` (in the i64 range) rather than the nearest
   * double. */
  constructor(
    private readonly s: string,
    private readonly plain = false,
    private readonly exactInts = false,
  ) {}

  private enter(): void {
    if (++this.depth > MAX_DEPTH) {
      this.i++;
      this.fail("recursion limit exceeded");
    }
  }

  parseDocument(): Value {
    this.ws();
    const v = this.value();
    this.ws();
    if (this.i < this.s.length) {
      this.i++;
      this.fail("trailing characters");
    }
    return v;
  }

  /** serde_json positions: line, and column of the last consumed byte. */
  private fail(what: string): never {
    let line = 1;
    let lineStart = 0;
    const end = Math.min(this.i, this.s.length);
    for (let k = 0; k < end; k++) {
      if (this.s.charCodeAt(k) === 10) {
        line++;
        lineStart = k + 1;
      }
    }
    // serde_json counts columns in bytes
    const col = Buffer.byteLength(this.s.slice(lineStart, end), "utf8");
    throw new JsonError(`${what} at line ${line} column ${col}`);
  }

  private eof(what: string): never {
    this.i = this.s.length;
    this.fail(`EOF while parsing ${what}`);
  }

  private ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 32 || c === 10 || c === 13 || c === 9) this.i++;
      else break;
    }
  }

  private value(): Value {
    const s = this.s;
    if (this.i >= s.length) this.eof("a value");
    const c = s[this.i]!;
    switch (c) {
      case "{":
        return this.object();
      case "[":
        return this.array();
      case '"':
        this.i++;
        return this.string();
      case "t":
        return this.literal("true", true);
      case "f":
        return this.literal("false", false);
      case "n":
        return this.literal("null", null);
      default:
        if (c === "-" || (c >= "0" && c <= "9")) return this.number();
        this.i++;
        this.fail("expected value");
    }
  }

  private literal(word: string, v: Value): Value {
    for (let k = 0; k < word.length; k++) {
      if (this.i >= this.s.length) this.eof("a value");
      if (this.s[this.i] !== word[k]) {
        this.i++;
        this.fail("expected ident");
      }
      this.i++;
    }
    return v;
  }

  private number(): Value {
    const s = this.s;
    const start = this.i;
    if (s[this.i] === "-") this.i++;
    if (this.i >= s.length) this.eof("a value");
    if (s[this.i] === "0") {
      this.i++;
      const d = s[this.i];
      if (d !== undefined && d >= "0" && d <= "9") {
        this.i++;
        this.fail("invalid number");
      }
    } else if (s[this.i]! >= "1" && s[this.i]! <= "9") {
      while (this.i < s.length && s[this.i]! >= "0" && s[this.i]! <= "9") this.i++;
    } else {
      this.i++;
      this.fail("invalid number");
    }
    let isFloat = false;
    if (s[this.i] === ".") {
      isFloat = true;
      this.i++;
      if (this.i >= s.length) this.eof("a value");
      if (!(s[this.i]! >= "0" && s[this.i]! <= "9")) {
        this.i++;
        this.fail("invalid number");
      }
      while (this.i < s.length && s[this.i]! >= "0" && s[this.i]! <= "9") this.i++;
    }
    if (s[this.i] === "e" || s[this.i] === "E") {
      isFloat = true;
      this.i++;
      if (s[this.i] === "+" || s[this.i] === "-") this.i++;
      if (this.i >= s.length) this.eof("a value");
      if (!(s[this.i]! >= "0" && s[this.i]! <= "9")) {
        this.i++;
        this.fail("invalid number");
      }
      while (this.i < s.length && s[this.i]! >= "0" && s[this.i]! <= "9") this.i++;
    }
    const text = s.slice(start, this.i);
    // serde_json reads `-0` as the float -0.0, not the int 0.
    if (!isFloat && !(text === "-0" && !this.plain)) {
      if (text.length < 16 || (this.plain && !this.exactInts)) return Number(text);
      const b = BigInt(text);
      if (b >= I64_MIN && b <= I64_MAX) return this.plain ? (Number.isSafeInteger(Number(b)) ? Number(b) : (b as unknown as Value)) : normBig(b);
    }
    const x = Number(text);
    if (!Number.isFinite(x)) this.fail("number out of range");
    if (this.plain) return (Number.isInteger(x) ? new JsonFloat(x) : x) as unknown as Value;
    return float(x);
  }

  /** After the opening quote. */
  private string(): string {
    const s = this.s;
    let out = "";
    let runStart = this.i;
    for (;;) {
      if (this.i >= s.length) this.eof("a string");
      const c = s.charCodeAt(this.i);
      if (c === 34) {
        out += s.slice(runStart, this.i);
        this.i++;
        return out;
      }
      if (c < 0x20) {
        this.i++;
        this.fail("control character (\\u0000-\\u001F) found while parsing a string");
      }
      if (c !== 92) {
        this.i++;
        continue;
      }
      out += s.slice(runStart, this.i);
      this.i++;
      if (this.i >= s.length) this.eof("a string");
      const e = s[this.i++]!;
      switch (e) {
        case '"':
          out += '"';
          break;
        case "\\":
          out += "\\";
          break;
        case "/":
          out += "/";
          break;
        case "b":
          out += "\b";
          break;
        case "f":
          out += "\f";
          break;
        case "n":
          out += "\n";
          break;
        case "r":
          out += "\r";
          break;
        case "t":
          out += "\t";
          break;
        case "u": {
          let cp = this.hex4();
          if (cp >= 0xd800 && cp <= 0xdbff) {
            if (s[this.i] !== "\\" || s[this.i + 1] !== "u") {
              this.fail("lone leading surrogate in hex escape");
            }
            this.i += 2;
            const lo = this.hex4();
            if (lo < 0xdc00 || lo > 0xdfff) this.fail("lone leading surrogate in hex escape");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          } else if (cp >= 0xdc00 && cp <= 0xdfff) {
            this.fail("lone leading surrogate in hex escape");
          }
          out += String.fromCodePoint(cp);
          break;
        }
        default:
          this.fail("invalid escape");
      }
      runStart = this.i;
    }
  }

  private hex4(): number {
    let v = 0;
    for (let k = 0; k < 4; k++) {
      if (this.i >= this.s.length) this.eof("a string");
      const d = parseInt(this.s[this.i++]!, 16);
      if (Number.isNaN(d)) this.fail("invalid escape");
      v = v * 16 + d;
    }
    return v;
  }

  private array(): Value[] {
    this.enter();
    this.i++;
    const out: Value[] = [];
    this.ws();
    if (this.i >= this.s.length) this.eof("a list");
    if (this.s[this.i] === "]") {
      this.i++;
      this.depth--;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.ws();
      if (this.i >= this.s.length) this.eof("a list");
      const c = this.s[this.i++];
      if (c === "]") {
        this.depth--;
        return out;
      }
      if (c !== ",") this.fail("expected `,` or `]`");
      this.ws();
      if (this.s[this.i] === "]") {
        this.i++;
        this.fail("trailing comma");
      }
    }
  }

  private object(): HDict {
    const m = this.entries();
    // Object.fromEntries defines own properties, so a `__proto__` key stays
    // data, as with JSON.parse.
    return this.plain ? (Object.fromEntries(m) as unknown as HDict) : new HDict(m);
  }

  private entries(): Map<string, Value> {
    this.enter();
    this.i++;
    const m = new Map<string, Value>();
    this.ws();
    if (this.i >= this.s.length) this.eof("an object");
    if (this.s[this.i] === "}") {
      this.i++;
      this.depth--;
      return m;
    }
    for (;;) {
      if (this.i >= this.s.length) this.eof("an object");
      if (this.s[this.i] !== '"') {
        this.i++;
        this.fail("key must be a string");
      }
      this.i++;
      const key = this.string();
      this.ws();
      if (this.i >= this.s.length) this.eof("an object");
      if (this.s[this.i++] !== ":") this.fail("expected `:`");
      this.ws();
      m.set(key, this.value());
      this.ws();
      if (this.i >= this.s.length) this.eof("an object");
      const c = this.s[this.i++];
      if (c === "}") {
        this.depth--;
        return m;
      }
      if (c !== ",") this.fail("expected `,` or `}`");
      this.ws();
      if (this.s[this.i] === "}") {
        this.i++;
        this.fail("trailing comma");
      }
    }
  }
}

/** Parse JSON text into Harn values. Throws `JsonError` (not a HarnError:
 * callers choose the message), e.g. `expected value at line 1 column 1`. */
export function parseJson(text: string): Value {
  return new Parser(text).parseDocument();
}

/** The start of a number token with a fraction or an exponent: a number
 * value follows `:`, `,` or `[` (or starts the text). Text without one
 * (most provider bodies: their numbers are counts and indexes) cannot hold
 * an integral float, so `JSON.parse` reads it exactly. Ids such as
 * `"chatcmpl-9e3…"` do not count; prose such as `"…, 2.5"` may (then the
 * slower parser runs, with the same result). */
const MAYBE_FLOAT = /[:,[]\s*-?[0-9]+[.eE]/;
const LEADING_FLOAT = /^\s*-?[0-9]+[.eE]/;

/**
 * JSON text → plain JS JSON value, like `JSON.parse`, except that integral
 * numbers written as floats (`2.0`, `1e3`) come out as `JsonFloat`, so the
 * agent layer can hand a model's `{"x": 2.0}` to a script as the float
 * `2.0`, as the reference does. Object key order is the text's (as with
 * `JSON.parse`). Throws `JsonError` with serde_json's texts on bad input.
 * With `exactInts` (daemon payloads, whose 64-bit ints must come back
 * unchanged), integers beyond 2^53 are `bigint`s.
 */
export function parseJsonKeepingFloats(text: string, options: { exactInts?: boolean } = {}): unknown {
  if (!MAYBE_FLOAT.test(text) && !LEADING_FLOAT.test(text) && !(options.exactInts && LONG_INT.test(text))) {
    try {
      return JSON.parse(text);
    } catch {
      // parse again below for the serde_json-style message
    }
  }
  return new Parser(text, true, options.exactInts === true).parseDocument();
}

/** Sixteen digits in a row: maybe an integer `JSON.parse` would round. */
const LONG_INT = /[0-9]{16}/;

/**
 * Plain JS JSON value → text, like `JSON.stringify(v, null, indent)` (own
 * key order; compact unless `indent`), except that a `JsonFloat` is written as a float (`2.0`, `1e21`),
 * as serde_json writes a float Value (ryu's layout), so provider adapters
 * that re-serialize a tool call's argument object into argument text keep
 * what `parseJsonKeepingFloats` read. A `bigint` (an exact 64-bit int read
 * with `exactInts`) is written with all its digits.
 */
export function stringifyJsonKeepingFloats(v: unknown, indent = 0): string {
  let found = false;
  const plain = JSON.stringify(
    v,
    (_k, x: unknown) => {
      if (x instanceof JsonFloat || typeof x === "bigint") found = true;
      return typeof x === "bigint" ? null : x;
    },
    indent,
  );
  return found ? writeKeepingFloats(v, indent > 0 ? " ".repeat(indent) : "", "\n") : plain;
}

/** `step` is one level of indentation ("" = compact); `nl` the newline plus
 * the current indentation, as `JSON.stringify(v, null, n)` lays it out. */
function writeKeepingFloats(v: unknown, step: string, nl: string): string {
  if (v instanceof JsonFloat) return ryu(v.valueOf());
  if (typeof v === "bigint") return String(v);
  const inner = step === "" ? "" : nl + step;
  const sep = step === "" ? "," : `,${inner}`;
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    const items = v.map((x) => (x === undefined || typeof x === "function" ? "null" : writeKeepingFloats(x, step, inner)));
    return `[${inner}${items.join(sep)}${step === "" ? "" : nl}]`;
  }
  if (v !== null && typeof v === "object") {
    const parts: string[] = [];
    for (const [k, x] of Object.entries(v)) {
      if (x !== undefined && typeof x !== "function") parts.push(`${JSON.stringify(k)}:${step === "" ? "" : " "}${writeKeepingFloats(x, step, inner)}`);
    }
    if (parts.length === 0) return "{}";
    return `{${inner}${parts.join(sep)}${step === "" ? "" : nl}}`;
  }
  return JSON.stringify(v) ?? "null";
}

/** Parse, failing with the thrown string `<prefix><detail>`. */
export function parseJsonOrThrow(text: string, prefix: string): Value {
  try {
    return parseJson(text);
  } catch (e) {
    if (e instanceof JsonError) throw HarnError.thrown(prefix + e.message);
    throw e;
  }
}

// ---------------------------------------------------------------------------
// Serializing

/** Rust's plain `f64` Display: shortest round-trip digits, never an
 * exponent, no `.0` on integral values (`1.0` → `1`, `-0.0` → `-0`). Used
 * by json_stringify, log fields and schema messages. */
export function formatPlainFloat(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  const s = formatFloat(x);
  return s.endsWith(".0") ? s.slice(0, -2) : s;
}

const ESCAPES: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };
const HAS_ESCAPE = /["\\\u0000-\u001f\u007f-\u009f]/;
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u007f-\u009f]/g;

export function quoteJson(s: string): string {
  if (!HAS_ESCAPE.test(s)) return '"' + s + '"';
  return (
    '"' +
    s.replace(NEEDS_ESCAPE, (c) => ESCAPES[c] ?? "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")) +
    '"'
  );
}

function writeJson(v: Value, out: string[]): void {
  switch (typeof v) {
    case "string":
      out.push(quoteJson(v));
      return;
    case "number":
    case "bigint":
      out.push(String(v));
      return;
    case "boolean":
      out.push(v ? "true" : "false");
      return;
  }
  if (v === null) {
    out.push("null");
    return;
  }
  if (Array.isArray(v) || v instanceof HSet) {
    const xs = Array.isArray(v) ? v : v.items;
    out.push("[");
    for (let i = 0; i < xs.length; i++) {
      if (i > 0) out.push(",");
      writeJson(xs[i]!, out);
    }
    out.push("]");
    return;
  }
  if (v instanceof HFloat) {
    out.push(formatPlainFloat(v.v));
    return;
  }
  if (v instanceof HDict || v instanceof HStruct) {
    const dict = v instanceof HDict ? v : null;
    const keys = dict !== null ? dict.keys() : [...(v as HStruct).fields.keys()].sort(compareStrings);
    out.push("{");
    for (let i = 0; i < keys.length; i++) {
      if (i > 0) out.push(",");
      out.push(quoteJson(keys[i]!), ":");
      // valueAt: a compact record stays compact
      writeJson(dict !== null ? dict.valueAt(i) : (v as HStruct).fields.get(keys[i]!)!, out);
    }
    out.push("}");
    return;
  }
  if (v instanceof HRange) {
    out.push(quoteJson(display(v)));
    return;
  }
  if (v instanceof HBytes) {
    out.push('{"$bytes_b64":"' + Buffer.from(v.data).toString("base64") + '"}');
    return;
  }
  out.push("null");
}

export function stringifyJson(v: Value): string {
  const out: string[] = [];
  writeJson(v, out);
  return out.join("");
}

// ---------------------------------------------------------------------------
// json_extract: JSON embedded in prose

/** The first balanced `open…close` span, ignoring brackets inside strings. */
function balanced(s: string, open: string, close: string): string | null {
  const start = s.indexOf(open);
  if (start < 0) return null;
  let depth = 0;
  let inString = false;
  for (let i = start; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === open) depth++;
    else if (c === close && --depth === 0) return s.slice(start, i + 1);
  }
  return null;
}

export function extractJsonText(text: string): string {
  const t = trim(text);
  const fence = t.indexOf("```");
  if (fence >= 0) {
    const after = t.slice(fence + 3);
    const nl = after.indexOf("\n");
    const body = nl >= 0 ? after.slice(nl + 1) : after;
    const end = body.indexOf("```");
    return trim(end >= 0 ? body.slice(0, end) : body);
  }
  return balanced(t, "{", "}") ?? balanced(t, "[", "]") ?? t;
}

// ---------------------------------------------------------------------------
// Harn values <-> plain JSON (JS objects). Completion payloads are built as
// plain objects whose key order is the contract (agents.md §0.4, §1.10), so
// `JSON.stringify` gives the queued text directly and scripts receive the
// same object converted without a parse round trip; transcripts, requests,
// yielded loop states and mock records are plain JSON too (the provider
// layer speaks it, and `agent_resume` must accept a state that went through
// `json_stringify` / `json_parse`).

/** A JSON-shaped JS value as produced by the payload builders, or parsed by
 * `parseJsonKeepingFloats` (which marks integral floats as `JsonFloat`). */
export type Json = null | boolean | number | JsonFloat | string | Json[] | { [key: string]: Json };

/**
 * JSON-shaped JS value → Harn value. Integral numbers become ints: every
 * number in a payload is an integer (ids, counts, durations, exit codes), and
 * `JSON.parse` cannot tell `1` from `1.0` anyway; a `JsonFloat` becomes a
 * float. The agent layer uses it for transcripts and provider data too
 * (`toJson` is the other way).
 */
export function fromJson(x: unknown): Value {
  if (x === null || x === undefined) return null;
  switch (typeof x) {
    case "string":
    case "boolean":
      return x;
    case "number":
      return Number.isInteger(x) ? intFromNumber(x) : float(x);
    case "bigint":
      return normBig(x);
    case "object": {
      if (Array.isArray(x)) return listToValue(x);
      if (x instanceof JsonFloat) return float(x.valueOf());
      return objectToValue(x as Record<string, unknown>);
    }
    default:
      return null;
  }
}

/** A JSON object (not null, a list or a `JsonFloat`). */
export function isJsonObject(x: unknown): x is JsonObject {
  return x !== null && typeof x === "object" && !Array.isArray(x) && !(x instanceof JsonFloat);
}

function objectToValue(x: Record<string, unknown>): HDict {
  const m = new Map<string, Value>();
  // A key holding undefined is absent, as in the JSON text.
  for (const k of Object.keys(x)) {
    const v = x[k];
    if (v !== undefined) m.set(k, fromJson(v));
  }
  return new HDict(m);
}

/**
 * A list; runs of objects with the same keys in the same order (a payload's
 * entries, built by one object literal) become compact records sharing one
 * key array: a long-running walk_dir's 110,000 entries would otherwise be
 * 110,000 `Map`s.
 */
function listToValue(x: unknown[]): Value[] {
  const out: Value[] = new Array(x.length);
  let previous: readonly string[] | null = null;
  let shape: RecordShape | null = null;
  for (let i = 0; i < x.length; i++) {
    const e = x[i];
    if (!isJsonObject(e)) {
      out[i] = fromJson(e);
      continue;
    }
    const o = e;
    const names = Object.keys(o);
    if (shape !== null && sameNames(shape.names, names)) out[i] = toRecord(o, shape);
    else if (previous !== null && sameNames(previous, names) && (shape = recordShape(names)) !== null) out[i] = toRecord(o, shape);
    else out[i] = objectToValue(o); // a shape seen once is not worth sorting its keys
    previous = names;
  }
  return out;
}

interface RecordShape {
  /** The keys in the objects' own order. */
  readonly names: readonly string[];
  /** The same keys in `keys()` order, shared by every record of the run. */
  readonly sorted: readonly string[];
}

/** Null when the key set is not worth a record (no keys, or too many for a
 * record's key scan). */
function recordShape(names: string[]): RecordShape | null {
  if (names.length === 0 || names.length > HDict.RECORD_MAX_KEYS) return null;
  return { names, sorted: HDict.recordKeys(...names) };
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function toRecord(o: Record<string, unknown>, shape: RecordShape): HDict {
  const keys = shape.sorted;
  const values: Value[] = new Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const v = o[keys[i]!];
    if (v === undefined) return objectToValue(o); // absent key: not this shape
    values[i] = fromJson(v);
  }
  return HDict.record(keys, values);
}

export type JsonObject = { [key: string]: Json };

/** Harn value → JSON. Dict keys come out sorted (dicts are sorted maps);
 * values JSON cannot hold (closures, sets, …) become their display text.
 * An integral float becomes a `JsonFloat`, so `fromJson` gives the float
 * back (an `llm_mock` tool call's `{x: 2.0}` reaches the handler as `2.0`). */
export function toJson(v: Value): Json {
  return toJsonWith(v, display);
}

/** `toJson`, with `other(v)` for the values JSON cannot hold (MCP
 * arguments make them null, spec/mcp.md §0.3). */
export function toJsonWith(v: Value, other: (v: Value) => Json): Json {
  if (v === null || typeof v === "string" || typeof v === "boolean" || typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (Array.isArray(v)) return v.map((x) => toJsonWith(x, other));
  if (v instanceof HFloat) return floatToJson(v);
  if (v instanceof HDict) {
    const o: JsonObject = {};
    for (const k of v.keys()) o[k] = toJsonWith(v.get(k), other);
    return o;
  }
  return isInt(v) ? Number(v) : other(v);
}

/** A Harn float as JSON: an integral one as a `JsonFloat`, so it is written
 * `2.0` and read back as a float. */
export function floatToJson(f: HFloat): Json {
  return Number.isInteger(f.v) ? new JsonFloat(f.v) : f.v;
}

/** Data-only copy of an options dict (closures dropped), for a yielded
 * state or a daemon's metadata that must survive `json_stringify`. A
 * duration becomes its milliseconds, which every option taking one reads. */
export function dataOnly(v: Value): Json | undefined {
  if (v instanceof HClosure || v instanceof HBuiltinRef) return undefined;
  if (v instanceof HDuration) return v.ms;
  if (Array.isArray(v)) return v.map((x) => dataOnly(x) ?? null);
  if (v instanceof HDict) {
    const o: JsonObject = {};
    for (const k of v.keys()) {
      const d = dataOnly(v.get(k));
      if (d !== undefined) o[k] = d;
    }
    return o;
  }
  return toJson(v);
}

export const JSON_BUILTINS = builtinModule("core/json", (def) => {
  def("json_parse", (args) => parseJsonOrThrow(strArg(args, 0), "JSON parse error: "));
  def("json_stringify", (args) => stringifyJson(args.length > 0 ? args[0]! : null));
  def("json_extract", (args) => {
    if (args.length === 0) throw HarnError.thrown("json_extract requires at least 1 argument: text");
    const v = parseJsonOrThrow(extractJsonText(strArg(args, 0)), "json_extract: failed to parse JSON: ");
    if (args.length < 2 || args[1] === null) return v;
    const key = strArg(args, 1);
    if (!(v instanceof HDict)) throw HarnError.thrown("json_extract: parsed value is not a dict, cannot extract key");
    if (!v.has(key)) throw HarnError.thrown(`json_extract: key '${key}' not found`);
    return v.get(key);
  });
});
