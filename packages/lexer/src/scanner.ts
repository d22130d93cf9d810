/**
 * The production tokenizer: one pass over the source, dispatching on the
 * current character to the same matchers (`scanners.ts`) and the same token
 * kinds that define the chevrotain vocabulary (`vocabulary.ts`), producing
 * `Token`s directly, with lines and code-point columns tracked as it goes.
 *
 * Why not chevrotain's `Lexer.tokenize` at run time (measured on the
 * 20,000-line bench script, see bench/parse and packages/lexer/README.md):
 * it allocates a chevrotain token per token that we then convert, so every
 * token was allocated twice, and building the chevrotain lexer costs about
 * 10 ms at every start-up. The chevrotain lexer stays the reference: a test
 * runs both over a corpus and requires identical token streams.
 */
import {
  blockCommentEnd,
  matchBlockComment,
  matchIdentifier,
  matchNumber,
  matchRawString,
  matchShebang,
  matchString,
  plainIntEnd,
  type RawSegment,
  type ScanPayload,
} from "./scanners";
import { SURROGATE } from "./positions";
import { keywordAt, ONE_CHAR_PUNCTUATION, Token, TWO_CHAR_PUNCTUATION, type LexError, type StringSegment, type TokenKind } from "./token";

export interface ScanOrigin {
  offset: number;
  line: number;
  column: number;
}

export interface ScanResult {
  tokens: Token[];
  error: LexError | null;
}

/** Kinds of the one-character punctuation, by char code. */
const ONE_CHAR: (TokenKind | undefined)[] = new Array(128);
for (const p of ONE_CHAR_PUNCTUATION) ONE_CHAR[p.charCodeAt(0)] = p;

/** Kinds of the two-character operators (§1.11), at `pair(c, d)`: one
 * array read where a switch per first character cost TurboFan a large
 * inlined body in the scanner loop. */
const TWO_CHAR: (TokenKind | undefined)[] = new Array(128 * 128);
for (const p of TWO_CHAR_PUNCTUATION) TWO_CHAR[pair(p.charCodeAt(0), p.charCodeAt(1))] = p;

/** 1 for the ASCII characters that continue an identifier (§1.5). */
const IDENT_PART = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || (c >= 48 && c <= 57)) IDENT_PART[c] = 1;
}

/** Index of the character pair `c` `d` (both ASCII) in TWO_CHAR. */
function pair(c: number, d: number): number {
  return (c << 7) | d;
}

/** Tokenizes `source`. Stops at the first error (§1.13). */
export function scan(source: string, keepComments: boolean, origin?: ScanOrigin): ScanResult {
  return new Scanner(source, keepComments, origin).run();
}

/**
 * Fields are declared and set in the constructor, not initialised where
 * declared: initialisers compile to a separate call that defines each field
 * at every construction (one scanner per file and per interpolation).
 */
class Scanner {
  private declare readonly src: string;
  private declare readonly keepComments: boolean;
  private declare readonly tokens: Token[];
  private declare readonly len: number;
  private declare readonly astral: boolean;
  private declare readonly baseOffset: number;
  private declare readonly firstLineShift: number;
  /** Line of `lineStart` in the file (the origin's line counts). */
  private declare line: number;
  /** Offset where the current line starts. */
  private declare lineStart: number;
  /** Without astral characters, the column of an offset on the current
   * line is `offset - colBase` (the origin's column shifts the first). */
  private declare colBase: number;
  /** In files with astral characters: the last column computed (`colValue`
   * at `colOffset`, on the line starting at `colLineStart`). */
  private declare colLineStart: number;
  private declare colOffset: number;
  private declare colValue: number;

  constructor(src: string, keepComments: boolean, origin: ScanOrigin | undefined) {
    this.src = src;
    this.keepComments = keepComments;
    this.tokens = [];
    this.len = src.length;
    this.astral = SURROGATE.test(src);
    this.baseOffset = origin?.offset ?? 0;
    this.firstLineShift = (origin?.column ?? 1) - 1;
    this.line = origin?.line ?? 1;
    this.lineStart = 0;
    this.colBase = -1 - this.firstLineShift;
    this.colLineStart = -1;
    this.colOffset = 0;
    this.colValue = 1;
  }

  /** A new line starts at `offset`. */
  private newLine(offset: number): void {
    this.line++;
    this.lineStart = offset;
    this.colBase = offset - 1;
  }

