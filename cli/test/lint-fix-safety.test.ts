/**
 * `harn lint --fix` never changes what a program does (issue 18): the
 * whole conformance suite is copied, fixed in place, and run again
 * through `harn test conformance` — every script must still print its
 * golden output or fail with its golden error — and a second `--fix`
 * changes nothing (one pass reaches a fixed point).
 *
 * The layout fixes (blank lines, doc comments, trailing commas, the file
 * header) move code to other lines, so a runtime error's `(line N)` moves
 * too: they are switched off for the run above, and checked apart
 * (packages/lint/test/fix-layout.test.ts) to keep every code token.
 */
import { cpSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { cliSandbox, repoRoot } from "./cli-harness";

const LAYOUT = ["blank-line-between-items", "legacy-doc-comment", "trailing-comma", "require-file-header"];

const cli = cliSandbox({ prefix: "harn-lint-fix-", harn: "built", colour: "unset", timeout: 600_000, gitRoot: true });

test("the conformance suite passes after --fix, and a second --fix changes nothing", () => {
  cpSync(join(repoRoot, "conformance"), join(cli.dir, "conformance"), { recursive: true });
  // tests/mcp/serve_round_trip.harn serves a script with the built harn,
  // which it finds beside conformance/ as in the repository
  symlinkSync(join(repoRoot, "cli"), join(cli.dir, "cli"));
  cli.file("harn.toml", `[lint]\ndisabled = [${LAYOUT.map((r) => `"${r}"`).join(", ")}]\n`);
  const first = cli.harn(["lint", "--fix", "conformance"]);
  const applied = first.stdout.split("\n").filter((l) => l.includes(": applied "));
  // the suite has plenty to fix: the test is not vacuous
  expect(applied.length).toBeGreaterThan(5);
  const suite = cli.harn(["test", "conformance"]);
  expect(suite.stdout, suite.stdout.split("Failures:")[1] ?? "").toMatch(/^\d+ passed, 0 failed, \d+ total$/m);
  expect(suite.code).toBe(0);
  const second = cli.harn(["lint", "--fix", "conformance"]);
  expect(second.stdout.split("\n").filter((l) => l.includes(": applied "))).toEqual([]);
  // what was fixed is still there to compare by hand when this fails
  expect(readFileSync(join(cli.dir, "harn.toml"), "utf8")).toContain("disabled");
  // three passes over the whole suite: the commands' own limit, not vitest's 60 s
}, 600_000);
