/**
 * Zero false positives: every script of the repository that is meant to
 * run (every `.harn` file but conformance cases with an `.error` file:
 * conformance cases, the modules they import, examples, bench workloads)
 * passes the checker unchanged.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, resolve } from "node:path";
import fg from "fast-glob";
import { parse } from "@harn/parser";
import { describe, expect, it } from "vitest";
import { check } from "../src/index";
import { BUILTINS, resolveImport } from "./helpers";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const files = fg
  .sync(["**/*.harn"], { cwd: root, absolute: true, ignore: ["**/node_modules/**", "**/dist/**"] })
  .filter((f) => !existsSync(f.replace(/\.harn$/, ".error")))
  .sort();

describe("checker sweep over the repository's runnable scripts", () => {
  it("finds a few hundred scripts", () => {
    expect(files.length).toBeGreaterThan(400);
  });

  it("reports nothing for any of them", () => {
    const found: string[] = [];
    for (const file of files) {
      const { program, errors } = parse(readFileSync(file, "utf8"), { file });
      if (errors.length > 0) continue; // syntax-error fixtures are another stage's business
      for (const d of check(program, { file, builtins: BUILTINS, resolveImport })) {
        found.push(`${file.slice(root.length + 1)}:${d.span?.line ?? 0}: ${d.message}`);
      }
    }
    expect(found).toEqual([]);
  });
});
