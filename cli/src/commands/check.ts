/**
 * `harn check [--workspace] [TARGET...]` (spec/cli.md §4): for each file,
 * the static checks (structural errors, then the type checker of
 * @harn/checker), then the linter with `[check].disable_rules` only (default
 * complexity, no file-header rule; `[check].checked_handles` and
 * `--checked-handles` are accepted and change nothing: the path-sensitive
 * handle analysis of extensions.md §4 is the default).
 * Every diagnostic goes to stderr through the one renderer: type
 * diagnostics with carets and a help line (ours: cli.md §4 has no caret
 * line), carrying the linter's fix where it has one; lint findings with
 * the label `lint[rule]`. A file with no diagnostic at all gets
 * `{path}: ok` on stdout.
 *
 * Exit 1 when any file had an error-severity diagnostic, a warning under
 * `[check] strict = true`, or could not be read; a file with syntax errors
 * stops the command at once (§0.6: later files are not checked), after
 * the output of the files before it. Usage errors (no target, nothing
 * found, a bad `harn.toml`) exit 2.
 *
 * Then preflight (preflight.ts: imports resolve, literal template paths
 * exist), rendered with the label `preflight` at `--preflight` /
 * `[check].preflight_severity` (default error; `off` skips it).
 * `--strict-types`, `--invariants` and `--host-capabilities` (P2) are not
 * implemented.
 */
import { existsSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { type Command, Option } from "commander";
import { check, hasImports } from "@harn/checker";
import { ConfigError, DEFAULT_CONFIG, rulesOff, RunContext, unusedFunctionName, withTypeErrorFixes } from "@harn/lint";
import { checkStructure, parse, renderDiagnostic, syntaxDiagnostic, type Diagnostic, type DiagnosticStyle, type Program } from "@harn/parser";
import { colorsFor } from "../color";
import { CheckConfigResolver, PREFLIGHT_SEVERITIES, type PreflightSeverity } from "../check-config";
import { preflightDiagnostics } from "../preflight";
import { loadEngine } from "../engine";
import { readSourceText } from "../source-file";
import { collectHarnFilesSorted, reason, TargetError } from "../targets";
import type { SetExitCode } from "./index";
import { runtimeKnowledge } from "./lint-run";

/** Diagnostic colours for stderr (color.ts decides when). */
export function stderrStyle(): DiagnosticStyle {
  return colorsFor(process.stderr);
}

const NO_TARGETS = "`harn check` requires at least one target path, or `--workspace` with `[workspace].pipelines`";

export function register(program: Command, setExitCode: SetExitCode): void {
  program
    .command("check")
    .description("type-check and lint files without running them")
    .argument("[targets...]", ".harn files or directories")
    .option("--workspace", "also check every path in `[workspace].pipelines` of the nearest harn.toml")
    .addOption(new Option("--preflight <severity>", "severity of preflight findings (overrides [check].preflight_severity)").choices([...PREFLIGHT_SEVERITIES]))
    .option("--bundle-root <dir>", "resolve render/template paths from this directory")
    .option("--checked-handles", "accepted for compatibility: handles are followed along every path by default")
    .action(async (targets: string[], opts: { workspace?: boolean } & CheckFlags, cmd: Command) => {
      if (opts.workspace) {
        const found = workspaceTargets(targets);
        if (typeof found === "string") cmd.error(`error: ${found}`, { exitCode: 2 });
        targets = [...targets, ...found];
      } else if (targets.length === 0) cmd.error(`error: ${NO_TARGETS}`, { exitCode: 2 });
      setExitCode(await runCheck(targets, { preflight: opts.preflight, bundleRoot: opts.bundleRoot }));
    });
}

/** `--workspace`: the `[workspace].pipelines` of the nearest harn.toml
 * (searched from the first target, or the current directory), or the
 * usage error's text. */
function workspaceTargets(targets: string[]): string[] | string {
  const configs = new CheckConfigResolver();
  let start = ".";
  if (targets.length > 0) {
    const first = targets[0]!;
    start = existsSync(first) && statSync(first).isDirectory() ? first : dirname(first);
  }
  let cfg;
  try {
    cfg = configs.forDir(start);
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  if (cfg.path === null) return "--workspace could not find a harn.toml walking up from the target(s)";
  if (cfg.pipelines === null) return "--workspace requires `[workspace].pipelines` in the nearest harn.toml";
  return cfg.pipelines;
}

interface FileResult {
  file: string;
  source: string;
  /** Structural and type diagnostics, rendered without a lint label. */
  typeDiagnostics: Diagnostic[];
  lint: Diagnostic[];
  /** Rendered with the label `preflight`. */
  preflight: Diagnostic[];
  strict: boolean;
  /** The file could not be read: this line, in its place in the output. */
  readError?: string;
}

export interface CheckFlags {
  preflight?: PreflightSeverity;
  bundleRoot?: string;
}

export async function runCheck(targets: string[], flags: CheckFlags = {}): Promise<number> {
  let files: string[];
  try {
    files = collectHarnFilesSorted(targets);
  } catch (e) {
    if (e instanceof TargetError) {
      process.stderr.write(`${e.message}\n`);
      return 1;
    }
    throw e;
  }
  if (files.length === 0) {
    process.stderr.write("error: no .harn files found under the given target(s)\n");
    return 2;
  }
  const configs = new CheckConfigResolver();
  const known = await runtimeKnowledge();
  const stdModules = new Set(known.stdModules.map(([name]) => name));
  const knownBuiltins = new Set(known.builtins);
  const ctx = new RunContext({ requireFileHeader: false, builtins: known.builtins, stdModules: known.stdModules });
  const style = stderrStyle();
  const results: FileResult[] = [];
  let failed = false;

  // Findings are printed once every file is done: a name imported by a
  // later file clears an `unused-function` finding of an earlier one (as
  // in `harn lint`).
  const flush = () => {
    for (const r of results) {
      if (r.readError !== undefined) {
        process.stderr.write(r.readError);
        failed = true;
        continue;
      }
      r.lint = r.lint.filter((d) => {
        const name = unusedFunctionName(d);
        return name === null || !ctx.graph.externallyImported.has(name);
      });
      for (const d of [...r.typeDiagnostics, ...r.lint, ...r.preflight]) process.stderr.write(renderDiagnostic(d, r.file, r.source, style));
      if (r.typeDiagnostics.length === 0 && r.lint.length === 0 && r.preflight.length === 0) process.stdout.write(`${r.file}: ok\n`);
      const all = [...r.typeDiagnostics, ...r.lint, ...r.preflight];
      if (all.some((d) => d.severity === "error")) failed = true;
      if (r.strict && all.some((d) => d.severity === "warning")) failed = true;
    }
  };

  for (const file of files) {
    let config;
    try {
      config = configs.forFile(file);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      flush();
      process.stderr.write(`error: ${e.message}\n`);
      return 2;
    }
    let source: string;
    try {
      source = readSourceText(file);
    } catch (e) {
      results.push({ file, source: "", typeDiagnostics: [], lint: [], preflight: [], strict: false, readError: `Error reading ${file}: ${reason(e)}\n` });
      continue;
    }
    const { program, errors, tokens } = parse(source, { file });
    if (errors.length > 0) {
      flush();
      for (const err of errors) process.stderr.write(renderDiagnostic(syntaxDiagnostic(err), file, source, style));
      return 1;
    }
    const typeDiagnostics = checkStructure(program);
    if (typeDiagnostics.length === 0) typeDiagnostics.push(...withTypeErrorFixes(program, source, await staticCheck(program, file, knownBuiltins)));
    const severity = flags.preflight ?? config.preflightSeverity ?? "error";
    const preflightFindings = preflightDiagnostics(program, file, { stdModules, ...(flags.bundleRoot !== undefined ? { bundleRoot: flags.bundleRoot } : {}) }, severity);
    ctx.graph.addFile(file, program);
    const lint = ctx.lint(file, source, program, tokens, { ...DEFAULT_CONFIG, rules: rulesOff(config.disableRules) });
    results.push({ file, source, typeDiagnostics, lint, preflight: preflightFindings, strict: config.strict });
  }
  flush();
  return failed ? 1 : 0;
}

/** The checker needs the imported modules only for a file with imports;
 * only then is the engine loaded, so checking a plain script costs no more
 * start-up than parsing it (its builtin names come from the build's list). */
async function staticCheck(program: Program, file: string, builtins: ReadonlySet<string>): Promise<Diagnostic[]> {
  if (hasImports(program)) return (await loadEngine()).checkProgram(program, file);
  return check(program, { file, builtins, resolveImport: () => null });
}
