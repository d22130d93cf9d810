/**
 * `harn chat` (extensions.md §3.6): an interactive session on top of the
 * agent loop.
 *
 * - One conversation for the whole session: every prompt runs one agent
 *   loop over everything said so far, so the model remembers.
 * - Answers stream to stdout as they arrive; reasoning dimmed on stderr
 *   (`--hide-reasoning` leaves it out); tool calls and results are one
 *   line each on stderr (the `harn run --stream` renderer).
 * - `--tools FILE`: the tools a `.harn` file exports (its `tool`
 *   declarations and registries), offered through the provider's native
 *   tool channel and run by the same runtime.
 * - Ctrl-C during an answer stops it (the partial answer stays in the
 *   conversation, ending in ` [interrupted]`) and returns to the prompt; a
 *   second Ctrl-C within 1.5 s exits. `/exit` and end of input exit too.
 * - `/save FILE` writes the conversation as a transcript JSON that
 *   `--resume FILE` loads.
 *
 * [TS decisions] Quitting is a normal end: exit 0 for `/exit`, end of
 * input and the double Ctrl-C alike (SIGTERM: 124, as for `harn run`).
 * The prompt (`> `) goes to stdout on a terminal and to stderr otherwise,
 * so piped output holds only the answers. A failed exchange (provider
 * error) prints `error: …` and leaves the conversation as it was.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Interface } from "node:readline";
import type { Command } from "commander";
import { parse, renderDiagnostic, syntaxDiagnostic, type Node, type Program } from "@harn/parser";
import type { CallContext, OutputSink } from "@harn/vm";
import { loadChatEngine as loadEngine, type ChatEngine as Engine } from "../engine";
import { StreamRenderer } from "../stream-render";
import { DOUBLE_INTERRUPT_MS } from "../run-script";
import { EXIT_STATUS, onEndingSignals } from "../signal-exit";
import { colorsFor } from "../color";
import { osErrorText } from "@harn/stdlib/oserror";
import type { SetExitCode } from "./index";

interface ChatOptions {
  tools?: string;
  resume?: string;
  provider?: string;
  model?: string;
  system?: string;
  fallback: string[];
  hideReasoning?: boolean;
}

type Json = Record<string, unknown>;

export function register(program: Command, setExitCode: SetExitCode): void {
  program
    .command("chat")
    .description("talk with a model: one conversation, streamed answers, optional tools")
    .option("--tools <file.harn>", "offer the tools this .harn file declares (its `tool` declarations and tool registries)")
    .option("--resume <file.json>", "continue a conversation saved with /save")
    .option("--provider <name>", "LLM provider (default: resolved from the environment)")
    .option("--model <name>", "model name")
    .option("--system <text>", "system prompt")
    .option("--fallback <provider[:model]>", "provider to try when the first one fails (repeatable; also [llm] fallback in harn.toml)", collect, [])
    .option("--hide-reasoning", "do not show the model's reasoning (thinking), which is shown dimmed on stderr by default")
    .action(async (opts: ChatOptions) => {
      setExitCode(await chat(opts));
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, ...value.split(",").map((v) => v.trim()).filter((v) => v !== "")];
}

/** `P[:MODEL]` (the model may itself hold colons, as Ollama tags do). */
function fallbackTarget(spec: string): { provider: string; model?: string } {
  const i = spec.indexOf(":");
  return i < 0 ? { provider: spec } : { provider: spec.slice(0, i), model: spec.slice(i + 1) };
}

const HELP = `Commands:
  /save FILE   write the conversation to FILE (JSON; load it with harn chat --resume FILE)
  /exit        end the session (also: end of input, or Ctrl-C twice)
  /help        this list
Ctrl-C stops the current answer.
`;

const CHAT_BUILTIN = "__harn_chat_session";
const NO_TOOLS = "declares no tools (expected `tool` declarations or tool registries bound at the top level)";

