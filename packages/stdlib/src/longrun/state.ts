/**
 * Per-runtime state of long-running work (agents.md §1.1–§1.3, §1.9, §1.15):
 * the in-flight handle registry and the one pending feedback queue.
 *
 * Everything lives in a `RuntimeSlot`, so two runtimes in one process never
 * see each other's handles. The agent loop (issue 6) and daemons use the
 * exported `LongRunState` methods; scripts use the builtins in
 * `feedback_builtins.ts`.
 */
import { realClock, RuntimeSlot, type CancelTimer, type Clock, type Runtime } from "@harn/vm";
import { type Json } from "../core/json";

export type HandleFamily = "stdlib" | "command";

/** One in-flight operation. Removed on completion or cancellation. */
export interface HandleRecord {
  readonly id: string;
  readonly family: HandleFamily;
  /** Owner agent session, `""` for the root scope (§1.2). */
  readonly sessionId: string;
  readonly operation: string;
  readonly descriptor: string;
  /** Wall clock (`Date.now()`) at spawn, for `started_at`. */
  readonly startedAtMs: number;
  /** Stops the work: aborts a walk, kills a process group. Must not throw. */
  readonly stop: () => void;
}

export type HandleStatus = "running" | "completed" | "failed" | "cancelled" | "unknown";

/**
 * One queued item `(session_id, kind, content)`. Completion items also carry
 * the payload object and its handle id, so `handle_wait` can find and
 * return it without re-parsing, and so the (possibly large) JSON text is
 * only built when someone actually reads `content`.
 */
export class FeedbackItem {
  private text: string | undefined;
  constructor(
    readonly sessionId: string,
    readonly kind: string,
    content: string | null,
    readonly handleId: string | null = null,
    readonly payload: { [key: string]: Json } | null = null,
  ) {
    if (content !== null) this.text = content;
  }

  /** Compact JSON of the payload for completions, the given text otherwise. */
  get content(): string {
    if (this.text === undefined) this.text = JSON.stringify(this.payload);
    return this.text;
  }
}

export type FeedbackListener = (item: FeedbackItem) => void;

export class LongRunState {
  private readonly items: FeedbackItem[] = [];
  private readonly inFlight = new Map<string, HandleRecord>();
  /** Ids cancelled by `cancel_handle` or cleanup, for `handle_status`. */
  private readonly cancelledIds = new Set<string>();
  private readonly feedbackListeners = new Set<FeedbackListener>();
  /** Callbacks waiting for one handle to finish or be cancelled. */
  private readonly settleListeners = new Map<string, Set<() => void>>();
  private stdlibCounter = 0;
  private commandCounter = 0;
  private commandIdCounter = 0;
  private readonly pidHex = process.pid.toString(16);

  /** `clock` times `handle_wait` timeouts (the runtime's clock). */
  constructor(private readonly clock: Clock = realClock) {}

  // --- identifiers (§1.3) --------------------------------------------------

  nextStdlibHandleId(): string {
    return `hso-${this.pidHex}-${++this.stdlibCounter}`;
  }

  nextCommandHandleId(): string {
    return `hto-${this.pidHex}-${++this.commandCounter}`;
  }

  /** `cmd_<pid>_<unix-nanos>_<n>` */
  nextCommandId(): string {
    const nanos = BigInt(Date.now()) * 1_000_000n + BigInt(Math.floor((performance.now() % 1) * 1_000_000));
    return `cmd_${process.pid}_${nanos}_${++this.commandIdCounter}`;
  }

  // --- registry --------------------------------------------------------------

  register(record: HandleRecord): void {
    this.inFlight.set(record.id, record);
  }

  isRunning(id: string): boolean {
    return this.inFlight.has(id);
  }

  running(): HandleRecord[] {
    return [...this.inFlight.values()];
  }

  /**
   * The work of `id` ended with `payload`. Pushes a `tool_result` item for
   * the owner session, unless the handle was cancelled meanwhile (then the
   * payload is dropped, §1.1 step 3). Returns whether it was queued.
   */
  complete(id: string, payload: { [key: string]: Json }): boolean {
    const record = this.inFlight.get(id);
    if (!record) return false;
    this.inFlight.delete(id);
    this.push(new FeedbackItem(record.sessionId, "tool_result", null, id, payload));
    this.settled(id);
    return true;
  }

  /**
   * `cancel_handle`: true iff an in-flight entry was found and removed by
   * this call; the work is stopped and will never enqueue a payload.
   */
  cancel(id: string): boolean {
    const record = this.inFlight.get(id);
    if (!record) return false;
    this.inFlight.delete(id);
    this.cancelledIds.add(id);
    try {
      record.stop();
    } catch {
      // cleanup never throws (§1.15)
    }
    this.settled(id);
    return true;
  }

  /** Session-end cleanup: cancel every handle the session owns; returns
   * the records of those it cancelled. */
  cancelSession(sessionId: string): HandleRecord[] {
    return [...this.inFlight.values()].filter((r) => r.sessionId === sessionId && this.cancel(r.id));
  }

  /** Script-end cleanup: root-scope handles first, then everything else. */
  cancelAll(): number {
    const all = [...this.inFlight.values()];
    const ordered = [...all.filter((r) => r.sessionId === ""), ...all.filter((r) => r.sessionId !== "")];
    let n = 0;
    for (const r of ordered) if (this.cancel(r.id)) n++;
    return n;
  }

