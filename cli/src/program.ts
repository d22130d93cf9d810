/**
 * The commander program: every command, global version and help, and the
 * usage-error exit code (2). main.ts loads it for every command line except
 * a plain `harn run FILE`.
 */
import { Command, CommanderError } from "commander";
import { registerCommands } from "./commands/index";
import { VERSION } from "./version";

/** Parses `argv` (the arguments after `harn`) and runs the command; resolves to the exit code. */
export async function runProgram(argv: string[]): Promise<number> {
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
  // `harn help NAME` for a command that does not exist is the same usage
  // error as `harn NAME` (commander would print the general help, exit 0).
  const topic = argv[0] === "help" ? argv[1] : undefined;
  if (topic === "help") {
    program.outputHelp();
    return 0;
  }
  if (topic !== undefined && !topic.startsWith("-") && !program.commands.some((c) => c.name() === topic || c.aliases().includes(topic))) {
    process.stderr.write(`error: unknown command '${topic}'\n(run \`harn --help\` for usage)\n`);
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
