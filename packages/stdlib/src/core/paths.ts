/**
 * Paths (spec/stdlib.md §14 "path_join", OS-path helpers, the pure
 * `path_*` helpers and the runtime location helpers; §2.6 roots).
 *
 * `resolvePath` is how every file builtin turns a user path into the one it
 * touches and reports: relative paths are joined onto the execution root
 * with no `..` normalisation, absolute paths are used as is.
 */
import { existsSync } from "node:fs";
import * as nodePath from "node:path";
import { HDict, type CallContext, type Runtime, type Value } from "@harn/vm";
import { strArg } from "./args";
import { nodeOs } from "./node-builtins";
import { builtinModule } from "../registry/define";
import { scriptFile } from "./script";

/** Rust `PathBuf::push` of one part onto an accumulated path. */
export function pushPath(base: string, part: string): string {
  if (part.startsWith("/")) return part;
  if (base === "") return part;
  return base.endsWith("/") ? base + part : base + "/" + part;
}

export function resolvePath(rt: Runtime, p: string): string {
  return pushPath(rt.cwd, p);
}

/** Components of an OS path, ignoring `.` and empty components (Rust
 * `Path::components` keeps a leading `.`, which never is a file name). */
function osComponents(p: string): string[] {
  return p.split("/").filter((c) => c !== "" && c !== ".");
}

/** Rust `Path::parent`, displayed; `""` when there is none. Like Rust it
 * is a slice of the input, not a rebuilt path: a leading `./` and inner
 * `.`/`//` survive (`./a/b` → `./a`, `a/./b/c` → `a/./b`), while trailing
 * separators and `.` components are trimmed. */
export function dirname(p: string): string {
  // the root `/` or a leading `.` component sits before the body
  const start = p.startsWith("/") || p === "." || p.startsWith("./") ? 1 : 0;
  let end = p.length;
  let popped = false;
  // Components::next_back: skip empty and `.` components, drop the last real one
  while (end > start && !popped) {
    const last = lastComponent(p, start, end);
    end = last.before;
    popped = last.name !== "" && last.name !== ".";
  }
  if (!popped) return "";
  // Components::as_path: trim trailing separators and `.` components
  while (end > start) {
    const last = lastComponent(p, start, end);
    if (last.name !== "" && last.name !== ".") break;
    end = last.before;
  }
  return p.slice(0, end);
}

/** The last `/`-separated piece of `p[start, end)` and where the text
 * before it (without the separator) ends. */
function lastComponent(p: string, start: number, end: number): { name: string; before: number } {
  const sep = p.lastIndexOf("/", end - 1);
  return sep >= start ? { name: p.slice(sep + 1, end), before: sep } : { name: p.slice(start, end), before: start };
}

/** Rust `Path::file_name`: the last component unless it is `..`. */
export function basename(p: string): string {
  const parts = osComponents(p);
  const last = parts[parts.length - 1];
  return last === undefined || last === ".." ? "" : last;
}

/** Rust `Path::extension` with the dot; leading-dot-only names have none. */
export function extname(p: string): string {
  const name = basename(p);
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return "";
  return name.slice(dot);
}

// ---------------------------------------------------------------------------
// Pure, OS-agnostic helpers: `\` is `/`, a drive letter `X:` is a prefix.

interface PurePath {
  drive: string;
  absolute: boolean;
  segments: string[];
}

function purePath(p: string): PurePath {
  let s = p.replace(/\\/g, "/");
  let drive = "";
  const m = /^[A-Za-z]:/.exec(s);
  if (m) {
    drive = m[0];
    s = s.slice(2);
  }
  return { drive, absolute: s.startsWith("/"), segments: s.split("/").filter((x) => x !== "") };
}

function pureFormat(drive: string, absolute: boolean, segments: string[]): string {
  return drive + (absolute ? "/" : "") + segments.join("/");
}

function pureBasename(p: string): string {
  const { segments } = purePath(p);
  return segments[segments.length - 1] ?? "";
}

function pureExtension(p: string): string {
  const b = pureBasename(p);
  const dot = b.lastIndexOf(".");
  return dot <= 0 ? "" : b.slice(dot);
}

function pureStem(p: string): string {
  const b = pureBasename(p);
  const ext = pureExtension(p);
  return ext === "" ? b : b.slice(0, b.length - ext.length);
}