async function chat(opts: ChatOptions): Promise<number> {
  let resumed: Json[] = [];
  const tty = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const engine = await loadEngine();
  engine.reapDeadRuns((line) => void process.stderr.write(line));
  // Loaded here, not at the top: only `harn chat` reads lines, and every
  // other command would pay for loading readline at start-up.
  const { createInterface } = await import("node:readline");
  if (opts.resume !== undefined) {
    const loaded = readConversation(engine, opts.resume);
    if (typeof loaded === "string") {
      process.stderr.write(`error: --resume ${opts.resume}: ${loaded}\n`);
      return 1;
    }
    resumed = loaded;
  }
  const driver = driverSource(opts.tools);
  if (typeof driver !== "string") return driver.code;

  const stdout: OutputSink = { write: (t) => void process.stdout.write(t) };
  const errOut = (t: string) => void process.stderr.write(t);
  const renderer = new StreamRenderer(stdout, errOut, { hideReasoning: opts.hideReasoning === true, dim: colorsFor(process.stderr).dim });
  const rt = engine.createRuntime({ stdout: renderer.scriptOut(), stderr: { write: errOut }, cwd: process.cwd(), env: process.env, argv: [] });
  engine.setTurnObserver(rt, renderer);
  engine.useProjectLlmConfig(rt, process.cwd());

  const rl = createInterface({ input: process.stdin, output: tty ? process.stdout : undefined, terminal: tty, historySize: 1000 });
  const session = new ChatSession(engine, rl, renderer, opts, resumed, tty);
  rt.defineBuiltin(CHAT_BUILTIN, async (args, ctx) => {
    const tools = engine.collectTools(Array.isArray(args[0]) ? args[0] : []);
    if (opts.tools !== undefined && tools.length === 0) {
      errOut(`error: --tools ${opts.tools}: ${NO_TOOLS}\n`);
      session.exitCode = 1;
      return null;
    }
    await session.run(ctx, tools);
    return null;
  });
  if (resumed.length > 0) errOut(`resumed ${resumed.length} message${resumed.length === 1 ? "" : "s"} from ${opts.resume}\n`);
  if (tty) errOut("harn chat: /help lists the commands; Ctrl-C stops an answer, twice exits.\n");

  // Installed before the session starts: a Ctrl-C that arrives before
  // Node listens for it would end the process with the default action.
  const onSigint = () => session.ctrlC(rt);
  const offSignals = onEndingSignals((signal) => session.quit(EXIT_STATUS[signal]), { SIGINT: onSigint });
  rl.on("SIGINT", onSigint);
  const file = join(process.cwd(), "<harn chat>");
  const handle = engine.runSource(rt, driver, file);
  session.onQuit = () => {
    handle.cancel(engine.HarnError.thrown(engine.CANCELLED_TEXT));
    engine.cancelBackgroundTasks(rt);
  };
  try {
    const outcome = await handle.outcome;
    if (session.exitCode !== null) return session.exitCode;
    switch (outcome.kind) {
      case "ok":
        return 0;
      case "exit":
        return outcome.code;
      case "syntax":
      case "compile":
        // the driver is generated; only the tools file can be at fault
        process.stderr.write(`error: --tools ${opts.tools}: ${outcome.kind === "compile" ? outcome.message : outcome.errors[0]!.message}\n`);
        return 1;
      case "error":
        process.stderr.write(engine.renderRuntimeError(outcome.error, file, (f) => engine.readSourceFile(f)));
        return 1;
    }
  } finally {
    offSignals();
    rl.close();
  }
}

/** A conversation saved by `/save` (or any transcript / loop result). */
function readConversation(engine: Engine, path: string): Json[] | string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    return osErrorText(e);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return `not valid JSON (${(e as Error).message})`;
  }
  const messages = engine.savedMessages(value);
  return messages ?? 'not a saved conversation (expected a transcript {"messages": [{"role": …, "content": …}, …]})';
}

