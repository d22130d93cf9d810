/**
 * The registry of live runs and the reaper (core/run_registry.ts), with
 * real processes: a record is reaped only when its harn is really gone
 * (pid gone, or reused: another start time), and only processes that
 * carry its cookie die.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Runtime } from "@harn/vm";
import { startTicks } from "../../src/core/proc";
import { reapDeadRuns, runsDir } from "../../src/core/run_registry";
import { runScope } from "../../src/core/run_scope";
import { eventually, liveInGroup, tempDir } from "../longrun/helpers";

let dir: ReturnType<typeof tempDir>;
let home: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  dir = tempDir("harn-registry-test-");
  home = join(dir.path, "home");
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  dir.remove();
});

const TOKEN = "0123456789abcdef";
const COOKIE = `HARN_TREE_${TOKEN}`;

/** A `sleep` in a group of its own, with `env` added to its environment. */
function sleeper(env: Record<string, string>): number {
  const c = spawn("sleep", ["100"], { env: { ...process.env, ...env }, detached: true, stdio: "ignore" });
  children.push(c);
  return c.pid!;
}

const running = (pid: number) => liveInGroup(pid).length > 0;

function writeRecord(name: string, record: Record<string, unknown>): string {
  const runs = runsDir({ HARN_HOME: home });
  mkdirSync(runs, { recursive: true });
  const path = join(runs, name);
  writeFileSync(path, JSON.stringify(record));
  return path;
}

function reap(): string[] {
  const lines: string[] = [];
  reapDeadRuns((l) => lines.push(l), { HARN_HOME: home });
  return lines;
}

describe("reapDeadRuns", () => {
  it("reaps a run whose pid now names another process, killing only its cookie's processes", async () => {
    const ours = sleeper({ [COOKIE]: "1" });
    const ours2 = sleeper({ [COOKIE]: "1" });
    const other = sleeper({ [COOKIE]: "2" });
    const stranger = sleeper({ HARN_TREE_ffffffffffffffff: "1" });
    const scratch = join(dir.path, `harn-run-${TOKEN}`);
    mkdirSync(join(scratch, "harn-command-cmd_1"), { recursive: true });
    // our own pid, but another start time: the pid was reused
    const record = writeRecord(`${COOKIE}.json`, { pid: process.pid, start: "1", cookie: COOKIE, scratch });
    await eventually(() => [ours, ours2, other, stranger].every(running));
    const lines = reap();
    expect(lines.sort()).toEqual([
      `[harn] reaped 1 process left running by a killed harn (pid ${process.pid}): sleep 100\n`,
      `[harn] reaped 2 processes left running by a killed harn (pid ${process.pid}): sleep 100\n`,
    ]);
    await eventually(() => ![ours, ours2, other].some(running));
    expect(running(stranger)).toBe(true);
    expect(existsSync(record)).toBe(false);
    expect(existsSync(scratch)).toBe(false);
    expect(reap()).toEqual([]);
  });

  it("leaves a live run alone, and believes a record only about its own processes and directory", async () => {
    const ours = sleeper({ [COOKIE]: "1" });
    const live = writeRecord(`${COOKIE}.json`, { pid: process.pid, start: startTicks(process.pid), cookie: COOKIE, scratch: join(dir.path, `harn-run-${TOKEN}`) });
    // tampered records: a cookie that is no cookie, a directory that is not the run's, a name that does not match
    const victim = join(dir.path, "precious");
    mkdirSync(victim);
    writeRecord("HARN_TREE_1111111111111111.json", { pid: 999999999, start: "1", cookie: "PATH", scratch: victim });
    writeRecord("HARN_TREE_2222222222222222.json", { pid: 999999999, start: "1", cookie: "HARN_TREE_2222222222222222", scratch: victim });
    writeRecord("HARN_TREE_3333333333333333.json", { pid: 999999999, start: "1", cookie: COOKIE, scratch: join(dir.path, `harn-run-${TOKEN}`) });
    await eventually(() => running(ours));
    expect(reap()).toEqual([]);
    expect(running(ours)).toBe(true);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(victim)).toBe(true);
  });

  it("skips a record another harn is reaping, and takes over one whose reaper died", async () => {
    const ours = sleeper({ [COOKIE]: "1" });
    const scratch = join(dir.path, `harn-run-${TOKEN}`);
    // claimed by a reaper that is alive
    const reaper = sleeper({});
    const claimed = writeRecord(`${COOKIE}.json.reaping-${reaper}`, { pid: 999999999, start: "1", cookie: COOKIE, scratch });
    await eventually(() => running(ours) && running(reaper));
    expect(reap()).toEqual([]);
    expect(running(ours)).toBe(true);
    // a reaper that died half way
    writeFileSync(join(runsDir({ HARN_HOME: home }), `${COOKIE}.json.reaping-999999999`), readFileSync(claimed));
    expect(reap()).toHaveLength(1);
    await eventually(() => !running(ours));
    expect(readdirSync(runsDir({ HARN_HOME: home }))).toEqual([`${COOKIE}.json.reaping-${reaper}`]);
  });
});

describe("a runtime's run scope", () => {
  it("records itself on first use, kills every tree and removes its record and directory at shutdown", async () => {
    const saved = process.env.HARN_HOME;
    process.env.HARN_HOME = home;
    try {
      const rt = new Runtime({ stdout: { write() {} }, stderr: { write() {} }, cwd: dir.path, env: { TMPDIR: dir.path } });
      const scope = runScope(rt);
      const env: Record<string, string> = {};
      const tree = scope.adopt(env);
      expect(Object.keys(env)).toEqual([scope.cookieName]);
      const pid = sleeper(env);
      const scratch = scope.scratchDir();
      expect(scratch).toBe(join(dir.path, `harn-run-${scope.token}`));
      const records = readdirSync(runsDir());
      expect(records).toEqual([`${scope.cookieName}.json`]);
      const record = JSON.parse(readFileSync(join(runsDir(), records[0]!), "utf8"));
      expect(record).toEqual({ pid: process.pid, start: startTicks(process.pid), cookie: scope.cookieName, scratch });
      await eventually(() => scope.members(tree).includes(pid));
      expect(scope.members(tree + 1)).toEqual([]);
      await rt.shutdown();
      await eventually(() => !running(pid));
      expect(existsSync(scratch)).toBe(false);
      expect(readdirSync(runsDir())).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.HARN_HOME;
      else process.env.HARN_HOME = saved;
    }
  });

  it("waitGone resolves when the last process of the tree ended, also one started later", async () => {
    const rt = new Runtime({ stdout: { write() {} }, stderr: { write() {} }, cwd: dir.path, env: { TMPDIR: dir.path } });
    const scope = runScope(rt);
    const env: Record<string, string> = {};
    const tree = scope.adopt(env);
    const marker = join(dir.path, "second");
    // the first process starts a second one that outlives it
    const c = spawn("sh", ["-c", `setsid sh -c 'sleep 0.3; touch ${marker}' >/dev/null 2>&1 & sleep 0.1`], { env: { ...process.env, ...env }, stdio: "ignore" });
    children.push(c);
    await new Promise((r) => c.on("exit", r));
    expect(existsSync(marker)).toBe(false);
    await scope.waitGone(tree, new AbortController().signal);
    expect(existsSync(marker)).toBe(true);
    await rt.shutdown();
  });
});
