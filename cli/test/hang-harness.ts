/**
 * Shared pieces of the end-to-end hang tests: run a script through the
 * built `harn` (cli/bin/harn.cjs, rebuilt by each file's `beforeAll`, so
 * the split bundle users run is what gets tested, not the source) as a
 * child process, with a guard that SIGKILLs a hung harn so
 * the test fails instead of timing out, and `ps` helpers to prove no
 * process was left behind. The guard is a hang detector, not a speed
 * threshold: every outcome the tests expect arrives far sooner.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildCli, harnBin } from "./cli-harness";
import { cleanEnv } from "./llm-harness";

export { buildCli, harnBin };

/** How long a run may take before it counts as hung. */
export const GUARD_MS = 20_000;

export interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when harn exited, or rejects once the guard had to kill it. */
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A temp directory for scripts and pid files; `dispose()` removes it. */
export function workDir(prefix: string): { dir: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

let counter = 0;
/** Writes `source` into `dir` and starts `harn run` on it, with the
 * developer's provider settings removed from the environment and `env`
 * added. */
export function harn(dir: string, source: string, guardMs = GUARD_MS, env: Record<string, string> = {}, stdin: "ignore" | "pipe" = "ignore"): Run {
  const file = join(dir, `script${++counter}.harn`);
  writeFileSync(file, source);
  const child = spawn(process.execPath, [harnBin, "run", file], { cwd: dir, env: cleanEnv(env), stdio: [stdin, "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit, reject) => {
    const guard = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`harn hung (killed after ${guardMs} ms); stdout: ${out}; stderr: ${err}`));
    }, guardMs);
    child.on("exit", (code, signal) => {
      clearTimeout(guard);
      resolveExit({ code, signal });
    });
  });
  // a rejected guard is reported by whoever awaits `exit`
  exit.catch(() => undefined);
  return { child, stdout: () => out, stderr: () => err, exit };
}

/** Runs a script to its end. */
export async function runToEnd(dir: string, source: string) {
  const run = harn(dir, source);
  const { code } = await run.exit;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

/** Waits for `check`; throws (a hang detector, not a threshold) after `timeoutMs`. */
export async function eventually(check: () => boolean, what: string, timeoutMs = GUARD_MS): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Live (non-zombie) processes, as `{pid, ppid, pgid}`, from `ps`. */
function processes(): { pid: number; ppid: number; pgid: number }[] {
  const out = execFileSync("ps", ["-eo", "pid=,ppid=,pgid=,stat="], { encoding: "utf8" });
  const list: { pid: number; ppid: number; pgid: number }[] = [];
  for (const line of out.split("\n")) {
    const [pid, ppid, pgid, stat] = line.trim().split(/\s+/);
    if (pid && stat && !stat.startsWith("Z")) list.push({ pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid) });
  }
  return list;
}

/** Live members of a process group. */
export function liveInGroup(pgid: number): number[] {
  return processes()
    .filter((p) => p.pgid === pgid)
    .map((p) => p.pid);
}

/** Whether a process is alive (and not a zombie). */
export function alive(pid: number): boolean {
  return processes().some((p) => p.pid === pid);
}

/** Ends with Ctrl-C: SIGINT to harn once `ready` holds, then its exit. */
export async function interrupt(run: Run, ready: () => boolean, what: string) {
  await eventually(ready, what);
  run.child.kill("SIGINT");
  return run.exit;
}
