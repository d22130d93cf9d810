/**
 * The project metadata store (spec/core-gaps.md §7.1, workflows.md §5.9):
 * per-directory entries of namespaced fields, held in memory for the run
 * and written by `metadata_save()` only. The store lives in the state root
 * (`.harn` under the project root holding `harn.toml`, else the script's
 * directory; `HARN_STATE_DIR` overrides) as JSON shards under `metadata/`,
 * one file per directory entry, loaded on first use.
 *
 * Staleness compares the hashes a scan stored in the `classification`
 * namespace with the directory as it is now: the structure hash covers the
 * direct children's names and sizes, the content hash their mtimes too.
 */
import { readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HarnError, HDict, RuntimeSlot, type CallContext, type Value } from "@harn/vm";
import { parseJson, stringifyJson } from "../core/json";
import { osErrorText } from "../core/oserror";
import { findProjectRoot, sourceDir } from "../core/paths";
import { builtinModule } from "../registry/define";
import { makeDirsSync } from "../core/make-dirs";

/** dir → namespace → fields */
type Entries = Map<string, Map<string, HDict>>;

interface Store {
  base: string;
  dir: string;
  entries: Entries;
  dirty: boolean;
}

const slot = new RuntimeSlot<{ store: Store | null }>("metadata", () => ({ store: null }));

function baseDir(ctx: CallContext): string {
  const file = ctx.sourceFile;
  const scriptDir = file && ctx.runtime.stdModules.has(file) ? ctx.runtime.cwd : sourceDir(ctx);
  return findProjectRoot(ctx.runtime.cwd) ?? scriptDir;
}

function store(ctx: CallContext): Store {
  const s = ctx.runtime.slot(slot);
  if (s.store) return s.store;
  const base = baseDir(ctx);
  const env = ctx.runtime.env.HARN_STATE_DIR;
  const dir = join(env ? join(base, env) : join(base, ".harn"), "metadata");
  const entries: Entries = new Map();
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith(".json")).sort();
  } catch (e) {
    if ((e as { code?: string }).code !== "ENOENT") throw HarnError.runtime(`metadata: failed to read ${dir}: ${osErrorText(e)}`);
  }
  for (const f of files) {
    let doc: Value;
    try {
      doc = parseJson(readFileSync(join(dir, f), "utf8"));
    } catch {
      throw HarnError.runtime(`metadata: ${join(dir, f)} is not valid JSON`);
    }
    const d = doc instanceof HDict ? doc.get("dir") : null;
    const nss = doc instanceof HDict ? doc.get("namespaces") : null;
    if (typeof d !== "string" || !(nss instanceof HDict)) continue;
    const m = new Map<string, HDict>();
    for (const ns of nss.keys()) {
      const fields = nss.get(ns);
      if (fields instanceof HDict) m.set(ns, fields);
    }
    entries.set(d, m);
  }
  s.store = { base, dir, entries, dirty: false };
  return s.store;
}

const isRoot = (d: string) => d === "." || d === "";

/** The root's entries, then each ancestor of `dir`, then `dir` itself. */
function chain(dir: string): string[] {
  const out = [".", ""];
  if (isRoot(dir)) return out;
  const parts = dir.split("/").filter((p) => p !== "" && p !== ".");
  for (let i = 1; i <= parts.length; i++) out.push(parts.slice(0, i).join("/"));
  return out;
}

/** namespace → fields, merged field by field down the chain. */
function resolved(s: Store, dir: string): Map<string, HDict> {
  const out = new Map<string, HDict>();
  for (const d of chain(dir)) {
    for (const [ns, fields] of s.entries.get(d) ?? []) {
      const m = new Map((out.get(ns) ?? HDict.empty()).map);
      for (const k of fields.keys()) m.set(k, fields.get(k));
      out.set(ns, new HDict(m));
    }
  }
  return out;
}

/** 64-bit FNV-1a, lowercase hex. */
function fnv1a(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (const b of new TextEncoder().encode(text)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16);
}

function dirHash(base: string, dir: string, withMtime: boolean): string {
  let listing: string[] = [];
  try {
    const path = join(base, dir);
    listing = readdirSync(path).map((name) => {
      const st = statSync(join(path, name));
      return withMtime ? `${name}:${st.size}:${Math.floor(st.mtimeMs / 1000)}` : `${name}:${st.size}`;
    });
  } catch {
    listing = [];
  }
  return fnv1a(listing.sort().join("|"));
}

