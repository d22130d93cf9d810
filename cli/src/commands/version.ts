/**
 * `harn version` (spec/cli.md §0.1, P1): a small banner with `harn v<version>`
 * and the tagline, on stdout, exit 0. `harn --version` stays the plain
 * `harn <version>` line for scripts.
 */
import type { Command } from "commander";
import { colorsFor, type Colors } from "../color";
import { VERSION } from "../version";
import type { SetExitCode } from "./index";

export function banner(c: Colors): string {
  return `${c.bold(c.cyan(`harn v${VERSION}`))} — the agent harness language\n`;
}

export function register(program: Command, setExitCode: SetExitCode): void {
  program
    .command("version")
    .description("Show the version banner")
    .action(() => {
      process.stdout.write(banner(colorsFor(process.stdout)));
      setExitCode(0);
    });
}
