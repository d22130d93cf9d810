/**
 * `harn repl` (spec/cli.md §7.1): an interactive session. Each complete
 * entry is added to the session (repl-session.ts) and the whole program
 * runs again in a fresh runtime; only the output that is new since the
 * last run is shown. A failing entry prints `Error: {e}` on stderr and is
 * dropped. History lives in `~/.harn/repl_history` (1000 entries);
 * Tab completes keywords and builtin names. Ctrl+C or Ctrl+D ends the
 * session with `Goodbye!`; `exit(n)` ends it with exit code n.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface, type Interface } from "node:readline";
import { KEYWORDS } from "@harn/lexer";
import type { Command } from "commander";
import { loadEngine, type Engine } from "../engine";
import { isComplete, ReplSession } from "../repl-session";
import { VERSION } from "../version";
import type { SetExitCode } from "./index";
import { makeDirsSync } from "@harn/stdlib/make-dirs";

const HISTORY_SIZE = 1000;

export function register(program: Command, setExitCode: SetExitCode): void {
  program
    .command("repl")
    .description("an interactive session: type expressions or statements")
    .action(async () => {
      setExitCode(await runRepl());
    });
}

function historyPath(): string {
  return join(homedir(), ".harn", "repl_history");
}

function loadHistory(): string[] {
  try {
    // the file is oldest first; readline wants newest first
    return readFileSync(historyPath(), "utf8").split("\n").filter((l) => l !== "").slice(-HISTORY_SIZE).reverse();
  } catch {
    return [];
  }
}

function saveHistory(rl: Interface): void {
  const history = (rl as Interface & { history?: string[] }).history;
  if (!history || history.length === 0) return;
  try {
    makeDirsSync(dirname(historyPath()));
    writeFileSync(historyPath(), [...history].slice(0, HISTORY_SIZE).reverse().join("\n") + "\n");
  } catch {
    // history is a convenience: a read-only home must not break the session
  }
}

interface Printed {
  out: number;
  err: number;
}

/** Run the session's program with `entry`; null when it was kept, else the exit code `exit(n)` asked for or the error text. */
async function evaluate(engine: Engine, session: ReplSession, entry: string, printed: Printed): Promise<{ exit?: number; error?: string }> {
  const { source, commit } = session.programWith(entry);
  let out = "";
  let err = "";
  const rt = engine.createRuntime({
    stdout: { write: (t) => void (out += t) },
    stderr: { write: (t) => void (err += t) },
    cwd: process.cwd(),
    env: process.env,
    argv: [],
  });
  engine.useProjectLlmConfig(rt, process.cwd());
  const o = await engine.runSource(rt, source, join(process.cwd(), "<repl>.harn"), "repl", { callTargets: false }).outcome;
  const flush = () => {
    process.stdout.write(out.slice(printed.out));
    process.stderr.write(err.slice(printed.err));
    printed.out = out.length;
    printed.err = err.length;
  };
  switch (o.kind) {
    case "ok":
      commit();
      flush();
      return {};
    case "exit":
      flush();
      return { exit: o.code };
    case "syntax":
      return { error: o.errors[0]!.message };
    case "compile":
      return { error: o.message };
    case "error":
      return { error: o.error.description() };
  }
}

export async function runRepl(): Promise<number> {
  const engine = await loadEngine();
  const terminal = process.stdin.isTTY === true;
  const names = [...KEYWORDS, ...builtinNames(engine)].sort();
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal,
    history: terminal ? loadHistory() : [],
    historySize: HISTORY_SIZE,
    completer: (line: string) => {
      const word = /[A-Za-z_][A-Za-z0-9_]*$/.exec(line)?.[0] ?? "";
      const hits = word === "" ? [] : names.filter((n) => n.startsWith(word));
      return [hits, word];
    },
  });
  process.stdout.write(`Harn REPL v${VERSION}\nType expressions or statements. Ctrl+C or Ctrl+D to exit.\n`);
  const session = new ReplSession();
  const printed: Printed = { out: 0, err: 0 };
  let pending = "";
  const prompt = () => {
    if (!terminal) return;
    rl.setPrompt(pending === "" ? "harn> " : "...   ");
    rl.prompt();
  };

  return new Promise<number>((done) => {
    let code = 0;
    let finished = false;
    let busy = Promise.resolve();
    const finish = (exit: number) => {
      code = exit;
      finished = true;
      rl.close();
    };
    rl.on("SIGINT", () => finish(0));
    rl.on("close", () => {
      void busy.then(() => {
        if (terminal) saveHistory(rl);
        process.stdout.write("Goodbye!\n");
        done(code);
      });
    });
    rl.on("line", (line) => {
      // entries run one at a time, in order, even when input arrives faster
      busy = busy.then(async () => {
        if (finished) return; // lines read before `exit(n)` took effect
        pending = pending === "" ? line : `${pending}\n${line}`;
        if (!isComplete(pending)) return prompt();
        const entry = pending;
        pending = "";
        if (entry.trim() !== "") {
          const r = await evaluate(engine, session, entry, printed);
          if (r.error !== undefined) process.stderr.write(`Error: ${r.error}\n`);
          if (r.exit !== undefined) return finish(r.exit);
        }
        prompt();
      });
    });
    prompt();
  });
}

/** Builtin names for completion, from a throwaway runtime. */
function builtinNames(engine: Engine): string[] {
  const sink = { write() {} };
  const rt = engine.createRuntime({ stdout: sink, stderr: sink, cwd: process.cwd(), env: {}, argv: null });
  return [...rt.builtins.keys()];
}
