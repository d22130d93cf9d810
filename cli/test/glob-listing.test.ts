/**
 * `glob` lists directories through Node's fs binding where it can
 * (packages/stdlib/src/longrun/listing.ts). Under --pending-deprecation that
 * accessor would print a DEP0111 warning into the user's stderr, so harn
 * falls back to the public call there: same result, nothing on stderr.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli, harnBin } from "./hang-harness";

let work = "";

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "harn-glob-listing-"));
  for (const d of ["a", "a/b", "c"]) mkdirSync(join(work, "tree", d), { recursive: true });
  for (const f of ["x.md", "a/y.md", "a/b/z.md", "c/w.txt"]) writeFileSync(join(work, "tree", f), "");
  writeFileSync(join(work, "g.harn"), `for p in glob("**/*.md", argv[0]) { println(p) }\n`);
  buildCli();
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const expected = () => ["a/b/z.md", "a/y.md", "x.md"].map((p) => join(work, "tree", p) + "\n").join("");

describe("glob's directory listing", () => {
  for (const [what, env] of [
    ["by default", {}],
    ["with NODE_PENDING_DEPRECATION=1", { NODE_PENDING_DEPRECATION: "1" }],
    ["with NODE_OPTIONS=--pending-deprecation", { NODE_OPTIONS: "--pending-deprecation" }],
  ] as const) {
    it(`finds the same paths and prints no warning ${what}`, () => {
      const r = spawnSync(harnBin, ["run", join(work, "g.harn"), "--", join(work, "tree")], {
        encoding: "utf8",
        env: { ...process.env, ...env },
      });
      expect(r.stderr).toBe("");
      expect(r.stdout).toBe(expected());
      expect(r.status).toBe(0);
    });
  }
});
