/**
 * Every rule has its page docs/rules/ID.md (SARIF's helpUri and help
 * point there): what it finds, why, how to fix it, and examples — a
 * reported one that the rule reports and a clean one it does not.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { ALL_RULES, lintSource } from "../src/index";

const page = (id: string) => new URL(`../../../docs/rules/${id}.md`, import.meta.url);

/** The harn code blocks after `marker` in the page. */
function example(md: string, marker: string): string {
  const at = md.indexOf(marker);
  const m = /```harn\n([^]*?)```/.exec(md.slice(at));
  return m ? m[1]! : "";
}

describe("rule pages", () => {
  for (const rule of ALL_RULES) {
    test(rule.id, () => {
      expect(existsSync(page(rule.id))).toBe(true);
      const md = readFileSync(page(rule.id), "utf8");
      expect(md.startsWith(`# \`${rule.id}\`\n\n`)).toBe(true);
      for (const h of ["## Why", "## Fix", "## Examples"]) expect(md).toContain(h);
      const options = rule.meta.optIn ? { rules: { [rule.id]: { severity: "warning" as const } } } : {};
      const found = (code: string) => {
        const r = lintSource(code, { file: "example.harn", ...options });
        return r.parseErrors.length > 0 ? ["does not parse"] : r.diagnostics.filter((d) => d.code === rule.id).map((d) => d.message);
      };
      expect(found(example(md, "Reported:")).length, "the reported example is reported").toBeGreaterThan(0);
      expect(found(example(md, "Clean:")), "the clean example is clean").toEqual([]);
    });
  }
});
