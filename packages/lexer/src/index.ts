/**
 * @harn/lexer: the Harn token vocabulary and `tokenize()`.
 * Chevrotain is an implementation detail; nothing chevrotain leaves here.
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
export { tokenize, warmUpLexer, lexerConstructionMs, type TokenizeOptions, type TokenizeResult, type TokenizeOrigin } from "./tokenize";
export { displayToken, formatFloatPlain } from "./display";
export { LineMap } from "./positions";
