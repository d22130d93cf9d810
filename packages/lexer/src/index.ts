/**
 * @harn/lexer: the Harn token vocabulary and `tokenize()`.
 * Chevrotain defines the vocabulary and is the reference lexer in tests;
 * nothing chevrotain leaves this package.
 */
export {
  Token,
  KEYWORDS,
  isKeyword,
  TWO_CHAR_PUNCTUATION,
  ONE_CHAR_PUNCTUATION,
  type Keyword,
  type Punctuation,
  type TokenClass,
  type TokenKind,
  type StringSegment,
  type LexError,
  type LexErrorKind,
} from "./token";
export { tokenize, type TokenizeOptions, type TokenizeResult, type TokenizeOrigin } from "./tokenize";
export { matchIdentifier } from "./scanners";
export { displayToken, formatFloatPlain } from "./display";
export { LineMap } from "./positions";
// The chevrotain reference lexer is deliberately not exported from here, so
// that chevrotain stays out of the CLI bundle; tests import it directly.
