/**
 * The structural and style rules (lint.md §3.2, §3.3, §3.11–§3.23,
 * §3.26–§3.31, §3.37, §3.38): what fires, what does not, and fix results.
 */
import { describe, expect, test } from "vitest";
import { fixed, inMain, lint, only } from "./helpers";

const messages = (rule: string, src: string, opts = {}): string[] => only(rule, src, opts).map((d) => d.message);

describe("break-outside-loop", () => {
  test("fires with error severity on the keyword", () => {
    const src = inMain("  break");
    const [d] = only("break-outside-loop", src);
    expect([d!.severity, d!.message, d!.help]).toEqual([
      "error",
      "`break` used outside of a loop",
      "`break` can only be used inside for or while loops",
    ]);
    expect(src.slice(d!.span!.start, d!.span!.end)).toBe("break");
  });
  test("a closure inside a loop resets the depth", () => {
    expect(messages("break-outside-loop", inMain("  for x in xs {\n    let f = { -> continue }\n  }"))).toEqual([
      "`continue` used outside of a loop",
    ]);
  });
  test.each([
    ["for", "  for x in xs { break }"],
    ["while", "  while x { continue }"],
    ["nested if inside a loop", "  for x in xs { if x { break } }"],
  ])("does not fire inside %s", (_n, body) => {
    expect(only("break-outside-loop", inMain(body))).toEqual([]);
  });
  test.each([
    ["retry", "  retry 3 { break }"],
    ["parallel", "  parallel each xs { x -> break }"],
    ["match arm", "  match x { _ -> { break } }"],
  ])("%s is not a loop", (_n, body) => {
    expect(only("break-outside-loop", inMain(body))).toHaveLength(1);
  });
});

describe("dead-code-after-return", () => {
  test("reports the first unreachable statement once", () => {
    const ds = only("dead-code-after-return", inMain('  return 1\n  log("a")\n  log("b")'));
    expect(ds.map((d) => [d.span!.line, d.message, d.help])).toEqual([
      [3, "unreachable code after a terminating statement", "remove the unreachable code"],
    ]);
  });
  test("an if/else whose branches both exit", () => {
    expect(only("dead-code-after-return", inMain("  if x { return 1 } else { throw 2 }\n  log(3)"))).toHaveLength(1);
  });
  test.each([
    ["an if without else", "  if x { return 1 }\n  log(3)"],
    ["a loop", "  for x in xs { return 1 }\n  log(3)"],
    ["a try", "  try { return 1 } catch (e) { return 2 }\n  log(3)"],
    ["the top level of a file", null],
  ])("does not count %s", (_n, body) => {
    const src = body === null ? "return 1\nlog(2)\n" : inMain(body);
    expect(only("dead-code-after-return", src)).toEqual([]);
  });
  test("names used only in dead code are not recorded (quirk Q2)", () => {
    expect(rulesOfLine(inMain("  let x = 1\n  return 2\n  log(x)"))).toContain("unused-variable");
  });
  test("disabling unreachable-code (the legacy alias) disables it", () => {
    expect(only("dead-code-after-return", inMain("  return 1\n  log(2)"), { rules: { "unreachable-code": { severity: "off" } } })).toEqual([]);
  });
});

function rulesOfLine(src: string): string[] {
  return lint(src).map((d) => d.code);
}

describe("empty-block", () => {
  test.each([
    ["  if x {\n  }", "if block has an empty body", "remove the empty if or add a body"],
    ["  for x in xs {\n  }", "for loop has an empty body", "remove the empty for loop or add a body"],
    ["  while x {\n  }", "while loop has an empty body", "remove the empty while loop or add a body"],
    ["  try {\n  } catch (e) { log(e) }", "try block has an empty body", "remove the empty try/catch or add a body"],
  ])("fires: %s", (body, message, help) => {
    expect(only("empty-block", inMain(body)).map((d) => [d.message, d.help])).toEqual([[message, help]]);
  });
  test("the fix deletes a pure if with its indentation and line break", () => {
    expect(fixed(inMain('  if ready {\n  }\n  log("x")'), {}, "empty-block")).toBe(inMain('  log("x")'));
  });
  test.each([
    ["an if with an else", "  if ready {\n  } else { log(1) }"],
    ["an impure condition", "  if check() {\n  }"],
    ["an impure iterable", "  for x in load() {\n  }"],
    ["a while", "  while x {\n  }"],
  ])("no fix for %s", (_n, body) => {
    expect(only("empty-block", inMain(body))[0]!.fix).toBeUndefined();
  });
  test("empty else, catch, finally and function bodies are fine", () => {
    expect(only("empty-block", "fn f() {}\nf()\n" + inMain("  if x { log(1) } else {}\n  try { log(1) } catch (e) {} finally {}"))).toEqual([]);
  });
});

