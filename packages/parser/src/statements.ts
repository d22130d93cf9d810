/**
 * Statements and blocks (spec/syntax.md §2.2, §4), including the compound
 * forms that are also expressions (`if`, `match`, `try`, `parallel`).
 *
 * Statement dispatch is on the first token. A statement that starts with
 * one of the compound keywords is parsed by that construct alone: no binary
 * operator or postfix continues it (those only apply in expression position).
 */
import type { TokenKind } from "@harn/lexer";
import type { AssignOp, MatchArm, Node, ParallelMode, SelectCase } from "./ast";
import {
  parseAttributed,
  parseDeclarationAfterPub,
  parseEnum,
  parseEvalPack,
  parseFnDecl,
  parseImpl,
  parseInterface,
  parseOverride,
  parseSkill,
  parseStruct,
  parseTool,
  parseTypeDecl,
} from "./declarations";
import { parseExpr, parsePrimary, parseUnary } from "./expressions";
import { parseBindingPattern } from "./patterns";
import type { ParserState } from "./state";
import { ParseFailure, TooDeep } from "./syntax-error";
import { parseType } from "./types";

export const STATEMENT_SEPARATOR = "statement separator (`;` or newline)";

/**
 * The separator rule between items of a statement list (§2.2): one `;`
 * (then newlines), or newlines, or the end of the list; an item that starts
 * on the line where the previous one ended needs a separator.
 */
export function expectSeparator(p: ParserState, label: string, closer: TokenKind | null): void {
  if (p.at(";")) {
    p.advance();
    p.skipNL();
    return;
  }
  if (p.at("NL")) {
    p.skipNL();
    return;
  }
  if (p.at("EOF") || (closer !== null && p.at(closer))) return;
  if (p.tok.line === p.lastSignificant().endLine) throw p.fail(label);
}

/** `{ statements }` — skips newlines before the `{`. */
export function parseBlock(p: ParserState): Node[] {
  p.consume("{");
  return parseBlockRest(p);
}

/** Statements up to and including the closing `}` (the `{` is consumed). */
export function parseBlockRest(p: ParserState): Node[] {
  const items = parseStatementsUntilBrace(p);
  p.consume("}");
  return items;
}

export function parseStatementsUntilBrace(p: ParserState, items: Node[] = []): Node[] {
  p.skipNL();
  while (!p.at("}") && !p.at("EOF")) {
    if (p.recovered !== null && p.speculating === 0) {
      parseStatementRecovering(p, items);
      continue;
    }
    items.push(parseStatement(p));
    expectSeparator(p, STATEMENT_SEPARATOR, "}");
  }
  return items;
}

/** One statement of a block in an editor's parse: a failure is recorded
 * and the statement dropped, and parsing resumes at the next line that
 * starts at or left of the failed statement's column (a continuation line
 * is indented further), or at the `}` that closes this block. So a
 * half-typed line costs that line, not the enclosing function. */
function parseStatementRecovering(p: ParserState, items: Node[]): void {
  const start = p.tok;
  const { depth, peak } = p;
  try {
    items.push(parseStatement(p));
    expectSeparator(p, STATEMENT_SEPARATOR, "}");
  } catch (e) {
    if (!(e instanceof ParseFailure) || e instanceof TooDeep) throw e;
    p.recovered!.push(e.diagnostic);
    p.depth = depth;
    p.peak = peak;
    skipFailedStatement(p, start.column, start.start);
  }
}

function skipFailedStatement(p: ParserState, column: number, startOffset: number): void {
  let braces = 0;
  if (p.tok.start === startOffset) p.advance();
  for (;;) {
    const t = p.tok;
    if (t.kind === "EOF") return;
    if (t.kind === "}" && braces === 0) return;
    if (t.kind === "{") braces++;
    else if (t.kind === "}") braces--;
    else if (t.kind === "NL") {
      p.skipNL();
      const next = p.tok;
      if (next.kind === "EOF" || next.kind === "}" || next.column <= column) {
        if (next.kind !== "}") return;
        if (braces === 0) return;
      }
      continue;
    }
    p.advance();
  }
}

export function parseStatement(p: ParserState): Node {
  p.nest();
  const n = parseStatementAt(p);
  p.depth--;
  return n;
}

