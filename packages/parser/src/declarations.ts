/**
 * Declarations (spec/syntax.md §3): pipelines, functions, tools, structs,
 * enums, type aliases, interfaces, impl blocks, imports, attributes, `pub`,
 * and the rarer `override`, `skill` and `eval_pack`.
 */
import type { Attribute, FnDecl, Node, StructDecl, ToolDecl } from "./ast";
import { parseExpr } from "./expressions";
import { parseParamNames, parseTypedParams, parseTypeParams } from "./params";
import type { ParserState } from "./state";
import { expectSeparator, parseBlock, parseBlockRest, parseStatement } from "./statements";
import { PUB_EXPECTED, tokenSpan } from "./syntax-error";
import { parseType } from "./types";

/** `pipeline NAME(a, b) [-> T] [extends P] { … }`; `pipeline` is current. */
export function parsePipeline(p: ParserState, start: number, isPub: boolean): Node {
  p.advance();
  const name = p.consumeIdent("pipeline name").value as string;
  p.consume("(");
  const params = parseParamNames(p);
  p.consume(")");
  const returnType = p.at("->") ? (p.advance(), parseType(p)) : null;
  let parent: string | null = null;
  if (p.at("extends")) {
    p.advance();
    parent = p.consumeIdent("parent pipeline name").value as string;
  }
  const body = parseBlock(p);
  return { kind: "Pipeline", name, params, returnType, body, extends: parent, isPub, span: p.spanFrom(start) };
}

/** `fn NAME[<T>](params) [-> T] [where T: B, …] { … }`; `fn` is current. */
export function parseFnDecl(p: ParserState, start: number, isPub: boolean, isStream: boolean): FnDecl {
  p.advance(); // fn
  const nameTok = p.consumeIdent("function name");
  const typeParams = p.at("<") ? (p.advance(), parseTypeParams(p)) : [];
  p.consume("(");
  const params = parseTypedParams(p, ")");
  p.consume(")");
  const returnType = p.at("->") ? (p.advance(), parseType(p)) : null;
  const whereClauses: FnDecl["whereClauses"] = [];
  if (p.atWord("where")) {
    p.advance();
    do {
      const typeName = p.consumeIdent("type name").value as string;
      p.consume(":");
      const bound = p.consumeIdent("type bound").value as string;
      whereClauses.push({ typeName, bound });
      if (p.at(",")) p.advance();
    } while (!p.peekPastNL("{"));
  }
  const body = parseBlock(p);
  return {
    kind: "FnDecl",
    name: nameTok.value as string,
    nameSpan: tokenSpan(nameTok),
    typeParams,
    params,
    returnType,
    whereClauses,
    body,
    isPub,
    isStream,
    span: p.spanFrom(start),
  };
}

const TOOL_SEPARATOR = "tool body item separator";

/**
 * `tool NAME(params) [-> T] { [description "…"] [long_running true] … }`.
 * `description` counts only as the first item and only before a plain
 * string. `long_running BOOL` (extensions.md §1.1) is our addition: a header
 * item before or after the description; `@long_running` works too.
 */
export function parseTool(p: ParserState, start: number, isPub: boolean): ToolDecl {
  p.advance(); // tool
  const nameTok = p.consumeIdent("tool name");
  p.consume("(");
  const params = parseTypedParams(p, ")");
  p.consume(")");
  const returnType = p.at("->") ? (p.advance(), parseType(p)) : null;
  p.consume("{");
  p.skipNL();
  let description: string | null = null;
  let longRunning = false;
  for (;;) {
    if (description === null && p.atWord("description") && p.toks[p.nextSignificantFrom(p.pos + 1)]!.kind === "String") {
      p.advance();
      p.skipNL();
      description = p.advance().value as string;
    } else if (p.atWord("long_running") && (p.peek(1) === "true" || p.peek(1) === "false")) {
      p.advance();
      longRunning = p.advance().kind === "true";
    } else break;
    expectSeparator(p, TOOL_SEPARATOR, "}");
  }
  const body = parseBlockRest(p);
  return {
    kind: "ToolDecl",
    name: nameTok.value as string,
    nameSpan: tokenSpan(nameTok),
    description,
    params,
    returnType,
    body,
    isPub,
    longRunning,
    span: p.spanFrom(start),
  };
}

