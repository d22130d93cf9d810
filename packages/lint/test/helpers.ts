/** Test helpers: lint source text through the real parser. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { parse, type ParseResult } from "@harn/parser";
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

/** Every conformance script that parses (and is not too deep for the
 * test's stack), parsed, in path order. */
export function conformanceScripts(): { file: string; source: string; r: ParseResult }[] {
  const root = join(import.meta.dirname, "..", "..", "..", "conformance");
  return ["errors", "tests"]
    .flatMap((d) => readdirSync(join(root, d), { recursive: true, encoding: "utf8" }).map((f) => join(root, d, f)))
    .filter((f) => f.endsWith(".harn") && statSync(f).isFile())
    .sort()
    .map((file) => {
      const source = readFileSync(file, "utf8");
      return { file, source, r: parse(source, { file, flatChains: true }) };
    })
    .filter((p) => p.r.errors.length === 0 && p.r.depth < 500);
}
