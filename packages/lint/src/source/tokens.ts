/**
 * The comment-preserving token stream the source-aware rules scan
 * (trailing commas, doc comments, suppressions). It comes from the shared
 * lexer, so strings, nested block comments and raw strings are never
 * mistaken for brackets or comments.
 */
import { tokenize, type Token } from "@harn/lexer";

export type SourceToken = Token;

/** All tokens of a file that lexes; `[]` when it does not (lint only runs
 * on files that parse, so that never happens in practice). */
export function scanTokens(text: string): SourceToken[] {
  const r = tokenize(text, { comments: true });
  return r.error ? [] : r.tokens;
}

/** Comment tokens only. */
export function isComment(t: SourceToken): boolean {
  return t.kind === "Comment";
}

/** `//` comment (including `///`) as opposed to a block comment. */
export function isLineComment(t: SourceToken): boolean {
  return t.kind === "Comment" && t.image.startsWith("//");
}
