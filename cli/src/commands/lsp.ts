/**
 * `harn lsp`: the language server for editors, speaking LSP over stdin and
 * stdout until the client sends `exit` (or closes stdin). `--stdio` is
 * accepted because editors' clients pass it. The server and what it needs
 * load only here, so other commands start without them.
 */
import type { Command } from "commander";
import type { SetExitCode } from "./index";

export function register(program: Command, setExitCode: SetExitCode): void {
  program
    .command("lsp")
    .description("run the language server (LSP over stdio) for editors")
    .option("--stdio", "talk over stdin/stdout (the default and only transport)")
    .action(async () => {
      const { serveLsp } = await import("../lsp-host");
      setExitCode(await serveLsp());
    });
}
