/**
 * Hand-written matchers for the tokens whose rules need code (spec/syntax.md
 * §1.3–§1.9): strings with `${}` brace counting and the triple-quote dedent
 * rules, numbers and durations, nested block comments, the shebang, and
 * identifiers with Unicode character classes. Chevrotain calls them as
 * custom token patterns; each returns the matched image (with a payload) or
 * null when the token does not start at `offset`.
 *
 * A matcher that finds an error (unterminated string, empty interpolation)
 * still matches, with an error payload; `tokenize()` turns the first such
 * payload into the lex error, which makes "first error wins" easy.
 */
import type { StringSegment } from "./token";

/** What a string/number matcher found; `tokenize()` reads it back. */
export type ScanPayload =
  | { kind: "string"; value: string }
  /** Interpolated; expression segments carry offsets, positions come later. */
  | { kind: "istring"; segments: RawSegment[] }
  | { kind: "rstring"; value: string }
  | { kind: "int"; value: bigint }
  | { kind: "float"; value: number }
  | { kind: "duration"; ms: bigint }
  | { kind: "comment"; isDoc: boolean }
  | { kind: "error"; error: "unterminated-string" | "unterminated-comment" | "empty-interpolation"; offset: number };

export type RawSegment = { kind: "text"; text: string } | { kind: "expr"; source: string; start: number };

type Match = [string] & { payload: ScanPayload };

function match(image: string, payload: ScanPayload): Match {
  const m = [image] as Match;
  m.payload = payload;
  return m;
}

function errorMatch(text: string, offset: number, error: "unterminated-string" | "unterminated-comment" | "empty-interpolation", at: number): Match {
  // Swallow the rest of the input: lexing stops at the first error anyway.
  return match(text.slice(offset), { kind: "error", error, offset: at });
}

const CH_NL = 10;
const CH_QUOTE = 34;
const CH_DOLLAR = 36;
const CH_BACKSLASH = 92;
const CH_LBRACE = 123;
const CH_RBRACE = 125;

// ---------------------------------------------------------------------------
// Shebang (§1.3)

export function matchShebang(text: string, offset: number): Match | null {
  if (offset !== 0 || text.charCodeAt(0) !== 35 /* # */ || text.charCodeAt(1) !== 33 /* ! */) return null;
  const nl = text.indexOf("\n");
  return match(nl === -1 ? text : text.slice(0, nl), { kind: "comment", isDoc: false });
}

// ---------------------------------------------------------------------------
// Block comments, nested (§1.4)

export function matchBlockComment(text: string, offset: number): Match | null {
  if (text.charCodeAt(offset) !== 47 /* / */ || text.charCodeAt(offset + 1) !== 42 /* * */) return null;
  const end = blockCommentEnd(text, offset);
  if (end === -1) return errorMatch(text, offset, "unterminated-comment", offset);
  const image = text.slice(offset, end);
  // `/**` is a doc comment, but not `/***` and not the empty `/**/`.
  const isDoc = image.startsWith("/**") && !image.startsWith("/***") && image !== "/**/";
  return match(image, { kind: "comment", isDoc });
}

/**
 * End (exclusive) of the nested block comment opening at `offset`, or -1 if
 * the text ends first. Read left to right, `/*` opens and `*\/` closes;
 * both hold a `*`, so the scan jumps from star to star.
 */
export function blockCommentEnd(text: string, offset: number): number {
  let depth = 1;
  let i = offset + 2;
  for (;;) {
    const star = text.indexOf("*", i);
    if (star === -1) return -1;
    if (star > i && text.charCodeAt(star - 1) === 47) {
      depth++;
      i = star + 1;
    } else if (star + 1 < text.length && text.charCodeAt(star + 1) === 47) {
      if (--depth === 0) return star + 2;
      i = star + 2;
    } else i = star + 1;
  }
}

// ---------------------------------------------------------------------------
// Numbers and durations (§1.7, §1.8)

