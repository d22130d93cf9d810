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
 * else. `--fix` exits 0 unless a file cannot be read, parsed or written;
 * it prints each file's `applied N fix(es)` line just before that file's
 * remaining findings, and never writes a text its fixes left unparsable.
 */
import { Command, InvalidArgumentError, Option } from "commander";
import type { SetExitCode } from "./index";
import type { LintFlags } from "./lint-run";

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
    .option("--cache", "reuse the findings of files whose content, configuration and imports are unchanged")
    .option("--cache-location <path>", "the cache file (default .harn-lint-cache)")
    .option("--checked-handles", "accepted for compatibility: handles are followed along every path by default")
    .action(async (targets: string[], opts: LintFlags & { denyWarnings?: boolean }) => {
      // The linter loads on first use, so other commands start without it.
      const { runLint } = await import("./lint-run");
      setExitCode(await runLint(targets, { ...opts, strict: opts.strict || opts.denyWarnings }));
    });
}

