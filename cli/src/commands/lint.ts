/**
 * `harn lint [options] <targets...>` (spec/cli.md §3, lint.md §5,
 * extensions.md §4 and §6).
 *
 * Every file is read and parsed first, so the module graph knows every
 * name imported across the run; then files are linted in sorted order. A
 * file that cannot be read stops the run with exit 2 (the linter could not
 * run); one that does not parse stops it with exit 1, its syntax errors
 * rendered (reference). Exit codes otherwise: 1 with an error-severity
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
function runtimeKnowledge(): { builtins: string[]; stdModules: Map<string, string> } {
  const sink = { write() {} };
  const rt = new Runtime({ stdout: sink, stderr: sink, cwd: process.cwd(), env: {} });
  installStdlib(rt);
  return { builtins: [...rt.builtins.keys()], stdModules: new Map(rt.stdModules) };
}

interface Loaded {
  file: string;
  source: string;
  program: Program | null;
  tokens: Token[];
  errors: SyntaxDiagnostic[];
  readError: string | null;
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
  const loaded: Loaded[] = [];
  for (const file of files) {
    const l: Loaded = { file, source: "", program: null, tokens: [], errors: [], readError: null };
    loaded.push(l);
    try {
      l.source = readFileSync(file, "utf8");
    } catch (e) {
      l.readError = reason(e);
      break; // the run stops here
    }
    const r = parse(l.source, { file });
    if (r.errors.length > 0) {
      l.errors = r.errors;
      break;
    }
    l.program = r.program;
    l.tokens = r.tokens;
    graph.addFile(file, r.program);
  }

  const style = stderrStyle();
  const human = flags.format === "human";
  const reports: FileReport[] = [];
  let exit = 0;
  let warnings = 0;

  const lintFile = (l: Loaded, source: string, program: Program, tokens: Token[]): LintDiagnostic[] => {
    const cfg = configOf.get(l.file)!;
    return lintProgram(program, {
      source,
      tokens,
      file: l.file,
      requireFileHeader: flags.requireFileHeader || cfg.requireFileHeader,
      ...(cfg.complexityThreshold !== null ? { complexityThreshold: cfg.complexityThreshold } : {}),
      externallyImported: graph.externallyImported,
      wildcardExports: graph.wildcardExports(l.file, program),
      builtins: known.builtins,
      disabled: cfg.disabled,
      checkedHandles: flags.checkedHandles || cfg.checkedHandles,
    });
  };

  const emit = (r: FileReport): void => {
    reports.push(r);
    if (!human) return;
    if (r.fatal.length === 0 && r.diagnostics.length === 0) {
      if (!flags.fix) process.stdout.write(`${r.path}: no issues found\n`);
    } else {
      process.stderr.write(renderReport(r, style));
    }
  };

  for (const l of loaded) {
    if (l.readError !== null) {
      process.stderr.write(`Error reading ${l.file}: ${l.readError}\n`);
      exit = 2;
      break;
    }
    if (l.program === null) {
      emit({
        path: l.file,
        source: l.source,
        diagnostics: [],
        fatal: l.errors.map((e) => {
          const d = syntaxDiagnostic(e, l.file);
          return { message: d.message, span: d.span, ...(d.label ? { label: d.label } : {}), ...(d.help ? { help: d.help } : {}) };
        }),
      });
      exit = 1;
      break;
    }
    let diagnostics = lintFile(l, l.source, l.program, l.tokens);
    let source = l.source;
    if (flags.fix) {
      const fixed = applyFixes(l.source, diagnostics);
      if (fixed.applied === 0) {
        // nothing to fix: the reference prints nothing for the file
        if (!human) emit({ path: l.file, source, diagnostics, fatal: [] });
        continue;
      }
      try {
        writeFileSync(l.file, fixed.text);
      } catch (e) {
        process.stderr.write(`Failed to write ${l.file}: ${reason(e)}\n`);
        exit = 1;
        break;
      }
      (human ? process.stdout : process.stderr).write(`${l.file}: applied ${fixed.applied} fix(es)\n`);
      source = fixed.text;
      const again = parse(source, { file: l.file });
      if (again.errors.length > 0) {
        emit({
          path: l.file,
          source,
          diagnostics: [],
          fatal: again.errors.map((e) => ({ message: syntaxDiagnostic(e, l.file).message, span: e.span, label: e.label })),
        });
        exit = 1;
        break;
      }
      diagnostics = lintFile(l, source, again.program, again.tokens);
      emit({ path: l.file, source, diagnostics, fatal: [] });
      continue;
    }
    emit({ path: l.file, source, diagnostics, fatal: [] });
    const fileWarnings = diagnostics.filter((d) => d.severity === "warning").length;
    warnings += fileWarnings;
    if (diagnostics.some((d) => d.severity === "error")) exit = Math.max(exit, 1);
    if (fileWarnings > 0 && (flags.strict || configOf.get(l.file)!.strict)) exit = Math.max(exit, 1);
  }

  if (!flags.fix && exit === 0 && flags.maxWarnings !== undefined && warnings > flags.maxWarnings) {
    process.stderr.write(`error: ${warnings} warning(s) found; --max-warnings allows ${flags.maxWarnings}\n`);
    exit = 1;
  }

  switch (flags.format) {
    case "json":
      process.stdout.write(formatJson(reports));
      break;
    case "sarif":
      process.stdout.write(formatSarif(reports, { toolVersion: VERSION }));
      break;
    case "github":
      process.stdout.write(formatGithub(reports));
      break;
    case "human":
      break;
  }
  return exit;
}
