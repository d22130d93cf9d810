/**
 * `harn init` / `harn new` end to end (spec/cli.md §7.2): every template
 * scaffolds a project whose tests pass and which lints and formats clean.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TEMPLATE_NAMES } from "../src/templates";
import { cliSandbox } from "./cli-harness";

const cli = cliSandbox({ prefix: "harn-init-", harn: "one-file", colour: "inherit", env: { HARN_LLM_PROVIDER: "" }, timeout: 60_000, gitRoot: true });
const { harn } = cli;

describe("harn new / harn init", () => {
  it("scaffolds the basic project into a new directory and lists what it created", () => {
    const r = harn(["new", "hello"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^ {2}create {2}hello\/harn\.toml\n {2}create {2}hello\/main\.harn\n {2}create {2}hello\/lib\/helpers\.harn\n {2}create {2}hello\/tests\/test_main\.harn\n\n/,
    );
    expect(r.stdout).toContain("  harn run main.harn\n");
    expect(readFileSync(join(cli.dir, "hello/harn.toml"), "utf8")).toBe('[package]\nname = "hello"\nversion = "0.1.0"\n\n[dependencies]\n');
    expect(harn(["run", "main.harn", "--", "you"], { cwd: join(cli.dir, "hello") })).toMatchObject({ code: 0, stdout: "Hello, you!\n" });
    expect(harn(["new", "hello"])).toMatchObject({ code: 1, stderr: "Directory 'hello' already exists\n" });
  });

  it.runIf(existsSync("/proc/self"))("a directory that cannot be made is one line and exit 1 (procfs used to hang it)", () => {
    expect(harn(["new", "/proc/harn-no-such"])).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "Cannot create '/proc/harn-no-such': No such file or directory (os error 2)\n",
    });
  });

  it("init without NAME fills the current directory, skipping files that exist", () => {
    const here = join(cli.dir, "here");
    mkdirSync(here);
    writeFileSync(join(here, "main.harn"), 'println("mine")\n');
    const r = harn(["init"], { cwd: here });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("  skip  main.harn (already exists)\n");
    expect(r.stdout).toContain("  create  lib/helpers.harn\n");
    expect(readFileSync(join(here, "main.harn"), "utf8")).toBe('println("mine")\n');
    expect(readFileSync(join(here, "harn.toml"), "utf8")).toContain('name = "here"');
  });

  it("`new package NAME` and `new connector NAME` pick those templates; `new package` alone is a usage error", () => {
    expect(harn(["new", "package", "strs"]).code).toBe(0);
    expect(existsSync(join(cli.dir, "strs/lib/strs.harn"))).toBe(true);
    expect(harn(["new", "connector", "feed"]).code).toBe(0);
    expect(existsSync(join(cli.dir, "feed/lib/connector.harn"))).toBe(true);
    const r = harn(["new", "package"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: `harn new package` requires a NAME\n");
    expect(harn(["init", "x", "--template", "nope"]).code).toBe(2);
  });

  it.each(TEMPLATE_NAMES.map((t) => [t]))("the %s template's tests pass, and it lints and formats clean", (template) => {
    const name = `t_${template.replace("-", "_")}`;
    expect(harn(["new", name, "--template", template]).code).toBe(0);
    const root = join(cli.dir, name);
    const tests = harn(["test", "tests"], { cwd: root });
    expect(tests.code, tests.stdout + tests.stderr).toBe(0);
    expect(tests.stdout).toMatch(/\n\d+ passed, \d+ total/);
    const lint = harn(["lint", "."], { cwd: root });
    expect(lint.stderr).toBe("");
    expect(lint.code).toBe(0);
    expect(harn(["fmt", "--check", "."], { cwd: root })).toMatchObject({ code: 0, stderr: "" });
    if (existsSync(join(root, "main.harn"))) expect(harn(["run", "main.harn"], { cwd: root }).code).toBe(0);
  });
});
