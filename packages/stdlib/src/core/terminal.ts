/**
 * Terminal-facing output helpers (spec/stdlib.md §3): progress lines, ANSI
 * colours with their mode, TTY checks and overrides, stdin reading and its
 * mock, and stderr capture. All state is per runtime.
 */
import { fstatSync, readSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { display, HarnError, HDict, raceSignal, type CallContext, type Int, type Runtime, RuntimeSlot, type Value } from "@harn/vm";
import { arg, strArg } from "./args";
import { andThen } from "./maybe";
import { roundHalfAway } from "./math";
import { builtinModule } from "../registry/define";

type Stream = "stdin" | "stdout" | "stderr";

interface TerminalState {
  colorMode: "auto" | "always" | "never";
  ttyOverride: Partial<Record<Stream, boolean>>;
  /** Remaining mocked stdin, or null when the real stdin is used. */
  stdinMock: string | null;
  /** Bytes read from the real stdin but not yet consumed. */
  stdinBuffer: string;
  stdinEof: boolean;
  /** Decodes stdin chunks (a character may span two). */
  stdinDecoder: StringDecoder;
  /** The read from a pipe or terminal in progress, which every waiting
   * reader shares. */
  stdinFill: Promise<boolean> | null;
  /** Buffered eprint output while capturing, else null. */
  stderrCapture: string[] | null;
}

export const TERMINAL = new RuntimeSlot<TerminalState>("stdlib.terminal", () => ({
  colorMode: "auto",
  ttyOverride: {},
  stdinMock: null,
  stdinBuffer: "",
  stdinEof: false,
  stdinDecoder: new StringDecoder("utf8"),
  stdinFill: null,
  stderrCapture: null,
}));

function isTty(rt: Runtime, stream: Stream): boolean {
  const o = rt.slot(TERMINAL).ttyOverride[stream];
  if (o !== undefined) return o;
  const sink = stream === "stdout" ? rt.stdout : stream === "stderr" ? rt.stderr : null;
  if (sink?.isTTY !== undefined) return sink.isTTY;
  const s = stream === "stdin" ? process.stdin : stream === "stdout" ? process.stdout : process.stderr;
  return Boolean((s as { isTTY?: boolean }).isTTY);
}

function colorEnabled(rt: Runtime): boolean {
  const mode = rt.slot(TERMINAL).colorMode;
  if (mode !== "auto") return mode === "always";
  if (rt.env.FORCE_COLOR !== undefined) return true;
  if (rt.env.NO_COLOR !== undefined) return false;
  return isTty(rt, "stdout");
}

const COLORS: Record<string, number> = {
  black: 30,
  red: 31,
  green: 32,
  yellow: 33,
  blue: 34,
  magenta: 35,
  cyan: 36,
  white: 37,
  bright_black: 90,
  gray: 90,
  grey: 90,
  bright_red: 91,
  bright_green: 92,
  bright_yellow: 93,
  bright_blue: 94,
  bright_magenta: 95,
  bright_cyan: 96,
  bright_white: 97,
};

function styled(rt: Runtime, text: string, code: number | undefined): string {
  if (code === undefined || !colorEnabled(rt)) return text;
  return `\u001b[${code}m${text}\u001b[0m`;
}

const SPINNER = ["|", "/", "-", "\\"];

/** An int option of a progress call (ints beyond 2^53 are bigints), or null. */
function progressInt(v: Value | undefined): Int | null {
  return typeof v === "number" || typeof v === "bigint" ? v : null;
}

function progressLine(args: Value[]): string {
  const phase = strArg(args, 0);
  const message = strArg(args, 1);
  const p = arg(args, 2);
  const total = progressInt(arg(args, 3));
  if (p instanceof HDict) {
    const mode = p.has("mode") ? display(p.get("mode")) : "";
    if (mode === "spinner") {
      const step = progressInt(p.get("step") ?? p.get("current")) ?? 0;
      const frame = typeof step === "bigint" ? Number(((step % 4n) + 4n) % 4n) : ((step % 4) + 4) % 4;
      return `[${phase}] ${SPINNER[frame]} ${message}`;
    }
    if (mode === "bar") {
      const cur = progressInt(p.get("current")) ?? 0;
      const tot = progressInt(p.get("total")) ?? 0;
      const w = progressInt(p.get("width"));
      const width = w === null ? 10 : Number(w < 3 ? 3 : w > 40 ? 40 : w);
      const [c, t] = [Number(cur), Number(tot)];
      const filled = t <= 0 ? 0 : roundHalfAway((Math.min(Math.max(c, 0), t) / t) * width);
      return `[${phase}] [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${message} (${cur}/${tot})`;
    }
    return `[${phase}] ${message}`;
  }
  const done = progressInt(p);
  if (done !== null && total !== null) return `[${phase}] ${message} (${done}/${total})`;
  if (done !== null) return `[${phase}] ${message} (${done}%)`;
  return `[${phase}] ${message}`;
}

/** Blocks the thread for `ms` without spinning the CPU. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Whether stdin may wait indefinitely for its writer: a pipe, a socket or
 * a terminal. Those are read asynchronously, so that Ctrl-C (a signal
 * handler needs the event loop) and other tasks still run while a script
 * waits for a line; files and the null device are read synchronously, as
 * the reference reads all stdin, since they answer at once.
 */
function stdinCanWait(): boolean {
  try {
    const st = fstatSync(0);
    return st.isFIFO() || st.isSocket() || (st.isCharacterDevice() && process.stdin.isTTY === true);
  } catch {
    return false;
  }
}

/** Read more of a file stdin (blocking). */
function fillStdinSync(rt: Runtime, st: TerminalState): boolean {
  if (st.stdinEof) return false;
  rt.stdout.flush?.(); // a prompt written just before must be visible while we wait
  const buf = Buffer.alloc(65536);
  let n = 0;
  try {
    n = readSync(0, buf, 0, buf.length, null);
  } catch (e) {
    // a non-blocking stdin (Node may have made it so) has no data yet
    if ((e as { code?: string }).code === "EAGAIN") {
      pause(10);
      return true;
    }
    n = 0;
  }
  if (n === 0) {
    st.stdinBuffer += st.stdinDecoder.end();
    st.stdinEof = true;
    return false;
  }
  st.stdinBuffer += st.stdinDecoder.write(buf.subarray(0, n));
  return true;
}

/**
 * Read the next chunk of a pipe or terminal stdin into the buffer: true
 * when something arrived, false at end of input. Readers share one read;
 * `signal` (the reading task's) abandons the wait, not the read. Between
 * reads, and at shutdown, stdin is paused so it never keeps harn alive.
 */
function fillStdinAsync(rt: Runtime, st: TerminalState, signal: AbortSignal): Promise<boolean> {
  if (st.stdinEof) return Promise.resolve(false);
  if (signal.aborted) return Promise.reject(signal.reason);
  if (!st.stdinFill) {
    rt.stdout.flush?.(); // a prompt written just before must be visible while we wait
    const stdin = process.stdin;
    // a paused pipe or terminal still holds the event loop: only a read in
    // progress may
    const handle = stdin as unknown as { ref?: () => void; unref?: () => void };
    const stop = () => {
      stdin.off("data", onData);
      stdin.off("end", onEnd);
      stdin.off("error", onEnd);
      stdin.pause();
      handle.unref?.();
    };
    let onData: (chunk: Buffer | string) => void = () => undefined;
    let onEnd: () => void = () => undefined;
    st.stdinFill = new Promise<boolean>((resolve) => {
      const finish = (more: boolean) => {
        stop();
        unregister();
        st.stdinFill = null;
        resolve(more);
      };
      onData = (chunk: Buffer | string) => {
        st.stdinBuffer += typeof chunk === "string" ? chunk : st.stdinDecoder.write(chunk);
        finish(true);
      };
      onEnd = () => {
        st.stdinBuffer += st.stdinDecoder.end();
        st.stdinEof = true;
        finish(false);
      };
      const unregister = rt.onShutdown(stop);
      stdin.on("data", onData);
      stdin.once("end", onEnd);
      stdin.once("error", onEnd);
      handle.ref?.();
      stdin.resume();
    });
  }
  return raceSignal(st.stdinFill, signal);
}

/** Take the next line out of the buffer, or at EOF (`eof`) what is left. */
function takeLine(st: TerminalState, eof: boolean): string | null | undefined {
  const nl = st.stdinBuffer.indexOf("\n");
  if (nl >= 0) {
    const line = st.stdinBuffer.slice(0, nl);
    st.stdinBuffer = st.stdinBuffer.slice(nl + 1);
    return line.endsWith("\r") ? line.slice(0, -1) : line;
  }
  if (!eof) return undefined;
  if (st.stdinBuffer === "") return null;
  const line = st.stdinBuffer;
  st.stdinBuffer = "";
  return line;
}

/** The next line without its terminator, or null at EOF. */
export function readLine(rt: Runtime, signal: AbortSignal): string | null | Promise<string | null> {
  const st = rt.slot(TERMINAL);
  if (st.stdinMock !== null) {
    if (st.stdinMock === "") return null;
    const nl = st.stdinMock.indexOf("\n");
    const line = nl < 0 ? st.stdinMock : st.stdinMock.slice(0, nl);
    st.stdinMock = nl < 0 ? "" : st.stdinMock.slice(nl + 1);
    return line.endsWith("\r") ? line.slice(0, -1) : line;
  }
  const ready = takeLine(st, st.stdinEof);
  if (ready !== undefined) return ready;
  if (stdinCanWait()) {
    return (async () => {
      for (;;) {
        const more = await fillStdinAsync(rt, st, signal);
        const line = takeLine(st, !more);
        if (line !== undefined) return line;
      }
    })();
  }
  for (;;) {
    const more = fillStdinSync(rt, st);
    const line = takeLine(st, !more);
    if (line !== undefined) return line;
  }
}

function readAll(rt: Runtime, signal: AbortSignal): string | Promise<string> {
  const st = rt.slot(TERMINAL);
  if (st.stdinMock !== null) {
    const all = st.stdinMock;
    st.stdinMock = "";
    return all;
  }
  const rest = () => {
    const all = st.stdinBuffer;
    st.stdinBuffer = "";
    return all;
  };
  if (!st.stdinEof && stdinCanWait()) {
    return (async () => {
      while (await fillStdinAsync(rt, st, signal));
      return rest();
    })();
  }
  while (fillStdinSync(rt, st));
  return rest();
}

/** eprint/eprintln go through here so capture can divert them. */
export function writeStderr(ctx: CallContext, text: string): void {
  const cap = ctx.runtime.slot(TERMINAL).stderrCapture;
  if (cap) cap.push(text);
  else ctx.err(text);
}

function streamArg(v: Value, name: string): Stream {
  const s = display(v);
  if (s === "stdin" || s === "stdout" || s === "stderr") return s;
  throw HarnError.thrown(`${name}: invalid stream '${s}'. Expected 'stdin', 'stdout', or 'stderr'.`);
}

export const TERMINAL_BUILTINS = builtinModule("core/terminal", (def) => {
  def("progress", (args, ctx) => {
    ctx.out(progressLine(args) + "\n");
    return null;
  });

  def("color", (args, ctx) => styled(ctx.runtime, strArg(args, 0), COLORS[strArg(args, 1)]));
  def("bold", (args, ctx) => styled(ctx.runtime, strArg(args, 0), 1));
  def("dim", (args, ctx) => styled(ctx.runtime, strArg(args, 0), 2));
  def("set_color_mode", (args, ctx) => {
    const mode = strArg(args, 0);
    if (mode !== "auto" && mode !== "always" && mode !== "never") {
      throw HarnError.thrown(`set_color_mode: invalid mode '${mode}'. Expected 'auto', 'always', or 'never'.`);
    }
    ctx.runtime.slot(TERMINAL).colorMode = mode;
    return null;
  });

  def("is_stdin_tty", (_a, ctx) => isTty(ctx.runtime, "stdin"));
  def("is_stdout_tty", (_a, ctx) => isTty(ctx.runtime, "stdout"));
  def("is_stderr_tty", (_a, ctx) => isTty(ctx.runtime, "stderr"));
  def("mock_tty", (args, ctx) => {
    ctx.runtime.slot(TERMINAL).ttyOverride[streamArg(arg(args, 0), "mock_tty")] = Boolean(arg(args, 1));
    return null;
  });
  def("unmock_tty", (_a, ctx) => {
    ctx.runtime.slot(TERMINAL).ttyOverride = {};
    return null;
  });

  def("read_line", (_a, ctx) => readLine(ctx.runtime, ctx.signal));
  def("read_stdin", (_a, ctx) => readAll(ctx.runtime, ctx.signal));
  def("prompt_user", (args, ctx) => {
    if (args.length > 0) ctx.out(strArg(args, 0));
    return andThen(readLine(ctx.runtime, ctx.signal), (line) => (line === null ? null : line.replace(/\s+$/u, "")));
  });
  def("mock_stdin", (args, ctx) => {
    ctx.runtime.slot(TERMINAL).stdinMock = strArg(args, 0);
    return null;
  });
  def("unmock_stdin", (_a, ctx) => {
    ctx.runtime.slot(TERMINAL).stdinMock = null;
    return null;
  });

  def("capture_stderr_start", (_a, ctx) => {
    ctx.runtime.slot(TERMINAL).stderrCapture = [];
    return null;
  });
  def("capture_stderr_take", (_a, ctx) => {
    const st = ctx.runtime.slot(TERMINAL);
    const text = st.stderrCapture ? st.stderrCapture.join("") : "";
    st.stderrCapture = null;
    return text;
  });
});
