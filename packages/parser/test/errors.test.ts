/** Syntax errors: spec/syntax.md §9 (messages, recovery, pretty form) and
 * the must-reject list of §11.3. */
import { describe, expect, it } from "vitest";
import { parse } from "../src/index";
import { MAX_NESTING } from "../src/state";
import { errors, firstError } from "./helpers";

describe("the conformance substrings of §9.1", () => {
  it.each([
    ["a file ends inside a block", "pipeline default(task) {\n  log(1)\n", "Unexpected end of file, expected }"],
    ["`let x =` at end of file", "let x =", "Unexpected end of file, expected expression"],
    ["a `)` where an expression should start", "let x = )", "Expected expression"],
    ["a backtick at 2:11", "log(1)\n  let s = `x`", "Unexpected character '`' at 2:11"],
    ["a string opened at 2:11 reaching the end of the line", "log(1)\n  let s = \"abc\nlog(2)", "Unterminated string at 2:11"],
    ["a required parameter after a defaulted one", "fn f(a = 1, b) { }", "Required parameter cannot follow a parameter with a default value"],
    [";; inside a block", "fn f() {\n  log(1);;\n}", "got ;"],
    ["}; else {", "if a {\n} ; else {\n}", "else"],
    ["}; catch {", "try {\n} ; catch {\n}", "catch"],
  ])("%s", (_, src, substring) => {
    expect(firstError(src)).toContain(substring);
  });

  it("reports a `)` error several times in one file", () => {
    expect(errors("fn a() {\n  let x = )\n}\nfn b() {\n  let y = )\n}\nlet z = )\n")).toEqual([
      "Expected expression, got ) at 2:11",
      "Expected expression, got ) at 5:11",
      "Expected expression, got ) at 7:9",
    ]);
  });
});

describe("message forms", () => {
  it("keywords in identifier positions print as reserved keywords", () => {
    expect(firstError("fn match() { }")).toBe("Expected function name, got 'match' (reserved keyword) at 1:4");
    expect(firstError("let x = a.select")).toBe("Expected member name, got select at 1:11");
  });
  it("end of file has no position", () => {
    expect(firstError("fn f(")).toBe("Unexpected end of file, expected parameter name");
    expect(firstError("let xs = [1, 2")).toBe("Unexpected end of file, expected ]");
    expect(firstError("f(1, 2")).toBe("Unexpected end of file, expected )");
    expect(firstError("let d = {a: 1")).toBe("Unexpected end of file, expected }");
  });
  it("carries the pretty form, label, help and span", () => {
    const [e] = parse("fn f() {\n  log(1)\n").errors;
    expect(e).toMatchObject({
      message: "Unexpected end of file, expected }",
      pretty: "unexpected end of file, expected }",
      label: "file ends here",
      help: "add a closing `}` to finish this block",
      expected: "}",
      found: null,
    });
    const [t] = parse("let x = )").errors;
    expect(t).toMatchObject({
      pretty: "expected expression, found )",
      label: "unexpected token",
      help: null,
      found: ")",
      span: { start: 8, end: 9, line: 1, column: 9, endLine: 1, endColumn: 10 },
    });
    expect(parse("f(1, 2").errors[0]!.help).toBe("add a closing `)` to finish this expression or parameter list");
    expect(parse("let xs = [1").errors[0]!.help).toBe("add a closing `]` to finish this list or subscript");
  });
  it("lexer errors are the only error, labelled `here`", () => {
    const r = parse("let x = )\nlet s = `");
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ message: "Unexpected character '`' at 2:9", pretty: "Unexpected character '`' at 2:9", label: "here" });
    expect(r.program.items).toEqual([]);
  });
  it("errors inside interpolations are never reported", () => {
    expect(errors('log("${)}")')).toEqual([]);
    expect(errors('log("${ ` }")')).toEqual([]);
  });
});

