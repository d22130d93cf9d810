/**
 * Code-point aware string algorithms shared by the string builtins (§6) and
 * the string methods (§22.1). Every index and length here counts Unicode
 * scalar values; the UTF-16 fast paths apply when a string has no
 * surrogates.
 */
import { cpArray, HarnError, RuntimeSlot, type Runtime } from "@harn/vm";

/** V8's string length limit (2^29 - 24 UTF-16 units). */
const MAX_STRING = 536870888;

/** Fail cleanly, before JS does, when a string result would be too long. */
export function checkLength(name: string, units: number): void {
  if (units > MAX_STRING) throw HarnError.runtime(`${name}: result would be too large (${units} characters)`);
}

/** Unicode White_Space (what Rust's `trim` strips). JS `trim` differs: it
 * also strips U+FEFF and keeps U+0085. */
const WS = "\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const LEADING_WS = new RegExp(`^[${WS}]+`);
const TRAILING_WS = new RegExp(`[${WS}]+$`);
const WS_RUN = new RegExp(`[${WS}]+`);

export function trimStart(s: string): string {
  return s.replace(LEADING_WS, "");
}

export function trimEnd(s: string): string {
  return s.replace(TRAILING_WS, "");
}

export function trim(s: string): string {
  return trimEnd(trimStart(s));
}

/** Splits on whitespace runs, dropping empty pieces (Rust `split_whitespace`). */
export function splitWhitespace(s: string): string[] {
  return trim(s).split(WS_RUN).filter((p) => p !== "");
}

/** Rust `str::split` with a literal separator: empty pieces kept; an empty
 * separator yields `["", c1, …, cn, ""]`. */
export function splitLiteral(s: string, sep: string): string[] {
  if (sep === "") return ["", ...cpArray(s), ""];
  return s.split(sep);
}

/** Replace every non-overlapping occurrence, left to right. An empty `old`
 * inserts `rep` before every code point and at the end. */
export function replaceAll(s: string, old: string, rep: string): string {
  if (old === "") return rep + cpArray(s).join(rep) + (s === "" ? "" : rep);
  return s.split(old).join(rep);
}

/** Code-point offset of the first occurrence of `sub`, or -1. */
export function indexOf(rt: Runtime, s: string, sub: string): number {
  const i = s.indexOf(sub);
  return i <= 0 ? i : rt.codePoints.indexAt(s, i);
}

export function lastIndexOf(rt: Runtime, s: string, sub: string): number {
  const i = s.lastIndexOf(sub);
  return i <= 0 ? i : rt.codePoints.indexAt(s, i);
}

export function reverse(s: string): string {
  return cpArray(s).reverse().join("");
}

/** First code point of `s`, or `fallback` when empty. */
export function firstCodePoint(s: string, fallback: string): string {
  if (s === "") return fallback;
  const c = s.codePointAt(0)!;
  return String.fromCodePoint(c);
}

export function lowercase(s: string): string {
  return s.toLowerCase();
}

export function uppercase(s: string): string {
  return s.toUpperCase();
}

/** Rust `str::lines` as the spec describes it: split on `\n`, strip one
 * trailing `\r` per line, no final empty line. */
export function lines(s: string): string[] {
  if (s === "") return [];
  const parts = s.split("\n");
  if (parts[parts.length - 1] === "") parts.pop();
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (p.endsWith("\r")) parts[i] = p.slice(0, -1);
  }
  return parts;
}

// ---------------------------------------------------------------------------
// Case styles (spec/stdlib.md §6 "Case-style converters")

function isLower(c: string): boolean {
  return c !== c.toUpperCase() && c === c.toLowerCase();
}

function isUpper(c: string): boolean {
  return c !== c.toLowerCase() && c === c.toUpperCase();
}

function isDigit(c: string): boolean {
  return /\p{Nd}/u.test(c);
}

/** camelCase / PascalCase words: split before an uppercase letter that
 * follows a lowercase letter or digit, and before the last capital of an
 * acronym followed by a lowercase letter (`HTTPServer` → http, server). */
export function camelWords(s: string): string[] {
  const cs = cpArray(s);
  const words: string[] = [];
  let cur = "";
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i]!;
    if (cur !== "" && isUpper(c)) {
      const prev = cs[i - 1]!;
      const next = cs[i + 1];
      if (isLower(prev) || isDigit(prev) || (isUpper(prev) && next !== undefined && isLower(next))) {
        words.push(cur);
        cur = "";
      }
    }
    cur += c;
  }
  if (cur !== "") words.push(cur);
  return words.map(lowercase);
}

export function delimitedWords(s: string, sep: string): string[] {
  return s
    .split(sep)
    .filter((w) => w !== "")
    .map(lowercase);
}

export function capitalize(w: string): string {
  if (w === "") return w;
  const first = firstCodePoint(w, "");
  return uppercase(first) + w.slice(first.length);
}

export function lowerFirst(w: string): string {
  if (w === "") return w;
  const first = firstCodePoint(w, "");
  return lowercase(first) + w.slice(first.length);
}

export function joinCamel(words: string[]): string {
  return words.map((w, i) => (i === 0 ? w : capitalize(w))).join("");
}

export function joinPascal(words: string[]): string {
  return words.map(capitalize).join("");
}

export function titleCase(s: string): string {
  return s.replace(new RegExp(`[^${WS}]+`, "gu"), (w) => {
    const first = firstCodePoint(w, "");
    return uppercase(first) + lowercase(w.slice(first.length));
  });
}

// ---------------------------------------------------------------------------
// Grapheme clusters

/** Building a segmenter costs ~15 ms, so it is made on first use (per
 * runtime, like all state). */
const SEGMENTER = new RuntimeSlot("stdlib.segmenter", () => new Intl.Segmenter(undefined, { granularity: "grapheme" }));

export function graphemes(rt: Runtime, s: string): string[] {
  return Array.from(rt.slot(SEGMENTER).segment(s), (x) => x.segment);
}
