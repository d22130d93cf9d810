/**
 * The whole test run gets its own temp directory, removed at the end: the
 * tests (and the harn processes they start) leave command artifacts
 * (`<tmp>/harn-command-*`, kept after a run as the reference keeps them),
 * temp trees and sockets there, and a shared /tmp would collect them run
 * after run. TMPDIR is set before vitest starts its workers, so they and
 * every child process inherit it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), "harn-tests-"));
  process.env.TMPDIR = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(dir, { recursive: true, force: true });
  };
}
