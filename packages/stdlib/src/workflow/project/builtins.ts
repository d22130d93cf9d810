/**
 * The native half of std/project (spec/workflows.md §5.2; the reference's
 * `project_*_native` builtins and `project_fingerprint`): directory scans,
 * the catalog, tree walks and the per-directory content hash that deep
 * scans compare. The module itself (enrichment, deep-scan caches, the
 * metadata helpers) is Harn source in std/project.ts.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HDict, HarnError, type Value } from "@harn/vm";
import { fromJson, JsonFloat } from "../../core/json";
import { resolvePath } from "../../core/paths";
import { builtinModule } from "../../registry/define";
import { CATALOG } from "./catalog";
import { fingerprint } from "./fingerprint";
import { listing, scanDir, walkTree, type Evidence, type WalkOptions } from "./scan";

const TIERS = new Set(["ambient", "config", "enriched"]);

function pathArg(v: Value | undefined): string {
  if (v === undefined || v === null) return ".";
  if (typeof v !== "string") throw HarnError.runtime("project: path must be a string");
  return v === "" ? "." : v;
}

function opt(options: Value | undefined, key: string): Value {
  return options instanceof HDict ? options.get(key) : null;
}

function tiersOf(options: Value | undefined, builtin: string): string[] {
  const t = opt(options, "tiers");
  if (t === null) return ["ambient", "config"];
  const list = Array.isArray(t) ? t : [t];
  const out: string[] = [];
  for (const x of list) {
    if (typeof x !== "string" || !TIERS.has(x)) throw HarnError.runtime(`${builtin}: unknown tier ${typeof x === "string" ? `'${x}'` : "(not a string)"}; expected ambient, config or enriched`);
    out.push(x);
  }
  return out;
}

function walkOptions(options: Value | undefined): WalkOptions {
  const depth = opt(options, "depth");
  return {
    depth: typeof depth === "number" ? Math.max(0, depth) : typeof depth === "bigint" ? Number.MAX_SAFE_INTEGER : 3,
    respectGitignore: opt(options, "respect_gitignore") !== false,
    includeVendor: opt(options, "include_vendor") === true,
  };
}

function evidenceValue(e: Evidence): Value {
  const confidence: Record<string, JsonFloat> = {};
  for (const [k, v] of Object.entries(e.confidence)) confidence[k] = new JsonFloat(v);
  return fromJson({ ...e, confidence });
}

/** SHA-256 over a directory's direct children: file names with their bytes, subdirectory names. */
function contentHash(dir: string): string {
  const h = createHash("sha256");
  const { files, dirs } = listing(dir);
  for (const f of files) {
    h.update(`f:${f}\0`);
    try {
      h.update(readFileSync(join(dir, f)));
    } catch {
      h.update("<unreadable>");
    }
    h.update("\0");
  }
  for (const d of dirs) h.update(`d:${d}\0`);
  return h.digest("hex");
}

export const PROJECT_BUILTINS = builtinModule("workflow/project", (def) => {
  def("project_catalog_native", () =>
    fromJson(
      CATALOG.map((c) => ({
        id: c.id,
        languages: c.languages,
        frameworks: c.frameworks,
        build_systems: c.build_systems,
        anchors: c.anchors,
        lockfiles: c.lockfiles,
        source_globs: c.extensions.map((x) => `**/*${x}`),
        default_build_cmd: c.default_build_cmd,
        default_test_cmd: c.default_test_cmd,
        anchor_score: new JsonFloat(c.anchor_score),
      })),
    ),
  );
  def("project_scan_native", (args, ctx) => evidenceValue(scanDir(resolvePath(ctx.runtime, pathArg(args[0])), tiersOf(args[1], "project_scan"))));
  def("project_walk_tree_native", (args, ctx) => walkTree(resolvePath(ctx.runtime, pathArg(args[0])), walkOptions(args[1])));
  def("project_scan_tree_native", (args, ctx) => {
    const root = resolvePath(ctx.runtime, pathArg(args[0]));
    const tiers = tiersOf(args[1], "project_scan_tree");
    const m = new Map<string, Value>();
    for (const rel of walkTree(root, walkOptions(args[1]))) m.set(rel, evidenceValue(scanDir(rel === "." ? root : join(root, rel), tiers)));
    return new HDict(m);
  });
  def("project_fingerprint", (args, ctx) => fromJson(fingerprint(resolvePath(ctx.runtime, pathArg(args[0])))));
  def("project_content_hash_native", (args, ctx) => contentHash(resolvePath(ctx.runtime, pathArg(args[0]))));
});
