/**
 * `mkdir -p`, without Node's `{ recursive: true }`. Node 20's recursive
 * mkdir (sync and async alike) loops forever when the kernel answers
 * ENOENT for a directory whose parent exists, which procfs does for every
 * path (`mkdir("/proc/x")`): a `persist_path` or a script's `mkdir` under
 * /proc hung harn. Here each missing component is created on its own, so
 * that answer surfaces as the error it is. Errors are Node's, with `code`.
 */
import { mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

export function makeDirsSync(path: string, mode?: number): void {
  // The path's missing ancestors and itself, innermost first; an existing
  // one ends the walk (a component that is not a directory throws ENOTDIR).
  const missing: string[] = [];
  let p = resolve(path);
  let found = statSync(p, { throwIfNoEntry: false });
  while (found === undefined) {
    missing.push(p);
    const up = dirname(p);
    if (up === p) break;
    p = up;
    found = statSync(p, { throwIfNoEntry: false });
  }
  // A file in the place of the directory fails as `mkdir -p` does (EEXIST).
  if (missing.length === 0 && !found!.isDirectory()) mkdirSync(p);
  for (let i = missing.length - 1; i >= 0; i--) {
    try {
      mkdirSync(missing[i]!, mode === undefined ? undefined : { mode });
    } catch (e) {
      // Another process made it between our stat and mkdir.
      if ((e as { code?: unknown }).code !== "EEXIST") throw e;
    }
  }
}

/** The promise form, for async callers; the few stat/mkdir calls run synchronously. */
export async function makeDirs(path: string, mode?: number): Promise<void> {
  makeDirsSync(path, mode);
}
