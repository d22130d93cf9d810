/**
 * A file's text with the position arithmetic the source-aware rules, fixes
 * and suppressions need: line starts, line text, offset -> Span (1-based
 * lines, code-point columns) and, lazily, the comment-preserving token list.
 */
import type { Span } from "@harn/parser";
import { commentsBetween, scanTokens, type Comment, type SourceToken } from "./tokens";

/** Is `text[from, to)` empty or only what String.prototype.trim removes
 * (white space and line terminators)? Like `slice().trim() === ""`,
 * without building either string. */
function isBlank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13)) continue;
    if (c < 0xa0) return false;
    if (c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff) continue;
    return false;
  }
  return true;
}

/** What a line holds, judged by its tokens. */
export const LineKind = { Blank: 0, Comment: 1, Code: 2 } as const;

export interface LineInfo {
  /** Per 1-based line (index 0 unused). */
  kind: Uint8Array;
  /** The comment a line starts with, for lines whose first content is a
   * comment. */
  leadingComment: Map<number, Comment>;
}

export class SourceText {
  private starts: number[] | null = null;
  private toks: SourceToken[] | null;
  private comms: Comment[] | null = null;
  private lineInfo: LineInfo | null = null;

  /** `tokens`: the lexer's tokens of `text` when the caller has them (the
   * parser's), so the file is not lexed twice. */
  constructor(
    readonly text: string,
    tokens: SourceToken[] | null = null,
  ) {
    this.toks = tokens;
  }

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

  /** Does 1-based `line`'s first content (past blanks) start with `//`?
   * A line that `lines()` finds led by a line comment does: asking this
   * first spares most files working out `lines()` at all. */
  opensWithLineComment(line: number): boolean {
    if (line < 1 || line > this.lineCount) return false;
    const to = this.lineEnd(line);
    let i = this.lineStart(line);
    while (i < to && isBlank(this.text, i, i + 1)) i++;
    return i < to && this.text.startsWith("//", i);
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

  /** The significant tokens (newlines included, comments not). */
  tokens(): SourceToken[] {
    return (this.toks ??= scanTokens(this.text));
  }

  comments(): Comment[] {
    return (this.comms ??= commentsBetween(this.text, this.tokens()));
  }

  /** Per line: whether it holds nothing but comments (including the
   * inside of a multi-line block comment), and the comment a line starts
   * with. Worked out from the comments alone, so it costs nothing for
   * files without them. */
  lines(): LineInfo {
    if (this.lineInfo) return this.lineInfo;
    const kind = new Uint8Array(this.lineCount + 2);
    const leadingComment = new Map<number, Comment>();
    const comments = this.comments();
    for (const c of comments) {
      const first = this.lineOf(c.start);
      if (!leadingComment.has(first) && isBlank(this.text, this.lineStart(first), c.start)) leadingComment.set(first, c);
    }
    for (const c of comments) {
      const first = this.lineOf(c.start);
      const last = this.lineOf(Math.max(c.start, c.end - 1));
      for (let l = first; l <= last; l++) {
        if (kind[l] !== LineKind.Blank) continue;
        kind[l] = this.onlyComments(l, comments) ? LineKind.Comment : LineKind.Code;
      }
    }
    return (this.lineInfo = { kind, leadingComment });
  }

  /** Does line `l` hold nothing but blanks and (parts of) comments? */
  private onlyComments(l: number, comments: readonly Comment[]): boolean {
    const from = this.lineStart(l);
    const to = this.lineEnd(l);
    let at = from;
    // comments are in source order: start at the first one ending after `from`
    let lo = 0;
    let hi = comments.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (comments[mid]!.end <= from) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < comments.length; i++) {
      const c = comments[i]!;
      if (c.start >= to) break;
      if (!isBlank(this.text, at, c.start)) return false;
      at = Math.max(at, c.end);
      if (at >= to) return true;
    }
    return isBlank(this.text, at, to);
  }
}
