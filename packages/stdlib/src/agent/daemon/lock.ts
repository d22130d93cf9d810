/**
 * One process per daemon root: `<root>/daemon.lock` holding
 * `<pid> <start-time>`. Two `harn` processes resuming (or spawning on) the
 * same root at once cannot both run it: the second finds a live owner and
 * gets a clear error instead of corrupting the queue.
 *
 * The lock appears atomically and complete: its text is written to a
 * private file first, which is then hard-linked to the lock name (`link`
 * fails if the name exists, like O_EXCL, but nobody ever sees an empty
 * lock). A lock whose owner is gone (the process was killed, e.g. SIGKILL)
 * is stale and is taken over; the owner's start time (from /proc on Linux)
 * guards against a recycled pid keeping a dead daemon's root locked. The
 * take-over renames the stale file aside first and only deletes it if it
 * is still the stale one, so two processes taking over at once cannot
 * delete each other's fresh lock.
 */
import { nodeCrypto } from "../../core/node-builtins";
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FILE_MODE } from "./durable";

export const LOCK_FILE = "daemon.lock";

export interface LockOwner {
  pid: number;
  /** Process start time in clock ticks since boot ("" when unknown). */
  start: string;
}

/** Start time of a process (field 22 of /proc/<pid>/stat), "" if unknown. */
function startTime(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? "";
  } catch {
    return "";
  }
}

function alive(owner: LockOwner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  if (owner.start === "") return true;
  const now = startTime(owner.pid);
  return now === "" || now === owner.start;
}

function parseOwner(text: string): LockOwner | null {
  const m = /^(\d+) (\d*)\n?$/.exec(text);
  return m ? { pid: Number(m[1]), start: m[2]! } : null;
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

export type LockResult = { ok: true; lock: RootLock } | { ok: false; owner: LockOwner | null };

export class RootLock {
  private released = false;
  private constructor(readonly path: string) {}

  /** Take the lock of `root` (an existing directory) or report its live
   * owner (`null` when the lock kept changing hands while we looked). */
  static acquire(root: string): LockResult {
    const path = join(root, LOCK_FILE);
    const text = `${process.pid} ${startTime(process.pid)}\n`;
    const mine = `${path}.${process.pid}-${nodeCrypto().randomBytes(4).toString("hex")}`;
    writeFileSync(mine, text, { mode: FILE_MODE });
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        try {
          linkSync(mine, path);
          return { ok: true, lock: new RootLock(path) };
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
        }
        const seen = readText(path);
        if (seen === null) continue; // released meanwhile
        // An unparsable lock cannot come from a live owner (locks appear
        // complete); it is left over from a power loss or tampering.
        const owner = parseOwner(seen);
        if (owner && alive(owner)) return { ok: false, owner };
        const aside = `${path}.stale-${process.pid}-${nodeCrypto().randomBytes(4).toString("hex")}`;
        try {
          renameSync(path, aside);
        } catch {
          continue;
        }
        if (readText(aside) !== seen) {
          // We moved a fresh lock: put it back unless the name is taken again.
          try {
            linkSync(aside, path);
          } catch {
            // the next attempt reads the new owner
          }
        }
        unlinkQuietly(aside);
      }
      const owner = parseOwner(readText(path) ?? "");
      return { ok: false, owner };
    } finally {
      unlinkQuietly(mine);
    }
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    unlinkQuietly(this.path);
  }
}
