/**
 * `project_fingerprint(path)` (spec/workflows.md §5.2): a one-look summary
 * of a repository from its root, its immediate subdirectories and its
 * workspace members.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { listing, readJson, readText, readTomlFile, scanDir, type Evidence } from "./scan";
import { VENDOR_DIRS } from "./catalog";

export interface Fingerprint {
  primary_language: string;
  languages: string[];
  frameworks: string[];
  package_manager: string | null;
  package_managers: string[];
  test_runner: string | null;
  build_tool: string | null;
  vcs: string | null;
  ci: string[];
  has_tests: boolean;
  has_ci: boolean;
  lockfile_paths: string[];
}

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** Workspace member directories (relative) named by Cargo, npm/pnpm workspaces; `dir/*` patterns expanded. */
function workspaceMembers(root: string): string[] {
  const patterns: string[] = [];
  const cargo = readTomlFile(join(root, "Cargo.toml"));
  const ws = cargo?.workspace as { members?: unknown } | undefined;
  if (Array.isArray(ws?.members)) patterns.push(...ws.members.filter((m): m is string => typeof m === "string"));
  const pkg = readJson(join(root, "package.json"));
  const w = pkg?.workspaces;
  const list = Array.isArray(w) ? w : Array.isArray((w as { packages?: unknown } | undefined)?.packages) ? (w as { packages: unknown[] }).packages : [];
  patterns.push(...list.filter((m): m is string => typeof m === "string"));
  const pnpm = readText(join(root, "pnpm-workspace.yaml"));
  if (pnpm) for (const m of pnpm.matchAll(/^\s*-\s*['"]?([^'"\n#]+?)['"]?\s*$/gm)) patterns.push(m[1]!);
  const out: string[] = [];
  for (const p of patterns) {
    const clean = p.replace(/^\.\//, "").replace(/\/$/, "");
    if (clean.endsWith("/*") || clean.endsWith("/**")) {
      const base = clean.replace(/\/\*+$/, "");
      for (const d of listing(join(root, base)).dirs) out.push(`${base}/${d}`);
    } else if (!clean.includes("*") && isDir(join(root, clean))) out.push(clean);
  }
  return out;
}

function jsPackageManager(dir: string, files: ReadonlySet<string>): string {
  const pm = readJson(join(dir, "package.json"))?.packageManager;
  if (typeof pm === "string" && pm.includes("@")) return pm.split("@")[0]!;
  if (files.has("pnpm-lock.yaml")) return "pnpm";
  if (files.has("yarn.lock")) return "yarn";
  if (files.has("bun.lockb")) return "bun";
  return "npm";
}

function packageManagers(dir: string): string[] {
  const files = new Set(listing(dir).files);
  const out: string[] = [];
  if (files.has("Cargo.toml")) out.push("cargo");
  if (files.has("package.json")) out.push(jsPackageManager(dir, files));
  if (files.has("pyproject.toml")) {
    const tool = (readTomlFile(join(dir, "pyproject.toml"))?.tool ?? {}) as Record<string, unknown>;
    if (tool.poetry !== undefined || files.has("poetry.lock")) out.push("poetry");
    if (tool.uv !== undefined || files.has("uv.lock")) out.push("uv");
  } else if (files.has("uv.lock")) out.push("uv");
  if (files.has("Package.swift")) out.push("spm");
  if (files.has("go.mod")) out.push("go-mod");
  return out;
}

export function fingerprint(root: string): Fingerprint {
  const subdirs = listing(root).dirs.filter((d) => !VENDOR_DIRS.has(d) && !d.startsWith("."));
  const rels = [".", ...new Set([...subdirs, ...workspaceMembers(root)])];
  const scans: [string, Evidence][] = rels.map((r) => [r, scanDir(r === "." ? root : join(root, r), ["ambient", "config"])]);
  // Sub-directories count with their marker files only: loose sources in
  // `src/` belong to the root's project.
  const marked = scans.filter(([r, e]) => r === "." || e.anchors.length > 0);
  const languages = [...new Set(marked.flatMap(([, e]) => e.languages))];
  const frameworks = [...new Set(marked.flatMap(([, e]) => e.frameworks))].sort();
  const deps = new Set(marked.flatMap(([, e]) => e.dependencies));
  const managers = [...new Set(marked.flatMap(([r]) => packageManagers(r === "." ? root : join(root, r))))];
  const lockfilePaths = marked.flatMap(([r, e]) => e.lockfiles.map((l) => (r === "." ? l : `${r}/${l}`))).sort();
  const primary = languages.length === 1 ? languages[0]! : languages.length === 0 ? "unknown" : "mixed";
  const hasTests =
    ["tests", "Tests", "test", "__tests__"].some((t) => isDir(join(root, t))) || rels.some((r) => r !== "." && ["tests", "Tests"].some((t) => isDir(join(root, r, t))));
  const workflows = listing(join(root, ".github", "workflows")).files;
  const ci = workflows.length > 0 ? ["github-actions"] : [];
  let testRunner: string | null = null;
  if (existsSync(join(root, ".config", "nextest.toml"))) testRunner = "nextest";
  else if (deps.has("vitest")) testRunner = "vitest";
  else if (deps.has("pytest")) testRunner = "pytest";
  else if (languages.includes("swift") && hasTests) testRunner = "xctest";
  else if (languages.includes("go")) testRunner = "go-test";
  else if (languages.includes("rust") && primary === "mixed" && hasTests) testRunner = "cargo-test";
  let buildTool: string | null = null;
  if (managers.includes("cargo")) buildTool = "cargo";
  else if (deps.has("vite")) buildTool = "vite";
  else if (deps.has("next")) buildTool = "next";
  else if (managers.includes("poetry")) buildTool = "poetry";
  else if (managers.includes("uv")) buildTool = "uv";
  else if (managers.includes("spm")) buildTool = "spm";
  else if (managers.includes("go-mod")) buildTool = "go";
  return {
    primary_language: primary,
    languages,
    frameworks,
    package_manager: managers[0] ?? null,
    package_managers: managers,
    test_runner: testRunner,
    build_tool: buildTool,
    vcs: existsSync(join(root, ".git")) ? "git" : null,
    ci,
    has_tests: hasTests,
    has_ci: ci.length > 0,
    lockfile_paths: lockfilePaths,
  };
}
