/**
 * `walk_dir(path, options?)` (agents.md §1.4).
 *
 * Also the optional [extension] keys of §1.4, which leave reference
 * behaviour untouched when absent:
 * - `hidden: false` skips entries whose name starts with `.`;
 * - `include` / `exclude` (a glob or a list of globs, dialect of §1.5)
 *   match the path relative to the root: an excluded directory is neither
 *   listed nor descended into; with `include`, only matching entries are
 *   reported but every directory is still searched. The root itself is
 *   always reported.
 * - `max_results: N` stops after N entries (the root counts).
 */
import { resolve } from "node:path";
import { HarnError, HDict, type CallContext, type Value } from "@harn/vm";
import { compileGlob, GlobPatternError, type GlobMatcher } from "./glob_pattern";
import { boolOption, countOption, isLongRunning, optionsDict, textArg } from "./options";
import { cancelled, startStdlibOp } from "./stdlib_op";
import { crawl, type CrawlOptions, type Visitor } from "./tree";
import { type Json } from "../core/json";

export function walkDir(args: Value[], ctx: CallContext): Value | Promise<Value> {
  const path = textArg(args[0]);
  if (path === "") throw HarnError.thrown("walk_dir: root path is required");
  const opts = optionsDict(args[1]);
  const root = resolve(ctx.runtime.cwd, path);
  const include = globsOption(opts, "include");
  const exclude = globsOption(opts, "exclude");
  const maxResults = countOption(opts, "max_results") ?? Infinity;
  const prefix = root.endsWith("/") ? root.length : root.length + 1;
  const excluded = (p: string) => exclude !== null && exclude.some((m) => m(p.slice(prefix)));
  const reported = (p: string, depth: number) => depth === 0 || (!excluded(p) && (include === null || include.some((m) => m(p.slice(prefix)))));

  const crawlOptions = (signal: AbortSignal, inSlices: boolean): CrawlOptions => ({
    maxDepth: countOption(opts, "max_depth") ?? Infinity,
    followSymlinks: boolOption(opts, "follow_symlinks") ?? false,
    skipHidden: boolOption(opts, "hidden") === false,
    signal,
    inSlices,
    descendInto: exclude === null ? undefined : (p) => !excluded(p),
  });

  if (isLongRunning(opts)) {
    return startStdlibOp(ctx, "walk_dir", `walk_dir ${root}`, async (signal) => {
      const out: Json[] = [];
      const ok = await crawl(root, crawlOptions(signal, false), (p, depth, isDir, isFile) => {
        if (out.length >= maxResults) return false;
        // keys sorted, as the reference serialises its sorted maps
        if (reported(p, depth)) out.push({ depth, is_dir: isDir, is_file: isFile, path: p });
      });
      return ok ? out : null;
    });
  }
  const out: Value[] = [];
  const filtered = include !== null || exclude !== null || maxResults !== Infinity;
  // the plain walk (the common case, and the bench) skips the filter calls
  const visit: Visitor = filtered
    ? (p, depth, isDir, isFile) => {
        if (out.length >= maxResults) return false;
        if (reported(p, depth)) out.push(entry(p, depth, isDir, isFile));
      }
    : (p, depth, isDir, isFile) => {
        out.push(entry(p, depth, isDir, isFile));
      };
  return crawl(root, crawlOptions(ctx.signal, true), visit).then((ok) => {
    if (!ok) throw cancelled(ctx.signal);
    return out;
  });
}

/** The keys of every entry, in `keys()` order. */
const ENTRY_KEYS = HDict.recordKeys("depth", "is_dir", "is_file", "path");

/**
 * One result entry, in the compact record layout (HDict.record): a walk
 * keeps every entry alive, and a `Map` per entry costs GC copying on top of
 * its allocation. Measured on the bench tree (110,002 entries): the heap the
 * result keeps 33.7 -> 23.1 MB, scavenge time of one `harn run` of the walk
 * ~61 -> ~45 ms (--trace-gc, medians of 7). What is left per entry is the
 * HDict object, its values array and the path string. A shared, chunked
 * values store (one array per 1,000 entries, an offset per dict) kept ~4 MB
 * less alive, but its GC time was within noise of this layout (31-35 vs
 * 32-40 ms, plain Node copy of the walk), and one kept entry would pin its
 * whole chunk: not worth an offset field on every dict.
 */
function entry(path: string, depth: number, isDir: boolean, isFile: boolean): HDict {
  // Not an array literal: V8 pretenures a literal's allocation site once it
  // sees most of them survive, and each such decision deoptimises the crawl
  // loop (4-5 TurboFan compiles of crawlInSlices per walk). `new Array(4)`
  // has no such site: 1.95G -> 1.79G instructions for `harn run` of the
  // walk (valgrind, node --single-threaded, two runs each; the Map layout
  // before records: 1.89G).
  const values: Value[] = new Array(4);
  values[0] = depth;
  values[1] = isDir;
  values[2] = isFile;
  values[3] = path;
  return HDict.record(ENTRY_KEYS, values);
}

/** A glob or a list of globs ([extension]); other types count as absent. */
function globsOption(opts: HDict | null, key: string): GlobMatcher[] | null {
  const v = opts?.get(key);
  const patterns = typeof v === "string" ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : null;
  if (patterns === null) return null;
  try {
    return patterns.map(compileGlob);
  } catch (e) {
    if (e instanceof GlobPatternError) throw HarnError.thrown(`walk_dir: invalid ${key} pattern: ${e.message}`);
    throw e;
  }
}
