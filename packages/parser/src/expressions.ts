/**
 * Expressions: the precedence ladder of spec/syntax.md §5.1, postfix chains
 * (§5.3–§5.4, §5.8, §5.11), primaries (§5.5–§5.7, §5.9) and the pipe
 * placeholder rewrite (§5.12).
 *
 * Every level starts at the cursor without skipping newlines; only `parseExpr`
 * (the grammar's `expr`) skips leading newlines. Operators marked "Lead-NL"
 * in the table may start a continuation line (`eatPastNL`), the others must
 * be on the line of their left operand (`at`).
 */
import { isKeyword, type Token, type TokenKind } from "@harn/lexer";
import type { BinaryOperator, DictEntry, Node, Span, StructConstruct } from "./ast";
import { parseInterpolatedString } from "./interpolation";
import { parseBlock, parseIf, parseMatch, parseParallel, parseTry, parseBlockRest } from "./statements";
import { parseTypedParams } from "./params";
import { parseTypeArgs } from "./types";
import { rewritePipePlaceholder } from "./pipe";
import type { ParserState } from "./state";
import { ParseFailure, tokenSpan } from "./syntax-error";

/** `expr`: skip leading newlines, then a full expression. */
export function parseExpr(p: ParserState): Node {
  p.skipNL();
  p.nest();
  const n = parsePipe(p);
  p.depth--;
  return n;
}

function binary(p: ParserState, start: number, op: BinaryOperator, opTok: Token, left: Node, right: Node): Node {
  return { kind: "BinaryOp", op, left, right, opSpan: tokenSpan(opTok), span: p.spanFrom(start) };
}

/** After a binary operator: newlines are skipped before the right operand.
 * Each link of an operator chain puts a node on top of everything the
 * chain holds so far (the tree is left-deep), so it counts against
 * MAX_NESTING until the chain's parser returns (`endChain`). */
function operator(p: ParserState): Token {
  const t = p.advance();
  p.skipNL();
  p.link();
  return t;
}

// level 1: |>
function parsePipe(p: ParserState): Node {
  const start = p.pos;
  const depth = p.depth;
  const peak = p.beginChain();
  let left = parseRange(p);
  while (p.eatPastNL("|>")) {
    const t = operator(p);
    const right = rewritePipePlaceholder(parseRange(p));
    left = binary(p, start, "|>", t, left, right);
  }
  return p.endChain(depth, peak, left);
}

// level 2: a to b [exclusive] (not associative, no newline around `to`)
function parseRange(p: ParserState): Node {
  const start = p.pos;
  const left = parseTernary(p);
  if (!p.at("to")) return left;
  p.advance();
  const end = parseTernary(p);
  let inclusive = true;
  if (p.at("exclusive")) {
    p.advance();
    inclusive = false;
  }
  return { kind: "RangeExpr", start: left, end, inclusive, span: p.spanFrom(start) };
}

// level 3: c ? a : b — branches at `||` level, so nesting needs parentheses
function parseTernary(p: ParserState): Node {
  const start = p.pos;
  const condition = parseLogicalOr(p);
  if (!p.at("?")) return condition;
  p.advance();
  const thenExpr = parseLogicalOr(p);
  p.consume(":");
  const elseExpr = parseLogicalOr(p);
  return { kind: "Ternary", condition, thenExpr, elseExpr, span: p.spanFrom(start) };
}

/**
 * Levels 4-11 of the precedence table (§5.1), the one operator table of the
 * language: the level of a binary operator token, doubled, plus one if the
 * operator may begin a continuation line ("Lead-NL"); 0 for any other
 * token. `not in` is the word `not` directly before `in` (level 7, same
 * line). A switch: token kinds are interned strings, so each case is one
 * pointer comparison, cheaper than a hash lookup.
 */
function binaryLevel(kind: TokenKind): number {
  switch (kind) {
    case "||":
      return 4 * 2 + 1;
    case "&&":
      return 5 * 2 + 1;
    case "==":
    case "!=":
      return 6 * 2 + 1;
    case "<":
    case ">":
    case "<=":
    case ">=":
      return 7 * 2 + 1;
    case "in":
      return 7 * 2;
    case "+":
      return 8 * 2 + 1;
    case "-":
      return 8 * 2;
    case "??":
      return 9 * 2 + 1;
    case "*":
    case "/":
    case "%":
      return 10 * 2 + 1;
    case "**":
      return 11 * 2 + 1;
    default:
      return 0;
  }
}