function parseStatementAt(p: ParserState): Node {
  const start = p.pos;
  switch (p.tok.kind) {
    case "@":
      return parseAttributed(p);
    case "let":
    case "var":
      return parseLet(p);
    case "if":
      return parseIf(p);
    case "for":
      return parseFor(p);
    case "while": {
      p.advance();
      const condition = parseExpr(p);
      const body = parseBlock(p);
      return { kind: "WhileLoop", condition, body, span: p.spanFrom(start) };
    }
    case "match":
      return parseMatch(p);
    case "retry":
    case "deadline":
      return parsePrimary(p);
    case "parallel":
      return parseParallel(p);
    case "try":
      return parseTry(p);
    case "return": {
      p.advance();
      const value = endsValue(p) ? null : parseExpr(p);
      return { kind: "ReturnStmt", value, span: p.spanFrom(start) };
    }
    case "yield": {
      p.advance();
      const value = endsValue(p) ? null : parseExpr(p);
      return { kind: "YieldExpr", value, span: p.spanFrom(start) };
    }
    case "throw": {
      p.advance();
      const value = parseExpr(p);
      return { kind: "ThrowStmt", value, span: p.spanFrom(start) };
    }
    case "emit": {
      p.advance();
      const value = parseExpr(p);
      return { kind: "EmitExpr", value, span: p.spanFrom(start) };
    }
    case "break":
      p.advance();
      return { kind: "BreakStmt", span: p.spanFrom(start) };
    case "continue":
      p.advance();
      return { kind: "ContinueStmt", span: p.spanFrom(start) };
    case "guard": {
      p.advance();
      const condition = parseExpr(p);
      p.consume("else");
      const elseBody = parseBlock(p);
      return { kind: "GuardStmt", condition, elseBody, span: p.spanFrom(start) };
    }
    case "require": {
      p.advance();
      const condition = parseExpr(p);
      let message: Node | null = null;
      if (p.at(",")) {
        p.advance();
        message = parseExpr(p);
      }
      return { kind: "RequireStmt", condition, message, span: p.spanFrom(start) };
    }
    case "defer": {
      p.advance();
      const body = parseBlock(p);
      return { kind: "DeferStmt", body, span: p.spanFrom(start) };
    }
    case "mutex": {
      p.advance();
      const body = parseBlock(p);
      return { kind: "MutexBlock", body, span: p.spanFrom(start) };
    }
    case "select":
      return parseSelect(p);
    case "override":
      return parseOverride(p);
    case "fn":
      return parseFnDecl(p, start, false, false);
    case "tool":
      return parseTool(p, start, false);
    case "skill":
      return parseSkill(p, start, false);
    case "eval_pack":
      return parseEvalPack(p, start, false);
    case "pub":
      return parseDeclarationAfterPub(p);
    case "type":
      return parseTypeDecl(p);
    case "enum":
      return parseEnum(p, start, false);
    case "struct":
      return parseStruct(p, start, false);
    case "interface":
      return parseInterface(p);
    case "impl":
      return parseImpl(p);
    case "Ident":
      // `gen fn`: `gen` immediately followed by `fn`
      if (p.tok.value === "gen" && p.peek(1) === "fn") {
        p.advance();
        return parseFnDecl(p, start, false, true);
      }
      return parseExpressionStatement(p);
    default:
      return parseExpressionStatement(p);
  }
}

/** `return`/`yield` have no value before a newline, `;`, `}` or the end. */
function endsValue(p: ParserState): boolean {
  const k = p.tok.kind;
  return k === "NL" || k === ";" || k === "}" || k === "EOF";
}

function assignOp(kind: TokenKind): AssignOp | undefined {
  switch (kind) {
    case "=":
      return null;
    case "+=":
      return "+";
    case "-=":
      return "-";
    case "*=":
      return "*";
    case "/=":
      return "/";
    case "%=":
      return "%";
    default:
      return undefined;
  }
}

/** `expr ( assign_op expr )?` — only names, `a.b` and `a[i]` are assignable,
 * and the operator must be on the target's line (§4.2). */
