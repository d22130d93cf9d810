/**
 * Collecting the `.harn` files of a lint run (spec/cli.md §0.4): directory
 * targets are walked depth-first in sorted order (skipping `node_modules`,
 * `.git`, and any `X.harn` beside an `X.conformance-skip`); file targets
 * are taken as given. The combined list is sorted and de-duplicated.
 */
import { readdirSync, statSync, type Dirent } from "node:fs";

const SKIPPED_DIRS = new Set(["node_modules", ".git"]);

function join(dir: string, name: string): string {
  return dir.endsWith("/") ? dir + name : `${dir}/${name}`;
}

function walk(dir: string, out: string[]): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  const names = new Set(entries.map((e) => e.name));
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIPPED_DIRS.has(e.name)) walk(path, out);
    } else if (e.name.endsWith(".harn") && (e.isFile() || e.isSymbolicLink())) {
      if (!names.has(`${e.name.slice(0, -5)}.conformance-skip`)) out.push(path);
    }
  }
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export function collectHarnFiles(targets: readonly string[]): string[] {
  const out: string[] = [];
  for (const t of targets) {
    if (isDirectory(t)) walk(t.length > 1 && t.endsWith("/") ? t.slice(0, -1) : t, out);
    else out.push(t);
  }
  return [...new Set(out)].sort();
}