const LOWEST_BINARY = 4;
const POWER = 11;

// level 4: ||
export function parseLogicalOr(p: ParserState): Node {
  return parseBinary(p, LOWEST_BINARY);
}

/**
 * The binary operators of levels `min` to 11 after one operand, by
 * precedence climbing: the tree, spans and depth accounting are those of a
 * ladder of one function per level (each level a left-deep chain whose
 * links count from the operand where all the levels start), which this
 * loop walks in one frame: operators met here come in falling levels (a
 * higher one went into the right operand), and a new level starts its
 * chain count again from the first operand's.
 */
function parseBinary(p: ParserState, min: number): Node {
  const start = p.pos;
  const depth = p.depth;
  const chain = p.chain;
  const saved = p.beginChain();
  let left = parseUnary(p);
  let level = 0;
  for (;;) {
    const t = p.tok;
    let op: BinaryOperator;
    let code: number;
    if (t.kind === "NL") {
      // Only a Lead-NL operator on the next line continues the chain.
      const i = p.nextSignificant();
      const next = p.toks[i]!.kind;
      code = binaryLevel(next);
      if ((code & 1) === 0 || code >> 1 < min) break;
      p.pos = i;
      op = next as BinaryOperator;
    } else if (t.kind === "Ident") {
      if (t.value !== "not" || min > 7 || p.peek(1) !== "in") break;
      p.advance();
      op = "not_in";
      code = 7 * 2;
    } else {
      code = binaryLevel(t.kind);
      if (code >> 1 < min) break;
      op = t.kind as BinaryOperator;
    }
    const opLevel = code >> 1;
    if (opLevel !== level) {
      // The ladder's levels above this one ended: their links are closed.
      p.chain = chain;
      level = opLevel;
    }
    const opTok = operator(p);
    // `**` is right associative: its right operand starts at its own level.
    const right = parseBinary(p, opLevel === POWER ? POWER : opLevel + 1);
    left = binary(p, start, op, opTok, left, right);
  }
  return p.endChain(depth, saved, left);
}

// level 12: prefix ! and - (no newline after the operator)
export function parseUnary(p: ParserState): Node {
  const t = p.tok;
  if (t.kind === "!" || t.kind === "-") {
    const start = p.pos;
    p.advance();
    p.nest();
    const operand = parseUnary(p);
    p.depth--;
    return { kind: "UnaryOp", op: t.kind, operand, span: p.spanFrom(start) };
  }
  return parsePostfix(p);
}

// ---------------------------------------------------------------------------
// Postfix chains (§5.3)

/** Tokens after `?` that leave the `?` to the ternary (§5.4 rule 2). */
function startsTernaryBranch(kind: TokenKind): boolean {
  switch (kind) {
    case "Ident":
    case "Int":
    case "Float":
    case "String":
    case "IString":
    case "true":
    case "false":
    case "nil":
    case "(":
    case "{":
    case "!":
    case "-":
    case "fn":
      return true;
    default:
      return false;
  }
}

/** Keywords that may not be member names, dict keys or shape fields (§5.10). */
export function isReservedMemberName(kind: TokenKind): boolean {
  return kind === "finally" || kind === "eval_pack" || kind === "require" || kind === "select" || kind === "skill";
}

/** An identifier, or a keyword usable as a name after `.`, as a dict key or
 * as a shape field (§5.10). Returns null if the current token is neither. */
export function memberName(t: Token): string | null {
  if (t.kind === "Ident") return t.value as string;
  if (isKeyword(t.kind) && !isReservedMemberName(t.kind)) return t.kind;
  return null;
}

function isUppercaseStart(name: string): boolean {
  const c = name.charCodeAt(0);
  if (c < 128) return c >= 65 && c <= 90;
  return /^\p{Lu}/u.test(name);
}

