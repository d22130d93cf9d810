/**
 * Per-directory project evidence (spec/workflows.md §5.2): the `ambient`
 * tier reads marker files (anchors, lockfiles, sources), the `config` tier
 * parses manifests (package names, dependencies → frameworks). Plain JS
 * objects here; builtins.ts converts them to Harn values.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import ignore, { type Ignore } from "ignore";
import { isJsonObject } from "../../core/json";
import { CATALOG, FRAMEWORK_DEPS, VENDOR_DIRS, type CatalogEntry } from "./catalog";

export interface Evidence {
  path: string;
  languages: string[];
  confidence: Record<string, number>;
  anchors: string[];
  lockfiles: string[];
  build_systems: string[];
  build_commands: string[];
  test_commands: string[];
  source_files: string[];
  frameworks: string[];
  package_name: string | null;
  package_names?: string[];
  dependencies: string[];
  tiers: string[];
}

/** The names in a directory, split into files and directories; [] when unreadable. */
export function listing(dir: string): { files: string[]; dirs: string[] } {
  const files: string[] = [];
  const dirs: string[] = [];
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return { files, dirs };
  }
  for (const e of entries) {
    let isDir = e.isDirectory();
    if (e.isSymbolicLink()) {
      try {
        isDir = statSync(join(dir, e.name)).isDirectory();
      } catch {
        continue;
      }
    }
    (isDir ? dirs : files).push(e.name);
  }
  return { files: files.sort(), dirs: dirs.sort() };
}