  /** Code-point column of `offset` on the current line. */
  private col(offset: number): number {
    return this.astral ? this.astralCol(offset) : offset - this.colBase;
  }

  private astralCol(offset: number): number {
    // Count on from the last offset asked about on this line: tokens
    // come left to right, so a long line costs one pass, not one per token.
    let i = this.lineStart;
    let c = 1;
    if (this.colLineStart === this.lineStart && this.colOffset <= offset) {
      i = this.colOffset;
      c = this.colValue;
    }
    const s = this.src;
    for (; i < offset; i++) {
      const u = s.charCodeAt(i);
      if (u < 0xdc00 || u > 0xdfff) c++;
    }
    this.colLineStart = this.lineStart;
    this.colOffset = offset;
    this.colValue = c;
    return this.lineStart === 0 ? c + this.firstLineShift : c;
  }

  /** Advances the line counter over the newlines in [from, to). */
  private passNewlines(from: number, to: number): void {
    const s = this.src;
    let nl = s.indexOf("\n", from);
    while (nl !== -1 && nl < to) {
      this.newLine(nl + 1);
      nl = s.indexOf("\n", nl + 1);
    }
  }

  /** A token that cannot contain a line break. */
  private push(kind: TokenKind, image: string, value: Token["value"], start: number, end: number): void {
    let column: number;
    let endColumn: number;
    if (this.astral) {
      column = this.astralCol(start);
      endColumn = this.astralCol(end);
    } else {
      column = start - this.colBase;
      endColumn = column + (end - start);
    }
    const base = this.baseOffset;
    this.tokens.push(new Token(kind, image, value, start + base, end + base, this.line, column, this.line, endColumn, false));
  }

  /** A token that may span lines (strings, comments): moves the line counter. */
  private pushSpanning(kind: TokenKind, image: string, value: Token["value"], start: number, end: number, isDoc: boolean): void {
    const line = this.line;
    const column = this.col(start);
    this.passNewlines(start, end);
    this.tokens.push(new Token(kind, image, value, start + this.baseOffset, end + this.baseOffset, line, column, this.line, this.col(end), isDoc));
  }

  /** Positions of interpolation segments, which lie inside the token at `start`. */
  private segments(raw: RawSegment[], start: number): StringSegment[] {
    const out: StringSegment[] = [];
    const saveLine = this.line;
    const saveStart = this.lineStart;
    const saveBase = this.colBase;
    let from = start;
    for (const s of raw) {
      if (s.kind === "text") {
        out.push(s);
        continue;
      }
      this.passNewlines(from, s.start);
      from = s.start;
      out.push({ kind: "expr", source: s.source, start: s.start + this.baseOffset, line: this.line, column: this.col(s.start) });
    }
    this.line = saveLine;
    this.lineStart = saveStart;
    this.colBase = saveBase;
    return out;
  }

  private fail(kind: LexError["kind"], what: string, local: number, length: number): ScanResult {
    this.passNewlines(this.lineStart, local);
    const line = this.line;
    const column = this.col(local);
    return { tokens: this.tokens, error: { kind, message: `${what} at ${line}:${column}`, offset: local + this.baseOffset, line, column, length } };
  }

  private unexpected(i: number): ScanResult {
    const ch = String.fromCodePoint(this.src.codePointAt(i)!);
    return this.fail("unexpected-character", `Unexpected character '${ch}'`, i, ch.length);
  }

  /** Emits the token a matcher found; returns an error result or null. */
  private fromPayload(image: string, payload: ScanPayload, start: number): ScanResult | null {
    const end = start + image.length;
    switch (payload.kind) {
      case "string":
        this.pushSpanning("String", image, payload.value, start, end, false);
        return null;
      case "istring":
        this.pushSpanning("IString", image, this.segments(payload.segments, start), start, end, false);
        return null;
      case "rstring":
        this.push("RString", image, payload.value, start, end);
        return null;
      case "int":
        this.push("Int", image, payload.value, start, end);
        return null;
      case "float":
        this.push("Float", image, payload.value, start, end);
        return null;
      case "duration":
        this.push("Duration", image, payload.ms, start, end);
        return null;
      case "comment":
        if (this.keepComments) this.pushSpanning("Comment", image, image, start, end, payload.isDoc);
        else this.passNewlines(start, end);
        return null;
      case "error":
        if (payload.error === "empty-interpolation") return this.fail("unexpected-character", "Unexpected character '}'", payload.offset, 1);
        if (payload.error === "unterminated-comment") return this.fail("unterminated-comment", "Unterminated block comment", payload.offset, 2);
        return this.fail("unterminated-string", "Unterminated string", payload.offset, 1);
    }
  }

