/**
 * Offset → line/column mapping. Columns count code points (spec/syntax.md
 * §0.3), so a line holding astral characters (emoji) needs its surrogate
 * pairs counted once; files without any surrogate skip that work entirely.
 */

/** Any UTF-16 surrogate: a text holding one has astral characters, whose
 * columns count once. One object (a literal is a new RegExp at each
 * evaluation); without the g or y flag, `test` keeps no state. */
export const SURROGATE = /[\uD800-\uDFFF]/;

export class LineMap {
  /** UTF-16 offset at which each line starts; lineStarts[0] === 0. */
  readonly lineStarts: number[];
  private readonly hasSurrogates: boolean;
  /** Index of the line of the last lookup: lookups are mostly ascending. */
  private cursor = 0;

  constructor(private readonly text: string) {
    const starts = [0];
    let i = text.indexOf("\n");
    while (i !== -1) {
      starts.push(i + 1);
      i = text.indexOf("\n", i + 1);
    }
    this.lineStarts = starts;
    this.hasSurrogates = SURROGATE.test(text);
  }

  /** 0-based index of the line containing `offset`. */
  lineIndex(offset: number): number {
    const starts = this.lineStarts;
    let c = this.cursor;
    if (starts[c]! > offset) {
      // Going backwards (rare): binary search.
      let lo = 0;
      let hi = c;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid]! <= offset) lo = mid;
        else hi = mid - 1;
      }
      c = lo;
    } else {
      const last = starts.length - 1;
      while (c < last && starts[c + 1]! <= offset) c++;
    }
    this.cursor = c;
    return c;
  }

  /** 1-based line number. */
  line(offset: number): number {
    return this.lineIndex(offset) + 1;
  }

  /** 1-based code-point column. */
  column(offset: number): number {
    const lineStart = this.lineStarts[this.lineIndex(offset)]!;
    if (!this.hasSurrogates) return offset - lineStart + 1;
    let col = 1;
    const text = this.text;
    for (let i = lineStart; i < offset; i++) {
      const c = text.charCodeAt(i);
      // count a surrogate pair once, by its high half
      if (c < 0xdc00 || c > 0xdfff) col++;
    }
    return col;
  }
}

/**
 * A forward-moving offset → line/column cursor for converting a token stream:
 * tokens come in ascending order, so each lookup only walks forward over the
 * line starts it passes. Moving backwards is allowed but slower.
 */
export class PositionCursor {
  line = 1;
  column = 1;
  private lineIdx = 0;
  private lineStart = 0;
  private nextLineStart: number;
  private readonly starts: number[];
  /** False for the usual file: then columns are plain offset differences. */
  readonly hasSurrogates: boolean;

  constructor(private readonly text: string) {
    const starts = [0];
    let i = text.indexOf("\n");
    while (i !== -1) {
      starts.push(i + 1);
      i = text.indexOf("\n", i + 1);
    }
    this.starts = starts;
    this.nextLineStart = starts.length > 1 ? starts[1]! : Infinity;
    this.hasSurrogates = SURROGATE.test(text);
  }

  /** Sets `line` and `column` for `offset`. */
  moveTo(offset: number): void {
    if (offset < this.lineStart) {
      this.lineIdx = 0;
      this.lineStart = 0;
      this.nextLineStart = this.starts.length > 1 ? this.starts[1]! : Infinity;
    }
    while (offset >= this.nextLineStart) {
      this.lineIdx++;
      this.lineStart = this.nextLineStart;
      const next = this.starts[this.lineIdx + 1];
      this.nextLineStart = next === undefined ? Infinity : next;
    }
    this.line = this.lineIdx + 1;
    if (!this.hasSurrogates) {
      this.column = offset - this.lineStart + 1;
      return;
    }
    let col = 1;
    const text = this.text;
    for (let i = this.lineStart; i < offset; i++) {
      const c = text.charCodeAt(i);
      if (c < 0xdc00 || c > 0xdfff) col++;
    }
    this.column = col;
  }
}
