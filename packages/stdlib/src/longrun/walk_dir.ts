/** `walk_dir(path, options?)` (agents.md §1.4). */
import { resolve } from "node:path";
import { HarnError, HDict, type CallContext, type Value } from "@harn/vm";
import type { Json } from "./json";
import { boolOption, countOption, isLongRunning, optionsDict, textArg } from "./options";
import { cancelled, startStdlibOp } from "./stdlib_op";
import { crawl, type CrawlOptions, type TreeEntry } from "./tree";

export function walkDir(args: Value[], ctx: CallContext): Value | Promise<Value> {
  const path = textArg(args[0]);
  if (path === "") throw HarnError.thrown("walk_dir: root path is required");
  const opts = optionsDict(args[1]);
  const root = resolve(ctx.runtime.cwd, path);
  const crawlOptions = (signal: AbortSignal, inSlices: boolean): CrawlOptions => ({
    maxDepth: countOption(opts, "max_depth") ?? Infinity,
    followSymlinks: boolOption(opts, "follow_symlinks") ?? false,
    skipHidden: false,
    signal,
    inSlices,
  });

  if (isLongRunning(opts)) {
    return startStdlibOp(ctx, "walk_dir", `walk_dir ${root}`, async (signal) => {
      const entries = await crawl(root, crawlOptions(signal, false));
      return entries && entries.map(entryJson);
    });
  }
  return crawl(root, crawlOptions(ctx.signal, true)).then((entries) => {
    if (!entries) throw cancelled(ctx.signal);
    return entries.map(entryValue);
  });
}

function entryValue(e: TreeEntry): HDict {
  const m = new Map<string, Value>();
  m.set("path", e.path);
  m.set("is_dir", e.isDir);
  m.set("is_file", e.isFile);
  m.set("depth", e.depth);
  return new HDict(m);
}

/** Keys sorted, as the reference serialises its sorted maps. */
function entryJson(e: TreeEntry): Json {
  return { depth: e.depth, is_dir: e.isDir, is_file: e.isFile, path: e.path };
}