describe("invalid-binary-op-literal", () => {
  test("fires on arithmetic with true/false/nil", () => {
    expect(messages("invalid-binary-op-literal", inMain("  log(1 + true)\n  log(nil * 2)"))).toEqual([
      "operator '+' used with boolean or nil literal \u2014 this will cause a runtime error",
      "operator '*' used with boolean or nil literal \u2014 this will cause a runtime error",
    ]);
  });
  test.each([
    ['  log("count: " + nil)', '"count: ${nil}"'],
    ['  log(false + " flag")', '"${false} flag"'],
  ])("string + literal: the help shows the interpolation, --fix leaves it (the expression fails at run time): %s", (body, want) => {
    const [d] = only("invalid-binary-op-literal", inMain(body));
    expect(d!.help).toBe(`use string interpolation to convert values explicitly: \`${want}\``);
    expect(d!.fix).toBeUndefined();
  });
  test("no fix without a plain string operand; comparisons do not fire", () => {
    expect(only("invalid-binary-op-literal", inMain("  log(x - nil)"))[0]!.fix).toBeUndefined();
    expect(only("invalid-binary-op-literal", inMain("  log(x == nil)\n  log(a && true)"))).toEqual([]);
  });
});

describe("assert-outside-test / require-in-test", () => {
  test("assert outside a test pipeline", () => {
    expect(only("assert-outside-test", inMain("  assert(x)\n  assert_eq(1, 1)\n  assert_ne(1, 2)")).map((d) => [d.message, d.help])).toEqual([
      ["`assert` is intended for test pipelines, not production control flow", "use `require` for invariants in non-test code"],
      ["`assert_eq` is intended for test pipelines, not production control flow", "use `require` for invariants in non-test code"],
      ["`assert_ne` is intended for test pipelines, not production control flow", "use `require` for invariants in non-test code"],
    ]);
  });
  test.each([
    ["test", "pipeline test() { assert(x)\n let f = fn() { assert(y) }\n f() }\n"],
    ["test_*", "pipeline test_math() { assert(x) }\n"],
    ["@test (Q6 fixed)", "@test\npipeline checks() { assert(x) }\n"],
  ])("asserts are fine in %s pipelines", (_n, src) => {
    expect(only("assert-outside-test", src)).toEqual([]);
  });
  test("a helper fn outside the test pipeline still fires", () => {
    expect(only("assert-outside-test", "fn check(x) { assert(x) }\npipeline test_a() { check(1) }\n")).toHaveLength(1);
  });
  test("require inside a test pipeline (including @test)", () => {
    const ds = only("require-in-test", "pipeline test_a() { require x, \"m\" }\n@test\npipeline b() { require y }\npipeline main() { require z }\n");
    expect(ds.map((d) => [d.span!.line, d.message, d.help])).toEqual([
      [1, "`require` in a test pipeline should usually be an assertion", "prefer `assert(...)` or `assert_eq(...)` in test pipelines"],
      [3, "`require` in a test pipeline should usually be an assertion", "prefer `assert(...)` or `assert_eq(...)` in test pipelines"],
    ]);
  });
});

describe("comparison-to-bool", () => {
  test.each([
    ["(a < b) == true", "comparison to `true` is redundant", "remove the comparison, use the expression directly", "a < b"],
    ["true == !ready", "comparison to `true` is redundant", "remove the comparison, use the expression directly", "!ready"],
    ["(x > 1 && !b) == false", "comparison to `false` is redundant", "use `!expr` instead", "!(x > 1 && !b)"],
    ["(a in xs) != true", "`!= true` is redundant", "use `!expr` instead", "!(a in xs)"],
    ["(x > 0) != false", "`!= false` is redundant", "remove the comparison, use the expression directly", "x > 0"],
    ["a == b == false", "comparison to `false` is redundant", "use `!expr` instead", "!(a == b)"],
  ])("%s", (expr, message, help, replacement) => {
    const src = inMain(`  log(${expr})`);
    expect(only("comparison-to-bool", src).map((d) => [d.message, d.help])).toEqual([[message, help]]);
    expect(fixed(src, {}, "comparison-to-bool")).toBe(inMain(`  log(${replacement})`));
  });
  test.each(["ready == true", "ready == false", "ready != true", "ready != false"])(
    "reported, but not fixed when the operand may not be a bool (`nil == false` is false, `!nil` true): %s",
    (expr) => {
      const [d] = only("comparison-to-bool", inMain(`  log(${expr})`));
      expect(d!.fix).toBeUndefined();
    },
  );
  test("not when the expression is a self-comparison", () => {
    expect(only("comparison-to-bool", inMain("  log(true == true)"))).toEqual([]);
  });
});