export function readText(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

export function readJson(path: string): Record<string, unknown> | null {
  const t = readText(path);
  if (t === null) return null;
  try {
    const v: unknown = JSON.parse(t);
    return isJsonObject(v) ? v : null;
  } catch {
    return null;
  }
}

export function readTomlFile(path: string): Record<string, unknown> | null {
  const t = readText(path);
  if (t === null) return null;
  try {
    return parseToml(t) as Record<string, unknown>;
  } catch {
    return null;
  }
}

const obj = (v: unknown): Record<string, unknown> => (isJsonObject(v) ? v : {});
const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** Source files under `dir` with one of `exts` (relative, sorted), skipping vendor and hidden directories. */
export function sourceFiles(dir: string, exts: readonly string[], maxDepth = 3, limit = 50): string[] {
  const out: string[] = [];
  const walk = (rel: string, depth: number): void => {
    const { files, dirs } = listing(rel === "" ? dir : join(dir, rel));
    for (const f of files) if (exts.some((x) => f.endsWith(x))) out.push(rel === "" ? f : `${rel}/${f}`);
    if (depth >= maxDepth) return;
    for (const d of dirs) if (!VENDOR_DIRS.has(d) && !d.startsWith(".")) walk(rel === "" ? d : `${rel}/${d}`, depth + 1);
  };
  walk("", 0);
  return out.sort().slice(0, limit);
}

/** Names a Python requirement line or PEP 508 string depends on. */
function pyName(req: string): string {
  return req.trim().split(/[\s<>=!~;[(]/)[0]!.toLowerCase();
}

interface Manifest {
  names: string[];
  deps: string[];
}

/** Package names and dependency names of the manifests in `dir`. */
export function readManifests(dir: string, files: ReadonlySet<string>): Manifest & { ecosystems: Map<string, string[]> } {
  const names: string[] = [];
  const ecosystems = new Map<string, string[]>();
  const add = (eco: string, deps: string[]): void => void ecosystems.set(eco, [...(ecosystems.get(eco) ?? []), ...deps]);
  if (files.has("Cargo.toml")) {
    const t = readTomlFile(join(dir, "Cargo.toml"));
    if (t) {
      const n = str(obj(t.package).name);
      if (n) names.push(n);
      const ws = obj(obj(t.workspace).dependencies);
      add("rust", [...Object.keys(obj(t.dependencies)), ...Object.keys(obj(t["dev-dependencies"])), ...Object.keys(ws)]);
    }
  }
  if (files.has("package.json")) {
    const p = readJson(join(dir, "package.json"));
    if (p) {
      const n = str(p.name);
      if (n) names.push(n);
      add("js", [...Object.keys(obj(p.dependencies)), ...Object.keys(obj(p.devDependencies)), ...Object.keys(obj(p.peerDependencies))]);
    }
  }
  if (files.has("pyproject.toml")) {
    const t = readTomlFile(join(dir, "pyproject.toml"));
    if (t) {
      const project = obj(t.project);
      const poetry = obj(obj(t.tool).poetry);
      const n = str(project.name) ?? str(poetry.name);
      if (n) names.push(n);
      const deps = Array.isArray(project.dependencies) ? project.dependencies.filter((d): d is string => typeof d === "string").map(pyName) : [];
      const optional = Object.values(obj(project["optional-dependencies"])).flatMap((l) => (Array.isArray(l) ? l.filter((d): d is string => typeof d === "string").map(pyName) : []));
      const groups = Object.values(obj(obj(t["dependency-groups"]))).flatMap((l) => (Array.isArray(l) ? l.filter((d): d is string => typeof d === "string").map(pyName) : []));
      const poetryDeps = [...Object.keys(obj(poetry.dependencies)), ...Object.keys(obj(poetry["dev-dependencies"]))];
      const poetryGroups = Object.values(obj(poetry.group)).flatMap((g) => Object.keys(obj(obj(g).dependencies)));
      add("python", [...deps, ...optional, ...groups, ...poetryDeps, ...poetryGroups].map((d) => d.toLowerCase()));
    }
  }
  if (files.has("requirements.txt")) {
    const t = readText(join(dir, "requirements.txt")) ?? "";
    add("python", t.split("\n").map((l) => l.replace(/#.*/, "").trim()).filter((l) => l !== "" && !l.startsWith("-")).map(pyName));
  }
  if (files.has("go.mod")) {
    const t = readText(join(dir, "go.mod")) ?? "";
    const m = /^module\s+(\S+)/m.exec(t);
    if (m) names.push(m[1]!);
    const deps: string[] = [];
    for (const line of t.split("\n")) {
      const r = /^\s*(?:require\s+)?([a-z0-9.-]+\.[a-z]+\/\S+)\s+v\S+/.exec(line);
      if (r) deps.push(r[1]!);
    }
    add("go", deps);
  }
  if (files.has("Package.swift")) {
    const t = readText(join(dir, "Package.swift")) ?? "";
    const m = /name:\s*"([^"]+)"/.exec(t);
    if (m) names.push(m[1]!);
  }
  return { names, deps: [...ecosystems.values()].flat(), ecosystems };
}

/** Framework ids named by a directory's dependencies, sorted. */
export function frameworksOf(ecosystems: Map<string, string[]>): string[] {
  const out = new Set<string>();
  for (const [eco, deps] of ecosystems) {
    const table = FRAMEWORK_DEPS[eco] ?? {};
    for (const d of deps) {
      const hit = table[d] ?? Object.entries(table).find(([k]) => eco === "go" && d.startsWith(k + "/"))?.[1];
      if (hit) out.add(hit);
    }
  }
  return [...out].sort();
}

/** Whether a `package.json` directory holds TypeScript. */
function isTypescript(dir: string, files: ReadonlySet<string>): boolean {
  if (files.has("tsconfig.json")) return true;
  return sourceFiles(dir, [".ts", ".tsx"], 2, 1).length > 0;
}

function languageEntries(dir: string, files: ReadonlySet<string>): CatalogEntry[] {
  const hits = CATALOG.filter((e) => e.anchors.some((a) => files.has(a)));
  if (files.has("package.json") || files.has("tsconfig.json")) {
    const drop = isTypescript(dir, files) ? "javascript" : "typescript";
    return hits.filter((e) => e.id !== drop);
  }
  return hits;
}

/** Evidence for one directory (absolute path) over the given tiers. */
export function scanDir(dir: string, tiers: readonly string[]): Evidence {
  const { files: fileList } = listing(dir);
  const files = new Set(fileList);
  const ev: Evidence = {
    path: dir,
    languages: [],
    confidence: {},
    anchors: [],
    lockfiles: [],
    build_systems: [],
    build_commands: [],
    test_commands: [],
    source_files: [],
    frameworks: [],
    package_name: null,
    dependencies: [],
    tiers: [...tiers],
  };
  if (tiers.includes("ambient") || tiers.includes("config")) {
    let entries = languageEntries(dir, files);
    const scores = new Map<string, number>();
    for (const e of entries) {
      const lock = e.lockfiles.some((l) => files.has(l));
      scores.set(e.id, lock ? Math.max(0.95, e.anchor_score) : e.anchor_score);
    }
    // Without any marker file, sources directly in the directory say what it holds.
    if (entries.length === 0) {
      entries = CATALOG.filter((e) => e.id !== "javascript" || !fileList.some((f) => f.endsWith(".ts") || f.endsWith(".tsx"))).filter((e) =>
        fileList.some((f) => e.extensions.some((x) => f.endsWith(x))),
      );
      for (const e of entries) scores.set(e.id, 0.5);
    }
    entries = [...entries].sort((a, b) => scores.get(b.id)! - scores.get(a.id)! || CATALOG.indexOf(a) - CATALOG.indexOf(b));
    const uniq = (xs: string[]): string[] => [...new Set(xs)];
    ev.languages = uniq(entries.flatMap((e) => e.languages));
    for (const e of entries) ev.confidence[e.id] = scores.get(e.id)!;
    ev.anchors = uniq(entries.flatMap((e) => e.anchors.filter((a) => files.has(a)))).sort();
    ev.lockfiles = uniq(entries.flatMap((e) => e.lockfiles.filter((l) => files.has(l)))).sort();
    ev.build_systems = uniq(entries.flatMap((e) => (scores.get(e.id)! > 0.5 ? e.build_systems : [])));
    const marked = entries.filter((e) => scores.get(e.id)! > 0.5);
    ev.build_commands = uniq(marked.flatMap((e) => [e.default_build_cmd, e.default_test_cmd].filter((c): c is string => c !== null)));
    ev.test_commands = uniq(marked.flatMap((e) => (e.default_test_cmd ? [e.default_test_cmd] : [])));
    ev.source_files = sourceFiles(dir, uniq(entries.flatMap((e) => e.extensions)));
  }
  if (tiers.includes("config")) {
    const m = readManifests(dir, files);
    ev.package_name = m.names[0] ?? null;
    const names = [...new Set(m.names)];
    if (names.length > 1) ev.package_names = names;
    ev.dependencies = [...new Set(m.deps)].sort();
    ev.frameworks = frameworksOf(m.ecosystems);
  }
  return ev;
}

export interface WalkOptions {
  depth: number;
  respectGitignore: boolean;
  includeVendor: boolean;
}

/**
 * The directories of a tree scan, relative to `root` (`"."` first, then
 * sorted), down to `depth`: vendor/build directories and those a
 * `.gitignore` on the way ignores are skipped unless asked for.
 */
export function walkTree(root: string, opts: WalkOptions): string[] {
  const out = ["."];
  const rules: { base: string; ig: Ignore }[] = [];
  const ignored = (rel: string): boolean =>
    rules.some(({ base, ig }) => {
      const sub = base === "" ? rel : rel.startsWith(base + "/") ? rel.slice(base.length + 1) : null;
      return sub !== null && ig.ignores(sub + "/");
    });
  const walk = (rel: string, depth: number): void => {
    const abs = rel === "" ? root : join(root, rel);
    const pushed = opts.respectGitignore && loadGitignore(abs, rel, rules);
    if (depth < opts.depth) {
      for (const d of listing(abs).dirs) {
        const child = rel === "" ? d : `${rel}/${d}`;
        if (!opts.includeVendor && VENDOR_DIRS.has(d)) continue;
        if (opts.respectGitignore && ignored(child)) continue;
        out.push(child);
        walk(child, depth + 1);
      }
    }
    if (pushed) rules.pop();
  };
  walk("", 0);
  return ["."].concat(out.slice(1).sort());
}

function loadGitignore(abs: string, rel: string, rules: { base: string; ig: Ignore }[]): boolean {
  const text = readText(join(abs, ".gitignore"));
  if (text === null) return false;
  rules.push({ base: rel, ig: ignore().add(text) });
  return true;
}