/** `struct NAME[<T>] { field[?][: T], … }` — commas and newlines optional. */
export function parseStruct(p: ParserState, start: number, isPub: boolean): StructDecl {
  p.advance();
  const name = p.consumeIdent("struct name").value as string;
  const typeParams = p.at("<") ? (p.advance(), parseTypeParams(p)) : [];
  p.consume("{");
  p.skipNL();
  const fields: StructDecl["fields"] = [];
  while (!p.at("}") && !p.at("EOF")) {
    const fieldStart = p.nextSignificant();
    const fieldName = p.consumeIdent("field name").value as string;
    let optional = false;
    if (p.at("?")) {
      p.advance();
      optional = true;
    }
    const type = p.at(":") ? (p.advance(), parseType(p)) : null;
    fields.push({ name: fieldName, type, optional, span: p.spanFrom(fieldStart) });
    p.skipNL();
    if (p.at(",")) {
      p.advance();
      p.skipNL();
    }
  }
  p.consume("}");
  return { kind: "StructDecl", name, typeParams, fields, isPub, span: p.spanFrom(start) };
}

/** `enum NAME[<T>] { Variant[(params)], … }`. */
export function parseEnum(p: ParserState, start: number, isPub: boolean): Node {
  p.advance();
  const name = p.consumeIdent("enum name").value as string;
  const typeParams = p.at("<") ? (p.advance(), parseTypeParams(p)) : [];
  p.consume("{");
  p.skipNL();
  const variants: { name: string; fields: ReturnType<typeof parseTypedParams>; span: ReturnType<ParserState["spanFrom"]> }[] = [];
  while (!p.at("}") && !p.at("EOF")) {
    const variantStart = p.nextSignificant();
    const variantName = p.consumeIdent("variant name").value as string;
    let fields: ReturnType<typeof parseTypedParams> = [];
    if (p.at("(")) {
      p.advance();
      fields = parseTypedParams(p, ")");
      p.consume(")");
    }
    variants.push({ name: variantName, fields, span: p.spanFrom(variantStart) });
    p.skipNL();
    if (p.at(",")) {
      p.advance();
      p.skipNL();
    }
  }
  p.consume("}");
  return { kind: "EnumDecl", name, typeParams, variants, isPub, span: p.spanFrom(start) };
}

/** `type NAME[<T>] = T`. */
export function parseTypeDecl(p: ParserState): Node {
  const start = p.pos;
  p.advance();
  const name = p.consumeIdent("type name").value as string;
  const typeParams = p.at("<") ? (p.advance(), parseTypeParams(p)) : [];
  p.consume("=");
  const type = parseType(p);
  return { kind: "TypeDecl", name, typeParams, type, span: p.spanFrom(start) };
}

/** `interface NAME[<T>] { type Item [= T]  fn m(params) [-> T] … }` — no bodies. */
export function parseInterface(p: ParserState): Node {
  const start = p.pos;
  p.advance();
  const name = p.consumeIdent("interface name").value as string;
  const typeParams = p.at("<") ? (p.advance(), parseTypeParams(p)) : [];
  p.consume("{");
  p.skipNL();
  const associatedTypes: { name: string; type: ReturnType<typeof parseType> | null }[] = [];
  const methods: {
    name: string;
    typeParams: ReturnType<typeof parseTypeParams>;
    params: ReturnType<typeof parseTypedParams>;
    returnType: ReturnType<typeof parseType> | null;
    span: ReturnType<ParserState["spanFrom"]>;
  }[] = [];
  while (!p.at("}") && !p.at("EOF")) {
    if (p.at("type")) {
      p.advance();
      const typeName = p.consumeIdent("associated type name").value as string;
      const type = p.at("=") ? (p.advance(), parseType(p)) : null;
      associatedTypes.push({ name: typeName, type });
    } else {
      const methodStart = p.nextSignificant();
      p.consume("fn");
      const methodName = p.consumeIdent("method name").value as string;
      const methodTypeParams = p.at("<") ? (p.advance(), parseTypeParams(p)) : [];
      p.consume("(");
      const params = parseTypedParams(p, ")");
      p.consume(")");
      const returnType = p.at("->") ? (p.advance(), parseType(p)) : null;
      methods.push({ name: methodName, typeParams: methodTypeParams, params, returnType, span: p.spanFrom(methodStart) });
    }
    p.skipNL();
  }
  p.consume("}");
  return { kind: "InterfaceDecl", name, typeParams, associatedTypes, methods, span: p.spanFrom(start) };
}

/** `impl NAME { [pub] fn … }` — only functions. */
export function parseImpl(p: ParserState): Node {
  const start = p.pos;
  p.advance();
  const typeName = p.consumeIdent("type name").value as string;
  p.consume("{");
  p.skipNL();
  const methods: FnDecl[] = [];
  while (!p.at("}") && !p.at("EOF")) {
    const methodStart = p.pos;
    let isPub = false;
    if (p.at("pub")) {
      p.advance();
      isPub = true;
    }
    if (!p.at("fn")) throw p.fail("fn");
    methods.push(parseFnDecl(p, methodStart, isPub, false));
    p.skipNL();
  }
  p.consume("}");
  return { kind: "ImplBlock", typeName, methods, span: p.spanFrom(start) };
}

