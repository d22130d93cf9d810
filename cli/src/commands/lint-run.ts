/** The work behind `harn lint` (registered in lint.ts, loaded on first use). */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { checkStructure, type Diagnostic } from "@harn/parser";
import {
  applyFixes,
  ConfigError,
  ConfigResolver,
  formatGithub,
  formatJson,
  formatSarif,
  lintFiles,
  MAIN_THREAD_DEPTH,
  renderReport,
  parseForLint,
  RunContext,
  unusedFunctionName,
  hashText,
  LintCache,
  type FileJob,
  type FileOutcome,
  type FileReport,
  type RuleDoc,
  type RunSettings,
} from "@harn/lint";
import { loadEngine } from "../engine";
import { collectHarnFilesSorted, reason, TargetError } from "../targets";
import { VERSION } from "../version";
import { stderrStyle } from "./check";

type Format = "human" | "json" | "sarif" | "github";

export interface LintFlags {
  fix?: boolean;
  format: Format;
  maxWarnings?: number;
  strict?: boolean;
  requireFileHeader?: boolean;
  /** `--cache`: reuse the findings of unchanged files. */
  cache?: boolean;
  cacheLocation?: string;
}

/** Where `--cache` keeps its file unless `--cache-location` says. */
const CACHE_FILE = ".harn-lint-cache";

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * A run with `--cache`: the files whose content, configuration and
 * imported modules are unchanged take their findings from the cache; the
 * others are linted (`lint`) and their entries stored.
 */
async function cachedRun(
  jobs: FileJob[],
  settings: RunSettings,
  known: Knowledge,
  location: string,
  lint: (todo: FileJob[]) => Promise<{ outcomes: FileOutcome[]; imported: Set<string> }>,
): Promise<{ outcomes: FileOutcome[]; imported: Set<string> }> {
  const key = hashText(JSON.stringify([VERSION, settings.requireFileHeader, known.builtins, known.stdModules.map(([n, src]) => [n, hashText(src)])]));
  const cache = LintCache.load(location, key);
  const configKeys = new Map<object, string>();
  const configKey = (job: FileJob): string => {
    let k = configKeys.get(job.config);
    if (k === undefined) configKeys.set(job.config, (k = hashText(JSON.stringify(job.config.rules))));
    return k;
  };
  const outcomes: FileOutcome[] = [];
  const imported = new Set<string>();
  const todo: FileJob[] = [];
  for (const job of jobs) {
    const hit = cache.lookup(resolve(job.file), configKey(job));
    if (!hit) {
      todo.push(job);
      continue;
    }
    // the text only where the findings show code frames (not for a file
    // that is not UTF-8: its one finding has none)
    let source = "";
    if (hit.diagnostics.length > 0) {
      try {
        source = STRICT_UTF8.decode(readFileSync(job.file));
      } catch {
        source = "";
      }
    }
    outcomes.push({ index: job.index, file: job.file, source, diagnostics: hit.diagnostics, fatal: hit.fatal, readError: null, deferred: false });
    for (const n of hit.contrib) imported.add(n);
  }
  if (todo.length > 0) {
    const fresh = await lint(todo);
    const byIndex = new Map(todo.map((j) => [j.index, j]));
    for (const n of fresh.imported) imported.add(n);
    for (const o of fresh.outcomes) {
      outcomes.push(o);
      for (const n of o.cached?.contrib ?? []) imported.add(n);
      const job = byIndex.get(o.index)!;
      if (o.cached) cache.store(resolve(o.file), { hash: o.cached.hash, config: configKey(job), deps: o.cached.deps, contrib: o.cached.contrib, diagnostics: o.diagnostics, fatal: o.fatal });
    }
  }
  if (!cache.save()) process.stderr.write(`warning: could not write the lint cache ${location}\n`);
  outcomes.sort((a, b) => a.index - b.index);
  return { outcomes, imported };
}


/**
 * A file the build writes beside the CLI bundle. This module may end up in
 * the entry bundle (`dist/`) or in a chunk of it (`dist/chunks/`), so both
 * places are tried.
 */
