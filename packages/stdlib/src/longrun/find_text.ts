/**
 * `find_text(pattern, path?, options?)` and `find_text(pattern, options)`
 * (agents.md §1.6, an [extension] that behaves like `glob`).
 *
 * Choices the spec leaves open (tested):
 * - One match per matching line (at its first match), like grep; `column`
 *   counts code points, as Harn string indices do.
 * - "Files visited in sorted order" is the walk order: pre-order with
 *   siblings sorted by name, so `a/b.txt` comes before `a.txt`'s sibling
 *   directory's contents exactly as `walk_dir` lists them.
 * - `truncated` is true only when a match beyond `max_matches` exists.
 * - `context_before` / `context_after` keys appear only when requested.
 * - A line ends at `\n`; a `\r` before it is not part of `text`.
 * - With `include_hidden: false` (default) hidden files and directories
 *   below the root are skipped; the root itself is always searched.
 * - In the dict form `base` is accepted as an alias of `path` (`path`
 *   wins when both are given): `glob` calls the directory `base`, and
 *   a script that wrote `find_text("TODO", {base: "src"})`
 *   silently searched the whole working directory.
 */
import { basename, resolve } from "node:path";
import { HarnError, HDict, type CallContext, type Runtime, type Value } from "@harn/vm";
import { compileRegex, findFirst, RegexError } from "../regex/compile";
import { compileGlob, GlobPatternError, type GlobMatcher } from "./glob_pattern";
import type { Json } from "./json";
import { boolOption, countOption, isLongRunning, optionsDict, stringOption, textArg } from "./options";
import type { LineMatch, MatcherSpec } from "./search_core";
import { FileSearch, type SearchOptions, type SearchOutcome } from "./search_pool";
import { cancelled, startStdlibOp } from "./stdlib_op";
import { crawl } from "./tree";

const DEFAULT_MAX_MATCHES = 1000;

/** Regex metacharacters of the Rust dialect: without them a pattern is a literal. */
const META = /[\\.+*?()|[\]{}^$]/;

export function findText(args: Value[], ctx: CallContext): Value | Promise<Value> {
  const pattern = textArg(args[0]);
  if (pattern === "") throw HarnError.thrown("find_text: pattern is required");
  let path = ".";
  let opts: HDict | null;
  if (args[1] instanceof HDict) {
    opts = args[1];
    path = stringOption(opts, "path") ?? stringOption(opts, "base") ?? ".";
  } else {
    if (args.length > 1 && args[1] !== null) path = textArg(args[1]);
    opts = optionsDict(args[2]);
  }
  if (path === "") path = ".";

  const caseInsensitive = boolOption(opts, "case_insensitive") ?? false;
  const spec = matcherSpec(ctx.runtime, pattern, boolOption(opts, "fixed_strings") ?? false, caseInsensitive);
  const globText = stringOption(opts, "glob");
  let fileFilter: GlobMatcher | null = null;
  if (globText !== null && globText !== "") {
    try {
      fileFilter = compileGlob(globText);
    } catch (e) {
      if (e instanceof GlobPatternError) throw HarnError.thrown(`find_text: invalid glob: ${e.message}`);
      throw e;
    }
  }
  const maxMatches = countOption(opts, "max_matches");
  const root = resolve(ctx.runtime.cwd, path);
  const search: SearchParams = {
    root,
    spec,
    fileFilter,
    includeHidden: boolOption(opts, "include_hidden") ?? false,
    maxMatches: maxMatches !== null && maxMatches >= 1 ? maxMatches : DEFAULT_MAX_MATCHES,
    contextBefore: countOption(opts, "context_before") ?? 0,
    contextAfter: countOption(opts, "context_after") ?? 0,
  };

  if (isLongRunning(opts)) {
    return startStdlibOp(ctx, "find_text", `find_text ${pattern} in ${root}`, async (signal) => {
      const outcome = await runSearch(search, signal, false);
      return outcome && resultJson(outcome);
    });
  }
  return runSearch(search, ctx.signal, true).then((outcome) => {
    if (!outcome) throw cancelled(ctx.signal);
    return resultValue(outcome);
  });
}

/**
 * A literal when asked for, or when the pattern has no metacharacters;
 * otherwise a regex in the Rust dialect (translated like `regex_*` does),
 * compiled now so a bad one throws at the call site. A pattern that V8's
 * backtracking engine could take exponential time on (`(a+)+$`: the
 * reference's engine is linear) is searched with the regex module's
 * linear engine instead, on the main thread (regex/backtrack.ts).
 */
