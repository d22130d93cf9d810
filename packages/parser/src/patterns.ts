/**
 * Binding patterns of `let`, `var` and `for` (spec/syntax.md §6.1).
 *
 * Newline trap [quirk]: inside `{…}`/`[…]` newlines are skipped only before a
 * name, never before the closing bracket (except right after `...rest`) and
 * never before `...rest`; patterns do not nest.
 */
import type { DictPatternField, ListPatternElement, Pattern } from "./ast";
import { parseExpr } from "./expressions";
import type { ParserState } from "./state";

export function parseBindingPattern(p: ParserState): Pattern {
  p.skipNL();
  if (p.at("{")) return parseDictPattern(p);
  if (p.at("[")) return parseListPattern(p);
  const start = p.pos;
  const name = p.consumeIdent("variable name or destructuring pattern").value as string;
  return { kind: "ident", name, span: p.spanFrom(start) };
}

function atRest(p: ParserState): boolean {
  return p.at(".") && p.peek(1) === "." && p.peek(2) === ".";
}

function parseDictPattern(p: ParserState): Pattern {
  const start = p.pos;
  p.advance(); // {
  const fields: DictPatternField[] = [];
  while (!p.at("}")) {
    const fieldStart = p.pos;
    if (atRest(p)) {
      p.pos += 3;
      const name = p.consumeIdent("rest variable name").value as string;
      fields.push({ key: name, alias: null, default: null, rest: true, span: p.spanFrom(fieldStart) });
      p.consume("}");
      return { kind: "dict", fields, span: p.spanFrom(start) };
    }
    const key = p.consumeIdent("field name").value as string;
    let alias: string | null = null;
    if (p.at(":")) {
      p.advance();
      alias = p.consumeIdent("alias name").value as string;
    }
    const def = p.at("=") ? (p.advance(), parseExpr(p)) : null;
    fields.push({ key, alias, default: def, rest: false, span: p.spanFrom(fieldStart) });
    if (p.at(",")) p.advance();
  }
  p.advance(); // }
  return { kind: "dict", fields, span: p.spanFrom(start) };
}

function parseListPattern(p: ParserState): Pattern {
  const start = p.pos;
  p.advance(); // [
  const elements: ListPatternElement[] = [];
  while (!p.at("]")) {
    const elemStart = p.pos;
    if (atRest(p)) {
      p.pos += 3;
      const name = p.consumeIdent("rest variable name").value as string;
      elements.push({ name, default: null, rest: true, span: p.spanFrom(elemStart) });
      p.consume("]");
      return { kind: "list", elements, span: p.spanFrom(start) };
    }
    const name = p.consumeIdent("element name").value as string;
    const def = p.at("=") ? (p.advance(), parseExpr(p)) : null;
    elements.push({ name, default: def, rest: false, span: p.spanFrom(elemStart) });
    if (p.at(",")) p.advance();
  }
  p.advance(); // ]
  return { kind: "list", elements, span: p.spanFrom(start) };
}
