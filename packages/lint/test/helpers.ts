/** Test helpers: lint source text through the real parser. */
import { expect } from "vitest";
import { applyFixes, lintSource, type Diagnostic, type LintOptions } from "../src/index";

export function lint(source: string, options: Omit<LintOptions, "source"> = {}): Diagnostic[] {
  const r = lintSource(source, { file: "test.harn", ...options });
  if (r.parseErrors.length > 0) throw new Error(`test source does not parse: ${r.parseErrors.map((e) => e.message).join("; ")}`);
  return r.diagnostics;
}

/** Diagnostics of one rule. */
export function only(rule: string, source: string, options: Omit<LintOptions, "source"> = {}): Diagnostic[] {
  return lint(source, options).filter((d) => d.code === rule);
}

/** Apply every fix once (lint.md §5.5), check the result parses, return it. */
export function fixed(source: string, options: Omit<LintOptions, "source"> = {}, rule?: string): string {
  const ds = lint(source, options).filter((d) => rule === undefined || d.code === rule);
  const out = applyFixes(source, ds).text;
  expect(() => lint(out, options)).not.toThrow();
  return out;
}

/** `pipeline main() { BODY }` */
export function inMain(body: string): string {
  return `pipeline main() {\n${body}\n}\n`;
}
