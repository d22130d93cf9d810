/** Expressions: spec/syntax.md §5. */
import { describe, expect, it } from "vitest";
import { parse } from "../src/index";
import { expr, firstError, shapes } from "./helpers";
import { shape } from "./shape";

describe("precedence table (§5.1)", () => {
  it.each([
    ["a |> f to 3", "(|> a (to f 3))"],
    ["c ? a : b |> f", "(|> (?: c a b) f)"],
    ["1 to n", "(to 1 n)"],
    ["0 to n exclusive", "(to-excl 0 n)"],
    ["a || b && c", "(|| a (&& b c))"],
    ["a && b == c", "(&& a (== b c))"],
    ["a == b < c", "(== a (< b c))"],
    ["a < b < c", "(< (< a b) c)"],
    ["a < b + c", "(< a (+ b c))"],
    ["x in xs", "(in x xs)"],
    ["x not in xs", "(not_in x xs)"],
    ["a + b ?? c", "(+ a (?? b c))"],
    ["a ?? b + c", "(+ (?? a b) c)"],
    ["a * b ?? c", "(?? (* a b) c)"],
    ["x?.n ?? 0 > 0", "(> (?? (?.n x) 0) 0)"],
    ["a - b - c", "(- (- a b) c)"],
    ["a * b % c / d", "(/ (% (* a b) c) d)"],
    ["a ** b ** c", "(** a (** b c))"],
    ["-2 ** 2", "(** (- 2) 2)"],
    ["-x ** 2", "(** (- x) 2)"],
    ["a ** -b", "(** a (- b))"],
    ["!a == b", "(== (! a) b)"],
    ["!!a", "(! (! a))"],
    ["- -a", "(- (- a))"],
    ["(a + b) * c", "(* (+ a b) c)"],
  ])("%s", (src, want) => {
    expect(expr(src)).toBe(want);
  });

  it("has no unary plus, no `not`, and ranges do not chain", () => {
    expect(firstError("let x = +1")).toBe("Expected expression, got + at 1:9");
    expect(firstError("let x = not y")).toBe("Expected top-level item separator (`;` or newline), got id(y) at 1:13");
    expect(firstError("let r = 1 to 2 to 3")).toBe("Expected top-level item separator (`;` or newline), got to at 1:16");
  });
});

describe("newlines around operators (§7.2)", () => {
  it.each(["|>", "||", "&&", "==", "!=", "<", ">", "<=", ">=", "+", "??", "*", "/", "%", "**"])("a leading %s continues the line", (op) => {
    const s = shapes(`let x = a\n  ${op} b`);
    expect(s).toHaveLength(1);
  });
  it.each(["-", "in", "to", "?"])("a leading %s does not continue", (op) => {
    const r = parse(`let x = a\n  ${op} b`);
    expect(r.program.items[0]).toMatchObject({ kind: "LetBinding", value: { kind: "Identifier", name: "a" } });
  });
  it.each(["-", "in", "not in", "+", "*", "&&", "??"])("a trailing %s continues the line", (op) => {
    expect(shapes(`let x = a ${op}\n  b`)).toHaveLength(1);
  });
  it("nothing may follow `to` on the next line", () => {
    expect(firstError("let r = 1 to\n5")).toBe("Expected expression, got \\n at 1:13");
  });
  it("`exclusive` must be on the range's line", () => {
    expect(firstError("for i in 0 to 3\nexclusive { }")).toBe("Expected {, got exclusive at 2:1");
  });
  it("inside parentheses only the grammar's positions skip newlines", () => {
    expect(expr("(1\n + 2)")).toBe("(+ 1 2)");
    expect(firstError("let x = (1\n - 2)")).toBe("Expected ), got - at 2:2");
    expect(expr("(1 + 2\n)")).toBe("(+ 1 2)");
  });
  it("no newline after a unary operator", () => {
    expect(firstError("let x = !\ny")).toBe("Expected expression, got \\n at 1:10");
  });
});

