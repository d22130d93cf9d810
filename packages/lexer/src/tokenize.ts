/**
 * `tokenize()`: the public entry point of the lexer. It runs the hand-written
 * scanner (`scanner.ts`); the chevrotain vocabulary (`vocabulary.ts`) is the
 * reference it is tested against (test/differential.test.ts). See the
 * package README for the measurements behind that split.
 */
import { scan } from "./scanner";
import type { LexError, Token } from "./token";

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

export function tokenize(source: string, options: TokenizeOptions = {}, origin?: TokenizeOrigin): TokenizeResult {
  return scan(source, options.comments === true, origin);
}
