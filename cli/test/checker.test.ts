/**
 * The static checker through `harn run` and `harn check` (cli.md §2.2 step
 * 2, §4): real bundle, child processes, files in a temp dir.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const bin = join(root, "cli/bin/harn.cjs");
let dir: string;

function harn(args: string[]) {
  const env = { ...process.env };
  delete env.NO_COLOR;
  delete env.FORCE_COLOR;
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: dir, encoding: "utf8", env, timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  const build = spawnSync(process.execPath, [join(root, "cli/build.mjs")], { encoding: "utf8" });
  expect(build.status, build.stderr).toBe(0);
  dir = mkdtempSync(join(tmpdir(), "harn-checker-cli-"));
  writeFileSync(join(dir, "lib.harn"), "pub fn helper(x) { return x + 1 }\n");
  writeFileSync(join(dir, "typo.harn"), 'import "./lib"\nprintln("first")\nprintln(helpr(1))\n');
  writeFileSync(join(dir, "types.harn"), 'println("first")\nlet n: int = "five"\nprintln(false + 1)\n');
  writeFileSync(join(dir, "fine.harn"), 'import "./lib"\nprintln(helper(1))\n');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("harn run", () => {
  it("reports every checker error without a caret line and runs nothing", () => {
    const r = harn(["run", "types.harn"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      [
        "error: 'n' declared as int, but assigned string",
        "  --> types.harn:2:14",
        "   |",
        ' 2 | let n: int = "five"',
        "error: can't add bool and int",
        "  --> types.harn:3:9",
        "   |",
        " 3 | println(false + 1)",
        "",
      ].join("\n"),
    );
  });

  it("rejects an unknown call target in a file with imports", () => {
    const r = harn(["run", "typo.harn"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("error: call target `helpr` is not defined or imported — did you mean `helper`?");
    expect(harn(["run", "fine.harn"])).toMatchObject({ code: 0, stdout: "2\n" });
  });
});

describe("harn check", () => {
  it("reports checker errors after the parse and exits 1", () => {
    const r = harn(["check", "typo.harn", "types.harn"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("error: call target `helpr` is not defined or imported — did you mean `helper`?\n  --> typo.harn:3:9");
    expect(r.stderr).toContain("error: 'n' declared as int, but assigned string\n  --> types.harn:2:14");
    expect(r.stderr).toContain("error: can't add bool and int");
  });

  it("passes valid files (lint warnings alone do not fail the check)", () => {
    const r = harn(["check", "fine.harn", "lib.harn"]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("error");
  });
});
