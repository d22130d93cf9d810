/**
 * `harn lint [options] <targets...>` (spec/cli.md §3, lint.md §5,
 * extensions.md §4 and §6).
 *
 * Files are read, parsed and linted one by one in sorted order (large runs
 * on several threads, see @harn/lint's worker-pool); output is written
 * once all are done (a name imported by a later file can still
 * clear an \`unused-function\` finding of an earlier one). A file that
 * cannot be read stops the run with exit 2 (the linter could not run); one
 * that does not parse stops it with exit 1, its syntax errors rendered
 * (reference), after the findings of the files before it. Exit codes otherwise: 1 with an error-severity
 * finding, with a warning under `[check] strict`/`--strict`, or with more
 * warnings than `--max-warnings`; 2 for usage and configuration errors; 0
 * else. `--fix` exits 0 unless a file cannot be read, parsed or written.
 */
import { writeFileSync } from "node:fs";
import { Command, InvalidArgumentError, Option } from "commander";
import { parse, syntaxDiagnostic, type SyntaxDiagnostic } from "@harn/parser";
import {
  applyFixes,
  ConfigError,
  ConfigResolver,
  formatGithub,
  formatJson,
  formatSarif,
  lintFiles,
  renderReport,
  RunContext,
  unusedFunctionName,
  type FileJob,
  type FileReport,
  type RunSettings,
} from "@harn/lint";
import { loadEngine } from "../engine";
import { collectHarnFilesSorted, reason, TargetError } from "../targets";
import { VERSION } from "../version";
import { stderrStyle } from "./check";
import type { SetExitCode } from "./index";

type Format = "human" | "json" | "sarif" | "github";

interface LintFlags {
  fix?: boolean;
  format: Format;
  maxWarnings?: number;
  strict?: boolean;
  requireFileHeader?: boolean;
  checkedHandles?: boolean;
}

const SKIP_DIRS: ReadonlySet<string> = new Set(["node_modules", ".git"]);

function nonNegativeInt(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("expected a non-negative integer");
  return Number(value);
}

export function register(program: Command, setExitCode: SetExitCode): void {
  program
    .command("lint")
    .description("lint .harn files (directories are searched recursively)")
    .argument("<targets...>", ".harn files or directories")
    .option("--fix", "apply safe autofixes in place, then report what is left")
    .addOption(
      new Option("--format <format>", "output format").choices(["human", "json", "sarif", "github"]).default("human"),
    )
    .option("--max-warnings <n>", "exit 1 when there are more than N warnings", nonNegativeInt)
    .option("--strict", "exit 1 on any warning (like `[check] strict = true`)")
    .option("--deny-warnings", "alias of --strict")
    .option("--require-file-header", "require a /** */ header block at the top of every file")
    .option("--checked-handles", "follow each long-running handle along every path (extensions.md §4)")
    .action(async (targets: string[], opts: LintFlags & { denyWarnings?: boolean }) => {
      setExitCode(await runLint(targets, { ...opts, strict: opts.strict || opts.denyWarnings }));
    });
}

/** The runtime's builtin names and bundled std modules, for
 * `undefined-function` and wildcard imports of `std/...`. */
async function runtimeKnowledge(): Promise<{ builtins: string[]; stdModules: [string, string][] }> {
  const { createRuntime } = await loadEngine();
  const sink = { write() {} };
  const rt = createRuntime({ stdout: sink, stderr: sink, cwd: process.cwd(), env: {} });
  return { builtins: [...rt.builtins.keys()], stdModules: [...rt.stdModules] };
}

/** `HARN_LINT_THREADS=N` pins the number of threads (1: no workers). */
function threadsFromEnv(): number | undefined {
  const v = process.env.HARN_LINT_THREADS;
  return v && /^\d+$/.test(v) && Number(v) > 0 ? Number(v) : undefined;
}

function fatalReport(file: string, source: string, errors: SyntaxDiagnostic[]): FileReport {
  return {
    path: file,
    source,
    diagnostics: [],
    fatal: errors.map((e) => {
      const d = syntaxDiagnostic(e, file);
      return { message: d.message, span: d.span, ...(d.label ? { label: d.label } : {}), ...(d.help ? { help: d.help } : {}) };
    }),
  };
}

function readReason(e: { code: string | null; message: string }): string {
  return reason(Object.assign(new Error(e.message), e.code ? { code: e.code } : {}));
}

