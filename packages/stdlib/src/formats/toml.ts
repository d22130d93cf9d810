/**
 * `toml_parse` / `toml_stringify` (spec/stdlib.md §11.5). Parsing uses
 * smol-toml (ints as bigint, so they stay ints); dates become their TOML
 * text. Stringifying is our own, in the layout of Rust's `toml` crate:
 * plain keys first, then the `[table]` and `[[array of tables]]` sections in
 * key order, arrays inline as `[1, 2]`, floats in Rust's plain text with `.0` on
 * integral values.
 */
import { formatFloat, HarnError, HDict, HFloat, HSet, HStruct, typeOf, type Value } from "@harn/vm";
import { parse, TomlDate, TomlError } from "smol-toml";
import { fromPlain } from "./convert";

export function tomlParse(text: string): Value {
  let doc: unknown;
  try {
    doc = parse(text, { integersAsBigInt: true });
  } catch (e) {
    if (e instanceof TomlError) {
      const what = e.message.split("\n")[0]!.replace(/^Invalid TOML document: /, "");
      throw HarnError.thrown(`TOML parse error: ${what} at line ${e.line}, column ${e.column}`);
    }
    throw HarnError.thrown(`TOML parse error: ${e instanceof Error ? e.message : String(e)}`);
  }
  return fromPlain(doc, (x) => (x instanceof TomlDate ? tomlDateText(x) : String(x)));
}

function tomlDateText(d: TomlDate): string {
  return d.toISOString().replace(/\.(\d*?)0+(?=$|Z|[+-]\d\d:\d\d$)/, (_m, digits: string) => (digits === "" ? "" : "." + digits));
}

class Unsupported {
  constructor(readonly detail: string) {}
}

export function tomlStringify(v: Value): string {
  const table = asTable(v);
  if (!table) throw HarnError.thrown(`toml_stringify: expected a dict at the root, got ${typeOf(v)}`);
  try {
    const out: string[] = [];
    writeTable(out, [], table, true);
    return out.join("");
  } catch (e) {
    if (e instanceof Unsupported) throw HarnError.thrown(`toml_stringify: ${e.detail}`);
    throw e;
  }
}

type Entries = [string, Value][];

function asTable(v: Value): Entries | null {
  if (v instanceof HDict) return v.keys().map((k) => [k, v.get(k)]);
  if (v instanceof HStruct) return [...v.fields.keys()].sort().map((k) => [k, v.fields.get(k)!]);
  return null;
}

function isArrayOfTables(v: Value): v is Value[] {
  return Array.isArray(v) && v.length > 0 && v.every((x) => asTable(x) !== null);
}

function key(k: string): string {
  return /^[A-Za-z0-9_-]+$/.test(k) ? k : quote(k);
}

function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (ch === "\r") out += "\\r";
    else if (c < 0x20 || c === 0x7f) out += "\\u" + c.toString(16).toUpperCase().padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}

/**
 * A string value in the style the toml crate picks: a literal `'…'` when the
 * text has a backslash (and no `'`, line break or control character), a
 * multi-line `"""` string when it has line breaks and nothing to escape,
 * otherwise a basic `"…"` string.
 */
function stringValue(s: string): string {
  if (s.includes("\\") && !s.includes("'") && !/[\u0000-\u0008\u000a-\u001f\u007f]/.test(s)) return `'${s}'`;
  if (s.includes("\n") && !/["\\\u0000-\u0009\u000b-\u001f\u007f]/.test(s)) return `"""\n${s}"""`;
  return quote(s);
}

/** The toml crate's float text: Rust's plain `{}` formatting (shortest
 * round-trip digits, never an exponent) plus `.0` on integral values. */
function floatText(x: number): string {
  if (Number.isNaN(x)) return "nan";
  const s = formatFloat(x); // `inf`, `-inf`, `-0.0`, `3.0`, `1e15` as digits
  return Number.isInteger(x) && !s.endsWith(".0") ? s + ".0" : s;
}

function inline(v: Value): string {
  switch (typeof v) {
    case "string":
      return stringValue(v);
    case "number":
    case "bigint":
      return String(v);
    case "boolean":
      return v ? "true" : "false";
  }
  if (v === null) throw new Unsupported("unsupported nil value");
  if (v instanceof HFloat) return floatText(v.v);
  if (Array.isArray(v) || v instanceof HSet) {
    const items = Array.isArray(v) ? v : v.items;
    return "[" + items.map(inline).join(", ") + "]";
  }
  const t = asTable(v);
  if (t) return "{ " + t.map(([k, x]) => `${key(k)} = ${inline(x)}`).join(", ") + " }";
  throw new Unsupported(`unsupported ${typeOf(v)} value`);
}

function writeTable(out: string[], path: string[], entries: Entries, root: boolean): void {
  const plain = entries.filter(([, x]) => asTable(x) === null && !isArrayOfTables(x));
  const sections = entries.length - plain.length;
  if (!root && (plain.length > 0 || sections === 0)) {
    if (out.length > 0) out.push("\n");
    out.push(`[${path.map(key).join(".")}]\n`);
  }
  for (const [k, x] of plain) {
    out.push(`${key(k)} = ${inline(x)}\n`);
  }
  // Sections follow the (sorted) key order, as Rust's toml emits nested
  // tables and arrays of tables in one pass over the map.
  for (const [k, x] of entries) {
    const table = asTable(x);
    if (table) {
      writeTable(out, [...path, k], table, false);
      continue;
    }
    if (!isArrayOfTables(x)) continue;
    for (const item of x) {
      if (out.length > 0) out.push("\n");
      out.push(`[[${[...path, k].map(key).join(".")}]]\n`);
      const sub = asTable(item)!;
      const inner: string[] = [];
      writeTable(inner, [...path, k], sub, true);
      out.push(...inner);
    }
  }
}
