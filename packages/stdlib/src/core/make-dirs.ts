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

const isMissing = (e: unknown): boolean => (e as { code?: unknown }).code === "ENOENT";
const isExisting = (e: unknown): boolean => (e as { code?: unknown }).code === "EEXIST";

/** The path's missing ancestors and itself, outermost first. */
function missingSync(path: string): string[] {
  const out: string[] = [];
  for (let p = resolve(path); ; ) {
    try {
      statSync(p);
      break;
    } catch (e) {
      if (!isMissing(e)) throw e;
    }
    out.push(p);
    const up = dirname(p);
    if (up === p) break;
    p = up;
  }
  return out.reverse();
}

export function makeDirsSync(path: string, mode?: number): void {
  for (const dir of missingSync(path)) {
    try {
      mkdirSync(dir, mode === undefined ? undefined : { mode });
    } catch (e) {
      // Another process made it between our stat and mkdir.
      if (!isExisting(e)) throw e;
    }
  }
  // An existing non-directory in the way fails like `mkdir -p` does.
  if (!statSync(path).isDirectory()) mkdirSync(path);
}

/** The promise form, for async callers; the few stat/mkdir calls run synchronously. */
export async function makeDirs(path: string, mode?: number): Promise<void> {
  makeDirsSync(path, mode);
}
