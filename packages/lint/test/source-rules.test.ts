/**
 * The source-aware rules (lint.md §3.32–§3.36): they need the text, and
 * their fixes are compared as whole files.
 */
import { describe, expect, test } from "vitest";
import { lintProgram } from "../src/index";
import { parse } from "@harn/parser";
import { fixed, only } from "./helpers";

describe("legacy-doc-comment", () => {
  test("/// lines above a top-level item become one /** */ line", () => {
    const src = "/// Loads the config.\nfn load() { return 1 }\nload()\n";
    const ds = only("legacy-doc-comment", src);
    expect(ds.map((d) => [d.message, d.help])).toEqual([
      ["`///` doc comment(s) above this item should use `/** */` form", "rewrite the /// lines as a canonical `/** ... */` block"],
    ]);
    expect(fixed(src, {}, "legacy-doc-comment")).toBe("/** Loads the config. */\nfn load() { return 1 }\nload()\n");
  });
  test("plain // lines, multi-line result, indentation kept", () => {
    const src = "pipeline main() {\n  // Loads it.\n  //\n  // Then parses it.\n  pub fn load() { return 1 }\n  load()\n}\n";
    expect(only("legacy-doc-comment", src).map((d) => d.message)).toEqual([
      "plain `//` doc comment(s) above this item should use `/** */` form",
    ]);
    expect(fixed(src, {}, "legacy-doc-comment")).toBe(
      "pipeline main() {\n  /**\n   * Loads it.\n   *\n   * Then parses it.\n   */\n  pub fn load() { return 1 }\n  load()\n}\n",
    );
  });
  test("comment text holding */ or /* is reported without a fix (the block would end early or nest)", () => {
    for (const text of ["// glob: `**/x` matches\n", "// see a/*b\n"]) {
      const [d] = only("legacy-doc-comment", `${text}fn load() { return 1 }\nload()\n`);
      expect(d!.fix).toBeUndefined();
    }
    const [ok] = only("legacy-doc-comment", "/// * star, / slash\nfn load() { return 1 }\nload()\n");
    expect(ok!.fix).toHaveLength(1);
  });
  test("mixed // and ///", () => {
    expect(only("legacy-doc-comment", "// a\n/// b\nstruct P { x: int }\n").map((d) => d.help)).toEqual([
      "rewrite the line-comment block adjacent to the definition as a canonical `/** ... */` block",
    ]);
  });
  test.each([
    ["a /** */ block", "/** Docs. */\nfn load() { return 1 }\nload()\n"],
    ["a blank line between", "// note\n\nfn load() { return 1 }\nload()\n"],
    ["a non-pub nested fn", "pipeline main() {\n  // helper\n  fn inner() { return 1 }\n  inner()\n}\n"],
    ["a trailing comment on a code line (Q11 fixed)", "let a = 1 // trailing\nfn load() { return a }\nload()\n"],
    ["no comment", "fn load() { return 1 }\nload()\n"],
  ])("does not fire with %s", (_n, src) => {
    expect(only("legacy-doc-comment", src)).toEqual([]);
  });
});

describe("blank-line-between-items", () => {
  test("adjacent items: zero-width at the start of the next line, fix inserts a blank line", () => {
    const src = "fn a() { return 1 }\nfn b() { return a() }\nb()\n";
    const [d] = only("blank-line-between-items", src);
    expect([d!.message, d!.help, d!.span!.line, d!.span!.column, d!.span!.start === d!.span!.end]).toEqual([
      "top-level items should be separated by a blank line",
      "insert a blank line above the next item (doc comments stay glued to the item they describe)",
      2,
      1,
      true,
    ]);
    expect(fixed(src, {}, "blank-line-between-items")).toBe("fn a() { return 1 }\n\nfn b() { return a() }\nb()\n");
  });
  test("doc comments stay glued to the item below", () => {
    expect(only("blank-line-between-items", "let a = 1\n/** B. */\nlet b = a\n")).toHaveLength(1);
    expect(only("blank-line-between-items", "let a = 1\n\n/** B. */\nlet b = a\n")).toEqual([]);
  });
  test("consecutive imports may be adjacent; import then item may not", () => {
    expect(only("blank-line-between-items", 'import "a"\nimport "b"\n')).toEqual([]);
    expect(only("blank-line-between-items", 'import "a"\nlet x = 1\n')).toHaveLength(1);
  });
  test("statements that are not items do not count", () => {
    expect(only("blank-line-between-items", "log(1)\nlog(2)\n")).toEqual([]);
  });
});

