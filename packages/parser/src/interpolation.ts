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
import { ParseFailure, tokenSpan } from "./syntax-error";

export function parseInterpolatedString(t: Token): InterpolatedString {
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
      const expr = parseExpr(new ParserState(lexed.tokens));
      segments.push({ kind: "expr", expr, source: s.source, line: s.line, column: s.column });
    } catch (e) {
      if (!(e instanceof ParseFailure)) throw e;
      segments.push({ kind: "text", text: s.source });
    }
  }
  return { kind: "InterpolatedString", segments, span: tokenSpan(t) };
}
