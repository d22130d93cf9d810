/**
 * Entry point of the parser: `parse(source)` → `{ program, errors }`.
 *
 * Why hand-written recursive descent and not a chevrotain grammar: the
 * reference parser treats newlines as real tokens and decides at every
 * position whether to skip them (`check` vs `consume`, spec/syntax.md §2.1).
 * Chevrotain's computed LL(k) lookahead cannot express that model without a
 * GATE on nearly every production, and its grammar self-analysis costs tens
 * of milliseconds at every start-up, which `harn check`'s start-up budget
 * cannot afford. A hand-written parser maps 1:1 onto the specification (the
 * spec sanctions it) and costs nothing to construct.
 *
 * Error recovery follows the reference (§9.2): an error aborts the current
 * top-level item; the parser skips to a `;`, to a line starting with a
 * statement keyword, or to a `}`, and continues, so one run reports several
 * errors. A missing separator between top-level items stops parsing and
 * replaces earlier errors ([quirk], reproduced).
 */
import { LineMap, tokenize, type Token, type TokenKind } from "@harn/lexer";
import type { Node, Program, Span } from "./ast";
import { parseAttributed, parseDeclarationAfterPub, parseEvalPack, parseImport, parsePipeline } from "./declarations";
import { parseStatement } from "./statements";
import { ParserState } from "./state";
import { lexDiagnostic, ParseFailure, TooDeep, tooDeepDiagnostic, type SyntaxDiagnostic } from "./syntax-error";

export interface ParseOptions {
  /** The file name, for callers that want it echoed; positions do not depend on it. */
  file?: string;
  /**
   * An editor's parse (the language server): recover as far as possible so
   * that a half-typed line does not hide the rest of the file. A failing
   * statement inside a block costs that statement only (not the whole
   * top-level item), a missing top-level separator is one more error, and a
   * lex error blanks the rest of its line and lexing goes on. The first
   * error is the plain parse's first error, except where the plain parse's
   * separator quirk replaced earlier ones; later errors may differ, since
   * recovery resumes elsewhere. `harn run`, `check` and `lint` never set it.
   */
  recover?: boolean;
  /** Bound flat chains (`a + b + …`, `x.f().g()…`, `else if` arms) by
   * MAX_CHAIN instead of MAX_NESTING; the tree can then be deeper than
   * MAX_NESTING (`ParseResult.depth`). For lint and fmt. */
  flatChains?: boolean;
}

export interface ParseResult {
  /** As complete as recovery allows; treat any error as failure. */
  program: Program;
  errors: SyntaxDiagnostic[];
  /** The lexer's tokens (no comments), ending with EOF; empty after a lex
   * error. The linter reuses them instead of lexing the file again. */
  tokens: Token[];
  /** How deep the tree nests at its deepest (at most MAX_NESTING without
   * `flatChains`). */
  depth: number;
}

const TOP_LEVEL_SEPARATOR = "top-level item separator (`;` or newline)";

/** Tokens that start a statement: recovery resumes at a line starting with one. */
const STATEMENT_START: ReadonlySet<TokenKind> = new Set<TokenKind>([
  "let", "var", "if", "for", "while", "match", "retry", "return", "throw", "fn", "pub", "try",
  "select", "pipeline", "import", "parallel", "enum", "eval_pack", "struct", "interface", "emit",
  "guard", "require", "deadline", "yield", "mutex", "defer", "break", "continue", "tool", "skill", "impl",
]);

export function parse(source: string, options: ParseOptions = {}): ParseResult {
  if (options.recover === true) return parseRecovering(source);
  const lexed = tokenize(source);
  if (lexed.error !== null) {
    return { program: emptyProgram(source), errors: [lexDiagnostic(lexed.error)], tokens: [], depth: 0 };
  }
  const p = new ParserState(lexed.tokens, options.flatChains ?? false);
  const { program, errors } = parseTokens(p, source);
  return { program, errors, tokens: lexed.tokens, depth: p.deepest };
}

/** How many lex errors an editor's parse blanks out before it gives up
 * (each costs a lexing pass over the file). */
const MAX_LEX_RECOVERIES = 20;

/** `parse` with `recover` (see ParseOptions): lex errors first, each with
 * the rest of its line blanked (offsets and positions stay put), then the
 * syntax errors of what remains, less those the blanking caused (at the
 * first token after a blanked stretch: they would only echo the lex
 * error). */
