/**
 * `harn check FILE|DIR...`: parses every target and runs the structural
 * checks. Prints nothing and exits 0 when everything is fine; otherwise one
 * rendered diagnostic per error on stderr and exit 1. A file with syntax
 * errors stops the command (spec/cli.md §0.6: later files are not checked);
 * structural and static-checker errors (@harn/checker) are reported for
 * every file. Unreadable targets and bad
 * flags exit 2 with a one-line reason.
 *
 * The reference's `check` also type-checks, lints and runs preflight
 * validation (cli.md §4); those passes plug in here as they land.
 */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { check, hasImports, type CheckDiagnostic } from "@harn/checker";
import { checkStructure, parse, renderDiagnostic, syntaxDiagnostic, type DiagnosticStyle, type Program } from "@harn/parser";
import pc from "picocolors";
import { loadEngine } from "../engine";
import { collectHarnFilesSorted, reason, TargetError } from "../targets";
import type { SetExitCode } from "./index";

/** Colour only on a TTY with `NO_COLOR` unset; `FORCE_COLOR` forces it. */
export function stderrStyle(): DiagnosticStyle {
  const env = process.env;
  let enabled: boolean;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "") enabled = env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false";
  else enabled = (env.NO_COLOR === undefined || env.NO_COLOR === "") && process.stderr.isTTY === true;
  return pc.createColors(enabled);
}

export function register(program: Command, setExitCode: SetExitCode): void {
  program
    .command("check")
    .description("parse files and report syntax and structural errors without running them")
    .argument("<targets...>", ".harn files or directories")
    .action(async (targets: string[]) => {
      setExitCode(await runCheck(targets));
    });
}

export async function runCheck(targets: string[]): Promise<number> {
  let files: string[];
  try {
    files = collectHarnFilesSorted(targets);
  } catch (e) {
    if (e instanceof TargetError) {
      process.stderr.write(`${e.message}\n`);
      return 2;
    }
    throw e;
  }
  if (files.length === 0) {
    process.stderr.write("error: no .harn files found under the given target(s)\n");
    return 2;
  }
  const style = stderrStyle();
  let failed = false;
  for (const file of files) {
    let source: string;
    try {
      source = readFileSync(file, "utf8");
    } catch (e) {
      process.stderr.write(`Error reading ${file}: ${reason(e)}\n`);
      return 2;
    }
    const { program, errors } = parse(source, { file });
    if (errors.length > 0) {
      for (const err of errors) process.stderr.write(renderDiagnostic(syntaxDiagnostic(err, file), source, style));
      return 1;
    }
    const structural = checkStructure(program);
    for (const s of structural) {
      failed = true;
      process.stderr.write(renderDiagnostic({ severity: "error", message: s.message, path: file, span: s.span, label: s.label }, source, style));
    }
    if (structural.length > 0) continue;
    for (const d of await staticCheck(program, file)) {
      failed = true;
      // cli.md §2.2 step 2: severity error, no label (so no caret line).
      process.stderr.write(renderDiagnostic({ severity: "error", message: d.message, path: file, span: d.span, ...(d.help ? { help: d.help } : {}) }, source, style));
    }
  }
  return failed ? 1 : 0;
}

/** The checker needs the runtime's builtin names and the imported modules
 * only for a file with imports; only then is the engine loaded, so checking
 * a plain script costs no more start-up than parsing it. */
async function staticCheck(program: Program, file: string): Promise<CheckDiagnostic[]> {
  if (hasImports(program)) return (await loadEngine()).checkProgram(program, file);
  return check(program, { file, builtins: new Set(), resolveImport: () => null });
}
