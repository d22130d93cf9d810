/**
 * Syntax diagnostics: the reference's plain one-line messages (spec/syntax.md
 * §9.1, the texts conformance `.error` files match) together with what the
 * pretty renderer needs (spec/cli.md §0.6). All message texts are built
 * here, so they can be tested and reused by `check`, `run` and `lint`.
 */
import type { LexError, Token } from "@harn/lexer";
import { displayToken, isKeyword } from "@harn/lexer";
import type { Span } from "./ast";

export interface SyntaxDiagnostic {
  /** The reference's plain message, e.g. `Expected expression, got ) at 3:9`,
   * `Unexpected end of file, expected }`, `Unterminated string at 2:11`. */
  message: string;
  /** Where the carets go: the offending token (or the lexer position). */
  span: Span;
  /** The rendered headline: `expected {what}, found {token}`,
   * `unexpected end of file, expected {what}`, or the lexer message. */
  pretty: string;
  /** `unexpected token`, `line break not allowed here`, `file ends here`,
   * or `here` for lexer errors. */
  label: string;
  /** How to fix it, for missing closers and a misplaced `pub`. */
  help: string | null;
  /** What the parser expected (token spelling or label); null for lexer errors. */
  expected: string | null;
  /** How the offending token printed; null at end of file and for lexer errors. */
  found: string | null;
}

/** A parse failure in flight. Not an `Error`: no stack trace is captured,
 * which keeps speculative parsing and recovery cheap. */
export class ParseFailure {
  constructor(
    readonly diagnostic: SyntaxDiagnostic,
    /** The top-level separator error aborts parsing (spec/syntax.md §9.2 [quirk]). */
    readonly fatal = false,
  ) {}
}

/** Input nested deeper than MAX_NESTING (state.ts). Unlike other failures
 * inside a `${…}` it is not turned into literal text: it is reported. */
export class TooDeep extends ParseFailure {}

const CLOSER_HELP: Record<string, string> = {
  "}": "add a closing `}` to finish this block",
  ")": "add a closing `)` to finish this expression or parameter list",
  "]": "add a closing `]` to finish this list or subscript",
};

export const PUB_EXPECTED = "fn, tool, skill, eval_pack, struct, enum, pipeline, or import after pub";
const PUB_HELP = "use `pub fn`, `pub pipeline`, `pub enum`, or `pub struct`";

export function tokenSpan(t: Token): Span {
  return { start: t.start, end: t.end, line: t.line, column: t.column, endLine: t.endLine, endColumn: t.endColumn };
}

/** How a token prints where an identifier was required: keywords get the
 * dedicated `'kw' (reserved keyword)` form (§9.1). */
export function displayIdentPosition(t: Token): string {
  return isKeyword(t.kind) ? `'${t.kind}' (reserved keyword)` : displayToken(t);
}

/** `Expected {expected}, got {found} at L:C`, or the end-of-file form. */
export function expectedDiagnostic(expected: string, at: Token, found: string = displayToken(at)): SyntaxDiagnostic {
  const span = tokenSpan(at);
  const help = expected === PUB_EXPECTED ? PUB_HELP : (CLOSER_HELP[expected] ?? null);
  if (at.kind === "EOF") {
    return {
      message: `Unexpected end of file, expected ${expected}`,
      span,
      pretty: `unexpected end of file, expected ${expected}`,
      label: "file ends here",
      help,
      expected,
      found: null,
    };
  }
  return {
    message: `Expected ${expected}, got ${found} at ${at.line}:${at.column}`,
    span,
    pretty: `expected ${expected}, found ${found}`,
    label: at.kind === "NL" ? "line break not allowed here" : "unexpected token",
    help,
    expected,
    found,
  };
}

export function lexDiagnostic(e: LexError): SyntaxDiagnostic {
  return {
    message: e.message,
    span: {
      start: e.offset,
      end: e.offset + e.length,
      line: e.line,
      column: e.column,
      endLine: e.line,
      endColumn: e.column + 1,
    },
    pretty: e.message,
    label: "here",
    help: null,
    expected: null,
    found: null,
  };
}

/** Input nested deeper than the parser's stack allows (our addition: the
 * reference has no such message). Reported at the token being parsed. */
export function tooDeepDiagnostic(at: Token): SyntaxDiagnostic {
  return {
    message: `Nesting too deep at ${at.line}:${at.column}`,
    span: tokenSpan(at),
    pretty: "nesting too deep",
    label: "the parser gives up at this depth",
    help: "split the expression into smaller parts",
    expected: null,
    found: null,
  };
}