function parseExpressionStatement(p: ParserState): Node {
  const start = p.pos;
  const target = parseExpr(p);
  if (target.kind !== "Identifier" && target.kind !== "PropertyAccess" && target.kind !== "SubscriptAccess") return target;
  const op = assignOp(p.tok.kind);
  if (op === undefined) return target;
  p.advance();
  const value = parseExpr(p);
  return { kind: "Assignment", target, value, op, span: p.spanFrom(start) };
}

function parseLet(p: ParserState): Node {
  const start = p.pos;
  const isVar = p.advance().kind === "var";
  const pattern = parseBindingPattern(p);
  let type = null;
  if (pattern.kind === "ident" && p.at(":")) {
    p.advance();
    type = parseType(p);
  }
  p.consume("=");
  const value = parseExpr(p);
  return isVar
    ? { kind: "VarBinding", pattern, type, value, span: p.spanFrom(start) }
    : { kind: "LetBinding", pattern, type, value, span: p.spanFrom(start) };
}

function parseFor(p: ParserState): Node {
  const start = p.pos;
  p.advance();
  let pattern;
  if (p.at("(")) {
    const pairStart = p.pos;
    p.advance();
    const first = p.consumeIdent("pair pattern element").value as string;
    p.consume(",");
    const second = p.consumeIdent("pair pattern element").value as string;
    p.consume(")");
    pattern = { kind: "pair" as const, first, second, span: p.spanFrom(pairStart) };
  } else {
    pattern = parseBindingPattern(p);
  }
  p.consume("in");
  const iterable = parseExpr(p);
  const body = parseBlock(p);
  return { kind: "ForIn", pattern, iterable, body, span: p.spanFrom(start) };
}

/** `if` — newlines after the then-block are consumed even when no `else`
 * follows (§5.9 [quirk]); `else if` must stay on one line. */
export function parseIf(p: ParserState): Node {
  const start = p.pos;
  p.advance();
  const condition = parseExpr(p);
  const thenBody = parseBlock(p);
  p.skipNL();
  let elseBody: Node[] | null = null;
  if (p.at("else")) {
    p.advance();
    if (p.at("if")) {
      // An `else if` nests like the `else { if … }` it stands for: a chain of
      // thousands of branches is as deep a tree for every later stage's
      // recursive walk. It is one link of a chain (MAX_NESTING, or
      // MAX_CHAIN with `flatChains`).
      const depth = p.depth;
      const saved = p.beginChain();
      p.link();
      elseBody = [parseIf(p)];
      p.endChain(depth, saved, null);
    } else elseBody = parseBlock(p);
  }
  return { kind: "IfElse", condition, thenBody, elseBody, span: p.spanFrom(start) };
}

/** `match v { pattern ( | pattern )* ( if guard )? -> { … } … }` (§4.6). */
export function parseMatch(p: ParserState): Node {
  const start = p.pos;
  p.advance();
  const value = parseExpr(p);
  p.consume("{");
  p.skipNL();
  const arms: MatchArm[] = [];
  while (!p.at("}") && !p.at("EOF")) {
    const armStart = p.pos;
    let pattern = parseExpr(p);
    if (p.at("|")) {
      const alternatives = [pattern];
      while (p.at("|")) {
        p.advance();
        alternatives.push(parseExpr(p));
      }
      pattern = { kind: "OrPattern", alternatives, span: p.spanFrom(armStart) };
    }
    let guard: Node | null = null;
    if (p.at("if")) {
      p.advance();
      guard = parseExpr(p);
    }
    p.consume("->");
    const body = parseBlock(p);
    arms.push({ pattern, guard, body, span: p.spanFrom(armStart) });
    p.skipNL();
  }
  p.consume("}");
  return { kind: "MatchExpr", value, arms, span: p.spanFrom(start) };
}

/** `try* unary`, `try { }` (a Result-valued expression), or `try { }` with
 * `catch` and/or `finally` (§4.7). Newlines after the try block and after
 * the catch block are consumed while looking for the next clause. */