describe("recovery (§9.2)", () => {
  it("resumes after `;`, at a line starting with a statement keyword, or at `}`", () => {
    expect(errors("let a = ); let b = )")).toEqual(["Expected expression, got ) at 1:9", "Expected expression, got ) at 1:20"]);
    expect(errors("let a = ) junk\nmore junk )\nlet b = )")).toEqual(["Expected expression, got ) at 1:9", "Expected expression, got ) at 3:9"]);
  });
  it("keeps the items that parsed", () => {
    const r = parse("fn ok() { }\nlet x = )\nfn also() { }");
    expect(r.program.items.map((i) => i.kind)).toEqual(["FnDecl", "FnDecl"]);
    expect(r.errors).toHaveLength(1);
  });
  it("an error deep in nested blocks costs one error", () => {
    expect(errors("fn f() {\n  if x {\n    let y = )\n  }\n  log(2)\n}\nlog(3)")).toEqual(["Expected expression, got ) at 3:13"]);
  });
  it("a later same-line top-level separator error replaces the earlier ones ([quirk])", () => {
    expect(errors("fn f() { ; log(1) }")).toEqual(["Expected top-level item separator (`;` or newline), got } at 1:19"]);
  });
  it("reports input nested deeper than the stack allows as a positioned error", () => {
    for (const src of ["let x = " + "[".repeat(100_000), "let y = " + "-".repeat(200_000) + "1", "f(" + "{a: ".repeat(50_000)]) {
      const r = parse(src);
      expect(r.errors).toHaveLength(1);
      expect(r.errors[0]!.message).toMatch(/^Nesting too deep at 1:\d+$/);
    }
  });
  /** `let x = ` and `levels` applications of `wrap` around `1`. */
  function nestChains(wrap: (inner: string) => string, levels: number): string {
    let e = "1";
    for (let i = 0; i < levels; i++) e = wrap(e);
    return "let x = " + e;
  }

  it("bounds the depth of the tree it builds, so later tree walkers never overflow", () => {
    // Operator and postfix chains are parsed by loops but build left-deep
    // trees; unary operators and blocks recurse. All count.
    const deep = [
      "let x = 1" + " + 1".repeat(100_000),
      "let x = d" + ".x".repeat(100_000),
      "let x = " + "!".repeat(600) + "true",
      "let x = 2" + " ** 2".repeat(600),
      "if a {".repeat(600) + "}".repeat(600),
      // One level per line: recovery must not resume inside the nest and
      // end on a separator error about the closing braces.
      "var x = 0\n" + "if x == 1 { x = 2 } else {\n".repeat(1000) + "}".repeat(1000) + "\nlog(x)",
      // Chains stacked on chains: each operand is shallow, the tree is not.
      nestChains((inner) => `(${inner})` + " + 1".repeat(100), 10),
      nestChains((inner) => `(${inner})` + ".x".repeat(100), 10),
      nestChains((inner) => `"\${${inner}}"` + ' + "a"'.repeat(100), 10),
    ];
    for (const src of deep) {
      const r = parse(src);
      expect(r.errors.map((e) => e.message)).toEqual([expect.stringMatching(/^Nesting too deep at \d+:\d+$/)]);
    }
    expect(MAX_NESTING).toBe(500);
    // Just inside the bound everything still parses.
    const fine = [
      "let x = 1" + " + 1".repeat(480),
      "if a {".repeat(400) + "}".repeat(400),
      "let x = " + "-".repeat(480) + "1",
      nestChains((inner) => `(${inner})` + " + 1".repeat(40), 10),
      // Siblings do not add up: many long chains side by side are fine.
      Array.from({ length: 50 }, () => "let y = 1" + " + 1".repeat(400)).join("\n"),
      "f(" + Array.from({ length: 50 }, () => "1" + " + 1".repeat(400)).join(", ") + ")",
    ];
    for (const src of fine) {
      expect(parse(src).errors).toEqual([]);
    }
  });
  it("never loops on garbage", () => {
    const garbage = ") ] } , ; : -> => @ . ? else catch in to\n".repeat(50);
    const r = parse(garbage);
    expect(r.errors.length).toBeGreaterThan(0);
  });
});