describe("pointless-comparison", () => {
  test("a leaf compared with itself; the source-free fix only where the answer is sure", () => {
    const src = inMain("  log(n == n)\n  log(3 != 3)");
    expect(only("pointless-comparison", src).map((d) => [d.message, d.help])).toEqual([
      ["expression is compared to itself with `==`", "replace this comparison with `true`"],
      ["expression is compared to itself with `!=`", "replace this comparison with `false`"],
    ]);
    // `n` may be a float NaN, a function or a duration, which are not equal to themselves
    expect(fixed(src, {}, "pointless-comparison")).toBe(inMain("  log(n == n)\n  log(false)"));
  });
  test("compound operands are not compared (Q8 kept); while true is fine", () => {
    expect(only("pointless-comparison", inMain("  log(a.b == a.b)\n  while true { break }"))).toEqual([]);
  });
  test("an if on a literal condition, spanning the condition", () => {
    const src = inMain("  if false { log(1) }");
    const [d] = only("pointless-comparison", src);
    expect([d!.message, d!.help, src.slice(d!.span!.start, d!.span!.end)]).toEqual([
      "if condition is always `false`",
      "remove the constant condition or replace it with real branching",
      "false",
    ]);
  });
});

describe("duplicate-match-arm", () => {
  test("repeated literal and catch-all arms, on the later pattern", () => {
    const src = inMain('  match x {\n    "a" -> { log(1) }\n    "a" -> { log(2) }\n    _ -> { log(3) }\n    _ -> { log(4) }\n  }');
    expect(only("duplicate-match-arm", src).map((d) => [d.span!.line, d.message, d.help])).toEqual([
      [4, "duplicate match arm pattern", "remove the duplicate arm"],
      [6, "duplicate match arm pattern", "remove the duplicate arm"],
    ]);
  });
  test("arms with different guards, or compound patterns, are not duplicates", () => {
    const src = inMain('  match x {\n    "a" if ok(1) -> { log(1) }\n    "a" if ok(2) -> { log(2) }\n    [1, 2] -> { log(3) }\n    [1, 2] -> { log(4) }\n  }');
    expect(only("duplicate-match-arm", src)).toEqual([]);
  });
});

describe("unnecessary-else-return", () => {
  test("fires and flattens the else after the if", () => {
    const src = "fn f(x) {\n  if x {\n    return 1\n  } else {\n    log(x)\n    return 2\n  }\n}\nf(1)\n";
    expect(messages("unnecessary-else-return", src)).toEqual(["both if and else branches return \u2014 else is unnecessary"]);
    expect(fixed(src, {}, "unnecessary-else-return")).toBe("fn f(x) {\n  if x {\n    return 1\n  }\n  log(x)\n    return 2\n}\nf(1)\n");
  });
  test("an `if` used as a value is reported but has no fix (flattening it would change what runs)", () => {
    const src = "fn f(c) {\n  let x = if c { return 1 } else { return 2 }\n  return x\n}\nf(1)\n";
    const [d] = only("unnecessary-else-return", src);
    expect(d!.fix).toBeUndefined();
    const nested = "fn f(c) {\n  for i in c {\n    if i { return 1 } else { return 2 }\n  }\n}\nf(1)\n";
    expect(only("unnecessary-else-return", nested)[0]!.fix).toHaveLength(1);
  });
  test("not for throw, nor for an else-if chain's outer if", () => {
    expect(only("unnecessary-else-return", "fn f(x) {\n  if x { throw 1 } else { return 2 }\n}\nf(1)\n")).toEqual([]);
    const chain = "fn f(x) {\n  if x { return 1 } else if y { log(1) }\n}\nf(1)\n";
    expect(only("unnecessary-else-return", chain)).toEqual([]);
  });
});