const I64_MAX = 9223372036854775807n;

const DURATION_UNIT_MS: Record<string, bigint> = {
  s: 1000n,
  m: 60000n,
  h: 3600000n,
  d: 86400000n,
  w: 604800000n,
};

function isAsciiDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

const ALNUM = /[\p{Alphabetic}\p{N}]/u;

/** Rust's `char::is_alphanumeric` for the code point at `i` (false at end). */
function isAlphanumericAt(text: string, i: number): boolean {
  if (i >= text.length) return false;
  const c = text.charCodeAt(i);
  if (c < 128) return isAsciiDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  return ALNUM.test(String.fromCodePoint(text.codePointAt(i)!));
}

/**
 * End of the integer literal at `offset` when it is a plain one: at most 18
 * digits (within i64), followed by neither `.` nor a letter that may start
 * a duration unit. Otherwise -1, and `matchNumber` decides. The scanner
 * takes the common case from here without a match object.
 */
export function plainIntEnd(text: string, offset: number): number {
  const len = text.length;
  let i = offset;
  while (i < len && isAsciiDigit(text.charCodeAt(i))) i++;
  if (i === offset || i - offset > 18) return -1;
  if (i < len) {
    const c = text.charCodeAt(i);
    if (c === 46 || c === 115 || c === 109 || c === 104 || c === 100 || c === 119) return -1;
  }
  return i;
}

export function matchNumber(text: string, offset: number): Match | null {
  // reads stop at the end of the text: a read past it (a number that ends
  // an interpolation, `${n + 1}`) would send V8's optimised code back
  const len = text.length;
  let i = offset;
  while (i < len && isAsciiDigit(text.charCodeAt(i))) i++;
  if (i === offset) return null;
  // A `.` belongs to the number only when a digit follows it directly.
  if (i + 1 < len && text.charCodeAt(i) === 46 && isAsciiDigit(text.charCodeAt(i + 1))) {
    i += 2;
    while (i < len && isAsciiDigit(text.charCodeAt(i))) i++;
    const image = text.slice(offset, i);
    return match(image, { kind: "float", value: Number(image) });
  }
  const digits = text.slice(offset, i);
  const c = i < len ? text.charCodeAt(i) : 0;
  if (c === 109 /* m */ && i + 1 < len && text.charCodeAt(i + 1) === 115 /* s */) {
    // `ms` always wins, whatever follows (`5msx` is 5ms then `x`).
    return match(text.slice(offset, i + 2), { kind: "duration", ms: BigInt(digits) });
  }
  const unit = c === 115 || c === 109 || c === 104 || c === 100 || c === 119 ? DURATION_UNIT_MS[text[i]!] : undefined;
  if (unit !== undefined && !isAlphanumericAt(text, i + 1)) {
    return match(text.slice(offset, i + 1), { kind: "duration", ms: BigInt(digits) * unit });
  }
  // Digit runs beyond i64 become floats (§1.7 [quirk]). Short runs are safe.
  if (digits.length >= 19) {
    const big = BigInt(digits);
    if (big > I64_MAX) return match(digits, { kind: "float", value: Number(digits) });
    return match(digits, { kind: "int", value: big });
  }
  return match(digits, { kind: "int", value: BigInt(digits) });
}

// ---------------------------------------------------------------------------
// Identifiers (§1.5): Unicode Alphabetic or `_`, then also Unicode numerics.

const IDENT_START = /[\p{Alphabetic}_]/uy;
const IDENT_REST = /[\p{Alphabetic}\p{N}_]*/uy;

function isAsciiIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

function isAsciiIdentRest(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || (c >= 48 && c <= 57);
}

