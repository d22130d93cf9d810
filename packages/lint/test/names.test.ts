/**
 * Name-based rules (lint.md §1.6, §3.4–§3.10, §3.24): unused-*,
 * undefined-function, shadow-variable, mutable-never-reassigned.
 */
import { describe, expect, test } from "vitest";
import { fixed, inMain, lint, only } from "./helpers";


test("severity overrides apply to every finding of the rule", () => {
  const ds = lint(inMain("  let total = 3"), { rules: { "unused-variable": { severity: "error" } } });
  expect(ds.map((d) => [d.code, d.severity])).toEqual([["unused-variable", "error"]]);
});

describe("unused-variable / unused-pattern-binding", () => {
  test.each([
    ["a write-only var (its assignments would set an undeclared name)", "  var total = 3\n  total = 4"],
    ["a name declared twice", "  var total = 3\n  var total = 4"],
    ["a name one typo from a name read elsewhere (`let name` .. `nme`)", "  let name = 3\n  log(nme)"],
  ])("reported, but not renamed: %s", (_n, body) => {
    const ds = only("unused-variable", inMain(body));
    expect(ds.length).toBeGreaterThan(0);
    expect(ds.every((d) => d.fix === undefined)).toBe(true);
  });
  test("an unread let fires; the message and help follow the spec", () => {
    const [d] = only("unused-variable", inMain("  let total = 3"));
    expect(d!.message).toBe("variable `total` is declared but never used");
    expect(d!.help).toBe("prefix with underscore: `_total`");
  });
  test.each([
    ["read anywhere in the file (name-based)", "fn a() { let x = 1 }\nfn b() { log(x) }\npipeline main() { a()\n b() }\n"],
    ["underscore prefix", inMain("  let _x = 1")],
    ["read in an interpolation", inMain('  let who = "a"\n  log("hi ${who}!")')],
    ["a for variable", inMain("  for x in xs { log(1) }")],
    ["a catch variable", inMain("  try { log(1) } catch (e) { log(2) }")],
    ["a parallel variable", inMain("  parallel each xs { x -> log(1) }")],
  ])("does not fire when %s", (_n, src) => {
    expect(only("unused-variable", src)).toEqual([]);
  });
  test("top-level lets are checked too", () => {
    expect(only("unused-variable", "let limit = 3\n")).toHaveLength(1);
  });
  test("each destructured name reports unused-pattern-binding, on the statement, without a fix", () => {
    const ds = only("unused-pattern-binding", inMain("  let {a, b} = pair_of()\n  log(a)"));
    expect(ds.map((d) => d.message)).toEqual(["pattern binding `b` is never used"]);
    expect(ds[0]!.help).toBe("rename the binding with an underscore prefix or remove it from the pattern");
    expect(ds[0]!.fix).toBeUndefined();
    expect(only("unused-pattern-binding", inMain("  for [k, v] in pairs { log(k) }")).map((d) => d.message)).toEqual([
      "pattern binding `v` is never used",
    ]);
  });
  test.each([
    ["  let limit: int = 3", "  let _limit: int = 3"],
    ["  let total_ms = total_ms_default()", "  let _total_ms = total_ms_default()"],
    ["  var\tcount = 0", "  var\t_count = 0"],
  ])("fix renames only the binding: %s", (body, want) => {
    expect(fixed(inMain(body), {}, "unused-variable")).toBe(inMain(want));
  });
});

describe("unused-parameter", () => {
  test("fires for fn, tool and closure parameters, pointing at the parameter", () => {
    const src = "fn f(a, b) { log(a) }\npipeline main() {\n  f(1, 2)\n  let g = { x, y -> x }\n  g(1, 2)\n}\n";
    const ds = only("unused-parameter", src);
    expect(ds.map((d) => d.message)).toEqual([
      "parameter `b` is declared but never used",
      "parameter `y` is declared but never used",
    ]);
    expect(src.slice(ds[0]!.span!.start, ds[0]!.span!.end)).toBe("b");
  });
  test("not for pipeline parameters or _-prefixed ones", () => {
    expect(only("unused-parameter", "pipeline main(task) { log(1) }\nfn f(_x) { log(1) }\n")).toEqual([]);
  });
});

/** The module graph's facts for "store" and "x": everything exported, loading runs nothing. */
const pureModules = { modules: () => ({ exports: new Set(["load", "save", "drop", "valid", "id", "a", "b"]), pure: true }) };