describe("postfix chains (§5.3)", () => {
  it("member access, method calls and keyword members", () => {
    expect(expr("a.b.c(1, 2).d")).toBe("(.d (.c() (.b a) 1 2))");
    expect(expr("x.type")).toBe("(.type x)");
    expect(expr("x.match(1)")).toBe("(.match() x 1)");
    expect(expr("a?.b?.c(1)")).toBe("(?.c() (?.b a) 1)");
  });
  it("rejects the five reserved member names", () => {
    for (const kw of ["finally", "eval_pack", "require", "select", "skill"]) {
      expect(firstError(`let v = x.${kw}`)).toBe(`Expected member name, got ${kw} at 1:11`);
    }
  });
  it("`.` and `?.` may start a line and be followed by newlines", () => {
    expect(expr("items\n  .filter(f)\n  ?.map(g)")).toBe("(?.map() (.filter() items f) g)");
    expect(expr("x.\n  y")).toBe("(.y x)");
  });
  it("the method-call `(` must be on the member's line", () => {
    expect(shapes("let v = x.y\n(1)")).toEqual(["(let v (.y x))", "1"]);
  });
  it("`[`, `(` on the next line start a new statement", () => {
    expect(shapes("x\n[0]")).toEqual(["x", "[0]"]);
    expect(shapes("f\n(1)")).toEqual(["f", "1"]);
  });
  it("subscripts and slices", () => {
    expect(expr("xs[0]")).toBe("(index xs 0)");
    expect(expr("xs[-1]")).toBe("(index xs (- 1))");
    expect(expr("xs[1:3]")).toBe("(slice xs 1 3)");
    expect(expr("xs[:3]")).toBe("(slice xs _ 3)");
    expect(expr("xs[-2:]")).toBe("(slice xs (- 2) _)");
    expect(expr("xs[:]")).toBe("(slice xs _ _)");
    expect(expr("xs[\n0\n]")).toBe("(index xs 0)");
    expect(expr("m[k][j]")).toBe("(index (index m k) j)");
  });
  it("calls only on bare names; parentheses make no node", () => {
    expect(expr("f(1)")).toBe("(call f 1)");
    expect(expr("(f)(2)")).toBe("(call f 2)");
    expect(firstError("f(1)(2)")).toBe("Expected top-level item separator (`;` or newline), got ( at 1:5");
    expect(firstError("xs[0](1)")).toBe("Expected top-level item separator (`;` or newline), got ( at 1:6");
    expect(firstError("(make())(1)")).toBe("Expected top-level item separator (`;` or newline), got ( at 1:9");
  });
  it("call arguments: optional commas, trailing commas, newlines, spreads", () => {
    expect(expr("f(1 2)")).toBe("(call f 1 2)");
    expect(expr("f(\n  1,\n  2,\n)")).toBe("(call f 1 2)");
    expect(expr("f(...xs, 1, ...ys)")).toBe("(call f ...xs 1 ...ys)");
    expect(expr("o.m(...xs)")).toBe("(.m() o ...xs)");
  });
  it("enum variants are member accesses and method calls", () => {
    expect(expr("Color.Red")).toBe("(.Red Color)");
    expect(expr("Shape.Circle(2.0)")).toBe("(.Circle() Shape 2f)");
    expect(expr("Ok(1)")).toBe("(call Ok 1)");
  });
});

