/**
 * Running a script for `harn run` (spec/cli.md §2): read it (or wrap the
 * `-e` code), run it on a fresh runtime, stream its output, render its
 * failure and map the outcome to an exit code.
 *
 * Kept free of commander: `harn run FILE` without options starts here
 * directly (main.ts), without building the command-line program.
 *
 * Script output is streamed to stdout as it is produced (cli.md §2.4 FIX)
 * through a small buffer that is flushed before exit. Uncaught errors are
 * rendered with a code frame on stderr; exit codes follow §2.6.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { renderDiagnostic, syntaxDiagnostic, type Diagnostic } from "@harn/parser";
import { osErrorText } from "@harn/stdlib/oserror";
import { colorsFor } from "./color";
import type { OutputSink, Runtime } from "@harn/vm";
import { loadEngine } from "./engine";
import type { RunHandle } from "./host";
import { mcpManifestFor, startDeclaredMcp } from "./mcp-startup";
import { FixtureRecorder } from "./mock-record";
import { StreamRenderer } from "./stream-render";
import { EXIT_STATUS, onEndingSignals, SIGNAL_NOTICE } from "./signal-exit";
import { readSourceText } from "./source-file";

/** Builtins `--allow` never denies (cli.md §2.1). */
const ALWAYS_ALLOWED = [
  "println",
  "print",
  "log",
  "type_of",
  "to_string",
  "to_int",
  "to_float",
  "len",
  "assert",
  "assert_eq",
  "assert_ne",
  "json_parse",
  "json_stringify",
  "runtime_context",
  "task_current",
  "runtime_context_values",
  "runtime_context_get",
  "runtime_context_set",
  "runtime_context_clear",
];

/** Batches small writes; flushed when large, on the next turn, and at exit. */
export class BufferedStream implements OutputSink {
  private parts: string[] = [];
  private size = 0;
  private scheduled = false;
  /** The reader went away: further output is dropped. */
  private closed = false;
  constructor(private readonly stream: NodeJS.WriteStream) {}
  close(): void {
    this.closed = true;
    this.parts = [];
    this.size = 0;
  }
  write(text: string): void {
    if (this.closed) return;
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= 1 << 16) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
  }
  flush(): void {
    if (this.parts.length === 0) return;
    const text = this.parts.join("");
    this.parts = [];
    this.size = 0;
    this.stream.write(text);
  }
  /** Resolves once everything written so far has been handed to the OS. */
  drained(): Promise<void> {
    this.flush();
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => this.stream.write("", () => resolve()));
  }
}

