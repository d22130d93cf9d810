import { userInfo } from "node:os";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { display, HDict, type Value } from "@harn/vm";
import { raised, rig, settle } from "./harness";

const root = mkdtempSync(join(tmpdir(), "harn-proc-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("exec and shell", () => {
  const r = rig({ cwd: root, env: { ...process.env, HARN_TEST_VAR: "from-run" } });

  it("shell returns {stdout, stderr, status, success} in sorted display order", async () => {
    const res = (await settle(r.callP("shell", "printf 'a\\nb'; printf err >&2; exit 3"))) as HDict;
    expect(display(res)).toBe("{status: 3, stderr: err, stdout: a\nb, success: false}");
    expect(r.call("split", res.get("stdout"), "\n")).toEqual(["a", "b"]);
  });

  it("exec passes arguments verbatim, runs in the execution root with the run's env", async () => {
    const res = (await settle(r.callP("exec", "sh", "-c", 'pwd; printf "%s|%s" "$1" "$HARN_TEST_VAR"', "x", "a b; *"))) as HDict;
    expect(res.get("stdout")).toBe(`${root}\na b; *|from-run`);
    expect(res.get("success")).toBe(true);
  });

  it("stdin is the null device and output is decoded lossily", async () => {
    const res = (await settle(r.callP("shell", "cat; printf '\\377ok'"))) as HDict;
    expect(res.get("stdout")).toBe("\ufffdok");
  });

  it("a signal-killed child has status -1", async () => {
    const res = (await settle(r.callP("shell", "kill -9 $$"))) as HDict;
    expect(res.get("status")).toBe(-1);
  });

  it("spawn failures and missing commands are thrown strings", async () => {
    expect((await raised(() => r.callP("exec", "definitely-not-a-command-xyz"))).caughtValue()).toBe(
      "exec failed: process spawn failed: No such file or directory (os error 2)",
    );
    expect((await raised(() => r.callP("exec"))).caughtValue()).toBe("exec: command is required");
    expect((await raised(() => r.callP("shell", ""))).caughtValue()).toBe("shell: command string is required");
    expect((await raised(() => r.callP("shell_at", "x"))).caughtValue()).toBe("shell_at: directory and command string are required");
    expect((await raised(() => r.callP("exec_at", "nope-dir", "ls"))).caughtValue()).toMatch(/^exec_at failed: process spawn failed: /);
  });

  it("exec_at and shell_at resolve the directory against the execution root", async () => {
    r.call("mkdir", "sub");
    const a = (await settle(r.callP("shell_at", "sub", "pwd"))) as HDict;
    expect(a.get("stdout")).toBe(`${root}/sub\n`);
    const b = (await settle(r.callP("exec_at", "sub", "pwd"))) as HDict;
    expect(b.get("stdout")).toBe(`${root}/sub\n`);
  });

  it("HARN_DEFAULT_SHELL picks the shell", async () => {
    const s = rig({ cwd: root, env: { PATH: process.env.PATH, HARN_DEFAULT_SHELL: "/bin/sh" } });
    const res = (await settle(s.callP("shell", 'printf "%s" "$0"'))) as HDict;
    expect(res.get("stdout")).toBe("/bin/sh");
  });

  it("cancellation kills the whole process group and raises the abort reason", async () => {
    const s = rig({ cwd: root });
    const pidFile = join(root, "grandchild.pid");
    const running = s.callP("shell", `sleep 30 & echo $! > ${pidFile}; wait`) as Promise<Value>;
    await waitFor(() => s.call("file_exists", pidFile) === true && (s.call("read_file", pidFile) as string).endsWith("\n"));
    const grandchild = Number((s.call("read_file", pidFile) as string).trim());
    expect(pidAlive(grandchild)).toBe(true);
    const { HarnError } = await import("@harn/vm");
    s.abort.abort(HarnError.thrown("kind:cancelled:VM cancelled by host"));
    const e = await raised(() => running);
    expect(e.caughtValue()).toBe("kind:cancelled:VM cancelled by host");
    await waitFor(() => !pidAlive(grandchild));
  });

  it("runtime shutdown kills children that are still running", async () => {
    const s = rig({ cwd: root });
    const running = s.callP("shell", "sleep 30") as Promise<Value>;
    const t0 = Date.now();
    await new Promise((res) => setTimeout(res, 100));
    await s.rt.shutdown();
    const res = (await running) as HDict;
    expect(res.get("status")).toBe(-1);
    expect(Date.now() - t0).toBeLessThan(20_000);
  });
});

describe("environment and system info", () => {
  const r = rig({ env: { A: "1", EMPTY: "", USER: "ann" } });
  it("env and env_or", () => {
    expect(r.call("env", "A")).toBe("1");
    expect(r.call("env", "EMPTY")).toBe("");
    expect(r.call("env", "MISSING")).toBe(null);
    expect(r.call("env_or", "MISSING", 5)).toBe(5);
    expect(r.call("env_or", "A", 5)).toBe("1");
  });
  it("system info", () => {
    expect(r.call("username")).toBe("ann");
    // Neither USER nor USERNAME: the account's own name.
    expect(rig({ env: {} }).call("username")).toBe(userInfo().username);
    expect(["linux", "darwin", "windows"]).toContain(r.call("platform"));
    expect(["x86_64", "aarch64"]).toContain(r.call("arch"));
    expect(r.call("pid")).toBe(process.pid);
  });
});

async function waitFor(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (cond()) return;
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error("condition not reached");
}
