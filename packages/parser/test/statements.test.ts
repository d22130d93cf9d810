/** Statements and separators: spec/syntax.md §2.2, §2.3, §4. */
import { describe, expect, it } from "vitest";
import { parse } from "../src/index";
import { errors, firstError, one, shapes } from "./helpers";
import { shape } from "./shape";

const SEP = "Expected statement separator (`;` or newline), got";
const TOP_SEP = "Expected top-level item separator (`;` or newline), got";

function inBlock(body: string): string {
  return one(`fn f() {\n${body}\n}`).replace(/^\(fn f\(\) \{/, "").replace(/\}\)$/, "");
}

describe("statement lists and separators (§2.2)", () => {
  it("accepts `;` or newlines between statements, and a trailing `;`", () => {
    expect(shapes("let a = 1; let b = 2")).toEqual(["(let a 1)", "(let b 2)"]);
    expect(shapes("log(1);\n\nlog(2);")).toEqual(["(call log 1)", "(call log 2)"]);
    expect(inBlock("log(1);")).toBe("(call log 1)");
    expect(inBlock("a();\n  b()")).toBe("(call a); (call b)");
  });
  it("requires a separator between statements on one line", () => {
    expect(firstError("fn f() { let a = 1 let b = 2 }")).toBe(`${SEP} let at 1:20`);
    expect(firstError("let a = 1 let b = 2")).toBe(`${TOP_SEP} let at 1:11`);
  });
  it("rejects `;;`, a leading `;` and a line of only `;`", () => {
    expect(firstError("fn f() {\n  log(1);; log(2)\n}")).toBe("Expected expression, got ; at 2:10");
    expect(firstError("fn f() { ; log(1) }")).toBe(`${TOP_SEP} } at 1:19`);
    expect(firstError("fn f() {\n  ;\n}")).toBe("Expected expression, got ; at 2:3");
    expect(firstError("log(1)\n;\n")).toBe("Expected expression, got ; at 2:1");
  });
  it("`;` before else/catch/finally ends the statement", () => {
    expect(firstError("if a { }; else { }")).toBe("Expected expression, got else at 1:11");
    expect(firstError("try { }; catch { }")).toBe("Expected expression, got catch at 1:10");
    expect(firstError("try { } catch { }; finally { }")).toBe("Expected expression, got finally at 1:20");
  });
  it("no separator is needed after a construct that swallowed newlines", () => {
    expect(shapes("if a { b() }\nlog(1)")).toEqual(["(if a {(call b)})", "(call log 1)"]);
    expect(shapes("let a = 1 /* long\ncomment */ let b = 2")).toEqual(["(let a 1)", "(let b 2)"]);
  });
  it("a `}` on the line of a top-level item is an error, a stray `}` alone is skipped ([quirk])", () => {
    expect(firstError("log(1) }")).toBe(`${TOP_SEP} } at 1:8`);
    expect(shapes("}\nlog(1)")).toEqual(["(call log 1)"]);
  });
  it("an empty file and a file of comments are empty programs", () => {
    expect(shapes("")).toEqual([]);
    expect(shapes("\n// only\n/* comments */\n")).toEqual([]);
  });
  it("semicolons separate nothing else", () => {
    expect(firstError("let x = [1;")).toBe("Expected expression, got ; at 1:11");
    expect(firstError("f(1;")).toBe("Expected expression, got ; at 1:4");
    expect(firstError("let d = {a: 1;")).toBe("Expected dict key, got ; at 1:14");
    expect(firstError("fn f(a;")).toBe("Expected parameter name, got ; at 1:7");
  });
  it("a later same-line separator error replaces earlier errors ([quirk] §9.2)", () => {
    expect(errors("let x = [1; 2]")).toEqual([`${TOP_SEP} ] at 1:14`]);
    expect(errors("fn f() { log(1);; log(2) }")).toEqual([`${TOP_SEP} } at 1:26`]);
  });
});