function matcherSpec(rt: Runtime, pattern: string, fixed: boolean, caseInsensitive: boolean): MatcherSpec {
  if (!caseInsensitive && (fixed || !META.test(pattern))) return { kind: "literal", text: pattern };
  const source = fixed ? pattern.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&") : pattern;
  try {
    const compiled = compileRegex(rt, source, caseInsensitive ? "i" : "");
    if (compiled.linear !== null) return { kind: "line", firstMatch: (line) => findFirst(compiled, line)?.index ?? -1 };
    return { kind: "regex", source: compiled.re.source, flags: compiled.re.flags };
  } catch (e) {
    if (e instanceof RegexError) throw HarnError.thrown(`find_text: invalid pattern: ${e.detail}`);
    throw e;
  }
}

export interface SearchParams {
  readonly root: string;
  readonly spec: MatcherSpec;
  readonly fileFilter: GlobMatcher | null;
  readonly includeHidden: boolean;
  readonly maxMatches: number;
  readonly contextBefore: number;
  readonly contextAfter: number;
}

/**
 * Crawls and searches at once: each file goes to the search as the crawl
 * emits it, and the crawl stops as soon as the search wants no more files
 * (the cap was exceeded, or the signal aborted). Exported for tests, which
 * lower the worker threshold through `tuning`.
 */
export async function runSearch(
  p: SearchParams,
  signal: AbortSignal,
  inSlices: boolean,
  tuning: Pick<SearchOptions, "workerThreshold" | "onWorker"> = {},
): Promise<SearchOutcome | null> {
  const prefix = p.root.endsWith("/") ? p.root.length : p.root.length + 1;
  const search = new FileSearch({
    spec: p.spec,
    contextBefore: p.contextBefore,
    contextAfter: p.contextAfter,
    maxMatches: p.maxMatches,
    signal,
    inSlices,
    ...tuning,
  });
  const crawlOptions = { maxDepth: Infinity, followSymlinks: false, skipHidden: !p.includeHidden, signal, inSlices };
  let ok = false;
  try {
    ok = await crawl(p.root, crawlOptions, (path, depth, _isDir, isFile) => {
      if (!isFile) return;
      // a file root is matched by its own name
      if (p.fileFilter && !p.fileFilter(depth === 0 ? basename(path) : path.slice(prefix))) return;
      return search.add(path);
    });
  } finally {
    if (!ok) search.cancel();
  }
  return search.end();
}

/** The keys of a match, in `keys()` order, with and without context lines. */
const MATCH_KEYS = HDict.recordKeys("column", "line", "path", "text");
const MATCH_KEYS_BEFORE = HDict.recordKeys("column", "context_before", "line", "path", "text");
const MATCH_KEYS_AFTER = HDict.recordKeys("column", "context_after", "line", "path", "text");
const MATCH_KEYS_BOTH = HDict.recordKeys("column", "context_after", "context_before", "line", "path", "text");

/** Matches are compact records (a search can return very many). */
function resultValue(o: SearchOutcome): HDict {
  const matches: Value[] = [];
  for (const f of o.files) {
    for (const m of f.matches) {
      const { line, column, text, before, after } = m;
      matches.push(
        before
          ? after
            ? HDict.record(MATCH_KEYS_BOTH, [column, after, before, line, f.file, text])
            : HDict.record(MATCH_KEYS_BEFORE, [column, before, line, f.file, text])
          : after
            ? HDict.record(MATCH_KEYS_AFTER, [column, after, line, f.file, text])
            : HDict.record(MATCH_KEYS, [column, line, f.file, text]),
      );
    }
  }
  return HDict.of({ matches, truncated: o.truncated });
}

/** Keys sorted, as the reference serialises its sorted maps. */
function resultJson(o: SearchOutcome): Json {
  const matches: Json[] = [];
  for (const f of o.files) {
    for (const m of f.matches) {
      const j: { [key: string]: Json } = { column: m.column };
      if (m.after) j.context_after = m.after;
      if (m.before) j.context_before = m.before;
      j.line = m.line;
      j.path = f.file;
      j.text = m.text;
      matches.push(j);
    }
  }
  return { matches, truncated: o.truncated };
}

