/**
 * The template `json` filter's encoder (spec/stdlib.md §20): serde_json
 * style, which differs from `json_stringify` — floats always keep a decimal
 * point or an exponent (`1.0`, `1e21`, ryu's layout), non-finite floats are
 * `null`, and values JSON cannot hold (sets, ranges, enums, durations, …)
 * become their display string. Pretty output indents by two spaces.
 */
import { display, HDict, HFloat, HStruct, type Value } from "@harn/vm";

export function toJson(v: Value, pretty: boolean): string {
  return encode(v, pretty ? "\n" : null);
}

function encode(v: Value, nl: string | null): string {
  switch (typeof v) {
    case "string":
      return quote(v);
    case "number":
    case "bigint":
      return String(v);
    case "boolean":
      return v ? "true" : "false";
  }
  if (v === null) return "null";
  if (Array.isArray(v)) return array(v, nl);
  if (v instanceof HFloat) return ryu(v.v);
  if (v instanceof HDict) return object(v.keys().map((k) => [k, v.get(k)]), nl);
  if (v instanceof HStruct) return object([...v.fields.keys()].sort().map((k) => [k, v.fields.get(k)!]), nl);
  return quote(display(v));
}

function array(items: Value[], nl: string | null): string {
  if (items.length === 0) return "[]";
  if (nl === null) return "[" + items.map((x) => encode(x, null)).join(",") + "]";
  const inner = nl + "  ";
  return "[" + inner + items.map((x) => encode(x, inner)).join("," + inner) + nl + "]";
}

function object(entries: [string, Value][], nl: string | null): string {
  if (entries.length === 0) return "{}";
  if (nl === null) return "{" + entries.map(([k, x]) => quote(k) + ":" + encode(x, null)).join(",") + "}";
  const inner = nl + "  ";
  return "{" + inner + entries.map(([k, x]) => quote(k) + ": " + encode(x, inner)).join("," + inner) + nl + "}";
}

/** serde_json string escaping: `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`,
 * other controls as `\u00xx`; everything else raw. */
export function quote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) {
      out += s[i];
      continue;
    }
    switch (c) {
      case 0x22:
        out += '\\"';
        break;
      case 0x5c:
        out += "\\\\";
        break;
      case 0x0a:
        out += "\\n";
        break;
      case 0x0d:
        out += "\\r";
        break;
      case 0x09:
        out += "\\t";
        break;
      case 0x08:
        out += "\\b";
        break;
      case 0x0c:
        out += "\\f";
        break;
      default:
        out += "\\u00" + c.toString(16).padStart(2, "0");
    }
  }
  return out + '"';
}

/** Rust's ryu layout of the shortest round-trip digits. */
export function ryu(x: number): string {
  if (!Number.isFinite(x)) return "null";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const [mant, expText] = Math.abs(x).toExponential().split("e");
  const digits = mant!.replace(".", "");
  const length = digits.length;
  const kk = Number(expText) + 1; // 10^(kk-1) <= |x| < 10^kk
  const k = kk - length;
  let body: string;
  if (k >= 0 && kk <= 16) body = digits + "0".repeat(k) + ".0";
  else if (kk > 0 && kk <= 16) body = digits.slice(0, kk) + "." + digits.slice(kk);
  else if (kk > -5 && kk <= 0) body = "0." + "0".repeat(-kk) + digits;
  else if (length === 1) body = digits + "e" + (kk - 1);
  else body = digits[0] + "." + digits.slice(1) + "e" + (kk - 1);
  return sign + body;
}