export function matchIdentifier(text: string, offset: number): [string] | null {
  let i = offset;
  const c = text.charCodeAt(i);
  if (isAsciiIdentStart(c)) i++;
  else if (c >= 128) {
    IDENT_START.lastIndex = i;
    if (!IDENT_START.test(text)) return null;
    i = IDENT_START.lastIndex;
  } else return null;
  for (;;) {
    const d = text.charCodeAt(i);
    if (isAsciiIdentRest(d)) i++;
    else if (d >= 128) {
      IDENT_REST.lastIndex = i;
      IDENT_REST.test(text);
      if (IDENT_REST.lastIndex === i) break;
      i = IDENT_REST.lastIndex;
    } else break;
  }
  return [text.slice(offset, i)];
}

/** Every character code that may start an identifier, for chevrotain's
 * first-character optimisation. Chevrotain buckets codes above 255 in groups
 * of 255, so one representative per bucket covers all non-ASCII starts. */
export function identifierStartHints(): number[] {
  const hints: number[] = [95];
  for (let c = 65; c <= 90; c++) hints.push(c);
  for (let c = 97; c <= 122; c++) hints.push(c);
  for (let c = 128; c < 256; c++) hints.push(c);
  for (let c = 256; c < 65536; c += 255) hints.push(c);
  hints.push(65535);
  return hints;
}

// ---------------------------------------------------------------------------
// Strings (§1.9)

/**
 * Scans `${ … }` starting at `dollar` (the `$`), counting raw braces from
 * depth 1 (§1.9.2: nested strings, comments and escapes are not understood).
 * Returns the index of the closing `}`, or -1 when the input ends first.
 */
function scanInterpolation(text: string, dollar: number): number {
  let depth = 1;
  const len = text.length;
  for (let j = dollar + 2; j < len; j++) {
    const c = text.charCodeAt(j);
    if (c === CH_LBRACE) depth++;
    else if (c === CH_RBRACE && --depth === 0) return j;
  }
  return -1;
}

function isBlank(s: string): boolean {
  return s.trim() === "";
}

export function matchString(text: string, offset: number): Match | null {
  if (text.charCodeAt(offset) !== CH_QUOTE) return null;
  if (text.charCodeAt(offset + 1) === CH_QUOTE && text.charCodeAt(offset + 2) === CH_QUOTE) {
    return matchTripleQuoted(text, offset);
  }
  const len = text.length;
  const segments: RawSegment[] = [];
  let buf = "";
  let chunk = offset + 1; // start of literal text not yet copied into buf
  let i = chunk;
  while (i < len) {
    const c = text.charCodeAt(i);
    if (c === CH_QUOTE) {
      buf += text.slice(chunk, i);
      const image = text.slice(offset, i + 1);
      if (segments.length === 0) return match(image, { kind: "string", value: buf });
      if (buf !== "") segments.push({ kind: "text", text: buf });
      return match(image, { kind: "istring", segments });
    }
    if (c === CH_NL) break;
    if (c === CH_BACKSLASH) {
      if (i + 1 >= len) break;
      buf += text.slice(chunk, i);
      const e = text.charCodeAt(i + 1);
      if (e === 110) buf += "\n";
      else if (e === 116) buf += "\t";
      else if (e === CH_BACKSLASH) buf += "\\";
      else if (e === CH_QUOTE) buf += '"';
      else if (e === CH_DOLLAR) buf += "$";
      // Any other escape keeps the backslash (even before a line feed, which
      // then continues the string on the next line: §1.9.1 [quirk]).
      else buf += text.slice(i, i + 2);
      i += 2;
      chunk = i;
      continue;
    }
    if (c === CH_DOLLAR && text.charCodeAt(i + 1) === CH_LBRACE) {
      const close = scanInterpolation(text, i);
      if (close === -1) break;
      const source = text.slice(i + 2, close);
      if (isBlank(source)) return errorMatch(text, offset, "empty-interpolation", close + 1);
      buf += text.slice(chunk, i);
      if (buf !== "") segments.push({ kind: "text", text: buf });
      buf = "";
      segments.push({ kind: "expr", source, start: i + 2 });
      i = close + 1;
      chunk = i;
      continue;
    }
    i++;
  }
  return errorMatch(text, offset, "unterminated-string", offset);
}