/**
 * The program the session runs in: it imports the tools file (so its
 * declarations run once, in this runtime) and hands the exported values
 * that may hold tools to the session builtin.
 */
function driverSource(toolsFile: string | undefined): string | { code: number } {
  const call = (names: string[]) => `pipeline __harn_chat_main() {\n  ${CHAT_BUILTIN}([${names.join(", ")}])\n}\n`;
  if (toolsFile === undefined) return call([]);
  const path = resolve(toolsFile);
  let source: string;
  try {
    source = readFileSync(path, "utf8");
  } catch (e) {
    process.stderr.write(`error: --tools ${toolsFile}: ${osErrorText(e)}\n`);
    return { code: 1 };
  }
  const { program, errors } = parse(source, { file: toolsFile });
  if (errors.length > 0) {
    const style = colorsFor(process.stderr);
    for (const e of errors) process.stderr.write(renderDiagnostic(syntaxDiagnostic(e), toolsFile, source, style));
    return { code: 1 };
  }
  const names = exportedCandidates(program);
  if (names.length === 0) {
    process.stderr.write(`error: --tools ${toolsFile}: ${NO_TOOLS}\n`);
    return { code: 1 };
  }
  return `import ${JSON.stringify(path)}\n${call(names)}`;
}

/** Top-level names of a module that can hold tools: `tool` declarations
 * and `let`/`var` bindings, following the import rule (a module that marks
 * anything `pub` exports only those names). */
function exportedCandidates(program: Program): string[] {
  const items = program.items.map(unwrap);
  const anyPub = items.some((n) => (n as { isPub?: boolean }).isPub === true && "name" in n);
  const names: string[] = [];
  for (const n of items) {
    if (n.kind === "ToolDecl" && (!anyPub || n.isPub)) names.push(n.name);
    else if ((n.kind === "LetBinding" || n.kind === "VarBinding") && !anyPub && n.pattern.kind === "ident") names.push(n.pattern.name);
  }
  return [...new Set(names)];
}

function unwrap(n: Node): Node {
  return n.kind === "AttributedDecl" ? unwrap(n.inner) : n;
}

/** Lines typed by the user, one at a time; null at end of input. */
class LineQueue {
  private readonly lines: string[] = [];
  private waiter: ((line: string | null) => void) | null = null;
  private closed = false;

  push(line: string): void {
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w(line);
    } else this.lines.push(line);
  }

  close(): void {
    this.closed = true;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w(null);
    }
  }

  next(): Promise<string | null> {
    if (this.lines.length > 0) return Promise.resolve(this.lines.shift()!);
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => (this.waiter = resolve));
  }
}

class ChatSession {
  exitCode: number | null = null;
  /** Ends the program the session runs in (set by the command). */
  onQuit: () => void = () => {};
  private readonly lines = new LineQueue();
  private messages: Json[];
  private transcript: Json | null = null;
  private answering = false;
  private lastCtrlC = -Infinity;
  /** One fallback memory for the session: a dead primary is not retried
   * on every prompt. */
  private readonly fallbackMemory = {};

  constructor(
    private readonly engine: Engine,
    private readonly rl: Interface,
    private readonly renderer: StreamRenderer,
    private readonly opts: ChatOptions,
    resumed: Json[],
    private readonly tty: boolean,
  ) {
    this.messages = resumed;
    rl.on("line", (l) => {
      // Typing something ends a Ctrl-C sequence: the next one is a first.
      this.lastCtrlC = -Infinity;
      this.lines.push(l);
    });
    rl.on("close", () => this.lines.close());
  }

  async run(ctx: CallContext, tools: ReturnType<Engine["collectTools"]>): Promise<void> {
    if (this.tty && tools.length > 0) this.note(`tools: ${tools.map((t) => t.get("name") as string).join(", ")}`);
    for (;;) {
      this.prompt();
      const line = await this.lines.next();
      if (line === null || this.exitCode !== null) break;
      const text = line.trim();
      if (text === "") continue;
      if (text.startsWith("/")) {
        if (this.command(text)) break;
        continue;
      }
      await this.exchange(ctx, line, tools);
      if (this.exitCode !== null) break;
    }
    if (this.exitCode === null) this.exitCode = 0;
  }