describe("let-then-return", () => {
  test("fires and returns the expression directly", () => {
    const src = "fn f() {\n  let total = compute(1) + 2\n  return total\n}\nf()\n";
    const [d] = only("let-then-return", src);
    expect([d!.message, d!.help]).toEqual(["binding `total` is immediately returned", "return the expression assigned to `total` directly"]);
    expect(fixed(src, {}, "let-then-return")).toBe("fn f() {\n  return compute(1) + 2\n}\nf()\n");
  });
  test.each([
    ["a typed binding", "  let n: int = 1\n  return n"],
    ["var", "  var n = 1\n  return n"],
    ["another name", "  let n = 1\n  return m"],
    ["something in between", "  let n = 1\n  log(n)\n  return n"],
  ])("not for %s", (_n, body) => {
    expect(only("let-then-return", `fn f(m) {\n${body}\n}\nf(1)\n`)).toEqual([]);
  });
  test("not at the top level of a file", () => {
    expect(only("let-then-return", "let n = 1\nreturn n\n")).toEqual([]);
  });
});

describe("redundant-nil-ternary", () => {
  test.each([
    ["x == nil ? 0 : x", "x ?? 0"],
    ["nil == x ? 0 : x", "x ?? 0"],
    ["x != nil ? x : 0", "x ?? 0"],
    ["nil != x ? x : a || b", "x ?? (a || b)"],
  ])("%s becomes %s", (expr, want) => {
    const src = inMain(`  log(${expr})`);
    expect(only("redundant-nil-ternary", src).map((d) => [d.message, d.help])).toEqual([
      ["ternary nil check over `x` can be replaced with `x ?? <fallback>`", "use `x ?? <fallback>` instead"],
    ]);
    expect(fixed(src, {}, "redundant-nil-ternary")).toBe(inMain(`  log(${want})`));
  });
  test("not when the non-nil arm is something else", () => {
    expect(only("redundant-nil-ternary", inMain("  log(x == nil ? 0 : x.y)\n  log(x != nil ? y : 0)"))).toEqual([]);
  });
});

describe("names that are special on JavaScript objects", () => {
  test("functions named constructor, toString, __proto__ lint like any other", () => {
    const src = "fn constructor(x) { return x }\n\nfn toString(x) { return x }\n\nlog(constructor(1), toString(2), hasOwnProperty(3))\n";
    expect(lint(src).map((d) => [d.code, d.message])).toEqual([
      ["naming-convention", "function `toString` should use snake_case"],
      ["undefined-function", "function `hasOwnProperty` is not defined"],
    ]);
    expect(lint("pipeline main() {\n  log(1)\n}\n", { rules: JSON.parse(`{"constructor": {"severity": "off"}, "__proto__": {"severity": "off"}}`) })).toEqual([]);
  });
});

describe("unnecessary-cast", () => {
  test.each([
    ['to_string("lit")', "`to_string` is a no-op here \u2014 its argument is already a string", '"lit"'],
    ["to_int(3)", "`to_int` is a no-op here \u2014 its argument is already an int", "3"],
    ["to_float(2.5)", "`to_float` is a no-op here \u2014 its argument is already a float", "2.5"],
    ["to_list([ 1,2 ])", "`to_list` is a no-op here \u2014 its argument is already a list", "[ 1,2 ]"],
    ["to_dict({a: 1})", "`to_dict` is a no-op here \u2014 its argument is already a dict", "{a: 1}"],
    ["to_int(to_int(v))", "`to_int` is a no-op here \u2014 its argument is already an int", "to_int(v)"],
  ])("%s", (call, message, want) => {
    const src = inMain(`  log(${call})`);
    expect(only("unnecessary-cast", src).map((d) => d.message)).toEqual([message]);
    expect(fixed(src, {}, "unnecessary-cast")).toBe(inMain(`  log(${want})`));
  });
  test.each(['to_int("7")', "to_float(2)", "to_int(2.5)", "to_list(set(xs))", "to_string(count)", "to_string()", "to_string(a, b)", '"x".to_string()'])(
    "a real conversion: %s",
    (call) => {
      expect(only("unnecessary-cast", inMain(`  log(${call})`))).toEqual([]);
    },
  );
});

