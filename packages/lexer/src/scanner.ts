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
  matchBlockComment,
  matchIdentifier,
  matchNumber,
  matchRawString,
  matchShebang,
  matchString,
  type RawSegment,
  type ScanPayload,
} from "./scanners";
import { keywordAt, Token, type LexError, type StringSegment, type TokenKind } from "./token";

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
const ONE_CHAR: (TokenKind | undefined)[] = [];
for (const p of ["=", "!", ".", "+", "-", "*", "/", "%", "<", ">", "?", "|", "{", "}", "(", ")", "[", "]", ",", ":", ";", "@"] as const) {
  ONE_CHAR[p.charCodeAt(0)] = p;
}

/** The two-character operator `c` `d`, if any (§1.11). */
function twoChar(c: number, d: number): TokenKind | null {
  switch (c) {
    case 61: // =
      return d === 61 ? "==" : null;
    case 33: // !
      return d === 61 ? "!=" : null;
    case 38: // &
      return d === 38 ? "&&" : null;
    case 124: // |
      return d === 124 ? "||" : d === 62 ? "|>" : null;
    case 63: // ?
      return d === 63 ? "??" : d === 46 ? "?." : null;
    case 42: // *
      return d === 42 ? "**" : d === 61 ? "*=" : null;
    case 45: // -
      return d === 62 ? "->" : d === 61 ? "-=" : null;
    case 60: // <
      return d === 61 ? "<=" : null;
    case 62: // >
      return d === 61 ? ">=" : null;
    case 43: // +
      return d === 61 ? "+=" : null;
    case 47: // /
      return d === 61 ? "/=" : null;
    case 37: // %
      return d === 61 ? "%=" : null;
    default:
      return null;
  }
}

function isAsciiIdentRest(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || (c >= 48 && c <= 57);
}

/** Tokenizes `source`. Stops at the first error (§1.13). */
export function scan(source: string, keepComments: boolean, origin?: ScanOrigin): ScanResult {
  return new Scanner(source, keepComments, origin).run();
}

class Scanner {
  private readonly tokens: Token[] = [];
  private readonly len: number;
  private readonly astral: boolean;
  private readonly baseOffset: number;
  private readonly lineShift: number;
  private readonly firstLineShift: number;
  /** 1-based local line of `lineStart`, and the offset where it starts. */
  private line = 1;
  private lineStart = 0;
  /** In files with astral characters: the last column computed (`colValue`
   * at `colOffset`, on the line starting at `colLineStart`). */
  private colLineStart = -1;
  private colOffset = 0;
  private colValue = 1;

  constructor(
    private readonly src: string,
    private readonly keepComments: boolean,
    origin: ScanOrigin | undefined,
  ) {
    this.len = src.length;
    this.astral = /[\uD800-\uDFFF]/.test(src);
    this.baseOffset = origin?.offset ?? 0;
    this.lineShift = (origin?.line ?? 1) - 1;
    this.firstLineShift = (origin?.column ?? 1) - 1;
  }

  /** Code-point column of `offset` on the current line. */
  private col(offset: number): number {
    let c: number;
    if (!this.astral) c = offset - this.lineStart + 1;
    else {
      // Count on from the last offset asked about on this line: tokens
      // come left to right, so a long line costs one pass, not one per token.
      let i = this.lineStart;
      c = 1;
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
    }
    return this.line === 1 ? c + this.firstLineShift : c;
  }

  /** Advances the line counter over the newlines in [from, to). */
  private passNewlines(from: number, to: number): void {
    const s = this.src;
    let nl = s.indexOf("\n", from);
    while (nl !== -1 && nl < to) {
      this.line++;
      this.lineStart = nl + 1;
      nl = s.indexOf("\n", nl + 1);
    }
  }

  /** A token that cannot contain a line break. */
  private push(kind: TokenKind, image: string, value: Token["value"], start: number, end: number): void {
    const line = this.line + this.lineShift;
    const column = this.col(start);
    const endColumn = this.astral ? this.col(end) : column + (end - start);
    this.tokens.push(new Token(kind, image, value, start + this.baseOffset, end + this.baseOffset, line, column, line, endColumn, false));
  }

  /** A token that may span lines (strings, comments): moves the line counter. */
  private pushSpanning(kind: TokenKind, image: string, value: Token["value"], start: number, end: number, isDoc: boolean): void {
    const line = this.line + this.lineShift;
    const column = this.col(start);
    this.passNewlines(start, end);
    this.tokens.push(
      new Token(kind, image, value, start + this.baseOffset, end + this.baseOffset, line, column, this.line + this.lineShift, this.col(end), isDoc),
    );
  }

  /** Positions of interpolation segments, which lie inside the token at `start`. */
  private segments(raw: RawSegment[], start: number): StringSegment[] {
    const out: StringSegment[] = [];
    const saveLine = this.line;
    const saveStart = this.lineStart;
    let from = start;
    for (const s of raw) {
      if (s.kind === "text") {
        out.push(s);
        continue;
      }
      this.passNewlines(from, s.start);
      from = s.start;
      out.push({ kind: "expr", source: s.source, start: s.start + this.baseOffset, line: this.line + this.lineShift, column: this.col(s.start) });
    }
    this.line = saveLine;
    this.lineStart = saveStart;
    return out;
  }

  private fail(kind: LexError["kind"], what: string, local: number, length: number): ScanResult {
    this.passNewlines(this.lineStart, local);
    const line = this.line + this.lineShift;
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
        const line = this.line + this.lineShift;
        this.tokens.push(new Token("NL", "\n", null, i + this.baseOffset, i + 1 + this.baseOffset, line, this.col(i), line + 1, 1, false));
        this.line++;
        this.lineStart = ++i;
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
        while (j < len && isAsciiIdentRest(src.charCodeAt(j))) j++;
        if (j < len && src.charCodeAt(j) >= 128) j = i + matchIdentifier(src, i)![0].length;
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
        const m = matchNumber(src, i)!;
        this.fromPayload(m[0], m.payload, i);
        i += m[0].length;
        continue;
      }
      const two = i + 1 < len ? twoChar(c, src.charCodeAt(i + 1)) : null;
      if (two !== null) {
        this.push(two, two, null, i, i + 2);
        i += 2;
        continue;
      }
      if (c === 47 /* / */) {
        const d = i + 1 < len ? src.charCodeAt(i + 1) : 0;
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
        this.line++;
        this.lineStart = i;
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
    const line = this.line + this.lineShift;
    const column = this.col(len);
    this.tokens.push(new Token("EOF", "", null, len + this.baseOffset, len + this.baseOffset, line, column, line, column, false));
    return { tokens: this.tokens, error: null };
  }
}