describe("let / var (§4.1)", () => {
  it("with type annotations and values on later lines", () => {
    expect(one("let x: int = 1")).toBe("(let x: int 1)");
    expect(one("var x: list<string> =\n  []")).toBe("(var x: [string] [])");
    expect(one("let x\n= 1")).toBe("(let x 1)");
  });
  it("the annotation's `:` must be on the name's line; the initialiser is mandatory", () => {
    expect(firstError("let x\n: int = 1")).toBe("Expected =, got : at 2:1");
    expect(firstError("let x")).toBe("Unexpected end of file, expected =");
    expect(firstError("let x\nlog(x)")).toBe("Expected =, got id(log) at 2:1");
  });
  it("annotations only on plain names", () => {
    expect(firstError("let {a}: dict = d")).toBe("Expected =, got : at 1:8");
  });
});

describe("binding patterns (§6.1)", () => {
  it.each([
    ["let {a, b: c, d = 1, e: f = 2, ...rest} = x", "(let {a, b: c, d = 1, e: f = 2, ...rest} x)"],
    ["let {a b} = x", "(let {a, b} x)"],
    ["let [a, b = 1, ...rest] = x", "(let [a, b = 1, ...rest] x)"],
    ["let [_, b] = x", "(let [_, b] x)"],
    ["let {} = d", "(let {} d)"],
    ["let [] = xs", "(let [] xs)"],
    ["let {\n  a,\n  b} = d", "(let {a, b} d)"],
    ["let {a, ...rest\n} = d", "(let {a, ...rest} d)"],
  ])("%s", (src, want) => {
    expect(one(src)).toBe(want);
  });
  it.each([
    ["let {a: {b}} = d", "Expected alias name, got { at 1:9"],
    ["let [[a, b], c] = xs", "Expected element name, got [ at 1:6"],
    ["let {\n  a,\n  b\n} = d", "Expected field name, got } at 4:1"],
    ["let [\n  a\n] = d", "Expected element name, got ] at 3:1"],
    ["let {a,\n  ...rest} = d", "Expected field name, got . at 2:3"],
    ["let {...rest,} = d", "Expected }, got , at 1:13"],
    ["let [...rest, a] = d", "Expected ], got , at 1:13"],
    ["let {type} = d", "Expected field name, got 'type' (reserved keyword) at 1:6"],
    ['let {"a"} = d', "Expected field name, got str(a) at 1:6"],
    ["let tool = 1", "Expected variable name or destructuring pattern, got 'tool' (reserved keyword) at 1:5"],
  ])("%s", (src, want) => {
    expect(firstError(src)).toBe(want);
  });
});

describe("assignment (§4.2)", () => {
  it.each([
    ["x = 1", "(= x 1)"],
    ["a.b = 1", "(= (.b a) 1)"],
    ["a[i] = 1", "(= (index a i) 1)"],
    ["f().x = 1", "(= (.x (call f)) 1)"],
    ["(a.b) = 1", "(= (.b a) 1)"],
    ["x += 1", "(+= x 1)"],
    ["x -= 1", "(-= x 1)"],
    ["x *= 2", "(*= x 2)"],
    ["x /= 2", "(/= x 2)"],
    ["x %= 2", "(%= x 2)"],
    ["x =\n  1", "(= x 1)"],
  ])("%s", (src, want) => {
    expect(one(src)).toBe(want);
  });
  it("only names, members and subscripts are assignable, on the target's line", () => {
    expect(firstError("x?.y = v")).toBe(`${TOP_SEP} = at 1:6`);
    expect(firstError("xs[1:2] = v")).toBe(`${TOP_SEP} = at 1:9`);
    expect(firstError("f() = 1")).toBe(`${TOP_SEP} = at 1:5`);
    expect(firstError("1 = 2")).toBe(`${TOP_SEP} = at 1:3`);
    expect(firstError("a = b = c")).toBe(`${TOP_SEP} = at 1:7`);
    expect(firstError("a **= 2")).toBe("Expected expression, got = at 1:5");
    expect(firstError("x\n= 1")).toBe("Expected expression, got = at 2:1");
    expect(firstError("if (x = 1) { }")).toBe("Expected ), got = at 1:7");
    expect(firstError("f(x = 1)")).toBe("Expected expression, got = at 1:5");
  });
});