describe("unused-import", () => {
  test("one diagnostic per unused name; the partial fix removes the name and its separator", () => {
    const src = 'import { load, save, drop } from "store"\npipeline main() {\n  load()\n  drop()\n}\n';
    const ds = only("unused-import", src);
    expect(ds.map((d) => d.message)).toEqual(["imported name `save` is never used"]);
    expect(fixed(src, pureModules, "unused-import")).toBe('import { load, drop } from "store"\npipeline main() {\n  load()\n  drop()\n}\n');
  });
  test("the last name takes the comma before it", () => {
    const src = 'import { load, save } from "store"\npipeline main() { load() }\n';
    expect(fixed(src, pureModules, "unused-import")).toBe('import { load } from "store"\npipeline main() { load() }\n');
  });
  test("names are matched as whole identifiers (`id` is not found inside `valid`)", () => {
    const src = 'import { valid, id } from "store"\npipeline main() { valid() }\n';
    expect(fixed(src, pureModules, "unused-import")).toBe('import { valid } from "store"\npipeline main() { valid() }\n');
  });
  test("all names unused: every diagnostic deletes the whole statement, applied once", () => {
    const src = 'import { a, b } from "x"\npipeline main() { log(1) }\n';
    expect(only("unused-import", src)).toHaveLength(2);
    expect(fixed(src, pureModules, "unused-import")).toBe("pipeline main() { log(1) }\n");
  });
  test("no fix when the module is not known, does not export the name, or (for the whole import) runs code as it loads", () => {
    const src = 'import { a, b } from "x"\npipeline main() { log(a) }\n';
    const fixOf = (o: object) => only("unused-import", src, o)[0]!.fix;
    expect(fixOf({})).toBeUndefined();
    expect(fixOf({ modules: () => ({ exports: new Set(["a"]), pure: true }) })).toBeUndefined();
    expect(fixOf({ modules: () => ({ exports: new Set(["a", "b"]), pure: false }) })).toHaveLength(1);
    const whole = 'import { b } from "x"\npipeline main() { log(1) }\n';
    expect(only("unused-import", whole, { modules: () => ({ exports: new Set(["b"]), pure: false }) })[0]!.fix).toBeUndefined();
  });
  test("wildcard imports and pub re-exports are not checked", () => {
    expect(only("unused-import", 'import "std/math"\npub import { a } from "x"\n')).toEqual([]);
  });
});

describe("unused-function", () => {
  test("a non-pub fn nobody names fires", () => {
    const [d] = only("unused-function", "fn helper() { log(1) }\n");
    expect(d!.message).toBe("function `helper` is declared but never used");
    expect(d!.help).toBe("remove the function or prefix with underscore: `_helper`");
  });
  test.each([
    ["pub", "pub fn helper() { log(1) }\n"],
    ["an impl method", "struct P { x: int }\nimpl P { fn area(self) { return 1 } }\nlet p = P { x: 1 }\n"],
    ["underscore", "fn _helper() { log(1) }\n"],
    ["passed as a value", "fn helper() { log(1) }\nlet f = helper\nlog(f)\n"],
    ["self-recursive (reference quirk, kept)", "fn loop_forever(n) { loop_forever(n) }\n"],
  ])("does not fire when %s", (_n, src) => {
    expect(only("unused-function", src)).toEqual([]);
  });
  test("names imported by other files of the run are exempt", () => {
    expect(only("unused-function", "fn helper() { log(1) }\n", { externallyImported: new Set(["helper"]) })).toEqual([]);
  });
  test("pipelines are never candidates", () => {
    expect(only("unused-function", "pipeline other() { log(1) }\npipeline main() { log(2) }\n")).toEqual([]);
  });
});

describe("undefined-function", () => {
  test("an unknown name fires with a did-you-mean help within edit distance 2", () => {
    const ds = only("undefined-function", inMain("  pritnln(1)"));
    expect(ds.map((d) => [d.message, d.help])).toEqual([["function `pritnln` is not defined", "did you mean `println`?"]]);
  });
  test("far from anything known: a spelling hint", () => {
    expect(only("undefined-function", inMain("  frobnicate_widgets(1)"))[0]!.help).toBe(
      "check the spelling or import `frobnicate_widgets`",
    );
  });
  test.each([
    ["a builtin", "  println(1)"],
    ["a later declaration", "  later()\n}\nfn later() { log(1) }\npipeline x() {"],
    ["a selective import", "  imported()\n}\nimport { imported } from \"lib\"\npipeline x() {"],
    ["a closure variable", "  let cb = { -> 1 }\n  cb()"],
    ["a pipeline parameter (Q5 fixed)", "  task()"],
    ["a runtime-internal name", "  __internal(1)\n  hostlib_thing(2)"],
    ["a struct constructor", "  Point({x: 1})\n}\nstruct Point { x: int }\npipeline x() {"],
  ])("does not fire for %s", (_n, body) => {
    expect(only("undefined-function", `pipeline main(task) {\n${body}\n}\n`)).toEqual([]);
  });
  test("an unresolvable wildcard import skips the check for the file", () => {
    expect(only("undefined-function", 'import "lib/helpers"\npipeline main() { mystery() }\n')).toEqual([]);
  });
  test("a resolved wildcard import adds its exports", () => {
    const src = 'import "lib/helpers"\npipeline main() {\n  known()\n  mystery()\n}\n';
    const ds = only("undefined-function", src, { wildcardExports: new Map([["lib/helpers", ["known"]]]) });
    expect(ds.map((d) => d.message)).toEqual(["function `mystery` is not defined"]);
  });
  test("extra builtins from the runtime are known", () => {
    expect(only("undefined-function", inMain("  brand_new_builtin()"), { builtins: ["brand_new_builtin"] })).toEqual([]);
  });
});

