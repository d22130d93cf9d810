/**
 * Showing agent turns as they happen (extensions.md §3.2), for
 * `harn run --stream` and `harn chat`: model text goes to stdout delta by
 * delta; reasoning (thinking) deltas go to stderr, dimmed, unless hidden;
 * each tool call, tool result and retry is one short line on stderr
 * (`⚙ name(args)`, `→ preview` / `✗ preview`, `↻ …`), cut at 120
 * characters so a large result never floods the terminal. An interrupted
 * answer ends ` [interrupted]` on stdout, as the transcript records it.
 */
import type { LlmEvent, LlmRetryNotice, ToolOutcomeStatus, TurnObserver } from "@harn/stdlib";
import type { OutputSink } from "@harn/vm";

export const PREVIEW_CHARS = 120;

/** One line of at most `max` characters (code points): whitespace runs,
 * newlines included, become one space; a cut text ends in `…`. */
export function preview(text: string, max = PREVIEW_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const cps = Array.from(flat);
  return cps.length <= max ? flat : `${cps.slice(0, max - 1).join("")}…`;
}

/** Tool arguments as compact JSON (`{"path":"a.txt"}`), the form the
 * model sent them in. */
function argsText(args: Readonly<Record<string, unknown>>): string {
  try {
    return JSON.stringify(args) ?? "";
  } catch {
    return String(args);
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : ms < 10_000 ? 2 : 1)}s`;
}

export interface RenderOptions {
  /** Leave reasoning deltas out (`--hide-reasoning`). */
  hideReasoning?: boolean;
  /** How reasoning text is dimmed (identity when stderr has no colour). */
  dim?: (text: string) => string;
}

export class StreamRenderer implements TurnObserver {
  /** Streamed text left stdout in the middle of a line. */
  private midLine = false;
  /** Streamed reasoning left stderr in the middle of a line. */
  private reasoningMidLine = false;
  /** The last thing shown was the interruption marker. */
  private markerShown = false;

  constructor(
    private readonly out: OutputSink,
    private readonly err: (text: string) => void,
    private readonly opts: RenderOptions = {},
  ) {}

  event(ev: LlmEvent): void {
    if (ev.kind === "reasoning_delta") {
      if (this.opts.hideReasoning || ev.text === "") return;
      this.breakLine();
      this.markerShown = false;
      // Each piece is dimmed on its own, so nothing written between two
      // pieces inherits the attribute.
      this.err((this.opts.dim ?? String)(ev.text));
      this.reasoningMidLine = !ev.text.endsWith("\n");
      return;
    }
    if (ev.kind !== "text_delta" || ev.text === "") return;
    this.breakReasoning();
    this.markerShown = false;
    this.out.write(ev.text);
    // Deltas are shown when they arrive, not when a buffer fills.
    this.out.flush?.();
    this.midLine = !ev.text.endsWith("\n");
  }

  /** A new answer begins (harn chat's next prompt): its interruption is
   * shown even if the last one's was the last thing shown. */
  startAnswer(): void {
    this.markerShown = false;
  }

  /** The answer was stopped: ` [interrupted]` after what it showed (just
   * `[interrupted]` on a line of its own when it showed no text), once,
   * however many parts (the model call, the loop, chat) report it. */
  interrupted(): void {
    if (this.markerShown) return;
    this.breakReasoning();
    this.out.write(this.midLine ? " [interrupted]\n" : "[interrupted]\n");
    this.out.flush?.();
    this.midLine = false;
    this.markerShown = true;
  }

  callEnd(): void {
    this.breakLine();
    this.breakReasoning();
  }

  retry(n: LlmRetryNotice): void {
    this.notice(`↻ ${n.provider}: retry ${n.attempt} in ${seconds(n.delayMs)}: ${preview(n.error.message, PREVIEW_CHARS - 24)}`);
  }

  toolCall(name: string, args: Readonly<Record<string, unknown>>): void {
    this.notice(`⚙ ${preview(`${name}(${argsText(args)})`)}`);
  }

  toolResult(_name: string, status: ToolOutcomeStatus, text: string): void {
    this.notice(`${status === "ok" ? "→" : "✗"} ${preview(text)}`);
  }

  /** The script's own stdout, through the renderer: what the script
   * prints starts on a line of its own after streamed text. */
  scriptOut(): OutputSink {
    return {
      write: (text) => {
        this.breakLine();
        this.breakReasoning();
        this.markerShown = false;
        this.out.write(text);
      },
      flush: () => this.out.flush?.(),
    };
  }

  /** A line on stderr, after ending a half-written stdout line so the two
   * streams do not share a terminal line. */
  notice(line: string): void {
    this.breakLine();
    this.breakReasoning();
    this.markerShown = false;
    // What the script printed before this point comes first.
    this.out.flush?.();
    this.err(`${line}\n`);
  }

  private breakReasoning(): void {
    if (!this.reasoningMidLine) return;
    this.reasoningMidLine = false;
    this.err("\n");
  }

  private breakLine(): void {
    if (!this.midLine) return;
    this.midLine = false;
    this.out.write("\n");
    this.out.flush?.();
  }
}