describe("must be rejected (§11.3)", () => {
  it.each([
    ["1_000", "let n = 1_000"],
    ["hex", "let n = 0x1F"],
    ["exponent", "let n = 1e3"],
    ["leading dot", "let n = .5"],
    ["single-quoted string", "let s = 'a'"],
    ["# comment", "# hi"],
    ["&", "let x = a & b"],
    ["^", "let x = a ^ b"],
    ["~", "let x = ~a"],
    ["$", "let x = $a"],
    ["backtick", "let x = `a`"],
    ["nested ternary", "let x = a ? b : c ? d : e"],
    ["cond ? [x] : y", "let x = c ? [x] : y"],
    ["else on the next line after if's else", "if a { } else\nif b { }"],
    ["; before else", "if a { }; else { }"],
    ["; before catch", "try { }; catch { }"],
    ["; before finally", "try { } catch { }; finally { }"],
    [";;", "log(1);;"],
    ["two statements on one line", "log(1) log(2)"],
    ["match arm without braces", "match x { 1 -> 2 }"],
    ["match arms with commas", "match x { 1 -> { }, 2 -> { } }"],
    ["| starting a line in a match arm", "match x {\n  1\n  | 2 -> { }\n}"],
    ["f()()", "f()()"],
    ["xs[0]()", "xs[0]()"],
    ["{ x -> x }()", "{ x -> x }()"],
    ["dict shorthand", "let d = {a, b}"],
    ["integer dict key", "let d = {1: 2}"],
    ["interpolated dict key", 'let d = {"${k}": 2}'],
    ["raw dict key", 'let d = {r"k": 2}'],
    ["bare block statement", "{ log(1) }"],
    ["fn(x) -> T { }", "let f = fn(x) -> int { x }"],
    ["fn(…) at statement start", "fn(x) { x }"],
    ["destructuring parameters", "fn f([a, b]) { }"],
    ["typed pipeline parameters", "pipeline p(a: int) { }"],
    ["impl X for Y", "impl X for Y { }"],
    ["pub type", "pub type T = int"],
    ["pub interface", "pub interface I { }"],
    ["catch e: T { }", "try { } catch e: T { }"],
    ["retry without count", "retry { f() }"],
    ["deadline f(x) { }", "deadline f(x) { }"],
    ["multi-line params without trailing comma", "fn f(\n  a\n) { }"],
    ["destructuring with the closing bracket alone", "let [\n  a\n] = xs"],
    ["nested destructuring", "let [[a], b] = xs"],
    ["T? type", "let x: int? = 1"],
    ["parenthesised type", "let x: (int) = 1"],
    ["int || nil", "let x: int || nil = 1"],
    ["x?.y = v", "x?.y = v"],
    ["xs[1:2] = v", "xs[1:2] = v"],
    ["a = b = c", "a = b = c"],
    ["a **= b", "a **= b"],
    ["select in expression position", "let v = select { }"],
    ["mutex in expression position", "let v = mutex { }"],
    ["yield in expression position", "let v = yield 1"],
    ["emit in expression position", "let v = emit 1"],
    ["return in expression position", "let v = return 1"],
    ["import inside a block", 'fn f() { import "a" }'],
    ["pipeline inside a block", "fn f() { pipeline p() { } }"],
    ["keyword as variable", "let if = 1"],
    ["keyword as parameter", "fn f(let) { }"],
    ["keyword as function name", "fn for() { }"],
    ["keyword as field name", "struct S { for: int }"],
    ["finally as member", "x.finally"],
    ["eval_pack as dict key", "let d = {eval_pack: 1}"],
    ["require as member", "x.require"],
    ["select as dict key", "let d = {select: 1}"],
    ["skill as member", "x.skill"],
  ])("%s", (_, src) => {
    expect(parse(src).errors.length).toBeGreaterThan(0);
  });
});
