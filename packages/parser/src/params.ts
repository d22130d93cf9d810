/**
 * Parameter lists (spec/syntax.md §3.1, §3.3) and type-parameter lists (§8).
 *
 * All of them share the reference's newline rule [quirk]: newlines are
 * skipped before a parameter, but a parameter not followed by a comma makes
 * the parser look for another parameter, so a closer on its own line needs
 * a trailing comma after the last parameter.
 */
import type { TokenKind } from "@harn/lexer";
import type { Param, TypeParam } from "./ast";
import { parseExpr } from "./expressions";
import type { ParserState } from "./state";
import { parseType } from "./types";

const DEFAULT_ORDER = "Required parameter cannot follow a parameter with a default value";
const REST_LAST = "Rest parameter must be the last parameter";

/** Typed parameters up to (not including) `terminator` (`)` or the `->` of a
 * closure). Commas are optional [quirk]. */
export function parseTypedParams(p: ParserState, terminator: TokenKind): Param[] {
  const params: Param[] = [];
  let seenDefault = false;
  p.skipNL();
  while (!p.at(terminator)) {
    const start = p.pos;
    let rest = false;
    if (p.at(".") && p.peek(1) === "." && p.peek(2) === ".") {
      p.advance();
      p.advance();
      p.advance();
      rest = true;
    }
    const name = p.consumeIdent("parameter name").value as string;
    const type = p.at(":") ? (p.advance(), parseType(p)) : null;
    const def = p.at("=") ? (p.advance(), parseExpr(p)) : null;
    params.push({ name, type, default: def, rest, span: p.spanFrom(start) });
    if (rest) {
      // The terminator must follow directly, on the same line.
      if (!p.at(terminator)) throw p.fail(REST_LAST);
      break;
    }
    if (def !== null) seenDefault = true;
    else if (seenDefault) throw p.fail(DEFAULT_ORDER);
    if (p.at(",")) {
      p.advance();
      p.skipNL();
    }
  }
  return params;
}

/** Untyped parameter names of pipelines and overrides (§3.1). */
export function parseParamNames(p: ParserState): string[] {
  const names: string[] = [];
  p.skipNL();
  while (!p.at(")")) {
    names.push(p.consumeIdent("parameter name").value as string);
    if (p.at(",")) {
      p.advance();
      p.skipNL();
    }
  }
  return names;
}

/** `<in T, out U, V>` after the `<` (§8); consumes the closing `>`. */
export function parseTypeParams(p: ParserState): TypeParam[] {
  const params: TypeParam[] = [];
  p.skipNL();
  while (!p.at(">")) {
    let variance: TypeParam["variance"] = "invariant";
    if (p.at("in")) {
      p.advance();
      variance = "contravariant";
    } else if (p.atWord("out") && p.toks[nextSignificantAfter(p, 1)]!.kind === "Ident") {
      // `out` is a marker only when another name follows (`<out>` is a name).
      p.advance();
      variance = "covariant";
    }
    const name = p.consumeIdent("type parameter name").value as string;
    params.push({ name, variance });
    if (p.at(",")) {
      p.advance();
      p.skipNL();
    }
  }
  p.advance(); // >
  return params;
}

function nextSignificantAfter(p: ParserState, n: number): number {
  let i = p.pos + n;
  while (p.toks[i]!.kind === "NL") i++;
  return i;
}