export function besideBundle(name: string): URL | null {
  for (const rel of [`./${name}`, `../${name}`]) {
    const url = new URL(rel, import.meta.url);
    if (url.protocol === "file:" && existsSync(url)) return url;
  }
  return null;
}

type Knowledge = { builtins: string[]; stdModules: [string, string][] };

/** The runtime's builtin names and bundled std modules, for
 * `undefined-function` and wildcard imports of `std/...`: listed at build
 * time (cli/build.mjs, `lint-knowledge.json`), so lint need not load the
 * evaluator; from a runtime created here when that file is missing. */
export async function runtimeKnowledge(): Promise<Knowledge> {
  const listed = besideBundle("lint-knowledge.json");
  if (listed) {
    try {
      const k = JSON.parse(readFileSync(listed, "utf8")) as Knowledge;
      if (Array.isArray(k.builtins) && Array.isArray(k.stdModules)) return k;
    } catch {
      // unreadable or half-written: ask a runtime instead
    }
  }
  const { createRuntime } = await loadEngine();
  const sink = { write() {} };
  const rt = createRuntime({ stdout: sink, stderr: sink, cwd: process.cwd(), env: {}, argv: null });
  return { builtins: [...rt.builtins.keys()], stdModules: [...rt.stdModules] };
}

/** Fix rounds per file before --fix gives up on a fixed point (a round
 * whose fixes enable others; none needs more than a few). */
const MAX_FIX_ROUNDS = 10;

/** `HARN_LINT_THREADS=N` pins the number of threads (1: no workers). */
function threadsFromEnv(): number | undefined {
  const v = process.env.HARN_LINT_THREADS;
  return v && /^\d+$/.test(v) && Number(v) > 0 ? Number(v) : undefined;
}

/** What a file outcome shows: its findings, or why it was not linted. */
function reportOf(o: FileOutcome): FileReport {
  if (o.readError) {
    const why = reason(Object.assign(new Error(o.readError.message), o.readError.code ? { code: o.readError.code } : {}));
    const d: Diagnostic = { code: "io", severity: "error", message: `cannot read ${o.file}: ${why}`, span: null };
    return { path: o.file, source: "", diagnostics: [d], fatal: true };
  }
  return { path: o.file, source: o.source, diagnostics: o.diagnostics, fatal: o.fatal };
}