describe("trailing-comma", () => {
  test("a multi-line call without a trailing comma", () => {
    const src = 'log(\n  "a",\n  "b"\n)\n';
    const [d] = only("trailing-comma", src);
    expect([d!.message, d!.help, d!.span!.line, d!.span!.column]).toEqual([
      "multiline comma-separated list is missing a trailing comma",
      "add a trailing comma after the last item",
      3,
      1, // the reference's column, whatever the insertion point (lint.md §3.34)
    ]);
    expect(fixed(src, {}, "trailing-comma")).toBe('log(\n  "a",\n  "b",\n)\n');
  });
  test("lists and dicts (keyword keys too); the comma goes before a trailing comment (Q10 fixed)", () => {
    const src = "let xs = [\n  1,\n  2 // two\n]\nlet d = {\n  type: 1,\n  b: 2\n}\nlog(xs, d)\n";
    expect(fixed(src, {}, "trailing-comma")).toBe("let xs = [\n  1,\n  2, // two\n]\nlet d = {\n  type: 1,\n  b: 2,\n}\nlog(xs, d)\n");
  });
  test.each([
    ["a single-line list", "log([1, 2])\n"],
    ["a multi-line list with one item", "log([\n  1\n])\n"],
    ["a trailing comma already", "log([\n  1,\n  2,\n])\n"],
    ["a block", "fn f(a, b) {\n  log(a)\n  log(b)\n}\nf(1, 2)\n"],
    ["a closure with typed params", "let f = { a: int,\n  b: int -> a + b\n}\nlog(f)\n"],
    ["an enum body", "enum C {\n  Red,\n  Green\n}\nlog(C.Red)\n"],
  ])("does not fire for %s", (_n, src) => {
    expect(only("trailing-comma", src)).toEqual([]);
  });
});

describe("import-order", () => {
  test("std first, then by path; the fix rewrites the run", () => {
    const src = 'import { b } from "zeta"\nimport "std/math"\nimport { a } from "alpha"\n\nlog(a, b)\n';
    const [d] = only("import-order", src);
    expect([d!.message, d!.help]).toEqual([
      "imports are not in canonical order (stdlib first, then alphabetical by path)",
      "reorder imports: std/ first, then third-party and local paths alphabetically",
    ]);
    expect(fixed(src, {}, "import-order")).toBe('import "std/math"\nimport { a } from "alpha"\nimport { b } from "zeta"\n\nlog(a, b)\n');
  });
  test("wildcard before selective for the same path; sorted order does not fire", () => {
    expect(only("import-order", 'import "std/a"\nimport "b"\nimport { x } from "b"\nlog(x)\n')).toEqual([]);
    expect(only("import-order", 'import { x } from "b"\nimport "b"\nlog(x)\n')).toHaveLength(1);
  });
  test("only the leading run; fewer than two imports never fire", () => {
    expect(only("import-order", 'import "b"\nlog(1)\nimport "a"\n')).toEqual([]);
  });
});

describe("require-file-header (opt-in)", () => {
  test("off by default", () => {
    expect(only("require-file-header", "log(1)\n")).toEqual([]);
  });
  test.each([
    ["sync-jobs.harn", "Sync jobs."],
    ["ETL_Runner.harn", "Etl runner."],
    ["dir/why?.harn", "Why?"],
  ])("title from %s", (file, title) => {
    const src = "log(1)\n";
    const [d] = only("require-file-header", src, { rules: { "require-file-header": { severity: "warning" } }, file });
    expect([d!.message, d!.help, d!.span!.line, d!.span!.column]).toEqual([
      "file is missing a `/** */` header doc block",
      `add a \`/** <title> */\` block at the top of the file (e.g. \`${title}\`)`,
      1,
      1,
    ]);
    expect(fixed(src, { rules: { "require-file-header": { severity: "warning" } }, file }, "require-file-header")).toBe(`/**\n * ${title}\n */\n\nlog(1)\n`);
  });
  test("no path gives Module.", () => {
    const program = parse("log(1)\n").program;
    const [d] = lintProgram(program, { source: "log(1)\n", rules: { "require-file-header": { severity: "warning" } } }).filter((x) => x.code === "require-file-header");
    expect(d!.help).toContain("`Module.`");
  });
  test.each([
    ["a header", "/** Jobs. */\nlog(1)\n", 0],
    ["a header after blank lines", "\n\n/**\n * Jobs.\n */\nlog(1)\n", 0],
    ["a // comment", "// Jobs.\nlog(1)\n", 1],
    ["a plain block", "/* Jobs. */\nlog(1)\n", 1],
  ])("%s", (_n, src, n) => {
    expect(only("require-file-header", src, { rules: { "require-file-header": { severity: "warning" } } })).toHaveLength(n);
  });
});

test("source-aware rules do not run without the source text", () => {
  const src = "/// d\nfn a() { return 1 }\nfn b() { return a() }\nlog(b(\n  1,\n  2\n))\n";
  const ids = lintProgram(parse(src).program, { rules: { "require-file-header": { severity: "warning" } } }).map((d) => d.code);
  for (const r of ["legacy-doc-comment", "blank-line-between-items", "trailing-comma", "require-file-header", "missing-harndoc"]) {
    expect(ids).not.toContain(r);
  }
});

test("without the source only the two source-free fixes are produced (lint.md §1.1)", () => {
  const src = "pipeline main() {\n  var n = 1\n  let xs: list<int> = items.map(f)\n  log(3 == 3, ready == true, to_int(3), xs)\n}\n";
  const withFix = lintProgram(parse(src).program, {})
    .filter((d) => d.fix)
    .map((d) => d.code);
  expect([...new Set(withFix)].sort()).toEqual(["eager-collection-conversion", "pointless-comparison"]);
});