/** `import "path"` or `import { a, b } from "path"`; `import` is current. */
export function parseImport(p: ParserState, start: number, isPub: boolean): Node {
  p.advance();
  if (p.at("String")) {
    const path = p.advance().value as string;
    return { kind: "ImportDecl", path, isPub, span: p.spanFrom(start) };
  }
  if (!p.at("{")) throw p.fail("import path string");
  p.advance();
  p.skipNL();
  const names: string[] = [];
  const nameSpans = [];
  while (!p.at("}") && !p.at("EOF")) {
    const t = p.consumeIdent("import name");
    names.push(t.value as string);
    nameSpans.push(tokenSpan(t));
    p.skipNL();
    if (p.at(",")) {
      p.advance();
      p.skipNL();
    }
  }
  p.consume("}");
  p.consume("from");
  if (!p.at("String")) throw p.fail("import path string");
  const path = p.advance().value as string;
  return { kind: "SelectiveImport", names, nameSpans, path, isPub, span: p.spanFrom(start) };
}

/** After `pub`: the declaration must follow on the same line (§3.13). */
export function parseDeclarationAfterPub(p: ParserState): Node {
  const start = p.pos;
  p.advance(); // pub
  switch (p.tok.kind) {
    case "fn":
      return parseFnDecl(p, start, true, false);
    case "tool":
      return parseTool(p, start, true);
    case "skill":
      return parseSkill(p, start, true);
    case "eval_pack":
      return parseEvalPack(p, start, true);
    case "pipeline":
      return parsePipeline(p, start, true);
    case "enum":
      return parseEnum(p, start, true);
    case "struct":
      return parseStruct(p, start, true);
    case "import":
      return parseImport(p, start, true);
    case "Ident":
      if (p.tok.value === "gen" && p.peek(1) === "fn") {
        p.advance();
        return parseFnDecl(p, start, true, true);
      }
      break;
    default:
      break;
  }
  throw p.fail(PUB_EXPECTED);
}

/** Declarations that may carry attributes (§3.11). */
function isAttributable(p: ParserState): boolean {
  switch (p.tok.kind) {
    case "pipeline":
    case "fn":
    case "tool":
    case "skill":
    case "eval_pack":
    case "struct":
    case "enum":
    case "type":
    case "interface":
    case "impl":
      return true;
    case "pub":
      return true;
    case "Ident":
      return p.tok.value === "gen" && p.peek(1) === "fn";
    default:
      return false;
  }
}

const AFTER_ATTRIBUTES = "fn/tool/skill/eval_pack/pipeline/struct/enum/type/interface/impl declaration after `@attr`";

/** `@name[(args)]` lines followed by a declaration. */
export function parseAttributed(p: ParserState): Node {
  const start = p.pos;
  const attributes: Attribute[] = [];
  while (p.at("@")) {
    attributes.push(parseAttribute(p));
    p.skipNL();
  }
  if (!isAttributable(p)) throw p.fail(AFTER_ATTRIBUTES, "non-declaration statement");
  const inner = p.at("pipeline") ? parsePipeline(p, p.pos, false) : parseStatement(p);
  if (inner.kind === "ToolDecl" && attributes.some((a) => a.name === "long_running")) inner.longRunning = true;
  return { kind: "AttributedDecl", attributes, inner, span: p.spanFrom(start) };
}

function parseAttribute(p: ParserState): Attribute {
  const start = p.pos;
  p.advance(); // @
  const name = p.consumeIdent("attribute name").value as string;
  const args: Attribute["args"] = [];
  if (p.at("(")) {
    p.advance();
    p.skipNL();
    while (!p.at(")")) {
      let argName: string | null = null;
      if (p.at("Ident") && p.peek(1) === ":") {
        argName = p.advance().value as string;
        p.advance();
      }
      args.push({ name: argName, value: parseAttributeValue(p) });
      p.skipNL();
      if (!p.at(",")) break;
      p.advance();
      p.skipNL();
    }
    p.consume(")");
  }
  return { name, args, span: p.spanFrom(start) };
}

