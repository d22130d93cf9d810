/**
 * The whole test run gets its own temp directory, removed at the end: the
 * tests (and the harn processes they start) leave temp trees and sockets
 * there, and a shared /tmp would collect them run after run. It is also
 * the run's HARN_HOME: every runtime that starts a process records itself
 * in `$HARN_HOME/runs` (stdlib core/run_registry.ts), and tests kill harn
 * with SIGKILL on purpose; a record left in the developer's ~/.harn would
 * make their next `harn` reap and report it. Both are set before vitest
 * starts its workers, so they and every child process inherit them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const previous = { TMPDIR: process.env.TMPDIR, HARN_HOME: process.env.HARN_HOME };
  const dir = mkdtempSync(join(tmpdir(), "harn-tests-"));
  process.env.TMPDIR = dir;
  process.env.HARN_HOME = join(dir, "harn-home");
  return () => {
    for (const [k, v] of Object.entries(previous)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(dir, { recursive: true, force: true });
  };
}
