/**
 * The `harn` command line (spec/cli.md). Each command lives in its own
 * module under `commands/` and registers itself on the commander program;
 * this file only handles what is global: version, help, the `harn FILE.harn`
 * shorthand and the usage-error exit code (2).
 */
import { Command, CommanderError } from "commander";
import { registerCommands } from "./commands/index";
import { VERSION } from "./version";

/** A closed pipe on stdout or stderr (`harn lint . | head`) must not kill
 * harn with an unhandled EPIPE trace: the output is lost either way, so
 * the error is dropped and the command finishes (`harn run` stops the
 * script itself and exits 141, see commands/run.ts). */
function tolerateClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
}

export async function main(argv: string[]): Promise<number> {
  tolerateClosedPipes();
  // `harn FILE.harn` with exactly one argument is `harn run FILE.harn`
  // (spec/cli.md §0.1); detect it before commander sees the arguments.
  if (argv.length === 1 && argv[0]!.endsWith(".harn")) argv = ["run", argv[0]!];

  let exitCode = 0;
  const program = new Command();
  program
    .name("harn")
    .description("The agent harness language")
    .version(`harn ${VERSION}`, "-V, --version", "print the version")
    .helpCommand("help [command]", "show help for a command")
    .showHelpAfterError("(run `harn --help` for usage)")
    .exitOverride()
    .configureOutput({
      writeOut: (s) => process.stdout.write(s),
      writeErr: (s) => process.stderr.write(s),
    });
  registerCommands(program, (code) => {
    exitCode = code;
  });

  if (argv.length === 0) {
    program.outputHelp({ error: true });
    return 2;
  }
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (e) {
    if (e instanceof CommanderError) {
      // help and version are not errors; every parse failure is a usage error
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version" || e.code === "commander.help") return 0;
      return 2;
    }
    throw e;
  }
  return exitCode;
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