describe("redundant-clone", () => {
  test("a clone passed straight to a call; drop has its own message", () => {
    const src = inMain("  send(payload.clone())\n  drop(v.clone())\n  q.push(item.clone())");
    expect(only("redundant-clone", src).map((d) => [d.message, d.help])).toEqual([
      ["cloned value is immediately passed by value", "pass the original value directly unless a distinct snapshot is required"],
      ["cloned value is immediately dropped", "drop the original value directly"],
      ["cloned value is immediately passed by value", "pass the original value directly unless a distinct snapshot is required"],
    ]);
    expect(fixed(src, {}, "redundant-clone")).toBe(inMain("  send(payload)\n  drop(v)\n  q.push(item)"));
  });
  test("a clone bound first is fine", () => {
    expect(only("redundant-clone", inMain("  let c = v.clone()\n  send(c)"))).toEqual([]);
  });
});

describe("naming-convention", () => {
  test("functions in snake_case, types in PascalCase, with suggestions", () => {
    const src = "fn LoadAll() { log(1) }\nstruct http_client { x: int }\nenum color { Red }\ntype my_alias = int\n";
    expect(only("naming-convention", src).map((d) => [d.message, d.help])).toEqual([
      ["function `LoadAll` should use snake_case", "rename `LoadAll` to snake_case (for example `load_all`)"],
      ["struct `http_client` should use PascalCase", "rename `http_client` to PascalCase (for example `HttpClient`)"],
      ["enum `color` should use PascalCase", "rename `color` to PascalCase (for example `Color`)"],
      ["type `my_alias` should use PascalCase", "rename `my_alias` to PascalCase (for example `MyAlias`)"],
    ]);
  });
  test("pipelines, variables, variants are not checked", () => {
    expect(only("naming-convention", "pipeline MainThing() { let FooBar = 1\n log(FooBar) }\nenum Color { red_one }\n")).toEqual([]);
  });
});

describe("missing-harndoc", () => {
  test("a pub fn without a doc block fires", () => {
    const ds = only("missing-harndoc", "pub fn load(path) { return path }\n");
    expect(ds.map((d) => [d.message, d.help])).toEqual([
      ["public function `load` is missing a `/** */` doc comment", "add a `/** ... */` HarnDoc block directly above `pub fn load`"],
    ]);
  });
  test.each([
    ["single-line form", "/** Loads it. */\npub fn load(p) { return p }\n"],
    ["multi-line form", "/**\n * Loads it.\n */\npub fn load(p) { return p }\n"],
    ["above attributes", "/** Loads. */\n@deprecated\npub fn load(p) { return p }\n"],
    ["non-pub fn", "fn load(p) { return p }\nload(1)\n"],
  ])("does not fire with %s", (_n, src) => {
    expect(only("missing-harndoc", src)).toEqual([]);
  });
  test.each([
    ["// comments", "// Loads it.\npub fn load(p) { return p }\n"],
    ["a plain block comment", "/* Loads it. */\npub fn load(p) { return p }\n"],
    ["a blank line in between", "/** Loads it. */\n\npub fn load(p) { return p }\n"],
    ["an empty multi-line block", "/**\n *\n */\npub fn load(p) { return p }\n"],
  ])("fires despite %s", (_n, src) => {
    expect(only("missing-harndoc", src)).toHaveLength(1);
  });
});

describe("pipeline-return-type", () => {
  test("a pub pipeline without -> Type", () => {
    expect(only("pipeline-return-type", "pub pipeline build(x) { log(x) }\n").map((d) => [d.message, d.help])).toEqual([
      [
        "public pipeline `build` has no declared return type; explicit return types will be required in a future release",
        "declare a return type: `pub pipeline build(...) -> TypeExpr { ... }`",
      ],
    ]);
  });
  test.each(["default", "main", "auto", "test", "test_x"])("not for %s", (name) => {
    expect(only("pipeline-return-type", `pub pipeline ${name}() { log(1) }\n`)).toEqual([]);
  });
  test("not with a return type or without pub", () => {
    expect(only("pipeline-return-type", "pub pipeline b() -> int { return 1 }\npipeline c() { log(1) }\n")).toEqual([]);
  });
});

