/**
 * `harn fmt [--check] [--line-width N] [--separator-width N] <TARGET>...`
 * (spec/cli.md §6). Files are collected as §0.4 says (not sorted or
 * de-duplicated) and formatted one by one with @harn/fmt; a file that
 * cannot be read or parsed is reported and skipped. `--check` writes
 * nothing and names the files that would change.
 *
 * Exit 1 if a file errored or, with `--check`, would change; 0 otherwise.
 * No `.harn` file at all: `No .harn files found`, exit 1. With `--check`
 * (for CI) an error — a file that cannot be read or parsed, a missing
 * target, no files — exits 2, so "needs formatting" (1) is told apart
 * from "could not check".
 */
import { realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, relative, sep } from "node:path";
import { Command } from "commander";
import { DEFAULT_FORMAT_OPTIONS, formatSource, FormatError, type FormatOptions } from "@harn/fmt";
import { ConfigError, findManifest, manifestTable, readManifest } from "@harn/lint";
import { positiveInt } from "../int-options";
import { readSourceText } from "../source-file";
import { collectHarnFiles, reason, TargetError } from "../targets";
import type { SetExitCode } from "./index";

/** Directories whose files a directory walk never rewrites: dependencies
 * and git's own (a file named explicitly is formatted wherever it is). */
const NEVER_ENTERED: ReadonlySet<string> = new Set(["node_modules", ".git"]);

interface FmtFlags {
  check?: boolean;
  lineWidth?: number;
  separatorWidth?: number;
}

export function register(program: Command, setExitCode: SetExitCode): void {
  program
    .command("fmt")
    .description("format .harn files in place; --check only reports the files that would change")
    .argument("<targets...>", ".harn files or directories")
    .option("--check", "write nothing; list the files that would be reformatted (exit 1 if any)")
    .option("--line-width <n>", `wrap lines wider than N (default ${DEFAULT_FORMAT_OPTIONS.lineWidth}; [fmt] line_width)`, positiveInt)
    .option("--separator-width <n>", `width of // ---- separator bars (default ${DEFAULT_FORMAT_OPTIONS.separatorWidth}; [fmt] separator_width)`, positiveInt)
    .action((targets: string[], flags: FmtFlags) => {
      setExitCode(runFmt(targets, flags));
    });
}

/** `[fmt]` of the nearest harn.toml from the first target; a broken
 * manifest is a warning, and the defaults apply. */
function configuredOptions(firstTarget: string): FormatOptions {
  return formatOptionsFor(firstTarget, (message) => process.stderr.write(`warning: ${message}\n`));
}

/** `[fmt]` of the nearest harn.toml from a file or directory (also for
 * `harn lsp`); a broken manifest is reported to `warn` (its first line),
 * and the defaults apply. */
export function formatOptionsFor(firstTarget: string, warn: (message: string) => void): FormatOptions {
  const options = { ...DEFAULT_FORMAT_OPTIONS };
  let dir: string;
  try {
    dir = statSync(firstTarget).isDirectory() ? firstTarget : dirname(firstTarget);
  } catch {
    dir = dirname(firstTarget);
  }
  const manifest = findManifest(dir);
  if (manifest === null) return options;
  try {
    const table = manifestTable(readManifest(manifest).fmt, manifest, "fmt");
    const width = (snake: string, kebab: string): number | undefined => {
      const v = table[snake] ?? table[kebab];
      if (v === undefined) return undefined;
      if ((typeof v === "number" || typeof v === "bigint") && Number.isInteger(Number(v)) && Number(v) > 0) return Number(v);
      throw new ConfigError(manifest, `${manifest}: [fmt].${snake} must be a positive integer`);
    };
    return {
      lineWidth: width("line_width", "line-width") ?? options.lineWidth,
      separatorWidth: width("separator_width", "separator-width") ?? options.separatorWidth,
    };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    warn(e.message.split("\n")[0]!);
    return options;
  }
}

/** Replace the file (through its symlinks) with a complete new copy, so a
 * crash or a full disk never leaves it half written; its mode is kept. */
function writeAtomically(file: string, text: string): void {
  const target = realpathSync(file);
  const temp = `${target}.${process.pid}.harn-fmt.tmp`;
  try {
    writeFileSync(temp, text, { mode: statSync(target).mode & 0o7777 });
    renameSync(temp, target);
  } catch (e) {
    rmSync(temp, { force: true });
    throw e;
  }
}

export function runFmt(targets: string[], flags: FmtFlags): number {
  /** A file could not be read, parsed or written, or a target not walked. */
  let failed = false;
  /** With --check: a file would be reformatted. */
  let unformatted = false;
  const errorExit = flags.check ? 2 : 1;
  const files: string[] = [];
  for (const target of targets) {
    try {
      const inside = (f: string) => relative(target, f).split(sep);
      files.push(...collectHarnFiles([target]).filter((f) => !inside(f).some((part) => NEVER_ENTERED.has(part))));
    } catch (e) {
      if (!(e instanceof TargetError)) throw e;
      process.stderr.write(`${e.message}\n`);
      failed = true;
    }
  }
  if (files.length === 0) {
    process.stderr.write("No .harn files found\n");
    return errorExit;
  }
  const configured = configuredOptions(targets[0]!);
  const options: FormatOptions = {
    lineWidth: flags.lineWidth ?? configured.lineWidth,
    separatorWidth: flags.separatorWidth ?? configured.separatorWidth,
  };
  for (const file of files) {
    let source: string;
    try {
      // Strict UTF-8: a lossy read would write U+FFFD over invalid bytes.
      source = readSourceText(file);
    } catch (e) {
      process.stderr.write(`Error reading ${file}: ${reason(e)}\n`);
      failed = true;
      continue;
    }
    let formatted: string;
    try {
      formatted = formatSource(source, options);
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      process.stderr.write(`${file}: ${e.message}\n`);
      failed = true;
      continue;
    }
    if (formatted === source) continue;
    if (flags.check) {
      process.stderr.write(`${file}: would be reformatted\n`);
      unformatted = true;
      continue;
    }
    try {
      writeAtomically(file, formatted);
    } catch (e) {
      process.stderr.write(`Error writing ${file}: ${reason(e)}\n`);
      failed = true;
      continue;
    }
    process.stdout.write(`formatted ${file}\n`);
  }
  return failed ? errorExit : unformatted ? 1 : 0;
}
