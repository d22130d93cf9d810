/**
 * Where the nearest `harn.toml` is (spec/cli.md §0.5). Apart from the
 * manifest's parser, so `harn run` can look for one without loading it.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export const MANIFEST = "harn.toml";
const MAX_DIRS = 16;

/**
 * The nearest `harn.toml` walking up from `dir`: at most 16 directories,
 * stopping after the first that contains `.git` (its own manifest still
 * counts).
 */
export function findManifest(dir: string): string | null {
  let d = resolve(dir);
  for (let i = 0; i < MAX_DIRS; i++) {
    const candidate = join(d, MANIFEST);
    if (existsSync(candidate)) return candidate;
    if (existsSync(join(d, ".git"))) return null;
    const up = dirname(d);
    if (up === d) return null;
    d = up;
  }
  return null;
}