function pureParent(p: string): string {
  const { drive, absolute, segments } = purePath(p);
  if (segments.length <= 1) return absolute ? drive + "/" : drive;
  return pureFormat(drive, absolute, segments.slice(0, -1));
}

export function pureNormalize(p: string): string {
  if (p === "") return "";
  const { drive, absolute, segments } = purePath(p);
  const out: string[] = [];
  for (const seg of segments) {
    if (seg === ".") continue;
    if (seg === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
      continue;
    }
    out.push(seg);
  }
  const s = pureFormat(drive, absolute, out);
  return s === "" ? "." : s;
}

function pureRelative(p: string, base: string): string | null {
  const a = purePath(pureNormalize(p));
  const b = purePath(pureNormalize(base));
  if (a.absolute !== b.absolute || a.drive.toLowerCase() !== b.drive.toLowerCase()) return null;
  const as = a.segments.filter((x) => x !== ".");
  const bs = b.segments.filter((x) => x !== ".");
  let i = 0;
  while (i < as.length && i < bs.length && as[i] === bs[i]) i++;
  const rel = [...bs.slice(i).map(() => ".."), ...as.slice(i)];
  return rel.length === 0 ? "." : rel.join("/");
}

function replaceBasename(p: string, name: string): string {
  const { drive, absolute, segments } = purePath(p);
  if (segments.length === 0) return pureFormat(drive, absolute, [name]);
  return pureFormat(drive, absolute, [...segments.slice(0, -1), name]);
}

/**
 * Workspace-boundary classification (spec/core-gaps.md §7.5
 * `path_workspace_info`): relative paths are workspace-relative unless they
 * climb out of the root; absolute paths under the root are host paths with
 * their workspace part; an absolute path that does not exist but whose
 * slash-stripped form lies in the workspace (a script that took the
 * workspace for `/`) is recovered as workspace-relative.
 */
export function workspaceInfo(input: string, rootArg: string): HDict {
  const result = (o: Record<string, Value>) =>
    HDict.of({ host_path: null, input, kind: "invalid", normalized: null, reason: null, recovered_root_drift: false, workspace_path: null, ...o });
  if (input.trim() === "") return result({ reason: "path is empty" });
  if (input.includes("\0")) return result({ reason: "path contains NUL bytes" });
  const path = input.replace(/\\/g, "/");
  const root = pureNormalize(nodePath.resolve(rootArg.replace(/\\/g, "/")));
  const normalized = pureNormalize(path);
  const escapes = (p: string) => p === ".." || p.startsWith("../");
  const join = (p: string) => (p === "." ? root : pushPath(root, p));
  if (!purePath(path).absolute) {
    if (escapes(normalized)) return result({ normalized, host_path: join(normalized), reason: "workspace-relative path escapes the workspace root" });
    return result({ kind: "workspace_relative", normalized, workspace_path: normalized, host_path: join(normalized) });
  }
  const rel = pureRelative(normalized, root);
  if (rel !== null && !escapes(rel)) return result({ kind: "host_absolute", normalized, workspace_path: rel, host_path: normalized });
  if (path.startsWith("/") && !existsSync(normalized)) {
    const drifted = pureNormalize(path.replace(/^\/+/, ""));
    if (drifted !== "" && drifted !== "." && !escapes(drifted) && (existsSync(join(drifted)) || existsSync(nodePath.dirname(join(drifted))))) {
      return result({ kind: "workspace_relative", normalized: drifted, workspace_path: drifted, host_path: join(drifted), recovered_root_drift: true });
    }
  }
  return result({ kind: "host_absolute", normalized, host_path: normalized });
}

// ---------------------------------------------------------------------------
// Runtime locations