  run(): ScanResult {
    const src = this.src;
    const len = this.len;
    let i = 0;
    if (src.charCodeAt(0) === 35 /* # */) {
      const m = matchShebang(src, 0);
      if (m !== null) {
        if (this.keepComments) this.push("Comment", m[0], m[0], 0, m[0].length);
        i = m[0].length;
      }
    }
    while (i < len) {
      const c = src.charCodeAt(i);
      if (c === 32 || c === 9 || c === 13) {
        i++;
        continue;
      }
      if (c === 10) {
        const line = this.line;
        this.tokens.push(new Token("NL", "\n", null, i + this.baseOffset, i + 1 + this.baseOffset, line, this.col(i), line + 1, 1, false));
        this.newLine(++i);
        continue;
      }
      if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95) {
        if (c === 114 /* r */ && i + 1 < len && src.charCodeAt(i + 1) === 34 /* " */) {
          const m = matchRawString(src, i)!;
          const r = this.fromPayload(m[0], m.payload, i);
          if (r !== null) return r;
          i += m[0].length;
          continue;
        }
        let j = i + 1;
        let e = 0;
        while (j < len && (e = src.charCodeAt(j)) < 128 && IDENT_PART[e] === 1) j++;
        if (j < len && e >= 128) j = i + matchIdentifier(src, i)![0].length;
        const keyword = keywordAt(src, i, j);
        if (keyword !== null) this.push(keyword, keyword, null, i, j);
        else {
          const word = src.slice(i, j);
          this.push("Ident", word, word, i, j);
        }
        i = j;
        continue;
      }
      if (c >= 48 && c <= 57) {
        const end = plainIntEnd(src, i);
        if (end !== -1) {
          const image = src.slice(i, end);
          this.push("Int", image, BigInt(image), i, end);
          i = end;
          continue;
        }
        const m = matchNumber(src, i)!;
        this.fromPayload(m[0], m.payload, i);
        i += m[0].length;
        continue;
      }
      const d = i + 1 < len ? src.charCodeAt(i + 1) : 0;
      const two = c < 128 && d < 128 ? TWO_CHAR[pair(c, d)] : undefined;
      if (two !== undefined) {
        this.push(two, two, null, i, i + 2);
        i += 2;
        continue;
      }
      if (c === 47 /* / */) {
        if (d === 47) {
          let j = src.indexOf("\n", i);
          if (j === -1) j = len;
          if (this.keepComments) {
            const image = src.slice(i, j);
            this.push("Comment", image, image, i, j);
            this.tokens[this.tokens.length - 1]!.isDoc = image.startsWith("///") && !image.startsWith("////");
          }
          i = j;
          continue;
        }
        if (d === 42) {
          if (!this.keepComments) {
            // only the lines it spans matter
            const end = blockCommentEnd(src, i);
            if (end === -1) return this.fail("unterminated-comment", "Unterminated block comment", i, 2);
            this.passNewlines(i, end);
            i = end;
            continue;
          }
          const m = matchBlockComment(src, i)!;
          const r = this.fromPayload(m[0], m.payload, i);
          if (r !== null) return r;
          i += m[0].length;
          continue;
        }
      }
      const one = ONE_CHAR[c];
      if (one !== undefined) {
        this.push(one, one, null, i, i + 1);
        i++;
        continue;
      }
      if (c === 34 /* " */) {
        const m = matchString(src, i)!;
        const r = this.fromPayload(m[0], m.payload, i);
        if (r !== null) return r;
        i += m[0].length;
        continue;
      }
      if (c === 92 /* \ */ && i + 1 < len && src.charCodeAt(i + 1) === 10) {
        // line continuation: no token, but the line counter advances
        i += 2;
        this.newLine(i);
        continue;
      }
      if (c >= 128) {
        const m = matchIdentifier(src, i);
        if (m === null) return this.unexpected(i);
        const word = m[0];
        const end = i + word.length;
        this.push("Ident", word, word, i, end);
        i = end;
        continue;
      }
      return this.unexpected(i);
    }
    const line = this.line;
    const column = this.col(len);
    this.tokens.push(new Token("EOF", "", null, len + this.baseOffset, len + this.baseOffset, line, column, line, column, false));
    return { tokens: this.tokens, error: null };
  }
}
