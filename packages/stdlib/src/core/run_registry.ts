/**
 * The per-user registry of live runs: one small JSON file per runtime that
 * started a process, `<HARN_HOME>/runs/HARN_TREE_<token>.json` (HARN_HOME
 * defaults to `~/.harn`), naming the harn process that owns it (pid and
 * start time), the cookie its process trees carry and its scratch
 * directory (run_scope.ts). A runtime removes its record when it shuts
 * down. A record whose harn is gone, or whose pid now names another
 * process (the start time differs), was left by a run that could not
 * clean up (SIGKILL, the OOM killer), and the next `harn` reaps it.
 *
 * Reaping touches only what is certainly that run's: processes whose
 * environment carries its cookie (which only processes it started and
 * their descendants inherit), and a directory named after its token. Two
 * harns reaping at once do not both act: each claims a record by renaming
 * it first.
 */
import { readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { nodeOs } from "./node-builtins";
import { commandLine, killProcessesWithEnv, processesWithEnv, startTicks } from "./proc";
import { makeDirsSync } from "./make-dirs";

/** What a run records about itself. */
export interface RunInfo {
  /** The cookie variable its processes carry, `HARN_TREE_<token>`. */
  readonly cookie: string;
  /** Its scratch directory, `<tmp>/harn-run-<token>`. */
  readonly scratch: string;
}

interface Stored extends RunInfo {
  readonly pid: number;
  readonly start: string;
}

const COOKIE = /^HARN_TREE_([0-9a-f]{16})$/;

/** `$HARN_HOME/runs`, `~/.harn/runs` by default. The harn process's own
 * environment decides, not a runtime's (which a host may have made up):
 * the registry belongs to the user running harn. */
export function runsDir(env: Record<string, string | undefined> = process.env): string {
  const home = env.HARN_HOME || join(env.HOME || nodeOs().homedir(), ".harn");
  return join(home, "runs");
}

export class RunRecord {
  private constructor(private readonly path: string | null) {}

  /**
   * Record a run of this process. Without /proc a dead owner cannot be
   * told from a reused pid and nothing could be found to reap, so there
   * is no record; nor when the directory cannot be written (the run goes
   * on, only without the safety net).
   */
  static create(info: RunInfo): RunRecord {
    const start = startTicks(process.pid);
    if (start === null) return new RunRecord(null);
    const stored: Stored = { pid: process.pid, start, cookie: info.cookie, scratch: info.scratch };
    const dir = runsDir();
    const path = join(dir, `${info.cookie}.json`);
    try {
      makeDirsSync(dir, 0o700);
      // whole or absent: a reaper never reads half a record
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(stored), { mode: 0o600 });
      renameSync(tmp, path);
      return new RunRecord(path);
    } catch {
      return new RunRecord(null);
    }
  }

  remove(): void {
    if (this.path === null) return;
    try {
      unlinkSync(this.path);
    } catch {
      // reaped by someone else, or never written
    }
  }
}

/**
 * Reap what dead runs left: kill their process trees and remove their
 * scratch directories. `say` gets one line per reaped tree. Never throws.
 */
export function reapDeadRuns(say: (line: string) => void, env: Record<string, string | undefined> = process.env): void {
  const dir = runsDir(env);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^(HARN_TREE_[0-9a-f]{16})\.json(?:\.reaping-(\d+))?$/.exec(name);
    if (m === null) continue;
    // another harn is reaping it right now
    if (m[2] !== undefined && startTicks(Number(m[2])) !== null) continue;
    const path = join(dir, name);
    const rec = readRecord(path);
    if (rec === null || rec.cookie !== m[1]) continue;
    if (startTicks(rec.pid) === rec.start) continue; // its harn still runs
    const claimed = join(dir, `${m[1]}.json.reaping-${process.pid}`);
    try {
      renameSync(path, claimed);
    } catch {
      continue; // claimed by another harn first
    }
    reap(rec, say);
    try {
      unlinkSync(claimed);
    } catch {
      // already gone
    }
  }
}

function readRecord(path: string): Stored | null {
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
  if (typeof v !== "object" || v === null) return null;
  const r = v as Record<string, unknown>;
  if (typeof r.pid !== "number" || typeof r.start !== "string" || typeof r.cookie !== "string" || typeof r.scratch !== "string") return null;
  const token = COOKIE.exec(r.cookie)?.[1];
  // a record is only believed about its own processes and directory
  if (token === undefined || basename(r.scratch) !== `harn-run-${token}`) return null;
  return { pid: r.pid, start: r.start, cookie: r.cookie, scratch: r.scratch };
}

function reap(rec: Stored, say: (line: string) => void): void {
  const trees = new Map<string, number[]>();
  for (const c of processesWithEnv(rec.cookie, process.pid)) {
    const pids = trees.get(c.value) ?? [];
    pids.push(c.pid);
    trees.set(c.value, pids);
  }
  for (const [tree, pids] of trees) {
    // named after its oldest process, the one the run started
    const first = pids.reduce((a, b) => (Number(startTicks(a) ?? Infinity) <= Number(startTicks(b) ?? Infinity) ? a : b));
    const what = commandLine(first);
    const n = killProcessesWithEnv(rec.cookie, tree).length;
    if (n === 0) continue;
    say(`[harn] reaped ${n} process${n === 1 ? "" : "es"} left running by a killed harn (pid ${rec.pid})${what === "" ? "" : `: ${what}`}\n`);
  }
  try {
    rmSync(rec.scratch, { recursive: true, force: true });
  } catch {
    // left for the user
  }
}