  /** Ctrl-C: stop the answer; at the prompt, a hint; twice within 1.5 s,
   * quit. */
  ctrlC(rt: Parameters<Engine["interruptTurns"]>[0]): void {
    const now = Date.now();
    const twice = now - this.lastCtrlC <= DOUBLE_INTERRUPT_MS;
    this.lastCtrlC = now;
    if (twice) return this.quit(0);
    if (this.answering) {
      if (this.engine.interruptTurns(rt)) return;
      // between turns (nothing to interrupt): the next one ends the session
      this.note("(press Ctrl-C again to exit)");
      return;
    }
    if (this.tty) {
      // drop what was typed, and leave the prompt's line
      this.rl.write(null, { ctrl: true, name: "u" });
      process.stdout.write("\n");
    }
    this.note("(to exit, press Ctrl-C again or type /exit)");
    this.prompt();
  }

  quit(code: number): void {
    if (this.exitCode !== null) return;
    this.exitCode = code;
    this.lines.close();
    this.rl.close();
    if (this.answering) this.onQuit();
  }

  private prompt(): void {
    if (this.tty) {
      this.rl.setPrompt("> ");
      this.rl.prompt();
    } else process.stderr.write("> ");
  }

  private note(text: string): void {
    this.renderer.notice(text);
  }

  /** Runs a `/command`; true when the session ends. */
  private command(text: string): boolean {
    const [name, ...rest] = text.split(/\s+/);
    const arg = rest.join(" ");
    switch (name) {
      case "/exit":
      case "/quit":
        this.exitCode = 0;
        return true;
      case "/help":
        process.stderr.write(HELP);
        return false;
      case "/save":
        if (arg === "") this.note("usage: /save FILE");
        else this.save(arg);
        return false;
      default:
        this.note(`unknown command ${name} (try /help)`);
        return false;
    }
  }

  private async exchange(ctx: CallContext, prompt: string, tools: ReturnType<Engine["collectTools"]>): Promise<void> {
    this.answering = true;
    this.renderer.startAnswer();
    try {
      const ex = await this.engine.chatExchange(ctx, {
        messages: this.messages as never,
        prompt,
        system: this.opts.system ?? null,
        provider: this.opts.provider,
        model: this.opts.model,
        tools,
        fallback: this.opts.fallback.map(fallbackTarget),
        fallbackMemory: this.fallbackMemory,
      });
      this.messages = ex.messages;
      this.transcript = ex.transcript;
      // (a stopped model call has shown it already; a stopped tool not)
      if (ex.status === "interrupted") this.renderer.interrupted();
      else if (ex.status !== "done") this.note(`[the agent loop stopped: ${ex.status}]`);
    } catch (e) {
      if (this.exitCode !== null) return;
      const text = e instanceof this.engine.HarnError ? e.description() : e instanceof Error ? e.message : String(e);
      this.note(`error: ${text}`);
    } finally {
      this.answering = false;
    }
  }

  /** Write the conversation atomically (a temp file renamed into place). */
  private save(file: string): void {
    const path = resolve(file);
    const transcript = this.transcript ? { ...this.transcript, messages: this.messages } : { _type: "transcript", version: 2, messages: this.messages };
    const tmp = join(dirname(path), `.${process.pid}.harn-chat.tmp`);
    try {
      writeFileSync(tmp, `${JSON.stringify(transcript, null, 2)}\n`);
      renameSync(tmp, path);
      this.note(`saved ${this.messages.length} message${this.messages.length === 1 ? "" : "s"} to ${file}`);
    } catch (e) {
      rmSync(tmp, { force: true });
      this.note(`error: /save ${file}: ${(e as Error).message}`);
    }
  }
}
