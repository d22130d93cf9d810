/**
 * Tokenizing with the chevrotain lexer built from the vocabulary: the
 * reference implementation the production scanner is tested against. Not
 * used at run time (and so not in the CLI bundle).
 */
import type { IToken, Lexer } from "chevrotain";
import { PositionCursor } from "./positions";
import type { RawSegment, ScanPayload } from "./scanners";
import { isKeyword, Token, type LexError, type StringSegment, type TokenKind } from "./token";
import type { TokenizeOptions, TokenizeResult } from "./tokenize";
import { COMMENT_GROUP, createLexer } from "./vocabulary";

let lexer: Lexer | undefined;

export function tokenizeWithChevrotain(source: string, options: TokenizeOptions = {}): TokenizeResult {
  lexer ??= createLexer();
  const result = lexer.tokenize(source);
  const converter = new Converter(source);
  const raw = result.tokens;
  const comments = result.groups[COMMENT_GROUP] ?? [];

  // Recovery is off and an error match swallows the rest of the input, so
  // there is at most one error.
  let error: LexError | null = null;
  let stopAt = Infinity;
  if (result.errors.length > 0) {
    stopAt = result.errors[0]!.offset;
    error = converter.unexpectedCharacter(stopAt);
  } else {
    for (const t of [raw[raw.length - 1], comments[comments.length - 1]]) {
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
  for (const t of raw) {
    if (t.startOffset >= stopAt) break;
    if (keepComments) while (ci < comments.length && comments[ci]!.startOffset < t.startOffset) tokens.push(converter.comment(comments[ci++]!));
    tokens.push(converter.token(t, t.payload as ScanPayload | undefined));
  }
  if (keepComments) while (ci < comments.length && comments[ci]!.startOffset < stopAt) tokens.push(converter.comment(comments[ci++]!));
  if (error !== null) return { tokens, error };
  tokens.push(converter.eof());
  return { tokens, error: null };
}

class Converter {
  private readonly cursor: PositionCursor;

  constructor(private readonly source: string) {
    this.cursor = new PositionCursor(source);
  }

  private at(offset: number): [number, number] {
    this.cursor.moveTo(offset);
    return [this.cursor.line, this.cursor.column];
  }

  token(t: IToken, payload: ScanPayload | undefined): Token {
    const image = t.image;
    let kind = t.tokenType.name as TokenKind;
    let value: Token["value"] = null;
    if (payload !== undefined) {
      if (payload.kind === "string" || payload.kind === "rstring") value = payload.value;
      else if (payload.kind === "istring") {
        kind = "IString";
        value = this.segments(payload.segments);
      } else if (payload.kind === "int") value = payload.value;
      else if (payload.kind === "float") {
        kind = "Float";
        value = payload.value;
      } else if (payload.kind === "duration") {
        kind = "Duration";
        value = payload.ms;
      }
    } else if (kind === "Ident") {
      if (isKeyword(image)) kind = image;
      else value = image;
    }
    return this.make(kind, image, value, t.startOffset, t.startOffset + image.length, false);
  }

  comment(t: IToken): Token {
    const p = t.payload as ScanPayload | undefined;
    const image = t.image;
    const isDoc = p !== undefined && p.kind === "comment" ? p.isDoc : image.startsWith("///") && !image.startsWith("////");
    return this.make("Comment", image, image, t.startOffset, t.startOffset + image.length, isDoc);
  }

  eof(): Token {
    return this.make("EOF", "", null, this.source.length, this.source.length, false);
  }

  private make(kind: TokenKind, image: string, value: Token["value"], start: number, end: number, isDoc: boolean): Token {
    const [line, column] = this.at(start);
    const [endLine, endColumn] = kind === "NL" ? [line + 1, 1] : this.at(end);
    return new Token(kind, image, value, start, end, line, column, endLine, endColumn, isDoc);
  }

  private segments(raw: RawSegment[]): StringSegment[] {
    return raw.map((s) => {
      if (s.kind === "text") return s;
      const [line, column] = this.at(s.start);
      return { kind: "expr", source: s.source, start: s.start, line, column };
    });
  }

  private error(kind: LexError["kind"], what: string, offset: number, length: number): LexError {
    const [line, column] = this.at(offset);
    return { kind, message: `${what} at ${line}:${column}`, offset, line, column, length };
  }

  unexpectedCharacter(offset: number): LexError {
    const ch = String.fromCodePoint(this.source.codePointAt(offset) ?? 0);
    return this.error("unexpected-character", `Unexpected character '${ch}'`, offset, ch.length);
  }

  scanError(p: Extract<ScanPayload, { kind: "error" }>): LexError {
    if (p.error === "empty-interpolation") return this.error("unexpected-character", "Unexpected character '}'", p.offset, 1);
    if (p.error === "unterminated-comment") return this.error("unterminated-comment", "Unterminated block comment", p.offset, 2);
    return this.error("unterminated-string", "Unterminated string", p.offset, 1);
  }
}
