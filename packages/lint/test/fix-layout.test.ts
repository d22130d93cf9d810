/**
 * The layout fixes only move code: for every `.harn` file of the
 * conformance suite and the examples, applying the fixes of
 * `blank-line-between-items`, `legacy-doc-comment`, `trailing-comma` and
 * `require-file-header` keeps every code token (newlines, comments and a
 * trailing comma before a closer aside). See cli/test/lint-fix-safety.test.ts
 * for the other fixes.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { tokenize } from "@harn/lexer";
import { applyFixes, lintSource, type RuleSetting } from "../src/index";

const root = new URL("../../../", import.meta.url).pathname;
const LAYOUT = new Set(["blank-line-between-items", "legacy-doc-comment", "trailing-comma", "require-file-header"]);

function code(text: string): string[] {
  const toks = tokenize(text).tokens.filter((t) => t.kind !== "NL" && t.kind !== "EOF");
  return toks
    .filter((t, i) => !(t.kind === "," && [")", "]", "}"].includes(toks[i + 1]?.kind ?? "")))
    .map((t) => `${t.kind} ${text.slice(t.start, t.end)}`);
}

test("layout fixes keep the code tokens of every conformance script and example", () => {
  const files = ["conformance", "examples"].flatMap((d) =>
    // files only: a project's `.harn` state directory ends in `.harn` too
    (readdirSync(join(root, d), { recursive: true }) as string[]).map((f) => join(root, d, f)).filter((f) => f.endsWith(".harn") && statSync(f).isFile()),
  );
  expect(files.length).toBeGreaterThan(500);
  const rules: Record<string, RuleSetting> = { "require-file-header": { severity: "warning" } };
  let changed = 0;
  for (const file of files) {
    const source = readFileSync(file, "utf8");
    const r = lintSource(source, { file, rules });
    if (r.parseErrors.length > 0) continue;
    const fixed = applyFixes(source, r.diagnostics.filter((d) => LAYOUT.has(d.code))).text;
    if (fixed === source) continue;
    changed++;
    expect(code(fixed), file).toEqual(code(source));
  }
  expect(changed).toBeGreaterThan(50);
});