describe("cyclomatic-complexity", () => {
  const branches = (n: number): string => Array.from({ length: n }, (_, i) => `  if x == ${i} { log(${i}) }`).join("\n");
  test("fires above the threshold with the score", () => {
    const src = `fn busy(x) {\n${branches(25)}\n}\nbusy(1)\n`;
    expect(messages("cyclomatic-complexity", src)).toEqual(["function `busy` has cyclomatic complexity 26 (> 25)"]);
    expect(only("cyclomatic-complexity", `fn busy(x) {\n${branches(24)}\n}\nbusy(1)\n`)).toEqual([]);
  });
  test("counts &&, ||, ternaries, loops, match, select cases, guard, try", () => {
    const src = `fn f(a) {
  if a && b || c { log(1) }
  log(a ? 1 : 2)
  for x in xs { log(x) }
  while a { break }
  retry 2 { log(1) }
  match a { 1 -> { log(1) } 2 -> { log(2) } }
  guard a else { return 1 }
  try { log(1) } catch (e) { log(e) }
  let g = { -> if a { log(1) } }
}
f(1)
`;
    expect(messages("cyclomatic-complexity", src, { rules: { "cyclomatic-complexity": { options: { threshold: 5 } } } })).toEqual([
      "function `f` has cyclomatic complexity 12 (> 5)",
    ]);
  });
  test("a nested fn is scored on its own; @complexity(allow) suppresses", () => {
    const src = `fn outer(x) {\n  fn inner(x) {\n${branches(3)}\n  }\n  inner(x)\n}\nouter(1)\n@complexity(allow)\nfn big(x) {\n${branches(5)}\n}\nbig(1)\n`;
    expect(messages("cyclomatic-complexity", src, { rules: { "cyclomatic-complexity": { options: { threshold: 3 } } } })).toEqual([
      "function `inner` has cyclomatic complexity 4 (> 3)",
    ]);
  });
});

describe("untyped-dict-access", () => {
  test.each([
    ["json_parse(s).name", "property access on raw `json_parse()` result without schema validation"],
    ['http_get(u)["body"]', "subscript access on raw `http_get()` result without schema validation"],
    ["llm_call(p)?.text", "property access on raw `llm_call()` result without schema validation"],
  ])("%s", (expr, message) => {
    expect(only("untyped-dict-access", inMain(`  log(${expr})`)).map((d) => [d.message, d.help])).toEqual([
      [message, "assign to a variable and validate with schema_expect() or a type annotation first"],
    ]);
  });
  test("not through a variable, a user function or a method call", () => {
    expect(only("untyped-dict-access", inMain("  let d = json_parse(s)\n  log(d.name)\n  log(mine(s).x)\n  log(json_parse(s).keys())"))).toEqual([]);
  });
});

describe("prompt-injection-risk", () => {
  test("an interpolated system prompt", () => {
    expect(only("prompt-injection-risk", inMain('  llm_call(q, "You are ${role}")')).map((d) => d.message)).toEqual([
      "interpolated data in the `llm_call` system prompt can smuggle untrusted instructions",
    ]);
  });
  test("a static system prompt, or interpolation in the user prompt", () => {
    expect(only("prompt-injection-risk", inMain('  llm_call("q ${x}", "You are a bot")'))).toEqual([]);
  });
});

describe("unhandled-approval-result", () => {
  test("a discarded approval fires", () => {
    expect(only("unhandled-approval-result", inMain('  request_approval("deploy")\n  log(1)')).map((d) => d.message)).toEqual([
      "approval result from `request_approval` is discarded",
    ]);
  });
  test.each([
    ["bound", '  let ok = request_approval("deploy")\n  log(ok)'],
    ["assigned to _", '  _ = request_approval("deploy")'],
    ["the value of a try expression", '  let r = try { request_approval("deploy") }\n  log(r)'],
  ])("not when %s", (_n, body) => {
    expect(only("unhandled-approval-result", inMain(body))).toEqual([]);
  });
  test("top-level statements are not checked", () => {
    expect(only("unhandled-approval-result", 'request_approval("x")\n')).toEqual([]);
  });
});