function splitList(v: string): string[] {
  return v
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export interface RunArgs {
  file: string | undefined;
  inline: string | undefined;
  /** Run this text as if it were `file`'s (`harn serve mcp`'s generated
   * entry of an export-mode file, which imports the file). */
  source?: string;
  argv: string[];
  deny?: string;
  allow?: string;
  backgroundGraceMs?: number;
  llmMock?: string;
  /** `--llm-mock-record`: write the run's real model responses here as
   * `--llm-mock` fixture lines. */
  llmMockRecord?: string;
  stream?: boolean;
  /**
   * `harn serve mcp`: the script's output goes to stderr, and once its
   * entry pipeline has ended this runs (before the runtime shuts down)
   * until `stop` aborts or it is done; its result is the exit status.
   */
  serve?: (rt: Runtime, stop: AbortSignal) => Promise<number>;
  /** `--hide-reasoning`: the stream shows no reasoning deltas. */
  hideReasoning?: boolean;
}

/** extensions.md §3.3: a second Ctrl-C within this time of the one that
 * interrupted a turn ends the program. */
export const DOUBLE_INTERRUPT_MS = 1500;
/** 128 + SIGPIPE: what a Unix tool reports when its reader goes away. */
export const BROKEN_PIPE_EXIT = 141;

/** extensions.md §2: background sub-agents get 5 minutes to finish at exit. */
export const DEFAULT_BACKGROUND_GRACE_MS = 5 * 60 * 1000;

export async function runCommand(args: RunArgs): Promise<number> {
  let path = args.file!;
  let tempDir: string | null = null;
  let source: string;
  if (args.inline !== undefined) {
    // node:os only here: a script run from a file never needs it.
    const { tmpdir } = await import("node:os");
    tempDir = mkdtempSync(join(tmpdir(), "harn-eval-"));
    path = join(tempDir, `harn-eval-${process.pid}.harn`);
    source = `pipeline main(task) {\n${args.inline}\n}`;
    writeFileSync(path, source);
  } else if (args.source !== undefined) {
    source = args.source;
  } else {
    try {
      source = readSourceText(path);
    } catch (e) {
      process.stderr.write(`Error reading ${path}: ${osErrorText(e)}\n`);
      return 1;
    }
  }
  let recorder: FixtureRecorder | null = null;
  try {
    if (args.llmMockRecord !== undefined) {
      try {
        recorder = new FixtureRecorder(args.llmMockRecord);
      } catch (e) {
        process.stderr.write(`${(e as Error).message}\n`);
        return 1;
      }
    }
    const code = await execute(path, source, args, recorder);
    // A fixture that lost a response would replay the wrong answers: the
    // run reports it and fails.
    const failure = recorder?.close() ?? null;
    if (failure === null) return code;
    process.stderr.write(`${failure}\n`);
    return code === 0 ? 1 : code;
  } finally {
    recorder?.close();
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  }
}

async function execute(path: string, source: string, args: RunArgs, recorder: FixtureRecorder | null): Promise<number> {
  const {
    CANCELLED_TEXT,
    cancelBackgroundTasks,
    createRuntime,
    exitCodeFor,
    HarnError,
    interruptTurns,
    loadMockFixtures,
    mockFixtureLine,
    readSourceFile,
    reapDeadRuns,
    recordLlmResponses,
    renderRuntimeError,
    runSource,
    setBackgroundGrace,
    setInteractive,
    setTurnObserver,
    startDeclaredMcpServers,
    useProjectLlmConfig,
  } = await loadEngine();
  // what an earlier harn could not clean up (it was SIGKILLed) goes first
  reapDeadRuns((line) => void process.stderr.write(line));
  const stderr: OutputSink = { write: (t) => void process.stderr.write(t) };
  const stdout = new BufferedStream(process.stdout);
  const renderer = args.stream
    ? new StreamRenderer(stdout, (t) => void process.stderr.write(t), { hideReasoning: args.hideReasoning === true, dim: colorsFor(process.stderr).dim })
    : null;
  // A served script's stdout carries only protocol messages (mcp.md §4.2):
  // what the script prints goes to stderr, in order with serve's notes.
  const scriptOut = args.serve ? stderr : renderer ? renderer.scriptOut() : stdout;
  const rt = createRuntime({ stdout: scriptOut, stderr, cwd: process.cwd(), env: process.env, argv: args.argv });
  if (args.deny !== undefined) for (const d of splitList(args.deny)) rt.denied.add(d);
  if (args.allow !== undefined) {
    const allowed = new Set([...splitList(args.allow), ...ALWAYS_ALLOWED]);
    for (const name of rt.builtins.keys()) if (!allowed.has(name)) rt.denied.add(name);
  }
  setBackgroundGrace(rt, args.backgroundGraceMs ?? DEFAULT_BACKGROUND_GRACE_MS);
  // Human-in-the-loop requests without a host or mock ask at the terminal.
  setInteractive(rt, process.stdin.isTTY === true);
  // `[llm]` of the script's project (`-e` code: the working directory's)
  useProjectLlmConfig(rt, args.inline !== undefined ? process.cwd() : dirname(resolve(path)));
  if (args.llmMock !== undefined) {
    let text: string;
    try {
      text = readFileSync(args.llmMock, "utf8");
    } catch (e) {
      process.stderr.write(`Error reading ${args.llmMock}: ${osErrorText(e)}\n`);
      return 1;
    }
    try {
      await loadMockFixtures(rt, text);
    } catch (e) {
      process.stderr.write(`error: --llm-mock ${args.llmMock}: ${(e as Error).message}\n`);
      return 1;
    }
  }
  if (recorder) recordLlmResponses(rt, (res) => recorder.write(mockFixtureLine(res)));
  if (renderer) setTurnObserver(rt, renderer);
  // The exit status once a signal ends the program; the program then runs
  // its pending defer/finally blocks and the runtime's cleanup first.
  let signalExit: number | null = null;
  const stop = new AbortController();
  const end = (code: number, notice = true) => {
    if (signalExit !== null) return;
    signalExit = code;
    if (notice) process.stderr.write(SIGNAL_NOTICE);
    stop.abort();
    handle?.cancel(HarnError.thrown(CANCELLED_TEXT));
    cancelBackgroundTasks(rt);
  };
  // A reader that goes away (`harn run job.harn | head -1`) ends the
  // program like a signal: its cleanup runs, nothing more is written, and
  // harn exits 141 quietly instead of dying on an unhandled EPIPE.
  const onStdoutError = (e: NodeJS.ErrnoException) => {
    stdout.close();
    if (e.code === "EPIPE") end(BROKEN_PIPE_EXIT, false);
  };
  process.stdout.on("error", onStdoutError);
  // The first Ctrl-C while an agent turn or model call runs interrupts
  // just that turn and the script goes on; a second one within 1.5 s, or
  // one while no turn runs, ends the program.
  let lastInterrupt = -Infinity;
  const onSigint = () => {
    const now = Date.now();
    if (signalExit === null && now - lastInterrupt > DOUBLE_INTERRUPT_MS && interruptTurns(rt)) {
      lastInterrupt = now;
      const note = "[harn] interrupted the current turn (Ctrl-C again within 1.5s to exit)";
      if (renderer) renderer.notice(note);
      else process.stderr.write(`${note}\n`);
      return;
    }
    end(EXIT_STATUS.SIGINT);
  };
  // Before the script starts: its first statements run synchronously inside
  // runSource and may already spawn processes; a signal in that window must
  // not end harn with the default action, leaving them behind. SIGTERM,
  // SIGHUP (a closed terminal, a dropped SSH session) and SIGQUIT end the
  // program like a second Ctrl-C, each with its own status.
  let handle: RunHandle | null = null;
  const offSignals = onEndingSignals((signal) => end(EXIT_STATUS[signal]), { SIGINT: onSigint });
  const manifest = args.inline === undefined ? mcpManifestFor(path) : null;
  if (manifest !== null) {
    await startDeclaredMcp(rt, manifest, startDeclaredMcpServers, (line) => void process.stderr.write(`${line}\n`));
    if (signalExit !== null) {
      await rt.shutdown();
      offSignals();
      return signalExit;
    }
  }
  let served: number | null = null;
  const serve = args.serve;
  const afterEntry = serve ? async () => void (served = await serve(rt, stop.signal)) : undefined;
  handle = runSource(rt, source, path, undefined, { afterEntry });
  // If Node's event loop runs dry while the script has not finished, every
  // task is blocked on something nothing can deliver any more (a receive on a
  // channel no task sends to, a task awaiting itself). Node would exit 0 in
  // the middle of the script; say so instead.
  const onStall = () => {
    process.stderr.write(
      `error: deadlock: the script is blocked, and no task, timer or I/O is left that could wake it (${path})\n`,
    );
    process.exitCode = 1;
  };
  process.once("beforeExit", onStall);
  try {
    const outcome = await handle.outcome;
    process.off("beforeExit", onStall);
    await stdout.drained();
    const colors = colorsFor(process.stderr);
    const sourceOf = (file: string) => (file === path ? source : readSourceFile(file));
    if (signalExit !== null) return signalExit;
    switch (outcome.kind) {
      case "ok":
        return served ?? exitCodeFor(outcome.value, stderr);
      case "exit":
        return outcome.code;
      case "syntax": {
        for (const e of outcome.errors) process.stderr.write(renderDiagnostic(syntaxDiagnostic(e), path, source, colors));
        return 1;
      }
      case "compile":
        if (outcome.checked) {
          // Checker errors (cli.md §2.2 step 2): no label, so no caret line.
          for (const d of outcome.checked) {
            process.stderr.write(renderDiagnostic(d, path, source, colors));
          }
          return 1;
        }
        if (outcome.span !== null) {
          // The reference prints only the first line; where the failure is
          // (an import of a missing module, say) is worth a code frame.
          const where = outcome.file ?? path;
          const diagnostic: Diagnostic = { code: "compile", severity: "error", message: `compile error: ${outcome.message}`, span: outcome.span };
          process.stderr.write(renderDiagnostic(diagnostic, where, sourceOf(where) ?? "", colors));
          return 1;
        }
        process.stderr.write(`error: compile error: ${outcome.message}\n`);
        return 1;
      case "error":
        process.stderr.write(renderRuntimeError(outcome.error, path, sourceOf, colors));
        return 1;
    }
  } finally {
    process.off("beforeExit", onStall);
    offSignals();
    process.stdout.off("error", onStdoutError);
  }
}
