/**
 * Recognising the most common command lines, `harn run FILE` (optionally
 * followed by `-- ARGS...`) and `harn check TARGET...`, before commander is
 * loaded: building the commander program (every command's options) and
 * loading commander cost a good part of a short `harn` process.
 *
 * Only command lines whose meaning is certain take this path: `run`, a
 * file that does not start with `-`, and nothing after it but `--` and the
 * script's arguments; `check` and one or more targets, none starting with
 * `-`. Anything else (options, `--help`, a stray second argument, a
 * missing file) goes through commander, so every help text, usage error
 * and exit code stays exactly what commander makes of it.
 */
export interface PlainRun {
  file: string;
  /** The script's `argv`: everything after the first `--`. */
  argv: string[];
}

export function plainRun(argv: readonly string[]): PlainRun | null {
  if (argv[0] !== "run" || argv.length < 2) return null;
  const file = argv[1]!;
  if (file.startsWith("-")) return null;
  if (argv.length === 2) return { file, argv: [] };
  if (argv[2] !== "--") return null;
  return { file, argv: argv.slice(3) };
}

/** The targets of `harn check TARGET...` without options, or null. */
export function plainCheck(argv: readonly string[]): string[] | null {
  if (argv[0] !== "check" || argv.length < 2) return null;
  const targets = argv.slice(1);
  return targets.some((t) => t.startsWith("-")) ? null : targets;
}