describe("eager-collection-conversion", () => {
  test("an iterator where a list is declared; the fix materializes it", () => {
    const src = inMain("  let xs: list<int> = items.map({ x -> x * 2 })\n  log(xs)");
    expect(only("eager-collection-conversion", src).map((d) => [d.message, d.help])).toEqual([
      ["expression is an iterator; expected list. Add .to_list() to materialize.", "append `.to_list()` to materialize the iterator"],
    ]);
    expect(fixed(src, {}, "eager-collection-conversion")).toBe(inMain("  let xs: list<int> = items.map({ x -> x * 2 }).to_list()\n  log(xs)"));
  });
  test("a returned iterator checked against the fn return type", () => {
    expect(messages("eager-collection-conversion", "fn f(xs) -> set<int> {\n  return iter(xs)\n}\nf(1)\n")).toEqual([
      "expression is an iterator; expected set. Add .to_set() to materialize.",
    ]);
  });
  test("not for Iter annotations, materialized chains, or a closure's return", () => {
    const src = "fn f(xs) -> list<int> {\n  let g = { -> return xs.map(h) }\n  let it: iter<int> = xs.map(h)\n  return xs.map(h).to_list()\n}\nf(1)\n";
    expect(only("eager-collection-conversion", src)).toEqual([]);
  });
});

describe("pr-open-without-secret-scan", () => {
  const MSG = "PR-open flow calls `git::push_pr` without a preceding `secret_scan(...)` in the same handler";
  test("a PR-open call with no scan before it", () => {
    const ds = only("pr-open-without-secret-scan", 'fn ship(c) {\n  mcp_call(c, "create_pr", {})\n}\nship(1)\n');
    expect(ds.map((d) => [d.message, d.help])).toEqual([
      [MSG, "run `secret_scan(content)` first and gate the PR-open call on an empty findings list"],
    ]);
  });
  test.each([
    ["a scan before", '  secret_scan(x)\n  host_tool_call("git::push_pr", {})', 0],
    ["a scan nested in an argument", '  host_tool_call("git.push_pr", {findings: secret_scan(x)})', 0],
    ["a scan on both branches", '  if a { secret_scan(x) } else { mcp_call(c, "harn.secret_scan", x) }\n  mcp_call(c, "git::push_pr")', 0],
    ["a scan in only one branch", '  if a { secret_scan(x) }\n  mcp_call(c, "git::push_pr")', 1],
    ["a scan in a loop body", '  for f in fs { secret_scan(f) }\n  mcp_call(c, "git::push_pr")', 1],
    ["a scan in a retry body", '  retry 3 { secret_scan(x) }\n  mcp_call(c, "git::push_pr")', 1],
    ["a scan in finally", '  try { log(1) } finally { secret_scan(x) }\n  mcp_call(c, "git::push_pr")', 0],
    ["a scan in try and catch", '  try { secret_scan(x) } catch (e) { secret_scan(y) }\n  mcp_call(c, "git::push_pr")', 0],
    ["a scan in try only", '  try { secret_scan(x) } catch (e) { log(e) }\n  mcp_call(c, "git::push_pr")', 1],
    ["a scan in every match arm", '  match a { 1 -> { secret_scan(x) } _ -> { secret_scan(y) } }\n  mcp_call(c, "git::push_pr")', 0],
    ["a scan outside a closure", '  secret_scan(x)\n  let f = { -> mcp_call(c, "git::push_pr") }', 1],
  ])("%s", (_n, body, n) => {
    expect(only("pr-open-without-secret-scan", `fn ship(c, a, x, y, fs) {\n${body}\n}\nship(1, 2, 3, 4, 5)\n`)).toHaveLength(n);
  });
});

describe("connector-effect-policy", () => {
  test("restricted builtins inside connector exports, with the group's reason", () => {
    const src = `fn normalize_inbound(e) {
  read_file("x")
  http_get("u")
}
fn poll_tick(s) {
  http_get("u")
  let f = { -> exec("ls") }
}
`;
    expect(only("connector-effect-policy", src).map((d) => d.message)).toEqual([
      "connector export `normalize_inbound` calls disallowed builtin `read_file`: ambient filesystem access is not allowed",
      "connector export `normalize_inbound` calls disallowed builtin `http_get`: outbound network/client calls are not allowed on the ingress hot path",
      "connector export `poll_tick` calls disallowed builtin `exec`: process execution is not allowed",
    ]);
    expect(only("connector-effect-policy", src)[0]!.help).toBe(
      "move `read_file` out of `normalize_inbound` or configure a trusted connector effect-policy override",
    );
  });
  test("other functions are not restricted", () => {
    expect(only("connector-effect-policy", 'fn helper() { read_file("x") }\nhelper()\n')).toEqual([]);
  });
});
