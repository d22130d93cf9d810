/**
 * Agent turns as the host sees them (extensions.md §3.2–§3.3).
 *
 * - Interruption: every model call and every agent-loop turn registers
 *   itself while it runs. The host's first Ctrl-C calls `interrupt()`,
 *   which aborts exactly those — not the script's task — so the call ends
 *   with what it received, the loop returns status `interrupted`, and the
 *   script carries on (its `defer`/`finally` run as usual). When nothing is
 *   registered `interrupt()` returns false and the host ends the program.
 * - Observation: `harn run --stream` and `harn chat` install an observer
 *   that sees every normalized event as it arrives, retries, and each tool
 *   call of a loop with its result.
 *
 * One `TurnControl` per Runtime (a runtime slot); nothing is global.
 */

import { RuntimeSlot, type Runtime } from "@harn/vm";
import type { RetryNotice } from "./client";
import type { LlmEvent } from "./types";

export type ToolOutcomeStatus = "ok" | "error" | "rejected";

/** What a host shows of running turns. Every method is optional; an
 * observer must not throw (its failures would be the script's). */
export interface TurnObserver {
  /** A normalized event of a model call, as it arrives. */
  event?(ev: LlmEvent): void;
  /** The user interrupted a running model call (called at once, from the
   * host's interrupt): no more of its events follow. */
  interrupted?(): void;
  /** A model call ended: completed, failed or interrupted. */
  callEnd?(): void;
  /** A failed attempt is about to be retried after `notice.delayMs`. */
  retry?(notice: RetryNotice): void;
  /** An agent loop is about to run a tool. */
  toolCall?(name: string, args: Readonly<Record<string, unknown>>): void;
  /** The tool finished (`text` is the result text the model gets). */
  toolResult?(name: string, status: ToolOutcomeStatus, text: string): void;
  /** A one-line note for the user (a fallback taking over, the offline
   * mock answering); without this method it goes to stderr. */
  notice?(line: string): void;
}

/** A registered turn or model call. */
export interface Turn {
  /** Aborted when the turn is interrupted or when `parent` aborts. */
  readonly signal: AbortSignal;
  /** True once the host interrupted this turn (not when only the parent
   * signal aborted: that is the script's own cancellation). */
  readonly interrupted: boolean;
  /** Unregister; release the link to the parent signal. Idempotent. */
  end(): void;
}

/** The reason a turn's signal carries when the host interrupted it. */
export class TurnInterrupt extends Error {
  constructor() {
    super("interrupted by the user");
    this.name = "TurnInterrupt";
  }
}

class RunningTurn implements Turn {
  private readonly ac = new AbortController();
  interrupted = false;
  private ended = false;
  private readonly onParentAbort = () => this.ac.abort(this.parent.reason);

  constructor(
    private readonly owner: TurnControl,
    private readonly parent: AbortSignal,
    private readonly onInterrupt: (() => void) | undefined,
  ) {
    if (parent.aborted) this.ac.abort(parent.reason);
    else parent.addEventListener("abort", this.onParentAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.ac.signal;
  }

  interrupt(): void {
    if (this.ended || this.interrupted) return;
    this.interrupted = true;
    this.ac.abort(new TurnInterrupt());
    this.onInterrupt?.();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.parent.removeEventListener("abort", this.onParentAbort);
    this.owner.release(this);
  }
}

export class TurnControl {
  private readonly running = new Set<RunningTurn>();
  /** Installed by the host; null shows nothing. */
  observer: TurnObserver | null = null;

  /**
   * Register a turn whose signal follows `parent` and is also aborted by
   * `interrupt()`. `onInterrupt` runs once on interruption (the agent loop
   * cancels the task its tools run in). Call `end()` when the turn is over.
   * A `background` turn (a background sub-agent's) only follows `parent`:
   * Ctrl-C is about what the user is watching, and background sub-agents
   * are stopped with the program instead.
   */
  begin(parent: AbortSignal, onInterrupt?: () => void, opts: { background?: boolean } = {}): Turn {
    const turn = new RunningTurn(this, parent, onInterrupt);
    if (!opts.background) this.running.add(turn);
    return turn;
  }

  /** Whether some turn or model call is running. */
  get active(): boolean {
    return this.running.size > 0;
  }

  /** Interrupt every running turn; false when none was running. */
  interrupt(): boolean {
    if (this.running.size === 0) return false;
    for (const t of [...this.running]) t.interrupt();
    return true;
  }

  /** @internal */
  release(turn: RunningTurn): void {
    this.running.delete(turn);
  }
}

export const TURNS = new RuntimeSlot<TurnControl>("llm.turns", () => new TurnControl());

export function turnControl(rt: Runtime): TurnControl {
  return rt.slot(TURNS);
}

/** Host entry point for Ctrl-C: interrupt the running agent turns of this
 * runtime; false when none was running (the host then ends the program). */
export function interruptTurns(rt: Runtime): boolean {
  return turnControl(rt).interrupt();
}

/** Host entry point for `--stream` and `harn chat`. */
export function setTurnObserver(rt: Runtime, observer: TurnObserver | null): void {
  turnControl(rt).observer = observer;
}

/** The text an interrupted reply keeps: what arrived, then ` [interrupted]`
 * (extensions.md §3.3), one space after the last word even when the reply
 * stopped after a space or newline. With nothing received, just
 * `[interrupted]`. */
export function markInterrupted(text: string): string {
  const kept = text.trimEnd();
  return kept === "" ? "[interrupted]" : `${kept} [interrupted]`;
}