function parsePostfix(p: ParserState): Node {
  const start = p.pos;
  const depth = p.depth;
  const peak = p.beginChain();
  let expr = parsePrimary(p);
  for (;; p.link()) {
    const t = p.tok;
    switch (t.kind) {
      case "NL": {
        // Only `.` and `?.` may start a continuation line.
        const i = p.nextSignificant();
        const k = p.toks[i]!.kind;
        if (k !== "." && k !== "?.") return p.endChain(depth, peak, expr);
        p.pos = i;
        continue;
      }
      case ".":
      case "?.": {
        p.advance();
        p.skipNL();
        const nameTok = p.tok;
        const name = memberName(nameTok);
        if (name === null) throw p.fail("member name");
        p.advance();
        const optional = t.kind === "?.";
        if (p.at("(")) {
          const args = parseCallArgs(p);
          expr = optional
            ? { kind: "OptionalMethodCall", object: expr, method: name, methodSpan: tokenSpan(nameTok), args, span: p.spanFrom(start) }
            : { kind: "MethodCall", object: expr, method: name, methodSpan: tokenSpan(nameTok), args, span: p.spanFrom(start) };
        } else {
          expr = optional
            ? { kind: "OptionalPropertyAccess", object: expr, property: name, propertySpan: tokenSpan(nameTok), span: p.spanFrom(start) }
            : { kind: "PropertyAccess", object: expr, property: name, propertySpan: tokenSpan(nameTok), span: p.spanFrom(start) };
        }
        continue;
      }
      case "[":
        expr = parseSubscript(p, expr, start);
        continue;
      case "?": {
        const next = p.peek(1);
        if (next === "[") {
          p.advance();
          p.advance();
          const index = parseExpr(p);
          p.consume("]");
          expr = { kind: "OptionalSubscriptAccess", object: expr, index, span: p.spanFrom(start) };
          continue;
        }
        if (startsTernaryBranch(next)) return p.endChain(depth, peak, expr);
        p.advance();
        expr = { kind: "TryOperator", operand: expr, span: p.spanFrom(start) };
        continue;
      }
      case "(":
        // Calls only on a bare name (§5.3); otherwise the `(` is left over.
        if (expr.kind !== "Identifier") return p.endChain(depth, peak, expr);
        expr = {
          kind: "FunctionCall",
          name: expr.name,
          nameSpan: expr.span,
          typeArgs: [],
          args: parseCallArgs(p),
          span: p.spanFrom(start),
        };
        continue;
      case "<": {
        if (expr.kind !== "Identifier") return p.endChain(depth, peak, expr);
        const call = tryGenericCall(p, expr.name, expr.span, start);
        if (call === null) return p.endChain(depth, peak, expr);
        expr = call;
        continue;
      }
      case "{": {
        if (expr.kind !== "Identifier" || !isUppercaseStart(expr.name) || !looksLikeStructBody(p)) return p.endChain(depth, peak, expr);
        const fields = parseDictEntries(p);
        const node: StructConstruct = { kind: "StructConstruct", structName: expr.name, fields, span: p.spanFrom(start) };
        expr = node;
        continue;
      }
      default:
        return p.endChain(depth, peak, expr);
    }
  }
}

/** `[i]`, `[a:b]`, `[:b]`, `[a:]`, `[:]` (§5.3). */
function parseSubscript(p: ParserState, object: Node, start: number): Node {
  p.advance(); // [
  if (p.at(":")) {
    p.advance();
    const end = p.at("]") ? null : parseExpr(p);
    p.consume("]");
    return { kind: "SliceAccess", object, start: null, end, span: p.spanFrom(start) };
  }
  const index = parseExpr(p);
  if (p.at(":")) {
    p.advance();
    const end = p.at("]") ? null : parseExpr(p);
    p.consume("]");
    return { kind: "SliceAccess", object, start: index, end, span: p.spanFrom(start) };
  }
  p.consume("]");
  return { kind: "SubscriptAccess", object, index, span: p.spanFrom(start) };
}

/** `name<T, …>(args)`: the type list is parsed speculatively; when it does
 * not parse or no `(` follows, the cursor is restored and `<` is a
 * comparison (§5.11). Errors in the arguments are real errors. */