describe("if / else (§4.3)", () => {
  it("with else, else if, parentheses and newlines before else", () => {
    expect(one("if a { 1 }")).toBe("(if a {1})");
    expect(one("if (a) { 1 } else { 2 }")).toBe("(if a {1} else {2})");
    expect(one("if a { 1 }\n\nelse { 2 }")).toBe("(if a {1} else {2})");
    expect(one("if a { 1 } else if b { 2 } else { 3 }")).toBe("(if a {1} else {(if b {2} else {3})})");
    expect(one("if a\n{ 1 }")).toBe("(if a {1})");
  });
  it("`else if` must be on one line", () => {
    expect(firstError("if a { } else\nif b { }")).toBe("Expected {, got if at 2:1");
  });
  it("a capitalised condition before `{ }` reads as a struct ([pitfall])", () => {
    expect(firstError("if DEBUG { }")).toBe("Unexpected end of file, expected {");
  });
});

describe("loops (§4.4, §4.5)", () => {
  it.each([
    ["for x in xs { log(x) }", "(for x xs {(call log x)})"],
    ["for (k, v) in d { }", "(for (k, v) d {})"],
    ["for (_, v) in d { }", "(for (_, v) d {})"],
    ["for {name, age} in people { }", "(for {name, age} people {})"],
    ["for [a, b] in pairs { }", "(for [a, b] pairs {})"],
    ["for i in 0 to n exclusive { }", "(for i (to-excl 0 n) {})"],
    ["for x\nin xs\n{ }", "(for x xs {})"],
    ["while i < 3 { i += 1 }", "(while (< i 3) {(+= i 1)})"],
    ["while (x) { break }", "(while x {(break)})"],
    ["while true { continue }", "(while true {(continue)})"],
  ])("%s", (src, want) => {
    expect(one(src)).toBe(want);
  });
  it("pair patterns have exactly two names and the `(` on the `for` line", () => {
    expect(firstError("for (a, b, c) in x { }")).toBe("Expected ), got , at 1:10");
    expect(firstError("for\n(a, b) in x { }")).toBe("Expected variable name or destructuring pattern, got ( at 2:1");
    expect(firstError("for x: int in xs { }")).toBe("Expected in, got : at 1:6");
  });
});

describe("match (§4.6)", () => {
  it("arms, alternatives, guards and newlines", () => {
    expect(one("match x { }")).toBe("(match x)");
    expect(one("match x { 1 -> { a } 2 -> { b } }")).toBe("(match x [1 -> {a}] [2 -> {b}])");
    expect(one("match x {\n  1 | 2 |\n    3 -> { a }\n}")).toBe("(match x [(| 1 2 3) -> {a}])");
    expect(one("match x {\n  n if n > 1\n  ->\n  { a }\n}")).toBe("(match x [n if (> n 1) -> {a}])");
    expect(one('match v { {kind: "a", n: n} -> { n } [a, b] -> { a } _ -> { 0 } }')).toBe(
      '(match v [{"kind": "a", "n": n} -> {n}] [[a, b] -> {a}] [_ -> {0}])',
    );
  });
  it("bodies need braces; arms take no commas or semicolons; no leading |", () => {
    expect(firstError('match x { 1 -> "one" }')).toBe("Expected {, got str(one) at 1:16");
    expect(firstError("match x { 1 -> { }, 2 -> { } }")).toBe("Expected expression, got , at 1:19");
    expect(firstError("match x {\n  1 -> { };\n}")).toBe("Expected expression, got ; at 2:11");
    expect(firstError("match x {\n  1\n  | 2 -> { }\n}")).toBe("Expected ->, got | at 3:3");
    expect(firstError("match x {\n  n\n  if n > 1 -> { }\n}")).toBe("Expected ->, got if at 3:3");
  });
});

