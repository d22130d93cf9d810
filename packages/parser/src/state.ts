/**
 * The token cursor every grammar function works on, with the primitives of
 * the reference's newline model (spec/syntax.md §2.1):
 *
 * - `at(kind)`: look at the current token *without* skipping newlines
 *   (the reference's `check`), used for every optional element;
 * - `consume(kind)`: skip newlines, then require the token (the reference's
 *   `consume`), used for every required token;
 * - `eatPastNL(kind)`: skip newlines only if the next real token is `kind`
 *   (leading-operator continuation lines);
 * - `skipNL()`.
 *
 * Tokens live in one flat array and the cursor is an index; nothing here
 * allocates per token.
 */
import type { Token, TokenKind } from "@harn/lexer";
import type { Span } from "./ast";
import { displayIdentPosition, expectedDiagnostic, ParseFailure, TooDeep, tooDeepDiagnostic, type SyntaxDiagnostic } from "./syntax-error";

/**
 * How deeply the AST may nest (statements in blocks, operands of operator
 * and postfix chains, unary operators, sub-expressions). Every later stage
 * (structure checks, lint, the compiler, the evaluator) walks the tree
 * recursively, so a bound here is what keeps a generated 100,000-term
 * `a + b + …` from overflowing their stacks. 500 levels is far beyond any
 * hand-written program and well inside what those walkers survive.
 */
export const MAX_NESTING = 500;

/**
 * With `ParseOptions.flatChains` (lint, fmt: they must read generated code
 * too), the links of flat chains — operator chains, postfix chains, `else
 * if` arms — no longer count as nesting but against this bound of their
 * own, so a 10,000-term `a + b + …` or 2,000 `else if` arms parse while
 * 5,000 nested parentheses still fail. Such a tree is deeper than
 * MAX_NESTING: `ParseResult.depth` says how deep, and a caller whose walks
 * are recursive must walk it where the stack is deep enough.
 */
export const MAX_CHAIN = 50_000;

/** Thrown instead of a real failure while speculating: nobody reads it. */
const SPECULATION_FAILED = new ParseFailure({
  message: "speculation failed",
  span: { start: 0, end: 0, line: 0, column: 0, endLine: 0, endColumn: 0 },
  pretty: "speculation failed",
  label: "",
  help: null,
  expected: null,
  found: null,
});

/** Fields are declared and set in the constructor (see the lexer's
 * Scanner): a parser state is made per file and per interpolation. */
export class ParserState {
  declare readonly toks: Token[];
  /** Chain links count against MAX_CHAIN, not MAX_NESTING. */
  private declare readonly flatChains: boolean;
  declare pos: number;
  /** > 0 while parsing speculatively (`f<T>(…)` vs `a < b`): failures are
   * then a shared object, so a failed guess builds no message. */
  declare speculating: number;
  /** Current AST nesting (see MAX_NESTING); reset for each top-level item. */
  declare depth: number;
  /** The deepest `depth` reached since the innermost `beginChain`. */
  declare peak: number;
  /** Set for an editor's parse (`ParseOptions.recover`): a failing
   * statement inside a block is recorded here and skipped, and the block
   * goes on (statements.ts `recoverInBlock`). Null: failures propagate to
   * the top-level item loop, as in the reference. */
  declare recovered: SyntaxDiagnostic[] | null;
  /** Chain links open at this point, when chains are bounded apart
   * (MAX_CHAIN; `flatChains`). */
  declare chain: number;
  /** The deepest the tree gets: `depth + chain` at its highest. */
  declare deepest: number;
  private declare readonly last: number;

  constructor(toks: Token[], flatChains = false) {
    this.toks = toks;
    this.flatChains = flatChains;
    this.pos = 0;
    this.speculating = 0;
    this.depth = 0;
    this.peak = 0;
    this.recovered = null;
    this.chain = 0;
    this.deepest = 0;
    this.last = toks.length - 1;
  }

  get tok(): Token {
    return this.toks[this.pos]!;
  }

  at(kind: TokenKind): boolean {
    return this.toks[this.pos]!.kind === kind;
  }

  /** The current token is the identifier `name` (a contextual word). */
  atWord(name: string): boolean {
    const t = this.toks[this.pos]!;
    return t.kind === "Ident" && t.value === name;
  }

  /** Kind of the token `n` places ahead (no newline skipping). */
  peek(n: number): TokenKind {
    const i = this.pos + n;
    return this.toks[i > this.last ? this.last : i]!.kind;
  }

  peekToken(n: number): Token {
    const i = this.pos + n;
    return this.toks[i > this.last ? this.last : i]!;
  }

