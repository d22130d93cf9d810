/**
 * Collecting `.harn` targets (spec/cli.md §0.4), shared by check, lint, fmt
 * and test: directories are walked recursively in sorted order (so the
 * result is lexicographic, depth-first), `.harn` files are collected, and
 * `X.harn` is skipped when a sibling `X.conformance-skip` exists. A file
 * target is taken as given, whatever its extension.
 */
import { readdirSync, realpathSync, statSync, type Dirent } from "node:fs";
import { osErrorText } from "@harn/stdlib/oserror";

export class TargetError extends Error {}

/** Files for the given targets, in the order described above. A target
 * that does not exist or cannot be read throws a `TargetError` whose
 * message is the one-line reason. Directories are walked by real path: one
 * reached again through a symlink (a loop, or two links to one place) is
 * not entered twice, and a file reached twice is listed once, where it was
 * found first. */
export function collectHarnFiles(targets: readonly string[]): string[] {
  const files: string[] = [];
  const seen = new Seen();
  for (const target of targets) {
    let isDir: boolean;
    try {
      isDir = statSync(target).isDirectory();
    } catch (e) {
      throw new TargetError(`Error reading ${target}: ${reason(e)}`);
    }
    if (isDir) {
      const real = realpathSync.native(target);
      if (seen.dir(real)) walk(target, real, files, seen);
    } else if (seen.file(realpathSync.native(target))) files.push(target);
  }
  return files;
}

/** Sorted and de-duplicated, as `lint` and `check` use them. A target
 * that is not a directory is a file target taken as given, even one that
 * does not exist: like the reference, these commands then fail on it when
 * they come to read it, after the files sorted before it. */
export function collectHarnFilesSorted(targets: readonly string[]): string[] {
  const found = new Set<string>();
  const missing: string[] = [];
  for (const target of targets) {
    let exists = true;
    try {
      statSync(target);
    } catch {
      exists = false;
    }
    if (!exists) missing.push(target);
  }
  for (const f of collectHarnFiles(targets.filter((t) => !missing.includes(t)))) found.add(f);
  const all = [...found, ...missing.filter((m) => !found.has(m))];
  // paths without empty components compare as strings in which `/` sorts
  // first; splitting 9,000 paths was most of sorting them (already in
  // order, as a walk of one directory lists them)
  if (all.every((p) => !p.includes("//") && !p.endsWith("/"))) return all.sort(compareNormalPaths);
  // each path split into its components once, not at every comparison
  const keyed = all.map((path) => ({ path, parts: components(path) }));
  keyed.sort((a, b) => compareComponents(a.parts, b.parts));
  return keyed.map((k) => k.path);
}

/** `comparePaths` for paths whose components are all non-empty (but for
 * a leading `/`): a component that ends where another goes on is the
 * smaller, so `/` is below every other character. */
function compareNormalPaths(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return x === 47 ? -1 : y === 47 ? 1 : x - y;
  }
  return a.length - b.length;
}

/** Real paths already visited. */
class Seen {
  private readonly dirs = new Set<string>();
  private readonly files = new Set<string>();
  /** True the first time a directory is met. */
  dir(real: string): boolean {
    if (this.dirs.has(real)) return false;
    this.dirs.add(real);
    return true;
  }
  file(real: string): boolean {
    if (this.files.has(real)) return false;
    this.files.add(real);
    return true;
  }
}

/** Path order as the reference sorts paths (Rust's `Path` ordering):
 * component by component, so `lib/x.harn` comes before `lib.harn` and
 * `lib-a/x.harn`, the order a sorted depth-first walk visits them
 * (spec/cli.md §0.4). A plain string sort would put `lib.harn` first,
 * since `.` and `-` sort before `/`. */
export function comparePaths(a: string, b: string): number {
  return compareComponents(components(a), components(b));
}

function compareComponents(ca: readonly string[], cb: readonly string[]): number {
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
    if (ca[i] !== cb[i]) return ca[i]! < cb[i]! ? -1 : 1;
  }
  return ca.length - cb.length;
}

/** `a//b/` has the components of `a/b`; a leading `/` stays as "". */
function components(path: string): string[] {
  return path.split("/").filter((p, i) => p !== "" || i === 0);
}

/** `dir` joined with an entry name the way the reference's paths are
 * (Rust's `Path::join`): nothing is normalised, so the target `.` gives
 * `./a.harn` and `./src` gives `./src/a.harn` (lint.md §5.2: "the target
 * directory joined with the relative path found under it"). */
function joinAsCollected(dir: string, name: string): string {
  return dir.endsWith("/") ? dir + name : `${dir}/${name}`;
}

/** `dir` (whose real path is `real`) and everything below it. Only
 * symlinks cost a stat and a realpath: any other entry's real path is its
 * directory's joined with its name. */
function walk(dir: string, real: string, out: string[], seen: Seen): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (e) {
    throw new TargetError(`Error reading ${dir}: ${reason(e)}`);
  }
  const present = new Set(entries.map((e) => e.name));
  for (const entry of entries) {
    const name = entry.name;
    const path = joinAsCollected(dir, name);
    let isDir = entry.isDirectory();
    let target = `${real === "/" ? "" : real}/${name}`;
    if (entry.isSymbolicLink()) {
      try {
        const st = statSync(path);
        if (!st.isDirectory() && !st.isFile()) continue;
        isDir = st.isDirectory();
        target = realpathSync.native(path);
      } catch {
        continue; // a dangling symlink (or a loop of links) is not a target
      }
    } else if (!isDir && !entry.isFile()) continue; // a FIFO or socket would block the read
    if (isDir) {
      if (seen.dir(target)) walk(path, target, out, seen);
    } else if (name.endsWith(".harn") && !present.has(name.slice(0, -".harn".length) + ".conformance-skip") && seen.file(target)) out.push(path);
  }
}

/** The OS reason without Node's `ENOENT: ` prefix and syscall suffix, in
 * the reference's words (Rust's `io::Error` text, as it prints after
 * `Error reading {path}: `, spec/cli.md §0.6): `No such file or directory
 * (os error 2)`. The stdlib's table, so every command and the file
 * builtins word an OS error alike. */
export const reason: (e: unknown) => string = osErrorText;
