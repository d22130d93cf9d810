/**
 * A file's text with the position arithmetic the source-aware rules, fixes
 * and suppressions need: line starts, line text, offset -> Span (1-based
 * lines, code-point columns) and, lazily, the comment-preserving token list.
 */
import type { Span } from "@harn/parser";
import { scanTokens, type SourceToken } from "./tokens";

/** What a line holds, judged by its tokens. */
export type LineKind = "blank" | "comment" | "code";

export interface LineInfo {
  kind: LineKind;
  /** The first token that starts on the line (comments included). */
  first: SourceToken | null;
}

export class SourceText {
  private starts: number[] | null = null;
  private toks: SourceToken[] | null = null;
  private lineInfo: LineInfo[] | null = null;

  constructor(readonly text: string) {}

  private lineStarts(): number[] {
    if (this.starts) return this.starts;
    const s = [0];
    const t = this.text;
    for (let i = t.indexOf("\n"); i !== -1; i = t.indexOf("\n", i + 1)) s.push(i + 1);
    return (this.starts = s);
  }

  get lineCount(): number {
    return this.lineStarts().length;
  }

  /** Offset where 1-based `line` starts. */
  lineStart(line: number): number {
    const s = this.lineStarts();
    return line <= 1 ? 0 : line > s.length ? this.text.length : s[line - 1]!;
  }

  /** Offset of the line break ending `line` (or the end of the text),
   * before any `\r`. */
  lineEnd(line: number): number {
    const s = this.lineStarts();
    let end = line < s.length ? s[line]! - 1 : this.text.length;
    if (end > this.lineStart(line) && this.text.charCodeAt(end - 1) === 13) end--;
    return end;
  }

  /** The text of 1-based `line`, without its line break. */
  line(line: number): string {
    if (line < 1 || line > this.lineCount) return "";
    return this.text.slice(this.lineStart(line), this.lineEnd(line));
  }

  /** 1-based line holding `offset`. */
  lineOf(offset: number): number {
    const s = this.lineStarts();
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  /** 1-based code-point column of `offset`. */
  columnOf(offset: number): number {
    const start = this.lineStart(this.lineOf(offset));
    let col = 1;
    for (let i = start; i < offset; i++) {
      const c = this.text.charCodeAt(i);
      // the second half of a surrogate pair does not start a new column
      if (c >= 0xdc00 && c <= 0xdfff && i > start) {
        const p = this.text.charCodeAt(i - 1);
        if (p >= 0xd800 && p <= 0xdbff) continue;
      }
      col++;
    }
    return col;
  }

  /** A Span for `[start, end)`. */
  span(start: number, end: number = start): Span {
    return {
      start,
      end,
      line: this.lineOf(start),
      column: this.columnOf(start),
      endLine: this.lineOf(end),
      endColumn: this.columnOf(end),
    };
  }

  /** Tokens including comments and newlines (see tokens.ts). */
  tokens(): SourceToken[] {
    return (this.toks ??= scanTokens(this.text));
  }

  /** Per 1-based line: blank, comment only (including the inside of a
   * multi-line block comment), or code. Index 0 is unused. */
  lines(): LineInfo[] {
    if (this.lineInfo) return this.lineInfo;
    const info: LineInfo[] = Array.from({ length: this.lineCount + 2 }, () => ({ kind: "blank" as LineKind, first: null }));
    for (const t of this.tokens()) {
      if (t.kind === "NL" || t.kind === "EOF") continue;
      const comment = t.kind === "Comment";
      const first = info[t.line];
      if (first && first.first === null) first.first = t;
      for (let l = t.line; l <= t.endLine && l < info.length; l++) {
        const li = info[l]!;
        if (!comment) li.kind = "code";
        else if (li.kind === "blank") li.kind = "comment";
      }
    }
    return (this.lineInfo = info);
  }
}
