/**
 * Every `harn` subcommand. A command module exports `register(program,
 * setExitCode)`; add one import and one line below per command.
 */
import type { Command } from "commander";
import * as bench from "./bench";
import * as chat from "./chat";
import * as check from "./check";
import * as fmt from "./fmt";
import * as init from "./init";
import * as lint from "./lint";
import * as lsp from "./lsp";
import * as repl from "./repl";
import * as run from "./run";
import * as serve from "./serve";
import * as test from "./test";
import * as version from "./version";
import * as viz from "./viz";
import * as watch from "./watch";

export type SetExitCode = (code: number) => void;

export function registerCommands(program: Command, setExitCode: SetExitCode): void {
  bench.register(program, setExitCode);
  chat.register(program, setExitCode);
  check.register(program, setExitCode);
  fmt.register(program, setExitCode);
  init.register(program, setExitCode);
  lint.register(program, setExitCode);
  lsp.register(program, setExitCode);
  repl.register(program, setExitCode);
  run.register(program, setExitCode);
  serve.register(program, setExitCode);
  test.register(program, setExitCode);
  version.register(program, setExitCode);
  viz.register(program, setExitCode);
  watch.register(program, setExitCode);
}
