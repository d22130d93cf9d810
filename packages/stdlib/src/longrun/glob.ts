/**
 * `glob(pattern, base?, options?)` and `glob(pattern, {base, ...})`
 * (agents.md §1.5). The pattern is compiled before anything starts, in both
 * modes, so a bad pattern always throws at the call site ([TS decision]).
 */
import { lstat } from "node:fs/promises";
import { resolve } from "node:path";
import { display, HarnError, HDict, type CallContext, type Value } from "@harn/vm";
import { compileGlob, GlobPatternError, literalDirectoryPrefix, requiredSuffix, type GlobMatcher } from "./glob_pattern";
import { isLongRunning, optionsDict, stringOption, textArg } from "./options";
import { cancelled, startStdlibOp } from "./stdlib_op";
import { joinPath, listUnordered } from "./tree";

export function glob(args: Value[], ctx: CallContext): Value | Promise<Value> {
  const pattern = textArg(args[0]);
  if (pattern === "") throw HarnError.thrown("glob: pattern is required");
  let base = ".";
  let opts: HDict | null = null;
  if (args[1] instanceof HDict) {
    opts = args[1];
    base = stringOption(opts, "base") ?? ".";
  } else if (args.length > 1) {
    // positional form; nil means "." ([TS decision], the reference searches "nil")
    const b = args[1];
    base = b === null || b === undefined ? "." : typeof b === "string" ? b : display(b);
    opts = optionsDict(args[2]);
  }
  if (base === "") base = ".";

  let matcher: GlobMatcher;
  try {
    matcher = compileGlob(pattern);
  } catch (e) {
    if (e instanceof GlobPatternError) throw HarnError.thrown(`glob: ${e.message}`);
    throw e;
  }
  const root = resolve(ctx.runtime.cwd, base);
  const shape = { suffix: requiredSuffix(pattern), below: literalDirectoryPrefix(pattern) };
  const search = (signal: AbortSignal) => globUnder(root, matcher, signal, shape);

  if (isLongRunning(opts)) return startStdlibOp(ctx, "glob", `glob ${pattern} in ${root}`, search);
  return search(ctx.signal).then((paths) => {
    if (!paths) throw cancelled(ctx.signal);
    return paths;
  });
}

/** Full paths of the entries below `root` whose root-relative path matches,
 * sorted by code unit; null when aborted. The result is sorted anyway, so
 * the listing order does not matter: `listUnordered` lists on two cores.
 * Waiting callers (no `long_running`) use it too: its listings are
 * asynchronous, so timers, other tasks and Ctrl-C stay responsive. */
export async function globUnder(
  root: string,
  matcher: GlobMatcher,
  signal: AbortSignal,
  shape: {
    /** `requiredSuffix` of the pattern: entries whose name lacks it are
     * skipped without building their relative path. */
    suffix: string;
    /** `literalDirectoryPrefix` of the pattern: only that directory is
     * crawled (`src/**\/*.ts` never lists `node_modules`). */
    below: string;
  },
): Promise<string[] | null> {
  const prefix = root.endsWith("/") ? root.length : root.length + 1;
  const out: string[] = [];
  const start = await realDirectoryBelow(root, shape.below);
  if (start === null) return signal.aborted ? null : out;
  const ok = await listUnordered(start, signal, (path, name) => {
    if (name.endsWith(shape.suffix) && matcher(path.slice(prefix))) out.push(path);
  });
  return ok ? out.sort() : null;
}

/** `root` joined with `below` when each directory on the way is a real
 * one, else null: the walk follows no symlink, so nothing below a linked
 * (or missing) directory is ever visited. */
async function realDirectoryBelow(root: string, below: string): Promise<string | null> {
  let dir = root;
  for (const segment of below.split("/").slice(0, -1)) {
    dir = joinPath(dir, segment);
    const st = await lstat(dir).catch(() => null);
    if (st === null || !st.isDirectory()) return null;
  }
  return dir;
}