function parseRecovering(source: string): ParseResult {
  const lexErrors: SyntaxDiagnostic[] = [];
  const blanks: [number, number][] = [];
  let text = source;
  let lexed = tokenize(text);
  while (lexed.error !== null) {
    const e = lexed.error;
    lexErrors.push(lexDiagnostic(e));
    if (lexErrors.length > MAX_LEX_RECOVERIES) return { program: emptyProgram(source), errors: lexErrors, tokens: [], depth: 0 };
    let end = text.indexOf("\n", e.offset);
    if (end < 0) end = text.length;
    text = text.slice(0, e.offset) + " ".repeat(end - e.offset) + text.slice(end);
    blanks.push([e.offset, end]);
    lexed = tokenize(text);
  }
  const p = new ParserState(lexed.tokens);
  p.recovered = [];
  const parsed = parseTokens(p, source);
  const echoes = blanks.map(([from, to]) => [from, firstTokenFrom(lexed.tokens, to)] as const);
  const caused = (d: SyntaxDiagnostic) => echoes.some(([from, to]) => d.span.start >= from && d.span.start <= to);
  return { program: parsed.program, errors: [...lexErrors, ...parsed.errors.filter((d) => !caused(d))], tokens: lexed.tokens, depth: p.deepest };
}

/** Offset of the first token other than a newline at or after `offset`. */
function firstTokenFrom(tokens: readonly Token[], offset: number): number {
  for (const t of tokens) if (t.start >= offset && t.kind !== "NL") return t.start;
  return Number.MAX_SAFE_INTEGER;
}

/** The whole file's span, from the EOF token (which sits at its end), so
 * a parse does not map every line start again. */
function fileSpan(source: string, tokens: readonly Token[]): Span {
  const eof = tokens[tokens.length - 1];
  if (eof === undefined || eof.kind !== "EOF" || eof.start !== source.length) return wholeFile(source);
  return { start: 0, end: source.length, line: 1, column: 1, endLine: eof.line, endColumn: eof.column };
}

function wholeFile(source: string): Span {
  const map = new LineMap(source);
  const end = source.length;
  return { start: 0, end, line: 1, column: 1, endLine: map.line(end), endColumn: map.column(end) };
}

function emptyProgram(source: string): Program {
  return { kind: "Program", items: [], span: wholeFile(source) };
}

function parseTokens(p: ParserState, source: string): Omit<ParseResult, "tokens" | "depth"> {
  const items: Node[] = [];
  // Recovering, blocks record their own failures in the same list, so it
  // stays in source order.
  let errors: SyntaxDiagnostic[] = p.recovered ?? [];
  p.skipNL();
  while (!p.at("EOF")) {
    if (p.at("}")) {
      // A stray `}` at top level is skipped ([quirk] of the reference).
      p.advance();
      p.skipNL();
      continue;
    }
    const itemStart = p.pos;
    p.depth = 0;
    p.peak = 0;
    p.chain = 0;
    try {
      items.push(parseTopLevelItem(p));
    } catch (e) {
      if (isStackOverflow(e)) {
        errors.push(tooDeepDiagnostic(p.tok));
        break;
      }
      if (!(e instanceof ParseFailure)) throw e;
      errors.push(e.diagnostic);
      // Input nested past the bound is not recovered from: resuming inside
      // it would parse the inner half and end on a misleading separator
      // error about the closing braces, which replaces this one (§9.2).
      if (e instanceof TooDeep) break;
      recover(p);
      if (p.pos === itemStart) p.advance();
      continue;
    }
    try {
      separatorAfterTopLevelItem(p);
    } catch (e) {
      if (!(e instanceof ParseFailure)) throw e;
      if (p.recovered !== null) {
        errors.push(e.diagnostic);
        recover(p);
        continue;
      }
      errors = [e.diagnostic];
      break;
    }
  }
  const program: Program = { kind: "Program", items, span: fileSpan(source, p.toks) };
  return { program, errors };
}

function separatorAfterTopLevelItem(p: ParserState): void {
  if (p.at(";")) {
    p.advance();
    p.skipNL();
    return;
  }
  if (p.at("NL")) {
    p.skipNL();
    return;
  }
  if (p.at("EOF")) return;
  if (p.tok.line === p.lastSignificant().endLine) throw p.fail(TOP_LEVEL_SEPARATOR);
}

function parseTopLevelItem(p: ParserState): Node {
  const start = p.pos;
  switch (p.tok.kind) {
    case "import":
      return parseImport(p, start, false);
    case "pipeline":
      return parsePipeline(p, start, false);
    case "@":
      return parseAttributed(p);
    case "eval_pack":
      return parseEvalPack(p, start, false);
    case "pub":
      return parseDeclarationAfterPub(p);
    default:
      return parseStatement(p);
  }
}

/** Skip to a `;` (consumed), a newline followed by a statement keyword or
 * the end, or a `}` (left for the item loop). */
function recover(p: ParserState): void {
  for (;;) {
    const k = p.tok.kind;
    if (k === "EOF" || k === "}") return;
    if (k === ";") {
      p.advance();
      p.skipNL();
      return;
    }
    if (k === "NL") {
      p.skipNL();
      const next = p.tok.kind;
      if (next === "EOF" || STATEMENT_START.has(next)) return;
      continue;
    }
    p.advance();
  }
}

/** A JavaScript stack overflow from pathologically deep nesting. */
function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}