describe("try family (§4.7)", () => {
  it.each([
    ["try { a }", "(try {a})"],
    ["try { a } catch (e) { b }", "(try {a} catch e {b})"],
    ["try { a } catch (e: Timeout | Net) { b }", "(try {a} catch e: (| Timeout Net) {b})"],
    ["try { a } catch e { b }", "(try {a} catch e {b})"],
    ["try { a } catch { b }", "(try {a} catch {b})"],
    ["try { a } finally { c }", "(try {a} finally {c})"],
    ["try { a }\ncatch (e) { b }\nfinally { c }", "(try {a} catch e {b} finally {c})"],
    ["try* a.b(1)", "(try* (.b() a 1))"],
    ["let v = try* a + b", "(let v (+ (try* a) b))"],
    ["let v = try { f() } catch (e) { 0 }", "(let v (try {(call f)} catch e {0}))"],
  ])("%s", (src, want) => {
    expect(one(src)).toBe(want);
  });
  it("records whether a catch clause was written", () => {
    const r = parse("try { a } catch { }");
    expect(r.program.items[0]).toMatchObject({ kind: "TryCatch", hasCatchClause: true, errorVar: null, catchBody: [] });
    const f = parse("try { a } finally { }");
    expect(f.program.items[0]).toMatchObject({ kind: "TryCatch", hasCatchClause: false, catchBody: [], finallyBody: [] });
  });
  it("typed catch needs parentheses; `try *` must be on one line", () => {
    expect(firstError("try { } catch e: T { }")).toBe("Expected {, got : at 1:16");
    expect(firstError("try\n* x")).toBe("Expected {, got * at 2:1");
  });
});

describe("simple statements (§4.8)", () => {
  it.each([
    ["return", "(return)"],
    ["return\nlog(1)", "(return)|(call log 1)"],
    ["return 1 + 2", "(return (+ 1 2))"],
    ["return; log(1)", "(return)|(call log 1)"],
    ["throw \"x\"", '(throw "x")'],
    ["throw\n  err", "(throw err)"],
    ["break", "(break)"],
    ["continue", "(continue)"],
    ["guard x > 0 else { return }", "(guard (> x 0) {(return)})"],
    ["guard x\nelse\n{ return }", "(guard x {(return)})"],
    ["require x", "(require x)"],
    ['require x > 1, "too small"', '(require (> x 1) "too small")'],
    ["defer { close() }", "(defer {(call close)})"],
    ["mutex { n += 1 }", "(mutex {(+= n 1)})"],
    ["emit 1", "(emit 1)"],
    ["yield", "(yield)"],
    ["yield x", "(yield x)"],
  ])("%s", (src, want) => {
    const r = parse(`fn f() {\n${src}\n}`);
    expect(r.errors).toEqual([]);
    const fn = r.program.items[0]!;
    if (fn.kind !== "FnDecl") throw new Error("expected a fn");
    expect(fn.body.map(shape).join("|")).toBe(want);
  });
  it("require's comma must be on its line; guard needs else", () => {
    expect(firstError('fn f() {\nrequire x\n, "m"\n}')).toBe("Expected expression, got , at 3:1");
    expect(firstError("guard x { }")).toBe("Expected else, got { at 1:9");
    expect(firstError("fn f() { throw }")).toBe("Expected expression, got } at 1:16");
  });
});