  // --- the pending feedback queue (§1.9) -------------------------------------

  push(item: FeedbackItem): void {
    this.items.push(item);
    for (const l of [...this.feedbackListeners]) {
      try {
        l(item);
      } catch {
        // a listener must not break the producer
      }
    }
  }

  /** `agent_inject_feedback`: a plain item for a session (§2.12). */
  inject(sessionId: string, kind: string, content: string): void {
    this.push(new FeedbackItem(sessionId, kind, content));
  }

  /** Items in FIFO order (a snapshot; the queue is not changed). */
  pending(): readonly FeedbackItem[] {
    return this.items.slice();
  }

  /** Remove and return, in FIFO order, the items `select` picks; the
   * relative order of the rest is preserved. Atomic with respect to pushes. */
  drain(select: (item: FeedbackItem) => boolean): FeedbackItem[] {
    const taken: FeedbackItem[] = [];
    let w = 0;
    for (let r = 0; r < this.items.length; r++) {
      const it = this.items[r]!;
      if (select(it)) taken.push(it);
      else this.items[w++] = it;
    }
    this.items.length = w;
    return taken;
  }

  /** Items of one session (for scripts: `pending_feedback_drain`). */
  drainSession(sessionId: string): FeedbackItem[] {
    return this.drain((it) => it.sessionId === sessionId);
  }

  /**
   * What an agent-loop turn preflight takes (§1.2 [TS decision], §1.8): the
   * session's items and the root scope's. Yields one macrotask first so
   * completions whose I/O already finished are observed; never waits for
   * in-flight work.
   */
  async drainForTurn(sessionId: string): Promise<FeedbackItem[]> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    return this.drain((it) => it.sessionId === sessionId || it.sessionId === "");
  }

  /** When an anonymous session ends its leftover items are dropped (§1.9). */
  discardSession(sessionId: string): number {
    return this.drain((it) => it.sessionId === sessionId).length;
  }

  /** The queued completion item of a handle, if any. */
  findPayload(id: string): FeedbackItem | null {
    for (const it of this.items) if (it.handleId === id) return it;
    return null;
  }

  /** Remove and return the completion item of one handle. */
  takePayload(id: string): FeedbackItem | null {
    const i = this.items.findIndex((it) => it.handleId === id);
    if (i < 0) return null;
    return this.items.splice(i, 1)[0]!;
  }

  /** Called for every pushed item; e.g. a daemon's idle wait wakes on it. */
  onFeedback(listener: FeedbackListener): () => void {
    this.feedbackListeners.add(listener);
    return () => this.feedbackListeners.delete(listener);
  }

  // --- waiting ----------------------------------------------------------------

  status(id: string): HandleStatus {
    if (this.inFlight.has(id)) return "running";
    const item = this.findPayload(id);
    if (item) return item.payload?.status === "failed" ? "failed" : "completed";
    if (this.cancelledIds.has(id)) return "cancelled";
    return "unknown";
  }

  /**
   * Wait until handle `id` completes (payload queued) or is cancelled, then
   * take its payload item: null on cancel, unknown id, timeout, or when
   * someone else drained it first. Rejects with the signal's reason when
   * `signal` aborts. Never polls: it is woken by `complete`/`cancel`.
   */
  async waitForPayload(id: string, timeoutMs: number | null, signal: AbortSignal): Promise<FeedbackItem | null> {
    const ready = this.takePayload(id);
    if (ready || !this.inFlight.has(id)) return ready;
    if (signal.aborted) throw signal.reason;
    const finished = await new Promise<boolean>((resolve, reject) => {
      let timer: CancelTimer | undefined;
      const cleanup = () => {
        if (timer !== undefined) timer();
        signal.removeEventListener("abort", onAbort);
        this.removeSettleListener(id, onSettle);
      };
      const onSettle = () => {
        cleanup();
        resolve(true);
      };
      const onAbort = () => {
        cleanup();
        reject(signal.reason);
      };
      this.addSettleListener(id, onSettle);
      signal.addEventListener("abort", onAbort, { once: true });
      if (timeoutMs !== null) {
        timer = this.clock.timer(timeoutMs, () => {
          cleanup();
          resolve(false);
        });
      }
    });
    return finished ? this.takePayload(id) : null;
  }

  private addSettleListener(id: string, cb: () => void): void {
    let set = this.settleListeners.get(id);
    if (!set) this.settleListeners.set(id, (set = new Set()));
    set.add(cb);
  }

  private removeSettleListener(id: string, cb: () => void): void {
    const set = this.settleListeners.get(id);
    if (!set) return;
    set.delete(cb);
    if (set.size === 0) this.settleListeners.delete(id);
  }

  private settled(id: string): void {
    const set = this.settleListeners.get(id);
    if (!set) return;
    this.settleListeners.delete(id);
    for (const cb of set) cb();
  }
}

const LONGRUN = new RuntimeSlot<LongRunState>("longrun", (rt) => {
  const state = new LongRunState(rt.clock);
  // Script end (normal or uncaught error): cancel whatever is left, so
  // processes die and nothing keeps Node alive (§1.15).
  rt.onShutdown(() => {
    state.cancelAll();
  });
  return state;
});

/** The long-running state of a runtime (created on first use). */
export function longRunState(rt: Runtime): LongRunState {
  return rt.slot(LONGRUN);
}