/** Nearest ancestor (or itself) of `start` containing `harn.toml`. */
export function findProjectRoot(start: string): string | null {
  let dir = nodePath.resolve(start);
  for (;;) {
    if (existsSync(nodePath.join(dir, "harn.toml"))) return dir;
    const up = nodePath.dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/** The directory of the executing `.harn` file (the asset root), always
 * absolute (§14: "directory of the executing `.harn` file
 * (absolute)"): the CLI hands scripts over by the path the user typed, which
 * is relative to the process's working directory. */
export function sourceDir(ctx: CallContext): string {
  let file = ctx.sourceFile;
  // Code of a bundled std module (named `std/...`, no file on disk) runs for
  // the script that imported it.
  if (file && ctx.runtime.stdModules.has(file)) file = scriptFile(ctx.runtime) ?? undefined;
  return file ? nodePath.resolve(nodePath.dirname(file)) : process.cwd();
}

export function tempDir(rt: Runtime): string {
  const t = rt.env.TMPDIR;
  if (t !== undefined) return t;
  return process.platform === "win32" ? nodeOs().tmpdir() : "/tmp";
}

export const PATHS_BUILTINS = builtinModule("core/paths", (def) => {
  def("path_join", (args) => {
    let acc = "";
    for (let i = 0; i < args.length; i++) {
      const part = strArg(args, i);
      acc = i === 0 ? part : pushPath(acc, part);
    }
    return acc;
  });
  def("dirname", (args) => dirname(strArg(args, 0)));
  def("basename", (args) => basename(strArg(args, 0)));
  def("extname", (args) => extname(strArg(args, 0)));

  def("path_parts", (args) => {
    const p = strArg(args, 0);
    return HDict.of({
      dir: pureParent(p),
      file: pureBasename(p),
      stem: pureStem(p),
      ext: pureExtension(p),
      segments: purePath(p).segments,
    });
  });
  def("path_parent", (args) => pureParent(strArg(args, 0)));
  def("path_basename", (args) => pureBasename(strArg(args, 0)));
  def("path_extension", (args) => pureExtension(strArg(args, 0)));
  def("path_stem", (args) => pureStem(strArg(args, 0)));
  def("path_with_extension", (args) => {
    const p = strArg(args, 0);
    let ext = strArg(args, 1);
    if (ext !== "" && !ext.startsWith(".")) ext = "." + ext;
    return replaceBasename(p, pureStem(p) + ext);
  });
  def("path_with_stem", (args) => {
    const p = strArg(args, 0);
    return replaceBasename(p, strArg(args, 1) + pureExtension(p));
  });
  def("path_is_absolute", (args) => purePath(strArg(args, 0)).absolute);
  def("path_is_relative", (args) => !purePath(strArg(args, 0)).absolute);
  def("path_normalize", (args) => pureNormalize(strArg(args, 0)));
  def("path_relative_to", (args) => pureRelative(strArg(args, 0), strArg(args, 1)));
  def("path_segments", (args) => purePath(strArg(args, 0)).segments);
  def("path_to_posix", (args) => strArg(args, 0).replace(/\\/g, "/"));
  def("path_to_native", (args) => strArg(args, 0).replace(/\\/g, "/"));

  def("path_workspace_info", (args, ctx) =>
    workspaceInfo(strArg(args, 0), args.length > 1 && args[1] !== null ? strArg(args, 1) : ctx.runtime.cwd),
  );
  def("path_workspace_normalize", (args, ctx) =>
    workspaceInfo(strArg(args, 0), args.length > 1 && args[1] !== null ? strArg(args, 1) : ctx.runtime.cwd).get("workspace_path"),
  );

  def("temp_dir", (_args, ctx) => tempDir(ctx.runtime));
  def("cwd", (_args, ctx) => ctx.runtime.cwd);
  def("execution_root", (_args, ctx) => ctx.runtime.cwd);
  def("source_dir", (_args, ctx) => sourceDir(ctx));
  def("asset_root", (_args, ctx) => sourceDir(ctx));
  def("project_root", (_args, ctx) => findProjectRoot(ctx.runtime.cwd));
  def("home_dir", (_args, ctx) => ctx.runtime.env.HOME ?? ctx.runtime.env.USERPROFILE ?? "");
  def("runtime_paths", (_args, ctx) => {
    const env = ctx.runtime.env;
    const assets = sourceDir(ctx);
    const base = findProjectRoot(ctx.runtime.cwd) ?? assets;
    const state = env.HARN_STATE_DIR ?? nodePath.join(base, ".harn");
    return HDict.of({
      execution_root: ctx.runtime.cwd,
      asset_root: assets,
      state_root: state,
      run_root: env.HARN_RUN_DIR ?? nodePath.join(base, ".harn-runs"),
      worktree_root: env.HARN_WORKTREE_DIR ?? nodePath.join(state, "worktrees"),
    });
  });
});
