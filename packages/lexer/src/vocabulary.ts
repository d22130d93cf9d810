/**
 * The one token vocabulary, as chevrotain token types. Each chevrotain type
 * is named after the `TokenKind` it produces, so converting a chevrotain
 * token is a property read. Keywords are not separate chevrotain types: an
 * identifier whose text is reserved becomes that keyword in `tokenize()`.
 *
 * Order matters (chevrotain takes the first pattern that matches):
 * whitespace and newlines, comments before `/`, strings and raw strings
 * before identifiers, numbers, then two-character before one-character
 * operators (spec/syntax.md §1.11).
 */
import { createToken, Lexer, type TokenType } from "chevrotain";
import {
  identifierStartHints,
  matchBlockComment,
  matchIdentifier,
  matchNumber,
  matchRawString,
  matchShebang,
  matchString,
} from "./scanners";
import { ONE_CHAR_PUNCTUATION, TWO_CHAR_PUNCTUATION } from "./token";

/** Chevrotain group holding comments (and the shebang) apart from tokens. */
export const COMMENT_GROUP = "comments";

function digits(): string[] {
  return ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];
}

export function createVocabulary(): TokenType[] {
  const whitespace = createToken({ name: "WS", pattern: /[ \t\r]+/, group: Lexer.SKIPPED });
  const continuation = createToken({ name: "Continuation", pattern: /\\\n/, group: Lexer.SKIPPED, line_breaks: true });
  const newline = createToken({ name: "NL", pattern: /\n/, line_breaks: true });
  const shebang = createToken({ name: "Shebang", pattern: { exec: matchShebang }, start_chars_hint: ["#"], group: COMMENT_GROUP, line_breaks: false });
  const lineComment = createToken({ name: "LineComment", pattern: /\/\/[^\n]*/, group: COMMENT_GROUP });
  const blockComment = createToken({ name: "BlockComment", pattern: { exec: matchBlockComment }, start_chars_hint: ["/"], group: COMMENT_GROUP, line_breaks: true });
  const string = createToken({ name: "String", pattern: { exec: matchString }, start_chars_hint: ['"'], line_breaks: true });
  const rawString = createToken({ name: "RString", pattern: { exec: matchRawString }, start_chars_hint: ["r"], line_breaks: false });
  const number = createToken({ name: "Int", pattern: { exec: matchNumber }, start_chars_hint: digits(), line_breaks: false });
  const identifier = createToken({ name: "Ident", pattern: { exec: matchIdentifier }, start_chars_hint: identifierStartHints(), line_breaks: false });
  const punctuation = [...TWO_CHAR_PUNCTUATION, ...ONE_CHAR_PUNCTUATION].map((p) => createToken({ name: p, pattern: p }));
  return [whitespace, continuation, newline, shebang, lineComment, blockComment, string, rawString, number, identifier, ...punctuation];
}

/** Builds the chevrotain lexer. Validation is skipped at run time; the
 * vocabulary test builds it once with validation on. */
export function createLexer(validate = false): Lexer {
  return new Lexer(createVocabulary(), {
    positionTracking: "onlyOffset",
    skipValidations: !validate,
    ensureOptimizations: validate,
    recoveryEnabled: false,
  });
}