describe("shadow-variable", () => {
  test("redeclaring an immutable name in the same scope", () => {
    const ds = only("shadow-variable", inMain("  let a = 1\n  let a = 2\n  log(a)"));
    expect(ds.map((d) => [d.message, d.help])).toEqual([
      ["cannot redeclare immutable variable `a` in the same scope", "use `var a` for a mutable binding, or choose a different name"],
    ]);
  });
  test("a pipeline parameter counts as an earlier binding", () => {
    expect(only("shadow-variable", "pipeline main(task) { let task = 1\n log(task) }\n").map((d) => d.message)).toEqual([
      "cannot redeclare immutable variable `task` in the same scope",
    ]);
  });
  test("shadowing an outer scope, module scope included", () => {
    const ds = only("shadow-variable", "let limit = 1\npipeline main() {\n  if x {\n    var limit = 2\n    log(limit)\n  }\n}\n");
    expect(ds.map((d) => [d.message, d.help])).toEqual([
      ["variable `limit` shadows a variable in an outer scope", "consider renaming to avoid shadowing `limit`"],
    ]);
  });
  test("a parameter shadowing an outer name", () => {
    expect(only("shadow-variable", "let x = 1\nfn f(x) { log(x) }\nf(1)\n").map((d) => d.message)).toEqual([
      "variable `x` shadows a variable in an outer scope",
    ]);
  });
  test.each([
    ["var redeclaration in the same scope", "  var a = 1\n  var a = 2\n  a = 3"],
    ["sibling scopes", "  if x { let a = 1\n log(a) }\n  if y { let a = 2\n log(a) }"],
    ["for variables", "  let i = 0\n  for i in xs { log(i) }"],
    ["catch variables", "  let e = 0\n  try { log(1) } catch (e) { log(e) }"],
    ["underscore", "  let _ = 1\n  let _ = 2"],
    ["defer bodies do not open a scope", "  defer { let z = 1\n log(z) }"],
  ])("does not fire for %s", (_n, body) => {
    expect(only("shadow-variable", inMain(body))).toEqual([]);
  });
});

describe("mutable-never-reassigned", () => {
  test("a var never assigned fires; the fix turns it into let", () => {
    const src = inMain("  var count = 0\n  log(count)");
    expect(only("mutable-never-reassigned", src).map((d) => [d.message, d.help])).toEqual([
      ["variable `count` is declared as `var` but never reassigned", "use `let` instead of `var`"],
    ]);
    expect(fixed(src, {}, "mutable-never-reassigned")).toBe(inMain("  let count = 0\n  log(count)"));
  });
  test.each([
    ["x = ..", "  var x = 0\n  x = 1\n  log(x)"],
    ["x += ..", "  var x = 0\n  x += 1\n  log(x)"],
    ["x.f = ..", "  var x = {}\n  x.f = 1\n  log(x)"],
    ["x[i] = ..", "  var x = [1]\n  x[0] = 2\n  log(x)"],
  ])("assignment %s counts", (_n, body) => {
    expect(only("mutable-never-reassigned", inMain(body))).toEqual([]);
  });
});

describe("unused-type", () => {
  test("an unreferenced struct, enum or interface fires", () => {
    const ds = only("unused-type", "struct Point { x: int }\nenum Color { Red }\ninterface Shape { fn area(self) -> int }\n");
    expect(ds.map((d) => [d.message, d.help])).toEqual([
      ["struct `Point` is declared but never referenced", "remove the unused struct or reference `Point` from a signature or constructor"],
      ["enum `Color` is declared but never referenced", "remove the unused enum or reference `Color` from a signature or constructor"],
      ["interface `Shape` is declared but never referenced", "remove the unused interface or reference `Shape` from a signature or constructor"],
    ]);
  });
  test.each([
    ["a parameter type", "struct Point { x: int }\nfn f(p: Point) { log(p) }\nf(1)\n"],
    ["a return type inside a list", "struct Point { x: int }\nfn f() -> list<Point> { return [] }\nf()\n"],
    ["struct construction", "struct Point { x: int }\nlog(Point { x: 1 })\n"],
    ["enum construction", "enum Shape { Circle(r) }\nlog(Shape.Circle(1))\n"],
    ["an impl target", "struct Point { x: int }\nimpl Point { fn norm(self) { return 1 } }\n"],
    ["a let annotation (Q9 fixed)", "struct Point { x: int }\nlet p: Point = make()\nlog(p)\n"],
    ["call-style construction (Q9 fixed)", "struct Point { x: int }\nlog(Point({x: 1}))\n"],
    ["underscore", "struct _Scratch { x: int }\n"],
  ])("does not fire for %s", (_n, src) => {
    expect(only("unused-type", src)).toEqual([]);
  });
});