export async function runLint(targets: string[], flags: LintFlags): Promise<number> {
  let files: string[];
  try {
    // Every directory is searched, node_modules and .git included, as in
    // the reference (lint.md §5.1: only `X.conformance-skip` siblings skip).
    files = collectHarnFilesSorted(targets);
  } catch (e) {
    if (!(e instanceof TargetError)) throw e;
    process.stderr.write(`${e.message}\n`);
    return 2;
  }
  if (files.length === 0) {
    process.stderr.write("error: no .harn files found under the given target(s)\n");
    return 2;
  }

  const configs = new ConfigResolver();
  const jobs: FileJob[] = [];
  try {
    files.forEach((file, index) => jobs.push({ index, file, config: configs.forFile(file) }));
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`error: ${e.message}\n`);
    return 2;
  }
  for (const w of configs.warnings()) process.stderr.write(`warning: ${w}\n`);

  const known = await runtimeKnowledge();
  const settings: RunSettings = {
    requireFileHeader: flags.requireFileHeader ?? false,
    builtins: known.builtins,
    stdModules: known.stdModules,
    ...(flags.cache && !flags.fix ? { cache: true } : {}),
  };

  // Each file is read, parsed and linted on its own and its tree dropped
  // at once (a large run never holds them all; large runs use worker
  // threads). A name imported by a later file can still clear an
  // `unused-function` finding of an earlier one, so findings are settled
  // once every file is done, before anything is printed. A file that
  // cannot be read, is not text or does not parse is reported as such,
  // and the run goes on.
  const reports: FileReport[] = [];
  /** Files whose findings are reported (in --fix mode: the fixed ones and
   * those that could not be fixed). */
  const shown = new Set<FileReport>();
  /** `{path}: applied {N} fix(es)` lines, printed just before the file's
   * remaining findings (the reference prints both per file, in order). */
  const appliedLines = new Map<FileReport, string>();
  let exit = 0;
  let imported: ReadonlySet<string>;

  if (!flags.fix) {
    const threads = threadsFromEnv();
    const lint = (todo: FileJob[]) =>
      lintFiles(todo, settings, {
        workerScript: besideBundle("lint-worker.mjs"),
        ...(threads !== undefined ? { threads } : {}),
      });
    const run = flags.cache ? await cachedRun(jobs, settings, known, flags.cacheLocation ?? CACHE_FILE, lint) : await lint(jobs);
    imported = run.imported;
    for (const o of run.outcomes) {
      const r = reportOf(o);
      reports.push(r);
      shown.add(r);
      if (o.readError) exit = 2;
    }
  } else {
    // Fixes must not change what a program does (issue 18): a file that
    // does not compile is left as it is (any edit would change its error,
    // and the checker's own fixes, lint.md §5.5 step 1, would make it run:
    // `harn check` shows them), and the fixes of a file are applied until
    // none is left, so one --fix reaches a fixed point.
    const { check } = await import("@harn/checker");
    const builtins = new Set(known.builtins);
    const ctx = new RunContext(settings);
    imported = ctx.graph.externallyImported;
    // Every target joins the module graph before any file is fixed, so a
    // fix knows all names other files import (unused-variable leaves those
    // alone). Unreadable or unparsable files are reported by the loop below.
    for (const job of jobs) ctx.load(job);
    for (const job of jobs) {
      // Loaded again: a file named twice (`a.harn ./a.harn`) is seen as the
      // first fix left it.
      const { outcome: o, parsed } = ctx.load(job);
      if (parsed === null) {
        const r = reportOf(o);
        reports.push(r);
        shown.add(r);
        exit = Math.max(exit, o.readError ? 2 : 1);
        continue;
      }
      // too deep for this thread's recursive walks (and the checker's):
      // linted on a thread with a deep stack, and left as it is
      const tooDeep = async () => {
        const [deep] = (await lintFiles([job], settings, { workerScript: besideBundle("lint-worker.mjs") })).outcomes;
        const r = reportOf(deep!);
        reports.push(r);
        shown.add(r);
        process.stderr.write(`${o.file}: nested too deeply (${parsed.depth} levels) for --fix; linted only\n`);
      };
      if (parsed.depth > MAIN_THREAD_DEPTH) {
        await tooDeep();
        continue;
      }
      let compiles = false;
      let text = o.source;
      let current = parsed;
      let applied = 0;
      let broken: string | null = null;
      let unchanged: Diagnostic[] = [];
      try {
        compiles =
          checkStructure(parsed.program).length === 0 &&
          check(parsed.program, { file: o.file, builtins, resolveImport: () => null }).length === 0;
        for (let round = 0; compiles && round < MAX_FIX_ROUNDS; round++) {
          const fixed = applyFixes(text, ctx.lint(o.file, text, current.program, current.tokens, job.config));
          if (fixed.applied === 0) break;
          // A fix that breaks the syntax is a linter bug, and the user's file
          // must not pay for it: such a text is never written.
          const again = parseForLint(fixed.text, o.file);
          if (again.errors.length > 0) {
            broken = again.errors[0]!.message;
            break;
          }
          text = fixed.text;
          current = again;
          applied += fixed.applied;
        }
        if (applied === 0) unchanged = ctx.lint(o.file, o.source, parsed.program, parsed.tokens, job.config);
      } catch (e) {
        // the depth bound is an estimate: a tree whose walks still overflow
        // this stack (frame sizes vary with the JIT's tier) goes the same way
        if (!(e instanceof RangeError)) throw e;
        await tooDeep();
        continue;
      }
      if (broken !== null) {
        const d: Diagnostic = {
          code: "io",
          severity: "error",
          message: `${o.file}: the fixes would make the file unparsable (${broken}), so it was left unchanged; please report this`,
          span: null,
        };
        const r = { path: o.file, source: o.source, diagnostics: [d], fatal: true };
        reports.push(r);
        shown.add(r);
        exit = 1;
        continue;
      }
      if (applied === 0) {
        // nothing to fix: the reference prints nothing for the file
        if (!compiles) process.stderr.write(`${o.file}: not fixed: it does not compile (\`harn check\` shows why)\n`);
        reports.push({ path: o.file, source: o.source, diagnostics: unchanged, fatal: false });
        continue;
      }
      try {
        writeFileSync(o.file, text);
      } catch (e) {
        const d: Diagnostic = { code: "io", severity: "error", message: `Failed to write ${o.file}: ${reason(e)}`, span: null };
        const r = { path: o.file, source: o.source, diagnostics: [d], fatal: true };
        reports.push(r);
        shown.add(r);
        exit = 1;
        continue;
      }
      const diagnostics = ctx.lint(o.file, text, current.program, current.tokens, job.config);
      const r = { path: o.file, source: text, diagnostics, fatal: false };
      reports.push(r);
      shown.add(r);
      appliedLines.set(r, `${o.file}: applied ${applied} fix(es)\n`);
    }
  }

  for (const r of reports) {
    if (r.fatal) continue;
    r.diagnostics = r.diagnostics.filter((d) => {
      const name = unusedFunctionName(d);
      return name === null || !imported.has(name);
    });
  }

  // `info` findings never fail a run and are not warnings (README).
  let warnings = 0;
  if (!flags.fix) {
    reports.forEach((r, i) => {
      const fileWarnings = r.diagnostics.filter((d) => d.severity === "warning").length;
      warnings += fileWarnings;
      if (r.diagnostics.some((d) => d.severity === "error")) exit = Math.max(exit, 1);
      if (fileWarnings > 0 && (flags.strict || jobs[i]!.config.strict)) exit = Math.max(exit, 1);
    });
  }

  switch (flags.format) {
    case "human": {
      const style = stderrStyle();
      // runs of stdout lines go out in one write (9,000 clean files are
      // 9,000 lines); the order of stdout and stderr is kept
      let out = "";
      const flush = () => {
        if (out !== "") process.stdout.write(out);
        out = "";
      };
      for (const r of reports) {
        if (!shown.has(r)) continue;
        const applied = appliedLines.get(r);
        if (applied !== undefined) out += applied;
        if (r.diagnostics.length > 0) {
          flush();
          process.stderr.write(renderReport(r, style));
        } else if (!flags.fix) out += `${r.path}: no issues found\n`;
      }
      flush();
      break;
    }
    case "json":
      // stdout holds one JSON document, so the fix lines go to stderr
      for (const line of appliedLines.values()) process.stderr.write(line);
      process.stdout.write(formatJson(reports));
      break;
    case "sarif":
      for (const line of appliedLines.values()) process.stderr.write(line);
      process.stdout.write(formatSarif(reports, { toolVersion: VERSION, ...ruleDocs() }));
      break;
    case "github":
      for (const line of appliedLines.values()) process.stderr.write(line);
      process.stdout.write(formatGithub(reports));
      break;
  }

  if (!flags.fix && exit === 0 && flags.maxWarnings !== undefined && warnings > flags.maxWarnings) {
    process.stderr.write(`error: ${warnings} warning(s) found; --max-warnings allows ${flags.maxWarnings}\n`);
    exit = 1;
  }
  return exit;
}

/** Where the rule pages are (`docs/rules/` of this installation, or
 * `HARN_DOCS_URL` when set, e.g. the repository's web view for code
 * scanning) and their text, for SARIF. */
function ruleDocs(): { docsBase: string; ruleDoc: (id: string) => RuleDoc | null } {
  const local = besideBundle("../../docs/rules/") ?? new URL("../../../docs/rules/", import.meta.url);
  const env = process.env.HARN_DOCS_URL;
  const docsBase = env ? (env.endsWith("/") ? env : `${env}/`) : local.href;
  const ruleDoc = (id: string): RuleDoc | null => {
    let markdown: string;
    try {
      markdown = readFileSync(new URL(`${id}.md`, local), "utf8");
    } catch {
      return null;
    }
    const summary = markdown.split(/\n\s*\n/).find((p) => p.trim() !== "" && !p.startsWith("#"))?.replace(/\s+/g, " ").trim() ?? id;
    return { summary, markdown };
  };
  return { docsBase, ruleDoc };
}
