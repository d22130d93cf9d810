/**
 * A Linter keeps its dispatch table, fact collector and the visitors of
 * reusable rules (RuleMeta.reusable) from file to file: no file's findings
 * may depend on the files linted before it. Every conformance script is
 * linted by one linter, in order and in reverse, and each result compared
 * with a fresh linter's.
 */
import { expect, test } from "vitest";
import { Linter } from "../src/index";
import { conformanceScripts } from "./helpers";

test("one linter over every conformance script, both ways, finds what a fresh one finds", () => {
  const parsed = conformanceScripts();
  expect(parsed.length).toBeGreaterThan(500);
  const lintWith = (linter: Linter, p: (typeof parsed)[number]) =>
    linter.lint(p.r.program, { file: p.file, source: p.source, tokens: p.r.tokens });
  const fresh = parsed.map((p) => lintWith(new Linter(), p));
  expect(fresh.filter((ds) => ds.length > 0).length).toBeGreaterThan(50);
  for (const order of [parsed.map((_, i) => i), parsed.map((_, i) => parsed.length - 1 - i)]) {
    const linter = new Linter();
    for (const i of order) expect(lintWith(linter, parsed[i]!), parsed[i]!.file).toEqual(fresh[i]);
  }
});