describe("deadline, retry, spawn (§4.9, §4.10)", () => {
  it.each([
    ["deadline 30s { work() }", "(deadline 30000ms {(call work)})"],
    ["deadline limit { work() }", "(deadline limit {(call work)})"],
    ["retry 3 { work() }", "(retry 3 {(call work)})"],
    ["retry (n + 1) { work() }", "(retry (+ n 1) {(call work)})"],
    ["let h = spawn { work() }", "(let h (spawn {(call work)}))"],
  ])("%s", (src, want) => {
    expect(one(src)).toBe(want);
  });
  it("the operand is a primary on the keyword's line", () => {
    expect(firstError("retry n + 1 { }")).toBe("Expected {, got + at 1:9");
    expect(firstError("deadline secs(3) { }")).toBe("Expected {, got ( at 1:14");
    expect(firstError("deadline\n5s { }")).toBe("Expected expression, got \\n at 1:9");
    expect(firstError("retry { work() }")).toBe("Expected :, got ( at 1:13");
  });
});

describe("parallel (§4.11)", () => {
  it.each([
    ["parallel 4 { i -> work(i) }", "(parallel count 4 i -> {(call work i)})"],
    ["parallel(4) { work() }", "(parallel count 4 {(call work)})"],
    ["parallel each xs { x -> f(x) }", "(parallel each xs x -> {(call f x)})"],
    ["parallel settle xs { x -> f(x) }", "(parallel settle xs x -> {(call f x)})"],
    ["parallel each xs { x -> f(x) } as stream", "(parallel eachStream xs x -> {(call f x)})"],
    ["parallel each xs with {\n  max_concurrent: 2,\n} {\n  x -> f(x)\n}", "(parallel each xs max_concurrent=2 x -> {(call f x)})"],
  ])("%s", (src, want) => {
    expect(one(src)).toBe(want);
  });
  it("rejects unknown options, typed task variables and `as stream` without each", () => {
    expect(firstError("parallel each xs with { limit: 1 } { x -> x }")).toBe(
      "Expected known option (only `max_concurrent` is supported in `parallel ... with { ... }`; got `limit`), got limit at 1:25",
    );
    expect(firstError("parallel each xs { x: int -> x }")).toBe(`${SEP} : at 1:21`);
    expect(firstError("parallel settle xs { x -> x } as stream")).toBe(
      "Expected `as stream` is only valid after `parallel each ... { ... }`, got as stream at 1:31",
    );
    expect(firstError("parallel each xs\nwith { max_concurrent: 1 } { x -> x }")).toBe("Expected {, got id(with) at 2:1");
  });
});

describe("select (§4.12)", () => {
  it("cases, timeout and default", () => {
    expect(one("select {\n  a from c1 { x() }\n  b from c2 { y() }\n  default { z() }\n}")).toBe(
      "(select [a from c1 {(call x)}] [b from c2 {(call y)}] [default {(call z)}])",
    );
    expect(one("select { timeout 1s { a() } timeout 2s { b() } }")).toBe("(select [timeout 2000ms {(call b)}])");
  });
  it("needs a case and not both timeout and default", () => {
    expect(firstError("select { }\nlog(1)")).toBe("Expected at least one select case, got \\n at 1:11");
    expect(firstError("select { timeout 1s { } default { } }")).toBe("Unexpected end of file, expected select cannot have both timeout and default");
    expect(firstError("let v = select { }")).toBe("Expected expression, got select at 1:9");
  });
});

describe("top level (§2.3)", () => {
  it("mixes declarations and statements", () => {
    expect(shapes('import "a"\npipeline default(t) { }\nlog(1)\nfn f() { }')).toEqual([
      '(import "a")',
      "(pipeline default(t) {})",
      "(call log 1)",
      "(fn f() {})",
    ]);
  });
  it("import and pipeline only at top level; pub forms anywhere", () => {
    expect(firstError('fn f() { import "a" }')).toBe("Expected expression, got import at 1:10");
    expect(firstError("fn f() { pipeline p() { } }")).toBe("Expected expression, got pipeline at 1:10");
    expect(errors('fn f() { pub import "a" }')).toEqual([]);
  });
});
