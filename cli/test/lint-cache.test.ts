/**
 * `harn lint --cache` end to end: a re-run takes unchanged files' findings
 * from the cache file and prints exactly what a run without the cache
 * prints; a change to a file, to a module it imports, to a file importing
 * one of its functions or to its configuration is seen.
 */
import { existsSync, readFileSync, realpathSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { cliSandbox } from "./cli-harness";

const cli = cliSandbox({ prefix: "harn-lint-cache-", harn: "built", colour: "unset", timeout: 60_000, dirPerTest: true, gitRoot: true });
const { harn, file } = cli;

const LIB = "/** Helps. */\npub fn helper() {\n  log(1)\n}\n\nfn spare() {\n  log(2)\n}\n";
const MAIN = 'import { helper } from "lib"\n\npipeline main() {\n  helper()\n  let h = walk_dir("docs", {long_running: true})\n  log(h)\n}\n';

/** A run with and one without the cache print the same. */
function sameAsUncached(args: string[], env: Record<string, string> = {}) {
  const cached = harn(["lint", "--cache", ...args], { env });
  const plain = harn(["lint", ...args], { env });
  expect(cached).toEqual(plain);
  return cached;
}

/** Replace a message in the stored findings, to tell a reused result
 * from a recomputed one. */
function tamper(from: string, to: string): void {
  const path = join(cli.dir, ".harn-lint-cache");
  const text = readFileSync(path, "utf8");
  expect(text).toContain(from);
  writeFileSync(path, text.split(from).join(to));
}

describe.each(["1", "2"])("harn lint --cache (HARN_LINT_THREADS=%s)", (threads) => {
  const env = { HARN_LINT_THREADS: threads };

  test("a re-run reuses the findings of unchanged files and prints the same", () => {
    file("lib.harn", LIB);
    file("main.harn", MAIN);
    file("clean.harn", "pipeline main() {\n  log(1)\n}\n");
    const first = sameAsUncached(["."], env);
    expect(first.stderr).toContain("`h` is still running");
    expect(first.stderr).toContain("function `spare` is declared but never used");
    expect(existsSync(join(cli.dir, ".harn-lint-cache"))).toBe(true);
    expect(sameAsUncached(["."], env)).toEqual(first);
    // the findings shown now come from the cache file
    tamper("is still running", "is STILL running");
    expect(harn(["lint", "--cache", "."], { env }).stderr).toContain("`h` is STILL running");
  });

  test("an edited file is linted again; the others are not", () => {
    file("lib.harn", LIB);
    file("main.harn", MAIN);
    harn(["lint", "--cache", "."], { env });
    tamper("is declared but never used", "is declared but NEVER used");
    file("main.harn", MAIN.replace("  log(h)\n", "  defer { cancel_handle(h) }\n  log(h)\n"));
    const r = harn(["lint", "--cache", "."], { env });
    expect(r.stderr).not.toContain("`h` is still running");
    expect(r.stderr).toContain("function `spare` is declared but NEVER used");
  });

  test("a change to an imported module reaches its importers", () => {
    // helper starts work and hands it back: the call site must cancel it
    file("lib.harn", LIB);
    file("main.harn", 'import { helper } from "lib"\n\npipeline main() {\n  let h = helper()\n  log(h)\n}\n');
    expect(sameAsUncached(["."], env).stderr).not.toContain("long-running");
    file("lib.harn", LIB.replace("  log(1)\n", '  return walk_dir("docs", {long_running: true})\n'));
    const r = sameAsUncached(["."], env);
    expect(r.stderr).toContain("main.harn:4:11");
    expect(r.stderr).toContain("lint[long-running-without-cleanup]");
  });

  test("an unused function is reported again when the file importing it changes", () => {
    file("lib.harn", LIB);
    file("main.harn", 'import { helper, spare } from "lib"\n\npipeline main() {\n  helper()\n  spare()\n}\n');
    expect(sameAsUncached(["."], env).stderr).not.toContain("spare");
    file("main.harn", 'import { helper } from "lib"\n\npipeline main() {\n  helper()\n}\n');
    expect(sameAsUncached(["."], env).stderr).toContain("function `spare` is declared but never used");
  });

  test("a changed harn.toml applies to files whose content did not change", () => {
    file("lib.harn", LIB);
    sameAsUncached(["."], env);
    file("harn.toml", '[lint.severity]\nunused-function = "error"\n');
    const r = sameAsUncached(["."], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: function `spare` is declared but never used");
  });
});

describe("the cache file", () => {
  test("a damaged cache is ignored and rewritten", () => {
    file("lib.harn", LIB);
    file(".harn-lint-cache", '{"format": 1, "settings": "x", "entr');
    const r = sameAsUncached(["."]);
    expect(r.stderr).toContain("spare");
    expect(JSON.parse(readFileSync(join(cli.dir, ".harn-lint-cache"), "utf8")).format).toBe(1);
  });

  test("--cache-location names the file; one that cannot be written is a warning, not a failure", () => {
    file("lib.harn", LIB);
    const plain = harn(["lint", "."]);
    expect(harn(["lint", "--cache", "--cache-location", "c.json", "."])).toEqual(plain);
    expect(existsSync(join(cli.dir, "c.json"))).toBe(true);
    const r = harn(["lint", "--cache", "--cache-location", "no/such/dir/c.json", "."]);
    expect(r.code).toBe(plain.code);
    expect(r.stderr).toBe(`warning: could not write the lint cache no/such/dir/c.json\n${plain.stderr}`);
  });

  test("a parse error and an unreadable byte sequence are cached as findings too", () => {
    file("bad.harn", "pipeline main( {\n");
    writeFileSync(join(cli.dir, "bin.harn"), Buffer.from([0x66, 0xff, 0xfe, 0x0a]));
    const first = sameAsUncached(["."]);
    expect(first.code).toBe(1);
    expect(sameAsUncached(["."])).toEqual(first);
  });
});

describe("files that last changed before the run", () => {
  test("are known by size and time, and an edit of the same size is still seen", () => {
    const old = new Date(Date.now() - 60_000);
    const lib = join(cli.dir, file("lib.harn", LIB));
    utimesSync(lib, old, old);
    const first = sameAsUncached(["."]);
    expect(first.stderr).toContain("function `spare` is declared");
    // a cached run with the size and time recorded
    expect(harn(["lint", "--cache", "."])).toEqual(first);
    expect(JSON.parse(readFileSync(join(cli.dir, ".harn-lint-cache"), "utf8")).entries[realpathSync(lib)]).toMatchObject({ s: LIB.length });
    // same length, new content: the time differs
    file("lib.harn", LIB.replace("spare", "extra"));
    const r = harn(["lint", "--cache", "."]);
    expect(r.stderr).toContain("function `extra` is declared");
    expect(r).toEqual(harn(["lint", "."]));
  });
});
