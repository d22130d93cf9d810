/**
 * `find_text(root, pattern, options?)` and `find_text(pattern, options)`
 * (agents.md §1.6, an [extension] that behaves like `glob`).
 *
 * Root first, as the long-running design documents it
 * (`find_text(root, pattern, {long_running: true})`); the pattern-first
 * order of an earlier spec silently searched a directory named after the
 * pattern and found nothing. Bad input is an error at the call site, in
 * both modes, never an empty result: a root that is not a string, a root
 * that does not exist, and the old order (the first argument is not a
 * directory while the second is) each say what to write.
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
 *   below the root are skipped; the root itself is always searched, and
 *   may be a file.
 * - In the dict form `base` is accepted as an alias of `path` (`path`
 *   wins when both are given): `glob` calls the directory `base`, and
 *   a script that wrote `find_text("TODO", {base: "src"})`
 *   silently searched the whole working directory.
 */
import { statSync } from "node:fs";
import { basename, resolve } from "node:path";
import { HarnError, HDict, type CallContext, type Runtime, type Value } from "@harn/vm";
import { compileRegex, findFirst, RegexError } from "../regex/compile";
import { compileGlob, GlobPatternError, type GlobMatcher } from "./glob_pattern";
import { typeName } from "./hostlib_errors";
import { boolOption, countOption, isLongRunning, optionsDict, stringOption, textArg } from "./options";
import type { LineMatch, MatcherSpec } from "./search_core";
import { FileSearch, type SearchOptions, type SearchOutcome } from "./search_pool";
import { cancelled, startStdlibOp } from "./stdlib_op";
import { crawl } from "./tree";
import { type Json } from "../core/json";

const DEFAULT_MAX_MATCHES = 1000;

/** Regex metacharacters of the Rust dialect: without them a pattern is a literal. */
const META = /[\\.+*?()|[\]{}^$]/;

export function findText(args: Value[], ctx: CallContext): Value | Promise<Value> {
  const { pattern, path, opts } = findTextArgs(args, ctx.runtime.cwd);
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
  if (kindOf(root) === null) throw HarnError.thrown(`find_text: no such directory: ${path}`);
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

/** What the first argument must be, said where the old order is likely. */
const ROOT_FIRST = "find_text: the first argument is the root directory, the second the pattern";

/**
 * The two call forms. A dict (or nothing) second: `(pattern, {path, ...})`;
 * otherwise `(root, pattern, options?)`, where a first argument that is no
 * directory while the second is one is the old pattern-first order.
 */
function findTextArgs(args: Value[], cwd: string): { pattern: string; path: string; opts: HDict | null } {
  const second = args[1];
  if (second === undefined || second === null || second instanceof HDict) {
    const opts = optionsDict(second);
    const given = opts?.get("path") ?? opts?.get("base") ?? null;
    if (given !== null && typeof given !== "string") throw HarnError.thrown(`find_text: path must be a string, got ${typeName(given)}`);
    const pattern = textArg(args[0]);
    if (pattern === "") throw HarnError.thrown("find_text: pattern is required");
    return { pattern, path: given || ".", opts };
  }
  const root = args[0];
  if (typeof root !== "string") {
    throw HarnError.thrown(`find_text: the root directory must be a string, got ${typeName(root ?? null)} (find_text(root, pattern, options?))`);
  }
  const pattern = textArg(second);
  if (pattern === "") throw HarnError.thrown("find_text: pattern is required");
  const path = root || ".";
  if (kindOf(resolve(cwd, path)) !== "dir" && kindOf(resolve(cwd, pattern)) === "dir") throw HarnError.thrown(ROOT_FIRST);
  return { pattern, path, opts: optionsDict(args[2]) };
}

/** "dir", "file" (anything else that exists), or null when nothing is there. */
function kindOf(path: string): "dir" | "file" | null {
  const st = statSync(path, { throwIfNoEntry: false });
  return st === undefined ? null : st.isDirectory() ? "dir" : "file";
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

