/**
 * Collecting `.harn` targets (spec/cli.md §0.4), shared by check, lint, fmt
 * and test: directories are walked recursively in sorted order (so the
 * result is lexicographic, depth-first), `.harn` files are collected, and
 * `X.harn` is skipped when a sibling `X.conformance-skip` exists. A file
 * target is taken as given, whatever its extension.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export class TargetError extends Error {}

export interface CollectOptions {
  /** Directory names never entered (e.g. `node_modules`, `.git` for lint). */
  skipDirs?: ReadonlySet<string>;
}

/** Files for the given targets, in the order described above. A target
 * that does not exist or cannot be read throws a `TargetError` whose
 * message is the one-line reason. */
export function collectHarnFiles(targets: readonly string[], options: CollectOptions = {}): string[] {
  const files: string[] = [];
  for (const target of targets) {
    let isDir: boolean;
    try {
      isDir = statSync(target).isDirectory();
    } catch (e) {
      throw new TargetError(`Error reading ${target}: ${reason(e)}`);
    }
    if (isDir) walk(target, files, options.skipDirs);
    else files.push(target);
  }
  return files;
}

/** Sorted and de-duplicated, as `lint` and `check` use them. */
export function collectHarnFilesSorted(targets: readonly string[], options: CollectOptions = {}): string[] {
  return [...new Set(collectHarnFiles(targets, options))].sort();
}

function walk(dir: string, out: string[], skipDirs: ReadonlySet<string> | undefined): void {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (e) {
    throw new TargetError(`Error reading ${dir}: ${reason(e)}`);
  }
  const present = new Set(names);
  for (const name of names) {
    const path = join(dir, name);
    let isDir = false;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      continue; // a dangling symlink is not a target
    }
    if (isDir) {
      if (!skipDirs?.has(name)) walk(path, out, skipDirs);
    } else if (name.endsWith(".harn") && !present.has(name.slice(0, -".harn".length) + ".conformance-skip")) out.push(path);
  }
}

/** The OS reason without Node's `ENOENT: ` prefix and syscall suffix. */
export function reason(e: unknown): string {
  if (e && typeof e === "object" && "code" in e) {
    const code = (e as { code?: string }).code;
    if (code === "ENOENT") return "No such file or directory";
    if (code === "EACCES") return "Permission denied";
    if (code === "EISDIR") return "Is a directory";
  }
  return e instanceof Error ? e.message : String(e);
}
