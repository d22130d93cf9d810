/**
 * `fn-value-discarded` [extension]: a user wrote `fn total(...) -> int`
 * ending in an expression, Rust style, and the function returned nil.
 */
import { describe, expect, test } from "vitest";
import { only } from "./helpers";

const RULE = "fn-value-discarded";

describe(RULE, () => {
  test("fires on a trailing pure expression, at the expression", () => {
    const src = "fn area(w, h) -> int {\n  w * h\n}\n";
    const [d] = only(RULE, src);
    expect(d!.severity).toBe("warning");
    expect(d!.message).toBe("`fn area` returns nil: the value of its last expression is discarded");
    expect(src.slice(d!.span!.start, d!.span!.end)).toBe("w * h");
  });

  test("fires on a trailing match when the fn declares a return type", () => {
    const src = 'fn name(n: int) -> string {\n  match n {\n    1 -> { "one" }\n    _ -> { "many" }\n  }\n}\n';
    expect(only(RULE, src).map((d) => d.message)).toEqual(["`fn name` returns nil: the value of its last `match` is discarded"]);
  });

  test("fires inside impl blocks (methods are named fns)", () => {
    expect(only(RULE, "struct P {\n  x: int\n}\n\nimpl P {\n  fn get(self) -> int {\n    self.x\n  }\n}\n")).toHaveLength(1);
  });

  test.each([
    ["an explicit return", "fn f(x) -> int {\n  return x\n}\n"],
    ["a trailing call (a side effect)", "fn f(x) {\n  println(x)\n}\n"],
    ["a trailing nil", "fn f() {\n  nil\n}\n"],
    ["a match in a fn without a return type", "fn f(x) {\n  match x {\n    1 -> { println(1) }\n    _ -> { println(2) }\n  }\n}\n"],
    ["a closure's last expression (closures return it)", "let f = { x -> x * 2 }\nprintln(f(1))\n"],
    ["an empty body", "fn f() {}\n"],
  ])("does not fire on %s", (_n, src) => {
    expect(only(RULE, src)).toEqual([]);
  });
});