function tryGenericCall(p: ParserState, name: string, nameSpan: Span, start: number): Node | null {
  const save = p.pos;
  let typeArgs;
  p.speculating++;
  try {
    p.advance(); // <
    typeArgs = parseTypeArgs(p);
  } catch (e) {
    if (!(e instanceof ParseFailure)) throw e;
    p.pos = save;
    return null;
  } finally {
    p.speculating--;
  }
  if (!p.at("(")) {
    p.pos = save;
    return null;
  }
  const args = parseCallArgs(p);
  return { kind: "FunctionCall", name, nameSpan, typeArgs, args, span: p.spanFrom(start) };
}

/** Struct construction lookahead (§5.8): after `{` (and newlines) comes `}`,
 * or an identifier / plain string followed (after newlines) by `:`. */
function looksLikeStructBody(p: ParserState): boolean {
  const toks = p.toks;
  let i = p.pos + 1;
  while (toks[i]!.kind === "NL") i++;
  const k = toks[i]!.kind;
  if (k === "}") return true;
  if (k !== "Ident" && k !== "String") return false;
  i++;
  while (toks[i]!.kind === "NL") i++;
  return toks[i]!.kind === ":";
}

/** `( args )` — the `(` is the current token. Commas are optional (§5.6). */
export function parseCallArgs(p: ParserState): Node[] {
  p.advance(); // (
  const args = parseElements(p, ")");
  p.consume(")");
  return args;
}

/** Elements of a list literal or argument list, up to (not including) the
 * closer: `~ ( element ~ ( ',' ~ )? )*`, where an element may be a spread. */
function parseElements(p: ParserState, closer: TokenKind): Node[] {
  const items: Node[] = [];
  p.skipNL();
  while (!p.at(closer) && !p.at("EOF")) {
    items.push(parseElement(p));
    p.skipNL();
    if (p.at(",")) {
      p.advance();
      p.skipNL();
    }
  }
  return items;
}

function atSpread(p: ParserState): boolean {
  if (!p.at(".") || p.peek(1) !== ".") return false;
  // the third `.` may follow after newlines (§5.6)
  let i = p.pos + 2;
  while (p.toks[i]!.kind === "NL") i++;
  return p.toks[i]!.kind === ".";
}

function parseElement(p: ParserState): Node {
  if (atSpread(p)) return parseSpread(p);
  return parseExpr(p);
}

function parseSpread(p: ParserState): Node {
  const start = p.pos;
  p.advance();
  p.advance();
  p.consume(".");
  const expr = parseExpr(p);
  return { kind: "Spread", expr, span: p.spanFrom(start) };
}

// ---------------------------------------------------------------------------
// Primaries (§5.5)

export function parsePrimary(p: ParserState): Node {
  const t = p.tok;
  const start = p.pos;
  switch (t.kind) {
    case "Int":
      p.advance();
      return { kind: "IntLiteral", value: t.value as bigint, span: tokenSpan(t) };
    case "Float":
      p.advance();
      return { kind: "FloatLiteral", value: t.value as number, span: tokenSpan(t) };
    case "Duration":
      p.advance();
      return { kind: "DurationLiteral", ms: t.value as bigint, span: tokenSpan(t) };
    case "String":
      p.advance();
      return { kind: "StringLiteral", value: t.value as string, span: tokenSpan(t) };
    case "IString":
      p.advance();
      return parseInterpolatedString(t, p);
    case "RString":
      p.advance();
      return { kind: "RawStringLiteral", value: t.value as string, span: tokenSpan(t) };
    case "true":
    case "false":
      p.advance();
      return { kind: "BoolLiteral", value: t.kind === "true", span: tokenSpan(t) };
    case "nil":
      p.advance();
      return { kind: "NilLiteral", span: tokenSpan(t) };
    case "Ident":
      p.advance();
      return { kind: "Identifier", name: t.value as string, span: tokenSpan(t) };
    case "(": {
      // Parentheses make no node of their own.
      p.advance();
      const inner = parseExpr(p);
      p.consume(")");
      return inner;
    }
    case "[": {
      p.advance();
      const elements = parseElements(p, "]");
      p.consume("]");
      return { kind: "ListLiteral", elements, span: p.spanFrom(start) };
    }
    case "{":
      return parseBraceExpression(p);
    case "if":
      return parseIf(p);
    case "match":
      return parseMatch(p);
    case "try":
      return parseTry(p);
    case "parallel":
      return parseParallel(p);
    case "retry": {
      p.advance();
      const count = parsePrimary(p);
      const body = parseBlock(p);
      return { kind: "Retry", count, body, span: p.spanFrom(start) };
    }
    case "deadline": {
      p.advance();
      const duration = parsePrimary(p);
      const body = parseBlock(p);
      return { kind: "DeadlineBlock", duration, body, span: p.spanFrom(start) };
    }
    case "spawn": {
      p.advance();
      const body = parseBlock(p);
      return { kind: "SpawnExpr", body, span: p.spanFrom(start) };
    }
    case "fn": {
      // Anonymous function: no return type (§5.7).
      p.advance();
      p.consume("(");
      const params = parseTypedParams(p, ")");
      p.consume(")");
      const body = parseBlock(p);
      return { kind: "Closure", params, body, fnSyntax: true, span: p.spanFrom(start) };
    }
    case "<":
      if (p.peek(1) === "<" && p.peek(2) === "Ident") {
        throw p.fail(
          "an expression — heredocs are only valid inside LLM tool-call argument JSON; for multiline strings in source code use triple-quoted `\"\"\"...\"\"\"`",
          "`<<` heredoc-like syntax",
        );
      }
      throw p.fail("expression");
    default:
      throw p.fail("expression");
  }
}

