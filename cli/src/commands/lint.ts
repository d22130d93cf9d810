/**
 * `harn lint [options] <targets...>` (spec/cli.md §3, lint.md §5,
 * extensions.md §4 and §6).
 *
 * Files are read, parsed and linted one by one in sorted order; output is
 * written once all are done (a name imported by a later file can still
 * clear an \`unused-function\` finding of an earlier one). A file that
 * cannot be read stops the run with exit 2 (the linter could not run); one
 * that does not parse stops it with exit 1, its syntax errors rendered
 * (reference), after the findings of the files before it. Exit codes otherwise: 1 with an error-severity
 * finding, with a warning under `[check] strict`/`--strict`, or with more
 * warnings than `--max-warnings`; 2 for usage and configuration errors; 0
 * else. `--fix` exits 0 unless a file cannot be read, parsed or written.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { Command, InvalidArgumentError, Option } from "commander";
import type { Token } from "@harn/lexer";
import { parse, syntaxDiagnostic, type Program, type SyntaxDiagnostic } from "@harn/parser";
import {
  applyFixes,
  ConfigError,
  ConfigResolver,
  formatGithub,
  formatJson,
  formatSarif,
  lintProgram,
  ProjectGraph,
  renderReport,
  unusedFunctionName,
  type FileReport,
  type LintConfig,
  type LintDiagnostic,
} from "@harn/lint";
import { Runtime } from "@harn/vm";
import { installStdlib } from "@harn/stdlib";
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
function runtimeKnowledge(): { builtins: Set<string>; stdModules: Map<string, string> } {
  const sink = { write() {} };
  const rt = new Runtime({ stdout: sink, stderr: sink, cwd: process.cwd(), env: {} });
  installStdlib(rt);
  return { builtins: new Set(rt.builtins.keys()), stdModules: new Map(rt.stdModules) };
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
  const configOf = new Map<string, LintConfig>();
  try {
    for (const f of files) configOf.set(f, configs.forFile(f));
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`error: ${e.message}\n`);
    return 2;
  }

  const known = runtimeKnowledge();
  const graph = new ProjectGraph({ stdModules: known.stdModules });
  const lintFile = (file: string, source: string, program: Program, tokens: Token[]): LintDiagnostic[] => {
    const cfg = configOf.get(file)!;
    return lintProgram(program, {
      source,
      tokens,
      file,
      requireFileHeader: flags.requireFileHeader || cfg.requireFileHeader,
      ...(cfg.complexityThreshold !== null ? { complexityThreshold: cfg.complexityThreshold } : {}),
      externallyImported: graph.externallyImported,
      wildcardExports: graph.wildcardExports(file, program),
      builtins: known.builtins,
      disabled: cfg.disabled,
      checkedHandles: flags.checkedHandles || cfg.checkedHandles,
      severities: cfg.severities,
    });
  };
  const fatal = (file: string, source: string, errors: SyntaxDiagnostic[]): FileReport => ({
    path: file,
    source,
    diagnostics: [],
    fatal: errors.map((e) => {
      const d = syntaxDiagnostic(e, file);
      return { message: d.message, span: d.span, ...(d.label ? { label: d.label } : {}), ...(d.help ? { help: d.help } : {}) };
    }),
  });

  // Files are linted one by one and their trees dropped at once (a large
  // run never holds them all); a name another file imports is learnt when
  // that file is reached, so `unused-function` findings are settled at the
  // end, before anything is printed.
  const reports: FileReport[] = [];
  /** Files whose findings are reported (in --fix mode: the fixed ones). */
  const shown = new Set<FileReport>();
  let exit = 0;
  let readError: string | null = null;
  for (const file of files) {
    let source: string;
    try {
      source = readFileSync(file, "utf8");
    } catch (e) {
      readError = `Error reading ${file}: ${reason(e)}\n`;
      exit = 2;
      break;
    }
    const parsed = parse(source, { file });
    if (parsed.errors.length > 0) {
      const r = fatal(file, source, parsed.errors);
      reports.push(r);
      shown.add(r);
      exit = 1;
      break;
    }
    graph.addFile(file, parsed.program);
    const diagnostics = lintFile(file, source, parsed.program, parsed.tokens);
    if (!flags.fix) {
      const r = { path: file, source, diagnostics, fatal: [] };
      reports.push(r);
      shown.add(r);
      continue;
    }
    const fixed = applyFixes(source, diagnostics);
    if (fixed.applied === 0) {
      // nothing to fix: the reference prints nothing for the file
      reports.push({ path: file, source, diagnostics, fatal: [] });
      continue;
    }
    try {
      writeFileSync(file, fixed.text);
    } catch (e) {
      process.stderr.write(`Failed to write ${file}: ${reason(e)}\n`);
      exit = 1;
      break;
    }
    (flags.format === "human" ? process.stdout : process.stderr).write(`${file}: applied ${fixed.applied} fix(es)\n`);
    const again = parse(fixed.text, { file });
    if (again.errors.length > 0) {
      const r = fatal(file, fixed.text, again.errors);
      reports.push(r);
      shown.add(r);
      exit = 1;
      break;
    }
    const r = { path: file, source: fixed.text, diagnostics: lintFile(file, fixed.text, again.program, again.tokens), fatal: [] };
    reports.push(r);
    shown.add(r);
  }

  for (const r of reports) {
    r.diagnostics = r.diagnostics.filter((d) => {
      const name = unusedFunctionName(d);
      return name === null || !graph.externallyImported.has(name);
    });
  }

  let warnings = 0;
  if (!flags.fix) {
    for (const r of reports) {
      const fileWarnings = r.diagnostics.filter((d) => d.severity === "warning").length;
      warnings += fileWarnings;
      if (r.diagnostics.some((d) => d.severity === "error")) exit = Math.max(exit, 1);
      if (fileWarnings > 0 && (flags.strict || configOf.get(r.path)!.strict)) exit = Math.max(exit, 1);
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
