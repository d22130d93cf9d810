/**
 * Asset paths (spec/stdlib.md §2.6): template paths resolve against the
 * directory of the executing `.harn` file; `@/rel` against the nearest
 * ancestor holding `harn.toml`; `@alias/rel` against the `[asset_roots]`
 * table of that `harn.toml`. The `@` forms reject `..` segments and
 * absolute targets. Failures are message strings for the caller to wrap.
 */
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute } from "node:path";
import { parse as parseToml } from "smol-toml";
import { findProjectRoot, pushPath } from "../core/paths";

export class AssetPathError {
  constructor(readonly message: string) {}
}

export function resolveAsset(base: string, p: string): string {
  if (!p.startsWith("@")) return pushPath(base, p);
  const slash = p.indexOf("/");
  const alias = slash < 0 ? p.slice(1) : p.slice(1, slash);
  const rest = slash < 0 ? "" : p.slice(slash + 1);
  if (rest.startsWith("/") || isAbsolute(rest)) throw new AssetPathError(`asset path '${p}' must be relative`);
  if (rest.split(/[\\/]/).includes("..")) throw new AssetPathError(`asset path '${p}' must not contain '..' segments`);
  const root = findProjectRoot(base);
  if (root === null) throw new AssetPathError(`asset path '${p}' needs a harn.toml above ${base}`);
  if (alias === "") return pushPath(root, rest);
  const target = assetRoots(root)[alias];
  if (target === undefined) throw new AssetPathError(`unknown asset root '@${alias}' (add it to [asset_roots] in ${root}/harn.toml)`);
  if (isAbsolute(target) || target.split(/[\\/]/).includes("..")) {
    throw new AssetPathError(`asset root '@${alias}' must be a relative path without '..' segments`);
  }
  return pushPath(pushPath(root, target), rest);
}

function assetRoots(root: string): Record<string, string> {
  const file = root + "/harn.toml";
  if (!existsSync(file)) return {};
  try {
    const doc = parseToml(readFileSync(file, "utf8")) as Record<string, unknown>;
    const table = doc.asset_roots;
    if (!table || typeof table !== "object") return {};
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(table as Record<string, unknown>)) if (typeof v === "string") out[k] = v;
    return out;
  } catch {
    return {};
  }
}
