/**
 * Where an `import "path"` leads, as `harn run` resolves it (one rule for
 * the evaluator's module host, `harn check`'s preflight and `harn lsp`):
 * `std/...` names a bundled module; any other path is taken from the
 * importing file's directory (or as is when absolute) and is the file
 * `X.harn`, `X` or `X/index.harn` (an `X.harn` path only itself).
 */
import { existsSync, statSync } from "node:fs";
import { dirname, extname, isAbsolute, resolve } from "node:path";

export function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

/** The module's key (a file path, or the `std/...` path itself), or null.
 * A relative `fromFile` is taken from `cwd`; `exists` says whether a
 * candidate is a file (the language server also counts unsaved ones). */
export function resolveModulePath(
  fromFile: string,
  path: string,
  std: { has(name: string): boolean },
  cwd: string = process.cwd(),
  exists: (path: string) => boolean = isFile,
): string | null {
  if (path.startsWith("std/")) return std.has(path) ? path : null;
  const base = isAbsolute(path) ? path : resolve(dirname(resolve(cwd, fromFile)), path);
  const candidates = extname(base) === ".harn" ? [base] : [base + ".harn", base, resolve(base, "index.harn")];
  for (const c of candidates) if (exists(c)) return c;
  return null;
}
