/**
 * What Linux's /proc tells about other processes, read the way an
 * unprivileged user may: our own processes' environments (environ is
 * readable only by the owner), anyone's start time and command line.
 * Where there is no /proc (macOS) every reader finds nothing, and the
 * callers fall back to process groups (docs/design.md "Long-running work").
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";

/** A live process whose environment carries a variable, with its value. */
export interface Carrier {
  readonly pid: number;
  readonly value: string;
}

/**
 * Every process but `selfPid` whose environment has `name`, with its value.
 * The scan reads one small file per process, into one buffer (~1.2 ms for
 * ~140 processes on a loaded 2-core machine; `readFileSync` took ~3.3 ms);
 * zombies have an empty environment and are never found.
 */
export function processesWithEnv(name: string, selfPid: number): Carrier[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const key = Buffer.from(`${name}=`);
  const buf = Buffer.allocUnsafe(ENVIRON_BUFFER);
  const out: Carrier[] = [];
  for (const entry of entries) {
    const c = entry.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const pid = Number(entry);
    if (pid === selfPid) continue;
    const value = envValue(pid, key, buf);
    if (value !== null) out.push({ pid, value });
  }
  return out;
}

/** Most environments fit; a larger one is read whole. */
const ENVIRON_BUFFER = 1 << 16;

/** The value of the variable `key` (`NAME=` as bytes) in `pid`'s
 * environment, or null when the process is gone, not ours, or lacks it.
 * `buf` is scratch space to read into. */
export function envValue(pid: number, key: Buffer, buf: Buffer = Buffer.allocUnsafe(ENVIRON_BUFFER)): string | null {
  const path = `/proc/${pid}/environ`;
  let env: Buffer;
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  try {
    let n = 0;
    for (let r = 1; r > 0 && n < buf.length; n += r) r = readSync(fd, buf, n, buf.length - n, null);
    env = n < buf.length ? buf.subarray(0, n) : readFileSync(path);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
  let at = env.indexOf(key);
  // a match inside another variable's value does not count
  while (at > 0 && env[at - 1] !== 0) at = env.indexOf(key, at + 1);
  if (at < 0) return null;
  const start = at + key.length;
  const end = env.indexOf(0, start);
  return env.toString("utf8", start, end < 0 ? env.length : end);
}

/** Kill rounds: a process may fork between the scan and the kill. */
const KILL_ROUNDS = 8;

/**
 * SIGKILL every process (but this one) whose environment has `name` (with
 * `value`, when given), scanning again until none is left or the rounds
 * run out. Returns the pids killed.
 */
export function killProcessesWithEnv(name: string, value: string | null): number[] {
  const killed = new Set<number>();
  for (let round = 0; round < KILL_ROUNDS; round++) {
    // one already sent SIGKILL may not have died yet: only new ones count
    const found = processesWithEnv(name, process.pid).filter((c) => (value === null || c.value === value) && !killed.has(c.pid));
    if (found.length === 0) break;
    for (const { pid } of found) {
      try {
        process.kill(pid, "SIGKILL");
        killed.add(pid);
      } catch {
        // gone already
      }
    }
  }
  return [...killed];
}

/** When `pid` started, in clock ticks since boot (field 22 of
 * /proc/<pid>/stat), or null when it is gone or there is no /proc. With
 * the pid this names one process: a reused pid has another start time. */
export function startTicks(pid: number): string | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // the command name in parentheses may hold spaces and parentheses itself
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields[19] ?? null;
}

/** Whether /proc can be read at all. */
export function hasProc(): boolean {
  return startTicks(process.pid) !== null;
}

/** `pid`'s command line with spaces between its arguments, cut to `max`
 * characters, or "" when it cannot be read. */
export function commandLine(pid: number, max = 100): string {
  let raw: Buffer;
  try {
    raw = readFileSync(`/proc/${pid}/cmdline`);
  } catch {
    return "";
  }
  const text = raw.toString("utf8").replace(/\0+$/, "").replace(/\0/g, " ");
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
