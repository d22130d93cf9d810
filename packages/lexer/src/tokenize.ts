/**
 * `tokenize()`: runs the chevrotain lexer and converts its output into our
 * own `Token`s, with code-point columns and the reference's error texts
 * (spec/syntax.md §1.13). The chevrotain lexer is built on first use and
 * cached per lexer *configuration*, never per call: it holds no state
 * between runs, so sharing it is safe (and it is what makes start-up cheap).
 */
import type { IToken, Lexer } from "chevrotain";
import { LineMap } from "./positions";
import type { RawSegment, ScanPayload } from "./scanners";
import { isKeyword, Token, type LexError, type StringSegment, type TokenKind } from "./token";
import { COMMENT_GROUP, createLexer } from "./vocabulary";

export interface TokenizeOptions {
  /** Keep comments (and a shebang line) as `Comment` tokens, in order. */
  comments?: boolean;
}

export interface TokenizeResult {
  /** Always ends with an `EOF` token when `error` is null. On error it holds
   * the tokens before the error (no EOF). */
  tokens: Token[];
  error: LexError | null;
}

/** Where the text being tokenized sits in a larger file (interpolations). */
export interface TokenizeOrigin {
  offset: number;
  line: number;
  column: number;
}

// The lexer is immutable once built (a compiled pattern table), so one
// instance per process is shared state of the same kind as a RegExp literal.
let sharedLexer: Lexer | undefined;

function lexer(): Lexer {
  return (sharedLexer ??= createLexer());
}

/** Milliseconds spent building the chevrotain lexer (0 until built). */
export function lexerConstructionMs(): number {
  return constructionMs;
}
let constructionMs = 0;

/** Builds the chevrotain lexer now instead of on first use. */
export function warmUpLexer(): void {
  if (sharedLexer) return;
  const t0 = performance.now();
  lexer();
  constructionMs = performance.now() - t0;
}

export function tokenize(source: string, options: TokenizeOptions = {}, origin?: TokenizeOrigin): TokenizeResult {
  warmUpLexer();
  const result = lexer().tokenize(source);
  const converter = new Converter(source, new LineMap(source), origin);
  const raw = result.tokens;
  const comments = result.groups[COMMENT_GROUP] ?? [];

  // Recovery is off and an error match swallows the rest of the input, so
  // there is at most one error: a chevrotain "no pattern matched" or a
  // matcher's error payload (in the token stream or the comment group).
  let error: LexError | null = null;
  let stopAt = Infinity;
  if (result.errors.length > 0) {
    stopAt = result.errors[0]!.offset;
    error = converter.unexpectedCharacter(stopAt);
  } else {
    const last = raw[raw.length - 1];
    const lastComment = comments[comments.length - 1];
    for (const t of [last, lastComment]) {
      const p = t?.payload as ScanPayload | undefined;
      if (t !== undefined && p !== undefined && p.kind === "error") {
        stopAt = t.startOffset;
        error = converter.scanError(p);
      }
    }
  }

  const tokens: Token[] = [];
  const keepComments = options.comments === true;
  let ci = 0;
  for (let i = 0; i < raw.length; i++) {
    const t = raw[i]!;
    if (t.startOffset >= stopAt) break;
    if (keepComments) {
      while (ci < comments.length && comments[ci]!.startOffset < t.startOffset) tokens.push(converter.comment(comments[ci++]!));
    }
    tokens.push(converter.token(t, t.payload as ScanPayload | undefined));
  }
  if (keepComments) {
    while (ci < comments.length && comments[ci]!.startOffset < stopAt) tokens.push(converter.comment(comments[ci++]!));
  }
  if (error !== null) return { tokens, error };
  tokens.push(converter.eof());
  return { tokens, error: null };
}

/** Turns chevrotain tokens into `Token`s with positions in the whole file. */
class Converter {
  private readonly baseOffset: number;
  private readonly baseLine: number;
  private readonly baseColumn: number;

  constructor(
    private readonly source: string,
    private readonly map: LineMap,
    origin: TokenizeOrigin | undefined,
  ) {
    this.baseOffset = origin?.offset ?? 0;
    this.baseLine = origin?.line ?? 1;
    this.baseColumn = origin?.column ?? 1;
  }

  private line(local: number): number {
    return this.map.line(local) + this.baseLine - 1;
  }

  private column(local: number): number {
    const col = this.map.column(local);
    // Only the first line of an embedded text is shifted horizontally.
    return this.map.lineIndex(local) === 0 ? col + this.baseColumn - 1 : col;
  }

  token(t: IToken, payload: ScanPayload | undefined): Token {
    const start = t.startOffset;
    const end = start + t.image.length;
    let kind = t.tokenType.name as TokenKind;
    let value: Token["value"] = null;
    if (payload !== undefined) {
      switch (payload.kind) {
        case "string":
          value = payload.value;
          break;
        case "istring":
          kind = "IString";
          value = this.segments(payload.segments);
          break;
        case "rstring":
          value = payload.value;
          break;
        case "int":
          value = payload.value;
          break;
        case "float":
          kind = "Float";
          value = payload.value;
          break;
        case "duration":
          kind = "Duration";
          value = payload.ms;
          break;
        default:
          break;
      }
    } else if (kind === "Ident") {
      if (isKeyword(t.image)) kind = t.image;
      else value = t.image;
    }
    return this.make(kind, t.image, value, start, end, false);
  }

  comment(t: IToken): Token {
    const p = t.payload as ScanPayload | undefined;
    const image = t.image;
    const isDoc =
      p !== undefined && p.kind === "comment"
        ? p.isDoc
        : image.startsWith("///") && !image.startsWith("////");
    return this.make("Comment", image, image, t.startOffset, t.startOffset + image.length, isDoc);
  }

  eof(): Token {
    const end = this.source.length;
    return this.make("EOF", "", null, end, end, false);
  }

  private make(kind: TokenKind, image: string, value: Token["value"], start: number, end: number, isDoc: boolean): Token {
    const line = this.line(start);
    const column = this.column(start);
    const endLine = this.line(end);
    const endColumn = this.column(end);
    return new Token(kind, image, value, start + this.baseOffset, end + this.baseOffset, line, column, endLine, endColumn, isDoc);
  }

  private segments(raw: RawSegment[]): StringSegment[] {
    return raw.map((s) =>
      s.kind === "text"
        ? s
        : { kind: "expr", source: s.source, start: s.start + this.baseOffset, line: this.line(s.start), column: this.column(s.start) },
    );
  }

  private error(kind: LexError["kind"], what: string, local: number, length: number): LexError {
    const line = this.line(local);
    const column = this.column(local);
    return { kind, message: `${what} at ${line}:${column}`, offset: local + this.baseOffset, line, column, length };
  }

  unexpectedCharacter(local: number): LexError {
    const cp = this.source.codePointAt(local) ?? 0;
    const ch = String.fromCodePoint(cp);
    return this.error("unexpected-character", `Unexpected character '${ch}'`, local, ch.length);
  }

  scanError(p: Extract<ScanPayload, { kind: "error" }>): LexError {
    if (p.error === "empty-interpolation") return this.error("unexpected-character", "Unexpected character '}'", p.offset, 1);
    if (p.error === "unterminated-comment") return this.error("unterminated-comment", "Unterminated block comment", p.offset, 2);
    return this.error("unterminated-string", "Unterminated string", p.offset, 1);
  }
}
