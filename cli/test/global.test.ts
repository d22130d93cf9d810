/**
 * Global `harn` behaviour (spec/cli.md §0.1): help, version, and usage
 * errors exiting 2. Runs the real bundle as a child process.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildCli, harnBin, harnEnv, runCli } from "./cli-harness";

const harn = (args: string[]) => runCli(harnBin, args, { env: harnEnv("plain"), timeout: 50_000 });

beforeAll(() => buildCli());

describe("harn (global)", () => {
  it("prints the version line with --version and -V, and a banner with `harn version`", () => {
    const v = harn(["--version"]);
    expect(v).toMatchObject({ code: 0, stderr: "" });
    expect(v.stdout).toMatch(/^harn \d+\.\d+\.\d+\n$/);
    expect(harn(["-V"]).stdout).toBe(v.stdout);
    const banner = harn(["version"]);
    expect(banner).toMatchObject({ code: 0, stderr: "" });
    expect(banner.stdout).toContain(`harn v${v.stdout.trim().slice("harn ".length)}`);
    expect(banner.stdout).toContain("the agent harness language");
  });

  it("prints help on --help (exit 0) and with no arguments (exit 2)", () => {
    const h = harn(["--help"]);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain("The agent harness language");
    expect(harn([]).code).toBe(2);
  });

  it("treats unknown commands and flags as usage errors (exit 2)", () => {
    expect(harn(["bogus"])).toMatchObject({ code: 2, stdout: "" });
    expect(harn(["bogus"]).stderr).toMatch(/^error: /);
    expect(harn(["run", "--bogus", "x.harn"]).code).toBe(2);
    expect(harn(["version", "extra"]).code).toBe(2);
    expect(harn(["help", "bogus"])).toMatchObject({ code: 2, stdout: "", stderr: "error: unknown command 'bogus'\n(run `harn --help` for usage)\n" });
  });

  it("`harn help CMD` and `harn CMD --help` print the command's help on stdout, exit 0", () => {
    for (const cmd of ["run", "check", "fmt", "lint", "test", "repl", "init", "new", "watch", "bench", "viz", "help"]) {
      const viaHelp = harn(["help", cmd]);
      expect(viaHelp.code, cmd).toBe(0);
      expect(viaHelp.stdout, cmd).toMatch(/^Usage: harn /);
    }
    expect(harn(["fmt", "--help"]).stdout).toBe(harn(["help", "fmt"]).stdout);
  });
});

describe("colour outside `check`, `lint` and `test` (extensions.md §6: NO_COLOR, FORCE_COLOR, non-TTY)", () => {
  const ESC = "\u001b[";
  const withColour = (args: string[], env: Record<string, string>) => runCli(harnBin, args, { env: harnEnv("unset", env), timeout: 50_000 });

  it("colours `harn run`'s error frames and `harn version`'s banner when FORCE_COLOR asks, even into a pipe", () => {
    const dir = mkdtempSync(join(tmpdir(), "harn-colour-"));
    try {
      const script = join(dir, "fail.harn");
      writeFileSync(script, "pipeline main() {\n  let x = 1 / 0\n}\n");
      for (const args of [["run", script], ["version"]]) {
        const out = (r: { stdout: string; stderr: string }) => (args[0] === "run" ? r.stderr : r.stdout);
        expect(out(withColour(args, {})), `${args[0]}, piped`).not.toContain(ESC);
        expect(out(withColour(args, { FORCE_COLOR: "1" })), `${args[0]}, FORCE_COLOR=1`).toContain(ESC);
        expect(out(withColour(args, { FORCE_COLOR: "0" })), `${args[0]}, FORCE_COLOR=0`).not.toContain(ESC);
        expect(out(withColour(args, { NO_COLOR: "1" })), `${args[0]}, NO_COLOR=1`).not.toContain(ESC);
      }
      const coloured = withColour(["run", script], { FORCE_COLOR: "1" }).stderr.replace(/\u001b\[\d+m/g, "");
      expect(coloured).toBe(withColour(["run", script], {}).stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