describe("postfix ? vs ternary vs ?[ (§5.4)", () => {
  it.each([
    ["c ? 1 : 2", "(?: c 1 2)"],
    ["c ? x : y", "(?: c x y)"],
    ['c ? "a" : "b"', '(?: c "a" "b")'],
    ["c ? (1) : 2", "(?: c 1 2)"],
    ["c ? -1 : 1", "(?: c (- 1) 1)"],
    ["c ? !a : a", "(?: c (! a) a)"],
    ["c ? nil : true", "(?: c nil true)"],
    ["c ? {} : {a: 1}", '(?: c {} {"a": 1})'],
    ["c ? fn() { 1 } : nil", "(?: c (fn () {1}) nil)"],
    ["c ? ([1]) : [2]", "(?: c [1] [2])"],
    ["a ? 1 : (b ? 2 : 3)", "(?: a 1 (?: b 2 3))"],
    ["xs?[0]", "(?index xs 0)"],
    ["f()?", "(? (call f))"],
    ["f()? + 1", "(+ (? (call f)) 1)"],
    ["g(f()?, 2)", "(call g (? (call f)) 2)"],
    ["f()? .x", "(.x (? (call f)))"],
    ["f()?.x", "(?.x (call f))"],
  ])("%s", (src, want) => {
    expect(expr(src)).toBe(want);
  });
  it("branches are at || level: nesting needs parentheses", () => {
    expect(firstError("let x = a ? b ? 1 : 2 : 3")).toBe("Expected :, got ? at 1:15");
  });
  it("`c ? [1] : [2]` is an optional subscript", () => {
    expect(firstError("let x = c ? [1] : [2]")).toBe("Expected top-level item separator (`;` or newline), got : at 1:17");
  });
  it("a token outside the list makes `?` a try operator", () => {
    expect(firstError("let x = c ? 5s : 1s")).toBe("Expected top-level item separator (`;` or newline), got duration(5000ms) at 1:13");
    expect(firstError('let x = c ? r"a" : r"b"')).toBe("Expected top-level item separator (`;` or newline), got rstr(a) at 1:13");
  });
  it("`?` before a newline is a try operator; `?` starting a line is not a continuation", () => {
    const a = parse("let x = c ?\n 1 : 2");
    expect(shape(a.program.items[0]!)).toBe("(let x (? c))");
    expect(a.errors[0]!.message).toBe("Expected top-level item separator (`;` or newline), got : at 2:4");
    const b = parse("let x = c\n ? 1 : 2");
    expect(shape(b.program.items[0]!)).toBe("(let x c)");
    expect(b.errors[0]!.message).toBe("Expected expression, got ? at 2:2");
  });
});

describe("primaries (§5.5–§5.7)", () => {
  it("literals", () => {
    expect(expr('[1, 1.5, "s", r"r", true, false, nil, 5s, x]')).toBe('[1, 1.5f, "s", r"r", true, false, nil, 5000ms, x]');
  });
  it("lists: optional commas, newlines anywhere, spreads", () => {
    expect(expr("[1 2 3]")).toBe("[1, 2, 3]");
    expect(expr("[\n  1,\n  ...xs,\n  2,\n]")).toBe("[1, ...xs, 2]");
    expect(expr("[]")).toBe("[]");
  });
  it("a spread on a new line after an element without a comma is a member access ([quirk])", () => {
    expect(firstError("let x = [a\n ...b]")).toBe("Expected member name, got . at 2:3");
  });
  it("{} is an empty dict, never a closure", () => {
    expect(expr("{}")).toBe("{}");
    expect(expr("{\n\n}")).toBe("{}");
  });
  it("an arrow at depth 0 makes a closure", () => {
    expect(expr("{ x -> x * 2 }")).toBe("(closure (x) {(* x 2)})");
    expect(expr("{ -> 42 }")).toBe("(closure () {42})");
    expect(expr("{ a, b -> a + b }")).toBe("(closure (a, b) {(+ a b)})");
    expect(expr("{ x: int, y = 1 -> x + y }")).toBe("(closure (x: int, y = 1) {(+ x y)})");
    expect(expr("{ ...xs -> xs }")).toBe("(closure (...xs) {xs})");
    expect(expr("{\n x -> x }")).toBe("(closure (x) {x})");
    expect(expr("{ x ->\n  let y = x\n  y\n}")).toBe("(closure (x) {(let y x); y})");
    expect(expr('{ k: f({ x -> x }) }')).toBe('{"k": (call f (closure (x) {x}))}');
  });
  it("closure parameters follow the parameter newline rule", () => {
    expect(firstError("let f = { x\n -> x }")).toBe("Expected parameter name, got -> at 2:2");
  });
  it("dict keys: identifiers, keywords, strings, computed, spread", () => {
    expect(expr('{a: 1, type: 2, in: 3, nil: 4, "two words": 5, [k]: 6, ...d}')).toBe(
      '{"a": 1, "type": 2, "in": 3, "nil": 4, "two words": 5, [k]: 6, ...d}',
    );
    expect(expr("{a: 1 b: 2,}")).toBe('{"a": 1, "b": 2}');
    expect(expr("{\n  a\n  : 1\n}")).toBe('{"a": 1}');
  });
  it("rejects integer, interpolated and raw string keys and shorthand", () => {
    expect(firstError('let d = {1: "a"}')).toBe("Expected dict key, got int(1) at 1:10");
    expect(firstError('let d = {"${k}": 1}')).toBe("Expected dict key, got istr(...) at 1:10");
    expect(firstError('let d = {r"k": 1}')).toBe("Expected dict key, got rstr(k) at 1:10");
    expect(firstError("let d = {a, b}")).toBe("Expected :, got , at 1:11");
  });
  it("a dict literal takes member access but not a call", () => {
    expect(expr("{a: 1}.a")).toBe('(.a {"a": 1})');
    expect(firstError("let v = {a: 1}(1)")).toBe("Expected top-level item separator (`;` or newline), got ( at 1:15");
  });
  it("fn expressions have no return type", () => {
    expect(expr("fn(a, b = 1) { a + b }")).toBe("(fn (a, b = 1) {(+ a b)})");
    expect(firstError("let f = fn(x) -> int { x }")).toBe("Expected {, got -> at 1:15");
  });
  it("compound expressions are primaries and continue with operators", () => {
    expect(expr("if c { 1 } else { 2 } + 1")).toBe("(+ (if c {1} else {2}) 1)");
    expect(expr("match x { _ -> { 1 } }.y")).toBe("(.y (match x [_ -> {1}]))");
    expect(expr("try { a }\n-1")).toBe("(- (try {a}) 1)");
    expect(expr("spawn { work() }")).toBe("(spawn {(call work)})");
    expect(expr("retry 3 { f() }")).toBe("(retry 3 {(call f)})");
    expect(expr("deadline 5s { f() }")).toBe("(deadline 5000ms {(call f)})");
    expect(expr("try* f()")).toBe("(try* (call f))");
  });
  it("the heredoc-like form has its own message", () => {
    expect(firstError("let x = <<EOF")).toBe(
      "Expected an expression — heredocs are only valid inside LLM tool-call argument JSON; for multiline strings in source code use triple-quoted `\"\"\"...\"\"\"`, got `<<` heredoc-like syntax at 1:9",
    );
  });
  it("other tokens are not expressions", () => {
    expect(firstError("let x = ]")).toBe("Expected expression, got ] at 1:9");
    expect(firstError("let x =")).toBe("Unexpected end of file, expected expression");
    for (const kw of ["select", "mutex", "yield", "emit", "return", "import", "pipeline"]) {
      expect(firstError(`let x = ${kw}`)).toBe(`Expected expression, got ${kw} at 1:9`);
    }
  });
});