function stale(s: Store): HDict {
  const tier1: Value[] = [];
  const tier2: Value[] = [];
  for (const [dir, nss] of s.entries) {
    const c = nss.get("classification");
    const structure = c?.get("structureHash") ?? null;
    const content = c?.get("contentHash") ?? null;
    if (structure !== null && structure !== dirHash(s.base, dir, false)) tier1.push(dir);
    else if (content !== null && content !== dirHash(s.base, dir, true)) tier2.push(dir);
  }
  return HDict.of({ any_stale: tier1.length + tier2.length > 0, tier1, tier2 });
}

function save(s: Store): void {
  if (!s.dirty) return;
  try {
    makeDirsSync(s.dir);
    for (const [dir, nss] of s.entries) {
      const file = join(s.dir, `${fnv1a(dir)}.json`);
      const tmp = `${file}.tmp-${process.pid}`;
      writeFileSync(tmp, stringifyJson(HDict.of({ dir, namespaces: new HDict(new Map(nss)) })) + "\n");
      renameSync(tmp, file);
    }
  } catch (e) {
    throw HarnError.runtime(`metadata_save: failed to write ${s.dir}: ${osErrorText(e)}`);
  }
  s.dirty = false;
}

const text = (v: Value | undefined): string => (typeof v === "string" ? v : "");

export const METADATA_BUILTINS = builtinModule("formats/metadata", (def) => {
  def("metadata_get", (args, ctx) => {
    const r = resolved(store(ctx), text(args[0]));
    const ns = args[1] ?? null;
    if (ns !== null) return r.get(text(ns)) ?? null;
    const flat = new Map<string, Value>();
    for (const fields of r.values()) for (const k of fields.keys()) flat.set(k, fields.get(k));
    return flat.size === 0 ? null : new HDict(flat);
  });
  def("metadata_resolve", (args, ctx) => {
    const r = resolved(store(ctx), text(args[0]));
    const ns = args[1] ?? null;
    if (ns !== null) return r.get(text(ns)) ?? null;
    return new HDict(new Map([...r].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
  });
  def("metadata_set", (args, ctx) => {
    const fields = args[2];
    if (!(fields instanceof HDict) || fields.size === 0) return null;
    const s = store(ctx);
    const dir = text(args[0]);
    const ns = text(args[1]);
    const entry = s.entries.get(dir) ?? new Map<string, HDict>();
    const m = new Map((entry.get(ns) ?? HDict.empty()).map);
    for (const k of fields.keys()) m.set(k, fields.get(k));
    entry.set(ns, new HDict(m));
    s.entries.set(dir, entry);
    s.dirty = true;
    return null;
  });
  def("metadata_entries", (args, ctx) => {
    const s = store(ctx);
    const ns = text(args[0]);
    const dirs = [...s.entries.keys()].filter((d) => s.entries.get(d)!.has(ns)).sort((a, b) => (isRoot(a) ? -1 : isRoot(b) ? 1 : a < b ? -1 : a > b ? 1 : 0));
    return dirs.map((dir) => HDict.of({ dir, local: s.entries.get(dir)!.get(ns) ?? null, resolved: resolved(s, dir).get(ns) ?? null }));
  });
  def("metadata_status", (args, ctx) => {
    const s = store(ctx);
    const ns = args[0] === undefined || args[0] === null ? "classification" : text(args[0]);
    const namespaces = new Set<string>();
    const missingStructure: Value[] = [];
    const missingContent: Value[] = [];
    for (const [dir, nss] of s.entries) {
      for (const n of nss.keys()) namespaces.add(n);
      let exists = false;
      try {
        exists = statSync(join(s.base, dir)).isDirectory();
      } catch {
        exists = false;
      }
      if (!exists) continue;
      const fields = nss.get(ns);
      if ((fields?.get("structureHash") ?? null) === null) missingStructure.push(dir);
      if ((fields?.get("contentHash") ?? null) === null) missingContent.push(dir);
    }
    return HDict.of({
      directory_count: s.entries.size,
      missing_content_hash: missingContent,
      missing_structure_hash: missingStructure,
      namespace_count: namespaces.size,
      namespaces: [...namespaces].sort(),
      stale: stale(s),
    });
  });
  def("metadata_stale", (_args, ctx) => stale(store(ctx)));
  def("compute_content_hash", (args, ctx) => dirHash(store(ctx).base, text(args[0]), true));
  def("metadata_refresh_hashes", (_args, ctx) => {
    const s = store(ctx);
    for (const [dir, nss] of s.entries) {
      const c = nss.get("classification") ?? HDict.empty();
      nss.set("classification", c.with("structureHash", dirHash(s.base, dir, false)));
    }
    s.dirty = true;
    return null;
  });
  def("invalidate_facts", () => null);
  def("metadata_save", (_args, ctx) => {
    save(store(ctx));
    return null;
  });
});
