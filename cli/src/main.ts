/**
 * The `harn` command line (spec/cli.md). Each command lives in its own
 * module under `commands/` and registers itself on the commander program
 * (program.ts); this file only handles what comes before it: closed pipes,
 * the `harn FILE.harn` shorthand, and the plain `harn run FILE` and
 * `harn check TARGET...` that start without the program.
 */
// First: puts back the NODE_EXTRA_CA_CERTS that cli/bin deferred, before
// any other module can read the environment.
import "./deferred-ca";
// Second: sizes libuv's thread pool before anything can start it.
import "./thread-pool";
import { plainCheck, plainRun } from "./plain-run";
import { runCommand } from "./run-script";

/** A closed pipe on stdout or stderr (`harn lint . | head`) must not kill
 * harn with an unhandled EPIPE trace: the output is lost either way, so
 * the error is dropped and the command finishes (`harn run` stops the
 * script itself and exits 141, see run-script.ts). */
function tolerateClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
}

export async function main(argv: string[]): Promise<number> {
  tolerateClosedPipes();
  // `harn FILE.harn` with exactly one argument is `harn run FILE.harn`
  // (spec/cli.md §0.1); detect it before commander sees the arguments.
  if (argv.length === 1 && argv[0]!.endsWith(".harn")) argv = ["run", argv[0]!];

  const plain = plainRun(argv);
  if (plain) return runCommand({ file: plain.file, inline: undefined, argv: plain.argv });
  const checkTargets = plainCheck(argv);
  if (checkTargets) return (await import("./commands/check")).runCheck(checkTargets);
  // Commander and every command's module load only here.
  const { runProgram } = await import("./program");
  return runProgram(argv);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    // An internal failure: report it plainly, never as a bare stack trace.
    const msg = e instanceof Error ? e.message : String(e);
    process.stderr.write(`error: internal error: ${msg}\n`);
    if (process.env.HARN_DEBUG) process.stderr.write(String(e instanceof Error ? e.stack : e) + "\n");
    process.exitCode = 1;
  },
);