describe("struct construction (§5.8)", () => {
  it("a capitalised name followed by `{` with key: or `}`", () => {
    expect(expr("Point { x: 1, y: 2 }")).toBe('(new Point {"x": 1, "y": 2})');
    expect(expr('Point { "x": 1 }')).toBe('(new Point {"x": 1})');
    expect(expr("Point {}")).toBe("(new Point {})");
    expect(expr("Point {\n  x: 1\n}")).toBe('(new Point {"x": 1})');
    expect(expr("Ünïcode { a: 1 }")).toBe('(new Ünïcode {"a": 1})');
  });
  it("not for spreads, keyword keys, lowercase names or the next line", () => {
    expect(firstError("let p = Point { ...q }")).toBe("Expected top-level item separator (`;` or newline), got { at 1:15");
    expect(firstError("let p = Point { type: 1 }")).toBe("Expected top-level item separator (`;` or newline), got { at 1:15");
    expect(shapes("Point\n{ x: 1 }")).toEqual(["Point", '{"x": 1}']);
  });
  it("can swallow the body of an if/for ([pitfall])", () => {
    expect(shapes("if Ready { go() }")).toEqual(["(if Ready {(call go)})"]);
    expect(firstError("if Ready { }")).toBe("Unexpected end of file, expected {");
  });
});

