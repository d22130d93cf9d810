/**
 * The per-file search of `find_text` (agents.md §1.6), shared by the main
 * thread and the search workers.
 *
 * `makeSearcher` must stay self-contained — no imports, no outer names —
 * because the worker pool runs its source text (`makeSearcher.toString()`)
 * in threads that cannot load this package.
 */

/** What to look for: bytes of a literal, a JS regex (source and flags, so
 * a worker can compile it), or a function finding the first match in a
 * line (main thread only: a function cannot be sent to a worker). */
export type MatcherSpec =
  | { readonly kind: "literal"; readonly text: string }
  | { readonly kind: "regex"; readonly source: string; readonly flags: string }
  | { readonly kind: "line"; readonly firstMatch: (line: string) => number };

export interface LineMatch {
  /** 1-based line number. */
  readonly line: number;
  /** 1-based column in code points. */
  readonly column: number;
  /** The line without its line terminator. */
  readonly text: string;
  readonly before?: string[];
  readonly after?: string[];
}

export type Searcher = (buf: Uint8Array, limit: number) => LineMatch[] | null;

/**
 * A function that searches one file's bytes: up to `limit` matching lines in
 * order, or null for a binary file (a NUL byte in the first 8 KiB). One
 * entry per matching line, at its first match, like grep.
 */
export function makeSearcher(spec: MatcherSpec, contextBefore: number, contextAfter: number): Searcher {
  const NL = 10;
  const BINARY_PROBE = 8192;

  const trimCR = (s: string): string => (s.length > 0 && s.charCodeAt(s.length - 1) === 13 ? s.slice(0, -1) : s);

  /** Code points in bytes [from, to) of valid UTF-8: the non-continuation bytes. */
  const codePoints = (buf: Uint8Array, from: number, to: number): number => {
    let n = 0;
    for (let i = from; i < to; i++) if ((buf[i]! & 0xc0) !== 0x80) n++;
    return n;
  };

  /** Buffer#indexOf of a byte is a native memchr; a JS loop over every
   * file's first 8 KiB cost more than the literal search itself. */
  const isBinary = (buf: Buffer): boolean => (buf.length > BINARY_PROBE ? buf.subarray(0, BINARY_PROBE) : buf).indexOf(0) >= 0;

  const asBuffer = (bytes: Uint8Array): Buffer =>
    Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);

  // --- literal: byte search without decoding the file -----------------------
  const searchLiteral = (buf: Buffer, needle: Buffer, limit: number): LineMatch[] => {
    const out: LineMatch[] = [];
    if (needle.length === 0) return out;
    let lineNo = 1;
    let counted = 0; // newlines before `counted` are included in lineNo
    let pos = buf.indexOf(needle, 0);
    while (pos >= 0 && out.length < limit) {
      const lineStart = pos === 0 ? 0 : buf.lastIndexOf(NL, pos - 1) + 1;
      let lineEnd = buf.indexOf(NL, pos);
      if (lineEnd < 0) lineEnd = buf.length;
      for (let i = buf.indexOf(NL, counted); i >= 0 && i < lineStart; i = buf.indexOf(NL, i + 1)) lineNo++;
      counted = lineStart;
      const m: { line: number; column: number; text: string; before?: string[]; after?: string[] } = {
        line: lineNo,
        column: codePoints(buf, lineStart, pos) + 1,
        text: trimCR(buf.toString("utf8", lineStart, lineEnd)),
      };
      if (contextBefore > 0) m.before = linesBefore(buf, lineStart, contextBefore);
      if (contextAfter > 0) m.after = linesAfter(buf, lineEnd, contextAfter);
      out.push(m);
      if (lineEnd >= buf.length) break;
      pos = buf.indexOf(needle, lineEnd + 1);
    }
    return out;
  };

  const linesBefore = (buf: Buffer, lineStart: number, n: number): string[] => {
    const lines: string[] = [];
    let end = lineStart - 1; // the newline ending the previous line
    while (lines.length < n && end >= 0) {
      const start = end === 0 ? 0 : buf.lastIndexOf(NL, end - 1) + 1;
      lines.push(trimCR(buf.toString("utf8", start, end)));
      end = start - 1;
    }
    return lines.reverse();
  };

  const linesAfter = (buf: Buffer, lineEnd: number, n: number): string[] => {
    const lines: string[] = [];
    let start = lineEnd + 1;
    while (lines.length < n && start < buf.length) {
      let end = buf.indexOf(NL, start);
      if (end < 0) end = buf.length;
      lines.push(trimCR(buf.toString("utf8", start, end)));
      start = end + 1;
    }
    return lines;
  };

  // --- regex: line by line, after a whole-file prefilter ----------------------
  /** `firstMatch(line)`: the UTF-16 index of the line's first match, or -1.
   * `whole`, when given, is the pattern in multi-line mode: a line that
   * matches on its own also matches inside the whole text, so a miss there
   * rules the file out without splitting it. (Not with CRLF lines: `$`
   * would then stop at the `\r`.) */
  const searchLines = (text: string, whole: RegExp | null, firstMatch: (line: string) => number, limit: number): LineMatch[] => {
    const out: LineMatch[] = [];
    if (whole !== null && !text.includes("\r") && !whole.test(text)) return out;
    const lines = text.split("\n");
    // a final newline ends the last line; it does not start an empty one
    if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
    for (let i = 0; i < lines.length && out.length < limit; i++) {
      const line = trimCR(lines[i]!);
      const found = firstMatch(line);
      if (found < 0) continue;
      const m: { line: number; column: number; text: string; before?: string[]; after?: string[] } = {
        line: i + 1,
        column: Array.from(line.slice(0, found)).length + 1,
        text: line,
      };
      if (contextBefore > 0) m.before = lines.slice(Math.max(0, i - contextBefore), i).map(trimCR);
      if (contextAfter > 0) m.after = lines.slice(i + 1, i + 1 + contextAfter).map(trimCR);
      out.push(m);
    }
    return out;
  };

  if (spec.kind === "literal") {
    const needle = Buffer.from(spec.text, "utf8");
    return (bytes, limit) => {
      const buf = asBuffer(bytes);
      return isBinary(buf) ? null : searchLiteral(buf, needle, limit);
    };
  }
  let whole: RegExp | null = null;
  let firstMatch: (line: string) => number;
  if (spec.kind === "line") firstMatch = spec.firstMatch;
  else {
    const flags = spec.flags.replace(/[gym]/g, "");
    whole = new RegExp(spec.source, flags + "m");
    const perLine = new RegExp(spec.source, flags);
    firstMatch = (line) => {
      const found = perLine.exec(line);
      return found ? found.index : -1;
    };
  }
  return (bytes, limit) => {
    const buf = asBuffer(bytes);
    return isBinary(buf) ? null : searchLines(buf.toString("utf8"), whole, firstMatch, limit);
  };
}
