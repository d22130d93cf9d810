/**
 * `harn watch [--deny ..|--allow ..] FILE` (spec/cli.md §7.3): run the
 * file, then watch its directory recursively and run it again whenever a
 * `.harn` file there is created, changed or deleted. Each run is a child
 * `harn run` (so a hung or crashed script never takes the watcher down);
 * a change during a run stops that run first. `[watch] running {path}...`
 * (dimmed) goes to stderr before each run. Ctrl+C stops the run and the
 * watcher and exits 0.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Command } from "commander";
import { colorsFor } from "../color";
import { onInterrupt, watchHarnChanges } from "../harn-changes";
import type { SetExitCode } from "./index";

interface WatchFlags {
  deny?: string;
  allow?: string;
}

export function register(program: Command, setExitCode: SetExitCode): void {
  program
    .command("watch")
    .description("run a .harn file, and again whenever a .harn file beside it changes")
    .argument("<file>", "script to run")
    .option("--deny <builtins>", "deny the listed builtins (comma-separated)")
    .option("--allow <builtins>", "deny every builtin except the listed ones and the core set")
    .action(async (file: string, flags: WatchFlags, cmd: Command) => {
      if (flags.deny !== undefined && flags.allow !== undefined) cmd.error("error: the argument '--deny <builtins>' cannot be used with '--allow <builtins>'", { exitCode: 2 });
      if (!existsSync(file)) {
        process.stderr.write(`Error reading ${file}: No such file or directory (os error 2)\n`);
        setExitCode(1);
        return;
      }
      setExitCode(await watchFile(file, flags));
    });
}

function watchFile(file: string, flags: WatchFlags): Promise<number> {
  const runArgs = [process.argv[1]!, "run"];
  if (flags.deny !== undefined) runArgs.push("--deny", flags.deny);
  if (flags.allow !== undefined) runArgs.push("--allow", flags.allow);
  runArgs.push(file);
  const { dim } = colorsFor(process.stderr);

  let child: ChildProcess | null = null;
  let again = false;
  let stopping = false;

  const start = () => {
    if (stopping) return;
    if (child !== null) {
      // stop the current run; it starts again once it has exited
      again = true;
      child.kill("SIGTERM");
      return;
    }
    process.stderr.write(dim(`[watch] running ${file}...`) + "\n");
    const c = spawn(process.execPath, runArgs, { stdio: "inherit" });
    child = c;
    c.on("exit", () => {
      child = null;
      if (again) {
        again = false;
        start();
      }
    });
  };

  return new Promise<number>((done) => {
    const unwatch = watchHarnChanges(resolve(dirname(file)), start);
    onInterrupt(() => {
      stopping = true;
      unwatch();
      if (child === null) return done(0);
      child.once("exit", () => done(0));
      child.kill("SIGTERM");
    });
    start();
  });
}