export async function runLint(targets: string[], flags: LintFlags): Promise<number> {
  let files: string[];
  try {
    files = collectHarnFilesSorted(targets, { skipDirs: SKIP_DIRS });
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

  const known = await runtimeKnowledge();
  const settings: RunSettings = {
    requireFileHeader: flags.requireFileHeader ?? false,
    checkedHandles: flags.checkedHandles ?? false,
    builtins: known.builtins,
    stdModules: known.stdModules,
  };

  // Each file is read, parsed and linted on its own and its tree dropped
  // at once (a large run never holds them all; large runs use worker
  // threads). A name imported by a later file can still clear an
  // `unused-function` finding of an earlier one, so findings are settled
  // once every file is done, before anything is printed.
  const reports: FileReport[] = [];
  /** Files whose findings are reported (in --fix mode: the fixed ones). */
  const shown = new Set<FileReport>();
  let exit = 0;
  let readError: string | null = null;
  let imported: ReadonlySet<string>;

  if (!flags.fix) {
    const threads = threadsFromEnv();
    const run = await lintFiles(jobs, settings, {
      workerScript: new URL("./lint-worker.mjs", import.meta.url),
      ...(threads !== undefined ? { threads } : {}),
    });
    imported = run.imported;
    for (const o of run.outcomes) {
      if (o.readError) {
        readError = `Error reading ${o.file}: ${readReason(o.readError)}\n`;
        exit = 2;
        break;
      }
      const r = o.parseErrors.length > 0 ? fatalReport(o.file, o.source, o.parseErrors) : { path: o.file, source: o.source, diagnostics: o.diagnostics, fatal: [] };
      reports.push(r);
      shown.add(r);
      if (o.parseErrors.length > 0) {
        exit = 1;
        break;
      }
    }
  } else {
    const ctx = new RunContext(settings);
    imported = ctx.graph.externallyImported;
    for (const job of jobs) {
      const o = ctx.run(job);
      if (o.readError) {
        readError = `Error reading ${o.file}: ${readReason(o.readError)}\n`;
        exit = 2;
        break;
      }
      if (o.parseErrors.length > 0) {
        const r = fatalReport(o.file, o.source, o.parseErrors);
        reports.push(r);
        shown.add(r);
        exit = 1;
        break;
      }
      const fixed = applyFixes(o.source, o.diagnostics);
      if (fixed.applied === 0) {
        // nothing to fix: the reference prints nothing for the file
        reports.push({ path: o.file, source: o.source, diagnostics: o.diagnostics, fatal: [] });
        continue;
      }
      try {
        writeFileSync(o.file, fixed.text);
      } catch (e) {
        process.stderr.write(`Failed to write ${o.file}: ${reason(e)}\n`);
        exit = 1;
        break;
      }
      (flags.format === "human" ? process.stdout : process.stderr).write(`${o.file}: applied ${fixed.applied} fix(es)\n`);
      const again = parse(fixed.text, { file: o.file });
      if (again.errors.length > 0) {
        const r = fatalReport(o.file, fixed.text, again.errors);
        reports.push(r);
        shown.add(r);
        exit = 1;
        break;
      }
      const diagnostics = ctx.lint(o.file, fixed.text, again.program, again.tokens, job.config);
      const r = { path: o.file, source: fixed.text, diagnostics, fatal: [] };
      reports.push(r);
      shown.add(r);
    }
  }

  for (const r of reports) {
    r.diagnostics = r.diagnostics.filter((d) => {
      const name = unusedFunctionName(d);
      return name === null || !imported.has(name);
    });
  }

  let warnings = 0;
  if (!flags.fix) {
    for (const r of reports) {
      const fileWarnings = r.diagnostics.filter((d) => d.severity === "warning").length;
      warnings += fileWarnings;
      if (r.diagnostics.some((d) => d.severity === "error")) exit = Math.max(exit, 1);
      if (fileWarnings > 0 && (flags.strict || jobs.find((j) => j.file === r.path)!.config.strict)) exit = Math.max(exit, 1);
    }
  }

  switch (flags.format) {
    case "human": {
      const style = stderrStyle();
      for (const r of reports) {
        if (!shown.has(r)) continue;
        if (r.fatal.length > 0 || r.diagnostics.length > 0) process.stderr.write(renderReport(r, style));
        else if (!flags.fix) process.stdout.write(`${r.path}: no issues found\n`);
      }
      break;
    }
    case "json":
      process.stdout.write(formatJson(reports));
      break;
    case "sarif":
      process.stdout.write(formatSarif(reports, { toolVersion: VERSION }));
      break;
    case "github":
      process.stdout.write(formatGithub(reports));
      break;
  }
  if (readError !== null) process.stderr.write(readError);

  if (!flags.fix && exit === 0 && flags.maxWarnings !== undefined && warnings > flags.maxWarnings) {
    process.stderr.write(`error: ${warnings} warning(s) found; --max-warnings allows ${flags.maxWarnings}\n`);
    exit = 1;
  }
  return exit;
}
