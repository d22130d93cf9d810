/**
 * The examples are what a new user runs and copies first (the README's
 * first command runs examples/agent_scan.harn): they must run offline,
 * pass `harn lint` and `harn check` without a finding and be formatted as
 * `harn fmt` writes them.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildCli, harnBin, repoRoot as repo, runCli } from "./cli-harness";

const examples = join(repo, "examples");
const files = readdirSync(examples).filter((f) => f.endsWith(".harn"));

function harn(args: string[]) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.endsWith("_API_KEY")) delete env[key];
  return runCli(harnBin, args, { cwd: repo, env, via: "launcher" });
}

beforeAll(() => buildCli());

describe("examples", () => {
  it("lint clean, with the examples' harn.toml", () => {
    const r = harn(["lint", "examples"]);
    expect(files.length).toBeGreaterThan(1);
    expect(r.stdout.trim().split("\n").sort()).toEqual(files.map((f) => `examples/${f}: no issues found`).sort());
    expect(r.code).toBe(0);
  });

  it("check clean and formatted", () => {
    const paths = files.map((f) => `examples/${f}`);
    const checked = harn(["check", ...paths]);
    expect(checked.stderr).toBe("");
    expect(checked.stdout.trim().split("\n").sort()).toEqual(paths.map((p) => `${p}: ok`).sort());
    expect(checked.code).toBe(0);
    const formatted = harn(["fmt", "--check", "examples"]);
    expect(formatted.stderr).toBe("");
    expect(formatted.code).toBe(0);
  });

  it("agent_scan runs offline: the scan reports back on a later turn", () => {
    const r = harn(["run", "examples/agent_scan.harn"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toBe("status: done");
    const packages = readdirSync(join(repo, "packages"), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    expect(lines[2]).toMatch(new RegExp(`^listing: \\d+ entries; packages: ${packages.join(", ")}$`));
    expect(lines[3]).toBe("turns: 3 (the scan reported back after the turn that started it)");
  });
});
