/** spec/syntax.md §12: every line of the worked examples. */
import { describe, expect, it } from "vitest";
import { expr, firstError, one, shapes } from "./helpers";

describe("worked examples (syntax.md §12)", () => {
  it("?? binds between additive and multiplicative", () => {
    expect(one("let total = price * qty ?? 0")).toBe("(let total (?? (* price qty) 0))");
  });
  it("unary minus binds tighter than **", () => {
    expect(one("let big = -3 ** 2")).toBe("(let big (** (- 3) 2))");
  });
  it("a leading && continues the expression", () => {
    expect(one("let ok = count > 0\n  && ready")).toBe("(let ok (&& (> count 0) ready))");
  });
  it("a leading - starts a new statement", () => {
    expect(shapes("let diff = a\n  - b")).toEqual(["(let diff a)", "(- b)"]);
  });
  it("ternary", () => {
    expect(one('let label = flag ? "on" : "off"')).toBe('(let label (?: flag "on" "off"))');
  });
  it("nested ternary without parentheses is a separator error at the 2nd ?", () => {
    expect(firstError('let bad = flag ? "a" : other ? "b" : "c"')).toBe(
      "Expected top-level item separator (`;` or newline), got ? at 1:30",
    );
  });
  it("optional subscript", () => {
    expect(one("let first = items?[0]")).toBe("(let first (?index items 0))");
  });
  it("postfix try before a newline", () => {
    expect(shapes("let v = compute()?\nlog(v)")).toEqual(["(let v (? (call compute)))", "(call log v)"]);
  });
  it("pair pattern", () => {
    expect(one("for (key, val) in pairs { log(key) }")).toBe("(for (key, val) pairs {(call log key)})");
  });
  it("half-open range", () => {
    expect(one("for i in 1 to 10 exclusive { }")).toBe("(for i (to-excl 1 10) {})");
  });
  it("struct construction", () => {
    expect(one("let p = Vec2 { x: 1, y: 2 }")).toBe('(let p (new Vec2 {"x": 1, "y": 2}))');
  });
  it("a lowercase name does not start a struct construction", () => {
    expect(firstError("let q = vec2 { x: 1 }")).toBe("Expected top-level item separator (`;` or newline), got { at 1:14");
  });
  it("closure with a default", () => {
    expect(one("let f = { a, b = 2 -> a + b }")).toBe("(let f (closure (a, b = 2) {(+ a b)}))");
  });
  it("anonymous fn", () => {
    expect(one("let g = fn(a) { return a }")).toBe("(let g (fn (a) {(return a)}))");
  });
  it("dict with keyword, string, computed and spread entries", () => {
    expect(one('let d = {type: "x", "two words": 2, [key]: 3, ...base}')).toBe(
      '(let d {"type": "x", "two words": 2, [key]: 3, ...base})',
    );
  });
  it("fluent chain across lines", () => {
    expect(one("xs.map({ n -> n + 1 })\n  .filter({ n -> n > 2 })")).toBe(
      "(.filter() (.map() xs (closure (n) {(+ n 1)})) (closure (n) {(> n 2)}))",
    );
  });
  it("nested quotes inside ${}", () => {
    expect(one('let s = "sum=${a + b}, name=${user?.name ?? "anon"}"')).toBe(
      '(let s (str "sum=" ${(+ a b)} ", name=" ${(?? (?.name user) "anon")}))',
    );
  });
  it("a brace inside a string inside ${} breaks the scan (lexer error)", () => {
    expect(firstError('let t = "${ "}" }"')).toBe("Unterminated string at 1:18");
  });
  it("match with guard, or-pattern and wildcard", () => {
    const src = [
      "match shape {",
      '  Shape.Circle(r) if r > 1 -> { "big" }',
      '  Shape.Square(_) | Shape.Line -> { "other" }',
      '  _ -> { "none" }',
      "}",
    ].join("\n");
    expect(one(src)).toBe(
      '(match shape [(.Circle() Shape r) if (> r 1) -> {"big"}] [(| (.Square() Shape _) (.Line Shape)) -> {"other"}] [_ -> {"none"}])',
    );
  });
  it("try / typed catch / finally", () => {
    expect(one("try { risky() } catch (e: Timeout) { retry_later() } finally { cleanup() }")).toBe(
      "(try {(call risky)} catch e: Timeout {(call retry_later)} finally {(call cleanup)})",
    );
  });
  it("Result-valued try expression", () => {
    expect(one("let r = try { risky() }")).toBe("(let r (try {(call risky)}))");
  });
  it("dict destructuring with default and rest", () => {
    expect(one("let {name, age = 0, ...rest} = person")).toBe("(let {name, age = 0, ...rest} person)");
  });
  it("list destructuring with rest", () => {
    expect(one("let [head, ...tail] = xs")).toBe("(let [head, ...tail] xs)");
  });
  it("typed params, default and return type", () => {
    expect(one("fn area(w: float, h: float = 1.0) -> float { return w * h }")).toBe(
      "(fn area(w: float, h: float = 1f) -> float {(return (* w h))})",
    );
  });
  it("a required parameter after a defaulted one", () => {
    expect(firstError("fn bad(a = 1, b) { }")).toBe(
      "Expected Required parameter cannot follow a parameter with a default value, got ) at 1:16",
    );
  });
  it("rest parameter", () => {
    expect(one("fn join(sep, ...parts) { }")).toBe("(fn join(sep, ...parts) {})");
  });
  it("parallel each with options and a task variable", () => {
    expect(one("let results = parallel each urls with { max_concurrent: 3 } { u -> fetch(u) }")).toBe(
      "(let results (parallel each urls max_concurrent=3 u -> {(call fetch u)}))",
    );
  });
  it("select with a timeout", () => {
    expect(one('select {\n  msg from inbox { handle(msg) }\n  timeout 2s { log("idle") }\n}')).toBe(
      '(select [msg from inbox {(call handle msg)}] [timeout 2000ms {(call log "idle")}])',
    );
  });
  it("two statements separated by ;", () => {
    expect(shapes("let x = 1; let y = 2")).toEqual(["(let x 1)", "(let y 2)"]);
  });
  it(";; is an error", () => {
    expect(firstError("log(x);; log(y)")).toBe("Expected expression, got ; at 1:8");
  });
  it("expression helper sanity", () => {
    expect(expr("1 + 2")).toBe("(+ 1 2)");
  });
});
