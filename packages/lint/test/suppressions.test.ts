/** Inline suppressions and `unused-suppression` (extensions.md §6). */
import { describe, expect, test } from "vitest";
import { lint } from "./helpers";

const rules = (src: string, opts = {}): [string, number][] => lint(src, opts).map((d) => [d.code, d.span!.line]);

describe("harn-lint-disable-next-line", () => {
  test("suppresses the named rule on the next line only", () => {
    const src = "pipeline main() {\n  // harn-lint-disable-next-line unused-variable\n  let a = 1\n  let b = 2\n}\n";
    expect(rules(src)).toEqual([["unused-variable", 4]]);
  });
  test("several ids, comma separated; a reason after --", () => {
    const src =
      "pipeline main() {\n  // harn-lint-disable-next-line unused-variable, mutable-never-reassigned -- kept for the demo\n  var a = 1\n}\n";
    expect(rules(src)).toEqual([]);
  });
  test("without ids it covers every rule", () => {
    expect(rules("pipeline main() {\n  // harn-lint-disable-next-line\n  var a = 1\n}\n")).toEqual([]);
  });
});

describe("harn-lint-disable … harn-lint-enable", () => {
  test("covers the region between the comments", () => {
    const src =
      "pipeline main() {\n  // harn-lint-disable unused-variable\n  let a = 1\n  let b = 2\n  // harn-lint-enable unused-variable\n  let c = 3\n}\n";
    expect(rules(src)).toEqual([["unused-variable", 6]]);
  });
  test("without enable it runs to the end of the file", () => {
    expect(rules("// harn-lint-disable unused-variable\nlet a = 1\n\nlet b = 2\n")).toEqual([]);
  });
  test("a longer word is not the directive: `harn-lint-disable-lines` disables nothing", () => {
    const src = "pipeline main() {\n  let a = 1 // harn-lint-disable-lines unused-variable\n  let b = 2\n}\n";
    expect(rules(src)).toEqual([["unused-variable", 2], ["unused-variable", 3]]);
  });
  test("`harn-lint-disable-line` covers its own line only", () => {
    const src = "pipeline main() {\n  let a = 1 // harn-lint-disable-line unused-variable\n  let b = 2\n}\n";
    expect(rules(src)).toEqual([["unused-variable", 3]]);
    const unused = "pipeline main() {\n  log(1) // harn-lint-disable-line unused-variable\n}\n";
    expect(rules(unused)).toEqual([["unused-suppression", 2]]);
  });
});

describe("unused-suppression", () => {
  test("a directive that suppresses nothing is reported at the comment", () => {
    const ds = lint("pipeline main() {\n  // harn-lint-disable-next-line unused-variable\n  log(1)\n}\n");
    expect(ds.map((d) => [d.code, d.span!.line, d.message, d.help])).toEqual([
      ["unused-suppression", 2, "unused suppression: no `unused-variable` diagnostic is reported here", "remove the suppression comment"],
    ]);
  });
  test("one unused id among several", () => {
    const ds = lint("pipeline main() {\n  // harn-lint-disable-next-line unused-variable, shadow-variable\n  let a = 1\n}\n");
    expect(ds.map((d) => [d.code, d.message, d.help])).toEqual([
      [
        "unused-suppression",
        "unused suppression: no `shadow-variable` diagnostic is reported here",
        "remove `shadow-variable` from the suppression comment",
      ],
    ]);
  });
  test("an unknown rule id", () => {
    expect(lint("// harn-lint-disable-next-line no-such-rule\nlog(1)\n").map((d) => d.message)).toEqual([
      "suppression comment names unknown rule `no-such-rule`",
    ]);
  });
  test("directives for rules switched off in this run are left alone", () => {
    const src = "// harn-lint-disable-next-line require-file-header, unused-variable\nlog(1)\n";
    expect(lint(src, { rules: { "unused-variable": { severity: "off" } } })).toEqual([]);
  });
  test("unused-suppression itself can be disabled", () => {
    expect(lint("// harn-lint-disable-next-line unused-variable\nlog(1)\n", { rules: { "unused-suppression": { severity: "off" } } })).toEqual([]);
  });
  test("files without directives are untouched", () => {
    expect(rules("let a = 1\n")).toEqual([["unused-variable", 1]]);
  });
});
