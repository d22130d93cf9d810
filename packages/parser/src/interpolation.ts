/**
 * Interpolated strings (spec/syntax.md §1.9.2). The reference parses `${…}`
 * texts only when compiling; we parse them here so the linter sees them,
 * reproducing its outcomes exactly:
 * - lex the text at its own position, skip leading newlines, parse ONE
 *   expression and ignore whatever follows it (`"${a b}"` is `a`);
 * - a parse failure turns the segment into literal text (the raw source);
 * - a lex failure makes the segment contribute nothing (`expr: null`).
 * None of these report an error.
 */
import { tokenize, type StringSegment, type Token } from "@harn/lexer";
import type { InterpolatedString, InterpolationSegment } from "./ast";
import { parseExpr } from "./expressions";
import { ParserState } from "./state";
import { ParseFailure, TooDeep, tokenSpan } from "./syntax-error";

/** `outer` is the parser the string was found by: expressions inside nest
 * on from its depth (MAX_NESTING bounds the whole tree, strings included). */
export function parseInterpolatedString(t: Token, outer: ParserState | null = null): InterpolatedString {
  const raw = t.value as StringSegment[];
  const segments: InterpolationSegment[] = [];
  for (const s of raw) {
    if (s.kind === "text") {
      segments.push({ kind: "text", text: s.text });
      continue;
    }
    const lexed = tokenize(s.source, {}, { offset: s.start, line: s.line, column: s.column });
    if (lexed.error !== null) {
      segments.push({ kind: "expr", expr: null, source: s.source, line: s.line, column: s.column });
      continue;
    }
    try {
      const sub = new ParserState(lexed.tokens);
      if (outer) sub.depth = sub.peak = outer.depth;
      const expr = parseExpr(sub);
      if (outer && sub.peak > outer.peak) outer.peak = sub.peak;
      segments.push({ kind: "expr", expr, source: s.source, line: s.line, column: s.column });
    } catch (e) {
      if (!(e instanceof ParseFailure) || e instanceof TooDeep) throw e;
      segments.push({ kind: "text", text: s.source });
    }
  }
  return { kind: "InterpolatedString", segments, span: tokenSpan(t) };
}