export function parseTry(p: ParserState): Node {
  const start = p.pos;
  p.advance();
  if (p.at("*")) {
    p.advance();
    const operand = parseUnary(p);
    return { kind: "TryStar", operand, span: p.spanFrom(start) };
  }
  const body = parseBlock(p);
  p.skipNL();
  let hasCatchClause = false;
  let errorVar: string | null = null;
  let errorType = null;
  let catchBody: Node[] = [];
  if (p.at("catch")) {
    p.advance();
    hasCatchClause = true;
    if (p.at("(")) {
      p.advance();
      errorVar = p.consumeIdent("error variable").value as string;
      if (p.at(":")) {
        p.advance();
        errorType = parseType(p);
      }
      p.consume(")");
    } else if (p.at("Ident")) {
      errorVar = p.advance().value as string;
    }
    catchBody = parseBlock(p);
    p.skipNL();
  }
  let finallyBody: Node[] | null = null;
  if (p.at("finally")) {
    p.advance();
    finallyBody = parseBlock(p);
  }
  if (!hasCatchClause && finallyBody === null) return { kind: "TryExpr", body, span: p.spanFrom(start) };
  return { kind: "TryCatch", body, errorVar, errorType, catchBody, finallyBody, hasCatchClause, span: p.spanFrom(start) };
}

const MAX_CONCURRENT = "max_concurrent";

/** `parallel [each|settle] expr [with { max_concurrent: n }] { [x ->] … } [as stream]` (§4.11). */
export function parseParallel(p: ParserState): Node {
  const start = p.pos;
  p.advance();
  let mode: ParallelMode = "count";
  if (p.atWord("each")) {
    p.advance();
    mode = "each";
  } else if (p.atWord("settle")) {
    p.advance();
    mode = "settle";
  }
  const expr = parseExpr(p);
  const options: [string, Node][] = [];
  if (p.atWord("with")) {
    p.advance();
    p.consume("{");
    p.skipNL();
    while (!p.at("}") && !p.at("EOF")) {
      const t = p.tok;
      if (t.kind !== "Ident" || t.value !== MAX_CONCURRENT) {
        const shown = t.kind === "Ident" ? (t.value as string) : t.image;
        throw p.fail(
          `known option (only \`${MAX_CONCURRENT}\` is supported in \`parallel ... with { ... }\`; got \`${shown}\`)`,
          shown,
        );
      }
      p.advance();
      p.consume(":");
      options.push([MAX_CONCURRENT, parseExpr(p)]);
      p.skipNL();
      if (p.at(",")) {
        p.advance();
        p.skipNL();
      }
    }
    p.consume("}");
  }
  p.consume("{");
  p.skipNL();
  let variable: string | null = null;
  if (p.at("Ident") && p.peek(1) === "->") {
    variable = p.advance().value as string;
    p.advance();
  }
  const body = parseBlockRest(p);
  if (p.atWord("as") && p.peekToken(1).kind === "Ident" && p.peekToken(1).value === "stream") {
    if (mode !== "each") throw p.fail("`as stream` is only valid after `parallel each ... { ... }`", "as stream");
    p.advance();
    p.advance();
    mode = "eachStream";
  }
  return { kind: "Parallel", mode, expr, variable, body, options, span: p.spanFrom(start) };
}

/** `select { v from ch { … } timeout d { … } default { … } }` (§4.12). */
function parseSelect(p: ParserState): Node {
  const start = p.pos;
  p.advance();
  p.consume("{");
  p.skipNL();
  const cases: SelectCase[] = [];
  let timeout: { duration: Node; body: Node[] } | null = null;
  let defaultBody: Node[] | null = null;
  while (!p.at("}") && !p.at("EOF")) {
    const caseStart = p.pos;
    if (p.atWord("timeout")) {
      p.advance();
      const duration = parseExpr(p);
      timeout = { duration, body: parseBlock(p) };
    } else if (p.atWord("default")) {
      p.advance();
      defaultBody = parseBlock(p);
    } else {
      const variable = p.consumeIdent("select case variable").value as string;
      p.consume("from");
      const channel = parseExpr(p);
      const body = parseBlock(p);
      cases.push({ variable, channel, body, span: p.spanFrom(caseStart) });
    }
    p.skipNL();
  }
  p.consume("}");
  if (cases.length === 0 && timeout === null && defaultBody === null) throw p.fail("at least one select case");
  if (timeout !== null && defaultBody !== null) throw p.fail("select cannot have both timeout and default");
  return { kind: "SelectExpr", cases, timeout, defaultBody, span: p.spanFrom(start) };
}