function matchTripleQuoted(text: string, offset: number): Match {
  let i = offset + 3;
  // A line feed right after the opening quotes is dropped (only LF).
  if (text.charCodeAt(i) === CH_NL) i++;
  const len = text.length;
  const segments: RawSegment[] = [];
  let chunk = i;
  while (i < len) {
    const c = text.charCodeAt(i);
    if (c === CH_QUOTE && text.charCodeAt(i + 1) === CH_QUOTE && text.charCodeAt(i + 2) === CH_QUOTE) {
      const image = text.slice(offset, i + 3);
      if (segments.length === 0) return match(image, { kind: "string", value: dedentPlain(text.slice(chunk, i)) });
      if (i > chunk) segments.push({ kind: "text", text: text.slice(chunk, i) });
      return match(image, { kind: "istring", segments: dedentSegments(segments) });
    }
    if (c === CH_DOLLAR && text.charCodeAt(i + 1) === CH_LBRACE) {
      const close = scanInterpolation(text, i);
      if (close === -1) break;
      if (i > chunk) segments.push({ kind: "text", text: text.slice(chunk, i) });
      segments.push({ kind: "expr", source: text.slice(i + 2, close), start: i + 2 });
      i = close + 1;
      chunk = i;
      continue;
    }
    i++;
  }
  return errorMatch(text, offset, "unterminated-string", offset);
}

/** Number of leading spaces/tabs. */
function indentOf(line: string): number {
  let n = 0;
  while (n < line.length) {
    const c = line.charCodeAt(n);
    if (c !== 32 && c !== 9) break;
    n++;
  }
  return n;
}

function minIndent(lines: string[]): number {
  let k = Infinity;
  for (const l of lines) if (!isBlank(l)) k = Math.min(k, indentOf(l));
  return k;
}

function dropOneTrailingNewline(s: string): string {
  return s.endsWith("\n") ? s.slice(0, -1) : s;
}

/** Triple-quoted string without interpolation (§1.9.4 A). */
export function dedentPlain(text: string): string {
  const lines = text.split("\n");
  const k = minIndent(lines);
  if (k === Infinity) return text;
  if (k === 0) return dropOneTrailingNewline(text);
  return dropOneTrailingNewline(lines.map((l) => (isBlank(l) ? "" : l.slice(k))).join("\n"));
}

/** Triple-quoted string with interpolation (§1.9.4 B), quirks included:
 * each text segment is dedented on its own as if it started a line. */
export function dedentSegments(segments: RawSegment[]): RawSegment[] {
  let full = "";
  for (const s of segments) if (s.kind === "text") full += s.text;
  const k = minIndent(full.split("\n"));
  if (k === Infinity || k === 0) {
    const last = segments[segments.length - 1];
    if (last !== undefined && last.kind === "text" && isBlank(last.text)) return segments.slice(0, -1);
    return segments;
  }
  return segments.map((s) => {
    if (s.kind !== "text") return s;
    const pieces = s.text.split("\n").map((p) => (isBlank(p) ? "" : p.slice(Math.min(k, indentOf(p)))));
    return { kind: "text", text: dropOneTrailingNewline(pieces.join("\n")) };
  });
}

/** Raw strings `r"…"` (§1.9.3): no escapes, no interpolation, one line. */
export function matchRawString(text: string, offset: number): Match | null {
  if (text.charCodeAt(offset) !== 114 /* r */ || text.charCodeAt(offset + 1) !== CH_QUOTE) return null;
  const len = text.length;
  for (let i = offset + 2; i < len; i++) {
    const c = text.charCodeAt(i);
    if (c === CH_QUOTE) return match(text.slice(offset, i + 1), { kind: "rstring", value: text.slice(offset + 2, i) });
    if (c === CH_NL) break;
  }
  return errorMatch(text, offset, "unterminated-string", offset);
}

export type { StringSegment };
