/**
 * Type expressions (spec/syntax.md §8). A union's `|` must end the line to
 * continue it; `T?`, parenthesised types and `||` are not types.
 */
import type { ShapeField, TypeExpr } from "./ast";
import { memberName } from "./expressions";
import type { ParserState } from "./state";

/** `type ::= ~ type_primary ( '|' ~ type_primary )*` */
export function parseType(p: ParserState): TypeExpr {
  p.skipNL();
  const start = p.pos;
  const first = parseTypePrimary(p);
  if (!p.at("|")) return first;
  const types = [first];
  while (p.at("|")) {
    p.advance();
    types.push(parseTypePrimary(p));
  }
  return { kind: "Union", types, span: p.spanFrom(start) };
}

function parseTypePrimary(p: ParserState): TypeExpr {
  p.skipNL();
  const start = p.pos;
  const t = p.tok;
  switch (t.kind) {
    case "{":
      return parseShape(p);
    case "[": {
      p.advance();
      const elem = parseType(p);
      p.consume("]");
      return { kind: "List", elem, span: p.spanFrom(start) };
    }
    case "nil":
      p.advance();
      return { kind: "Named", name: "nil", span: p.spanFrom(start) };
    case "true":
    case "false":
      p.advance();
      return { kind: "Named", name: "bool", span: p.spanFrom(start) };
    case "String":
    case "RString":
      p.advance();
      return { kind: "LitString", value: t.value as string, span: p.spanFrom(start) };
    case "Int":
      p.advance();
      return { kind: "LitInt", value: t.value as bigint, span: p.spanFrom(start) };
    case "-": {
      if (p.peek(1) !== "Int") break;
      p.advance();
      const n = p.advance();
      return { kind: "LitInt", value: -(n.value as bigint), span: p.spanFrom(start) };
    }
    case "fn": {
      p.advance();
      p.consume("(");
      const params: TypeExpr[] = [];
      p.skipNL();
      while (!p.at(")") && !p.at("EOF")) {
        params.push(parseType(p));
        p.skipNL();
        if (p.at(",")) {
          p.advance();
          p.skipNL();
        }
      }
      p.consume(")");
      p.consume("->");
      const ret = parseType(p);
      return { kind: "FnType", params, ret, span: p.spanFrom(start) };
    }
    default:
      break;
  }
  const name = p.consumeIdent("type name").value as string;
  if (name === "never") return { kind: "Never", span: p.spanFrom(start) };
  if (!p.at("<")) return { kind: "Named", name, span: p.spanFrom(start) };
  p.advance();
  const args = parseTypeArgs(p);
  const span = p.spanFrom(start);
  switch (name) {
    case "list":
      if (args.length === 1) return { kind: "List", elem: args[0]!, span };
      break;
    case "dict":
      if (args.length === 2) return { kind: "Dict", key: args[0]!, value: args[1]!, span };
      break;
    case "iter":
    case "Iter":
      if (args.length === 1) return { kind: "Iter", elem: args[0]!, span };
      break;
    case "Generator":
    case "generator":
      if (args.length === 1) return { kind: "Generator", elem: args[0]!, span };
      break;
    case "Stream":
    case "stream":
      if (args.length === 1) return { kind: "Stream", elem: args[0]!, span };
      break;
    default:
      break;
  }
  return { kind: "Applied", name, args, span };
}

/** Type arguments after `<`: at least one, newlines anywhere; consumes `>`. */
export function parseTypeArgs(p: ParserState): TypeExpr[] {
  p.skipNL();
  if (p.at(">")) throw p.fail("type argument");
  const args = [parseType(p)];
  p.skipNL();
  while (p.at(",")) {
    p.advance();
    p.skipNL();
    args.push(parseType(p));
    p.skipNL();
  }
  p.consume(">");
  return args;
}

/** `{ name?: T, … }`; field names may be keywords except the five of §5.10. */
function parseShape(p: ParserState): TypeExpr {
  const start = p.pos;
  p.advance(); // {
  const fields: ShapeField[] = [];
  p.skipNL();
  while (!p.at("}") && !p.at("EOF")) {
    const name = memberName(p.tok);
    if (name === null) throw p.fail("field name");
    p.advance();
    let optional = false;
    if (p.at("?")) {
      p.advance();
      optional = true;
    }
    p.consume(":");
    fields.push({ name, type: parseType(p), optional });
    p.skipNL();
    if (p.at(",")) {
      p.advance();
      p.skipNL();
    }
  }
  p.consume("}");
  return { kind: "Shape", fields, span: p.spanFrom(start) };
}