  advance(): Token {
    const t = this.toks[this.pos]!;
    if (this.pos < this.last) this.pos++;
    return t;
  }

  skipNL(): void {
    const toks = this.toks;
    while (toks[this.pos]!.kind === "NL") this.pos++;
  }

  /** Index of the first non-newline token at or after the cursor. */
  nextSignificant(): number {
    let i = this.pos;
    const toks = this.toks;
    while (toks[i]!.kind === "NL") i++;
    return i;
  }

  /** Index of the first non-newline token at or after index `i`. */
  nextSignificantFrom(i: number): number {
    const toks = this.toks;
    while (toks[i]!.kind === "NL") i++;
    return i;
  }

  /** True if the next real token (past newlines) is `kind`; nothing moves. */
  peekPastNL(kind: TokenKind): boolean {
    return this.toks[this.nextSignificant()]!.kind === kind;
  }

  /** If the next real token is `kind`, skip the newlines before it. */
  eatPastNL(kind: TokenKind): boolean {
    const t = this.toks[this.pos]!;
    if (t.kind === kind) return true;
    if (t.kind !== "NL") return false;
    const i = this.nextSignificant();
    if (this.toks[i]!.kind !== kind) return false;
    this.pos = i;
    return true;
  }

  /** Skip newlines, then require `kind` (reported as `label`). */
  consume(kind: TokenKind, label: string = kind): Token {
    this.skipNL();
    const t = this.toks[this.pos]!;
    if (t.kind !== kind) throw this.fail(label);
    if (this.pos < this.last) this.pos++;
    return t;
  }

  /** Skip newlines, then require an identifier (keywords are rejected with
   * the dedicated reserved-keyword message). */
  consumeIdent(label: string): Token {
    this.skipNL();
    const t = this.toks[this.pos]!;
    if (t.kind !== "Ident") throw this.failIdent(label);
    this.pos++;
    return t;
  }

  /** One level deeper; fails with "Nesting too deep" past MAX_NESTING. The
   * caller lowers `depth` again when the nested construct is done (after a
   * failure the top-level loop resets it). */
  nest(): void {
    if (++this.depth > MAX_NESTING) throw new TooDeep(tooDeepDiagnostic(this.tok));
    if (this.depth > this.peak) this.peak = this.depth;
    if (this.depth + this.chain > this.deepest) this.deepest = this.depth + this.chain;
  }

  /**
   * Operator and postfix chains build left-deep trees: the node of each link
   * sits on top of everything parsed so far in the chain, its first operand
   * included. `beginChain` starts measuring that operand (returns the
   * enclosing measure, for `endChain`), `link` nests one level above the
   * deepest point reached so far, `endChain` restores the depth and merges
   * the measure. With `flatChains` a link counts one chain link instead,
   * and what `beginChain` saves and `endChain` restores is the open link
   * count.
   */
  beginChain(): number {
    if (this.flatChains) return this.chain;
    const saved = this.peak;
    this.peak = this.depth;
    return saved;
  }

  link(): void {
    if (this.flatChains) {
      if (++this.chain > MAX_CHAIN) throw new TooDeep(tooDeepDiagnostic(this.tok));
      if (this.depth + this.chain > this.deepest) this.deepest = this.depth + this.chain;
      return;
    }
    if (this.peak > this.depth) this.depth = this.peak;
    this.nest();
  }

  endChain<T>(depth: number, saved: number, result: T): T {
    this.depth = depth;
    if (this.flatChains) this.chain = saved;
    else if (saved > this.peak) this.peak = saved;
    return result;
  }

  /** `Expected {label}, got {current token}` as a throwable failure. */
  fail(label: string, found?: string): ParseFailure {
    if (this.speculating > 0) return SPECULATION_FAILED;
    return new ParseFailure(expectedDiagnostic(label, this.tok, found));
  }

  failIdent(label: string): ParseFailure {
    if (this.speculating > 0) return SPECULATION_FAILED;
    return new ParseFailure(expectedDiagnostic(label, this.tok, displayIdentPosition(this.tok)));
  }

  /** The last consumed token that is not a newline. */
  lastSignificant(): Token {
    let i = this.pos - 1;
    const toks = this.toks;
    while (i > 0 && toks[i]!.kind === "NL") i--;
    return toks[i < 0 ? 0 : i]!;
  }

  /** Span from the token at index `startIdx` to the last consumed real token. */
  spanFrom(startIdx: number): Span {
    const a = this.toks[startIdx]!;
    let b = this.lastSignificant();
    if (b.start < a.start) b = a;
    return { start: a.start, end: b.end, line: a.line, column: a.column, endLine: b.endLine, endColumn: b.endColumn };
  }
}
