/**
 * Crash-safe replacement of a small state file, synchronously: the text
 * goes to `<file>.tmp`, is fsynced, renamed over the file, and the
 * directory is fsynced, so a crash leaves the old or the new content,
 * never a torn file (the same discipline as daemon state, agent/daemon/
 * durable.ts, without its group commit: these files are written by one
 * runtime at a time and rarely). Failures carry the step that failed.
 */
import { closeSync, constants, fsyncSync, openSync, renameSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { makeDirsSync } from "./make-dirs";

export class AtomicWriteError {
  constructor(
    readonly stage: "mkdir" | "write",
    readonly cause: unknown,
    readonly path: string,
  ) {}
}

function syncDir(dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function writeFileAtomicSync(path: string, text: string): void {
  const dir = dirname(path);
  try {
    makeDirsSync(dir);
  } catch (e) {
    throw new AtomicWriteError("mkdir", e, dir);
  }
  const tmp = `${path}.tmp`;
  try {
    const fd = openSync(tmp, "w", 0o644);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    syncDir(dir);
  } catch (e) {
    throw new AtomicWriteError("write", e, path);
  }
}
