/**
 * The static checker through `harn run` and `harn check` (cli.md §2.2 step
 * 2, §4): real bundle, child processes, files in a temp dir.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { cliSandbox } from "./cli-harness";

const cli = cliSandbox({ prefix: "harn-checker-cli-", harn: "built", colour: "unset", timeout: 30_000 });
const { harn, file } = cli;

beforeAll(() => {
  file("lib.harn", "pub fn helper(x) { return x + 1 }\n");
  file("typo.harn", 'import "./lib"\nprintln("first")\nprintln(helpr(1))\n');
  file("types.harn", 'println("first")\nlet n: int = "five"\nprintln(false + 1)\n');
  file("fine.harn", 'import "./lib"\nprintln(helper(1))\n');
});

describe("harn run", () => {
  it("reports every checker error with carets and help, and runs nothing", () => {
    const r = harn(["run", "types.harn"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      [
        "error: 'n' declared as int, but assigned string",
        "  --> types.harn:2:14",
        "   |",
        ' 2 | let n: int = "five"',
        "   |              ^^^^^^",
        "   = help: assign a value of type int, or change the type annotation of 'n'",
        "error: can't add bool and int",
        "  --> types.harn:3:9",
        "   |",
        " 3 | println(false + 1)",
        "   |         ^^^^^^^^^",
        "   = help: both sides of `+` must be numbers, or both strings; convert one side (to_int, to_float, to_string)",
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
