/**
 * The parser's one child walk (src/visit.ts): what each kind of walker
 * sees — statement lists with their roles, interpolations and annotations
 * through their hooks or as plain children — and the pattern helpers.
 */
import { describe, expect, it } from "vitest";
import { forEachChild, forEachPatternName, parse, patternNames, walkChildren, type BlockRole, type Node, type Pattern } from "../src/index";

function program(src: string): Node[] {
  const r = parse(src);
  expect(r.errors.map((e) => e.message)).toEqual([]);
  return r.program.items;
}

/** Every block under `items`, as `Owner.role[statement count]`, in walk order. */
function blocks(items: Node[]): string[] {
  const out: string[] = [];
  const visit = (n: Node): void =>
    walkChildren(n, {
      node: visit,
      block: (stmts, owner, role: BlockRole) => {
        out.push(`${owner.kind}.${role}[${stmts.length}]`);
        stmts.forEach(visit);
      },
    });
  items.forEach(visit);
  return out;
}

/** Kinds of every node reached by flat `forEachChild`, pre-order. */
function kinds(items: Node[]): string[] {
  const out: string[] = [];
  const visit = (n: Node): void => {
    out.push(n.kind);
    forEachChild(n, visit);
  };
  items.forEach(visit);
  return out;
}

describe("walkChildren", () => {
  it("reports each statement list with the role it plays in its owner", () => {
    const src = [
      "fn f(x = 1) {",
      "  if x { a() } else { b() }",
      "  for i in xs { c() }",
      "  while x { d() }",
      "  match x { 1 -> { e() } _ -> { } }",
      "  try { g() } catch (err) { } finally { h() }",
      "  try { g() } finally { }",
      "  guard x else { return 1 }",
      "  defer { i() }",
      "  select {",
      "    v from ch { j() }",
      "    default { k() }",
      "  }",
      "}",
    ].join("\n");
    expect(blocks(program(src))).toEqual([
      "FnDecl.body[9]",
      "IfElse.then[1]",
      "IfElse.else[1]",
      "ForIn.loop[1]",
      "WhileLoop.loop[1]",
      "MatchExpr.arm[1]",
      "MatchExpr.arm[0]",
      "TryCatch.try[1]",
      "TryCatch.catch[0]",
      "TryCatch.finally[1]",
      // no catch clause: no catch block, not even an empty one
      "TryCatch.try[1]",
      "TryCatch.finally[0]",
      "GuardStmt.guardElse[1]",
      "DeferStmt.defer[1]",
      "SelectExpr.selectCase[1]",
      "SelectExpr.selectDefault[1]",
    ]);
  });

  it("gives interpolations and annotations to their hooks, and to `node` without them", () => {
    const items = program('@meta(level: 2)\nfn f() { log("${a + 1}") }');
    const seen = { node: [] as string[], interpolation: [] as string[], annotation: [] as string[] };
    const visit = (n: Node): void =>
      walkChildren(n, {
        node: (c) => {
          seen.node.push(c.kind);
          visit(c);
        },
        interpolation: (e) => seen.interpolation.push(e.kind),
        annotation: (e) => seen.annotation.push(e.kind),
      });
    items.forEach(visit);
    expect(seen).toEqual({
      node: ["FnDecl", "FunctionCall", "InterpolatedString"],
      interpolation: ["BinaryOp"],
      annotation: ["IntLiteral"],
    });
    expect(kinds(items)).toEqual(["AttributedDecl", "IntLiteral", "FnDecl", "FunctionCall", "InterpolatedString", "BinaryOp", "Identifier", "IntLiteral"]);
  });

  it("visits parameter and pattern defaults before what uses them", () => {
    expect(kinds(program("let {a = 1, b} = f(2)\nfor [x = 3] in ys { }"))).toEqual([
      "LetBinding",
      "IntLiteral",
      "FunctionCall",
      "IntLiteral",
      "ForIn",
      "IntLiteral",
      "Identifier",
    ]);
  });
});

describe("pattern names", () => {
  const patternOf = (src: string): Pattern => {
    const n = program(src)[0]!;
    if (n.kind !== "LetBinding") throw new Error("expected a let");
    return n.pattern;
  };

  it("lists the names a pattern binds; `_` binds nothing", () => {
    expect(patternNames(patternOf("let {a, b: c, _} = d"))).toEqual(["a", "c"]);
    expect(patternNames(patternOf("let [x, _, y] = d"))).toEqual(["x", "y"]);
    expect(patternNames(patternOf("let _ = d"))).toEqual([]);
    const all: string[] = [];
    forEachPatternName(patternOf("let [x, _] = d"), (n) => all.push(n));
    expect(all).toEqual(["x", "_"]);
  });
});