function parseAttributeValue(p: ParserState): Node {
  p.skipNL();
  const start = p.pos;
  const t = p.tok;
  switch (t.kind) {
    case "String":
    case "Int":
    case "Float":
    case "true":
    case "false":
    case "nil":
    case "Ident":
    case "RString":
      return parseLiteralToken(p);
    case "-": {
      p.advance();
      const n = p.tok;
      if (n.kind === "Int") {
        p.advance();
        return { kind: "IntLiteral", value: -(n.value as bigint), span: p.spanFrom(start) };
      }
      if (n.kind === "Float") {
        p.advance();
        return { kind: "FloatLiteral", value: -(n.value as number), span: p.spanFrom(start) };
      }
      throw p.fail("number after '-' in attribute argument");
    }
    case "[": {
      p.advance();
      p.skipNL();
      const elements: Node[] = [];
      while (!p.at("]")) {
        elements.push(parseAttributeValue(p));
        p.skipNL();
        if (!p.at(",")) break;
        p.advance();
        p.skipNL();
      }
      p.consume("]");
      return { kind: "ListLiteral", elements, span: p.spanFrom(start) };
    }
    default:
      throw p.fail("attribute argument value (literal or identifier)");
  }
}

function parseLiteralToken(p: ParserState): Node {
  const t = p.advance();
  const span = tokenSpan(t);
  switch (t.kind) {
    case "String":
      return { kind: "StringLiteral", value: t.value as string, span };
    case "RString":
      return { kind: "RawStringLiteral", value: t.value as string, span };
    case "Int":
      return { kind: "IntLiteral", value: t.value as bigint, span };
    case "Float":
      return { kind: "FloatLiteral", value: t.value as number, span };
    case "true":
    case "false":
      return { kind: "BoolLiteral", value: t.kind === "true", span };
    case "nil":
      return { kind: "NilLiteral", span };
    default:
      return { kind: "Identifier", name: t.value as string, span };
  }
}

/** `override NAME(a, b) { … }` inside an extending pipeline (§3.12). */
export function parseOverride(p: ParserState): Node {
  const start = p.pos;
  p.advance();
  const name = p.consumeIdent("override name").value as string;
  p.consume("(");
  const params = parseParamNames(p);
  p.consume(")");
  const body = parseBlock(p);
  return { kind: "OverrideDecl", name, params, body, span: p.spanFrom(start) };
}

/** `skill NAME { field expr … }` — entries separated by `;` or newlines. */
export function parseSkill(p: ParserState, start: number, isPub: boolean): Node {
  p.advance();
  const name = p.consumeIdent("skill name").value as string;
  p.consume("{");
  p.skipNL();
  const fields: [string, Node][] = [];
  while (!p.at("}") && !p.at("EOF")) {
    const field = p.consumeIdent("skill field name").value as string;
    fields.push([field, parseExpr(p)]);
    expectSeparator(p, "skill field separator", "}");
  }
  p.consume("}");
  return { kind: "SkillDecl", name, fields, isPub, span: p.spanFrom(start) };
}

/**
 * `eval_pack [NAME] ["id"] { … }`: manifest fields `name: expr` (an
 * identifier directly followed by `:`), at most one `summarize { … }`, and
 * ordinary statements (§3.12). Without NAME the pack binds the name derived
 * from its id (workflows.md §4.7).
 */
export function parseEvalPack(p: ParserState, start: number, isPub: boolean): Node {
  p.advance();
  let bindingName: string | null = null;
  let packId: string | null = null;
  if (p.at("Ident")) bindingName = p.advance().value as string;
  if (p.at("String")) packId = p.advance().value as string;
  if (bindingName === null && packId === null) p.consumeIdent("eval_pack name");
  bindingName ??= evalPackBindingName(packId ?? "");
  p.consume("{");
  p.skipNL();
  const fields: [string, Node][] = [];
  const body: Node[] = [];
  let summarize: Node[] | null = null;
  while (!p.at("}") && !p.at("EOF")) {
    if (p.at("Ident") && p.peek(1) === ":") {
      const field = p.advance().value as string;
      p.advance();
      fields.push([field, parseExpr(p)]);
      expectSeparator(p, "eval_pack field separator", "}");
    } else if (p.atWord("summarize") && p.peek(1) === "{") {
      p.advance();
      summarize = parseBlock(p);
      expectSeparator(p, "eval_pack item separator", "}");
    } else {
      body.push(parseStatement(p));
      expectSeparator(p, "eval_pack body statement separator", "}");
    }
  }
  p.consume("}");
  return { kind: "EvalPackDecl", bindingName, packId, fields, body, summarize, isPub, span: p.spanFrom(start) };
}

/** The name `eval_pack "some id" { … }` binds: the id lowercased, runs of
 * other characters than ASCII letters and digits as `_`, trimmed of `_`
 * (`eval_pack_` when nothing is left). */
export function evalPackBindingName(id: string): string {
  const name = id.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
  return name === "" ? "eval_pack_" : name;
}