/** `{` at a primary position: empty dict, closure or dict (§5.7). */
function parseBraceExpression(p: ParserState): Node {
  const start = p.pos;
  const toks = p.toks;
  let i = p.pos + 1;
  while (toks[i]!.kind === "NL") i++;
  if (toks[i]!.kind === "}") {
    p.pos = i + 1;
    return { kind: "DictLiteral", entries: [], span: p.spanFrom(start) };
  }
  if (!hasArrowAtDepthZero(p)) {
    const entries = parseDictEntries(p);
    return { kind: "DictLiteral", entries, span: p.spanFrom(start) };
  }
  p.advance(); // {
  const params = parseTypedParams(p, "->");
  p.consume("->");
  const body = parseBlockRest(p);
  return { kind: "Closure", params, body, fnSyntax: false, span: p.spanFrom(start) };
}

/** Scans from after the current `{` to its matching `}`: is there an `->`
 * at nesting depth 0? */
function hasArrowAtDepthZero(p: ParserState): boolean {
  const toks = p.toks;
  let depth = 0;
  for (let i = p.pos + 1; ; i++) {
    const k = toks[i]!.kind;
    switch (k) {
      case "->":
        if (depth === 0) return true;
        break;
      case "{":
      case "(":
      case "[":
        depth++;
        break;
      case "}":
      case ")":
      case "]":
        if (depth === 0) return false;
        depth--;
        break;
      case "EOF":
        return false;
      default:
        break;
    }
  }
}

/** `{ entry, … }` of a dict literal or struct construction; the `{` is the
 * current token. */
export function parseDictEntries(p: ParserState): DictEntry[] {
  p.advance(); // {
  const entries: DictEntry[] = [];
  p.skipNL();
  while (!p.at("}") && !p.at("EOF")) {
    entries.push(parseDictEntry(p));
    p.skipNL();
    if (p.at(",")) {
      p.advance();
      p.skipNL();
    }
  }
  p.consume("}");
  return entries;
}

function parseDictEntry(p: ParserState): DictEntry {
  const t = p.tok;
  if (atSpread(p)) {
    const spread = parseSpread(p);
    return { key: { kind: "StringLiteral", value: "", span: spread.span }, value: spread, computed: false };
  }
  if (t.kind === "[") {
    p.advance();
    const key = parseExpr(p);
    p.consume("]");
    p.consume(":");
    return { key, value: parseExpr(p), computed: true };
  }
  if (t.kind === "String") {
    p.advance();
    p.consume(":");
    return { key: { kind: "StringLiteral", value: t.value as string, span: tokenSpan(t) }, value: parseExpr(p), computed: false };
  }
  p.skipNL();
  const nameTok = p.tok;
  const name = memberName(nameTok);
  if (name === null) throw p.fail("dict key");
  p.advance();
  p.consume(":");
  return { key: { kind: "StringLiteral", value: name, span: tokenSpan(nameTok) }, value: parseExpr(p), computed: false };
}