describe("generic calls (§5.11)", () => {
  it("parses type arguments speculatively", () => {
    expect(expr("identity<int>(42)")).toBe("(call identity<int> 42)");
    expect(expr("parse<[string]>(raw)")).toBe("(call parse<[string]> raw)");
    expect(expr("f<dict<string, list<int>>>(x)")).toBe("(call f<dict<string, [int]>> x)");
    expect(expr("i < n && j > 0")).toBe("(&& (< i n) (> j 0))");
    expect(expr("a < b")).toBe("(< a b)");
    expect(expr("a < b > (c)")).toBe("(call a<b> c)");
  });
  it("an empty list is not a generic call", () => {
    expect(firstError("let v = f<>(x)")).toBe("Expected expression, got > at 1:11");
  });
  it("errors in the arguments of a generic call are reported", () => {
    expect(firstError("let v = f<int>(])")).toBe("Expected expression, got ] at 1:16");
  });
});

describe("pipe placeholder (§5.12)", () => {
  it("rewrites `_` into a parameter in the searched positions", () => {
    expect(expr('text |> split(_, ",")')).toBe('(|> text (\\__pipe (call split __pipe ",")))');
    expect(expr("xs |> _.sort()")).toBe("(|> xs (\\__pipe (.sort() __pipe)))");
    expect(expr("n |> _ * 2")).toBe("(|> n (\\__pipe (* __pipe 2)))");
    expect(expr("n |> -_")).toBe("(|> n (\\__pipe (- __pipe)))");
    expect(expr("n |> [_, 1]")).toBe("(|> n (\\__pipe [__pipe, 1]))");
    expect(expr("d |> _.k[_]")).toBe("(|> d (\\__pipe (index (.k __pipe) __pipe)))");
  });
  it("leaves closures, dicts and ternaries alone, and plain callees as they are", () => {
    expect(expr("xs |> f")).toBe("(|> xs f)");
    expect(expr("xs |> map({ x -> _ })")).toBe("(|> xs (call map (closure (x) {_})))");
    expect(expr("xs |> {a: _}")).toBe('(|> xs {"a": _})');
    expect(expr("xs |> (c ? _ : 1)")).toBe("(|> xs (?: c _ 1))");
  });
  it("chains left to right", () => {
    expect(expr("x |> f(_) |> g")).toBe("(|> (|> x (\\__pipe (call f __pipe))) g)");
  });
});

describe("interpolated strings parse their expressions (§1.9.2)", () => {
  it("parses each ${} as one expression", () => {
    expect(expr('"a${b.c(1)}d"')).toBe('(str "a" ${(.c() b 1)} "d")');
    expect(expr('"${ "a${x}" }"')).toBe('(str ${(str "a" ${x})})');
  });
  it("ignores tokens after the first expression", () => {
    expect(expr('"${a b}"')).toBe("(str ${a})");
  });
  it("a parse failure becomes literal text; a lex failure contributes nothing", () => {
    expect(expr('"x${)}y"')).toBe('(str "x" ")" "y")');
    expect(expr('"x${ ` }y"')).toBe('(str "x" ${<lex error>} "y")');
  });
  it("gives embedded nodes file positions", () => {
    const r = parse('let s = "ab${ foo }"');
    const str = (r.program.items[0] as { value: { segments: { kind: string; expr?: { span: object } }[] } }).value;
    expect(str.segments[1]!.expr!.span).toEqual({ start: 14, end: 17, line: 1, column: 15, endLine: 1, endColumn: 18 });
  });
  it("positions on later lines of a multi-line interpolation", () => {
    const r = parse('let s = """\n  ${\n  foo}\n"""');
    const str = (r.program.items[0] as { value: { segments: { kind: string; expr?: { span: { line: number; column: number } } }[] } }).value;
    const e = str.segments.find((s) => s.kind === "expr")!;
    expect([e.expr!.span.line, e.expr!.span.column]).toEqual([3, 3]);
  });
});

describe("spans", () => {
  it("cover the whole node including parentheses of operands", () => {
    const src = "let v = (a + b) * c";
    const r = parse(src);
    const v = (r.program.items[0] as { value: { span: { start: number; end: number } } }).value;
    expect(src.slice(v.span.start, v.span.end)).toBe("(a + b) * c");
  });
  it("never include trailing newlines", () => {
    const src = "if x {\n  y\n}\n\n\nlog(1)";
    const r = parse(src);
    expect(r.program.items[0]!.span).toMatchObject({ line: 1, column: 1, endLine: 3, endColumn: 2 });
  });
});
