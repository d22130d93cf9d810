/**
 * `harn watch` (spec/cli.md §7.3): runs the file, runs it again when a
 * `.harn` file beside it changes, and stops cleanly on SIGINT.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliSandbox } from "./cli-harness";

const cli = cliSandbox({ prefix: "harn-watch-", harn: "one-file", colour: "inherit", timeout: 30_000 });

/** Resolves once `read()` contains `text` (polls; the test's own timeout bounds it). */
async function until(read: () => string, text: string): Promise<void> {
  while (!read().includes(text)) await new Promise((r) => setTimeout(r, 25));
}

describe("harn watch", () => {
  it("re-runs on a .harn change, not on other files, and exits 0 on SIGINT", async () => {
    const proj = mkdtempSync(join(cli.dir, "p-"));
    writeFileSync(join(proj, "main.harn"), 'println("v1")\n');
    const child = spawn(process.execPath, [cli.bin, "watch", "main.harn"], { cwd: proj, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    await until(() => out, "v1\n");
    writeFileSync(join(proj, "notes.txt"), "not harn\n");
    writeFileSync(join(proj, "main.harn"), 'println("v2")\n');
    await until(() => out, "v2\n");
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(out).toBe("v1\nv2\n");
    expect(err).toBe("[watch] running main.harn...\n[watch] running main.harn...\n");
  });

  it("harn test PATH --watch runs the tests again after a change and exits 0 on SIGINT", async () => {
    const proj = mkdtempSync(join(cli.dir, "t-"));
    writeFileSync(join(proj, "test_x.harn"), "pipeline test_x() {\n  assert(1 < 1)\n}\n");
    const child = spawn(process.execPath, [cli.bin, "test", ".", "--watch"], { cwd: proj, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    await until(() => out, "0 passed, 1 failed, 1 total");
    writeFileSync(join(proj, "test_x.harn"), "pipeline test_x() {\n  assert(1 < 2)\n}\n");
    await until(() => out, "1 passed, 1 total");
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(out).toContain("\n[watch] change detected, running the tests again\n\nRunning 1 test from 1 file...\n");
  });
});
