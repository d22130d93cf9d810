/**
 * One daemon (spec/agents.md §4.3–§4.5): an agent loop in daemon mode
 * running as a detached background task, plus the durable bounded FIFO
 * trigger queue in front of it. Where the state lives is the store's
 * business (store.ts); this class keeps the queue and the last committed
 * snapshot in memory and decides what must be made durable when.
 *
 * Queue invariants:
 * - `daemon_trigger` returns only once the store has made the event
 *   durable; events reach the daemon only from the store (`queued`), so
 *   only durable events are delivered, whichever process triggered them.
 * - At most one event is in flight; events are handed over strictly in
 *   sequence order, one per idle boundary (the loop waiting with its
 *   snapshot committed).
 * - The event in flight is acknowledged by the first idle commit whose
 *   snapshot shows a model turn after the delivery (its `total_iterations`
 *   grew), in the same atomic commit as that snapshot: after a crash the
 *   events handled again are at most the one in flight. [TS decision]
 *   §4.3 also clears it when only `saved_at` changed; that drops an event
 *   the loop never answered (the final snapshot of a loop that ran out of
 *   `max_iterations` right after the wake), so here such an event stays
 *   in flight and is replayed on resume (§4.5 at-least-once).
 * - Stop, a crash or a restart re-queue the event in flight at the front.
 *   The delivery itself is not recorded: an event in flight and one at
 *   the head of the queue resume identically.
 *
 * Delivery is event-driven: a trigger delivers right after its event is
 * durable, and the loop's idle hook delivers the next pending event. The
 * reference polls with a 10 ms "delivery monitor"; here there is no timer
 * at all (nothing to clear on stop, nothing that could keep Node alive, no
 * latency floor), with the same observable order.
 */
import type { DaemonJournal, DaemonJournalEntry } from "./journal";
import { join } from "node:path";
import { HarnError, HDict, realClock, type CallContext, type Clock, type Runtime, type SessionCallContext, type Value } from "@harn/vm";
import { fromJson, type Json, type JsonObject, stringifyJsonKeepingFloats } from "../../core/json";
import { runAgentLoop } from "../loop/start";
import { SnapshotTracker } from "./delta";
import { defaultSnapshot, nowRfc3339, SNAPSHOT_FILE, type Meta, type QueuedEvent, type Snapshot } from "./files";
import { DaemonInbox } from "./inbox";
import type { RootLock } from "./lock";
import type { DaemonHost } from "./mode";
import { snapshotValue, type MessageValues } from "./values";
import type { DaemonRecord, DaemonStore, StoreListener } from "./store";

export type DaemonStatus = "running" | "stopped" | "failed";
/** What `daemon_wait` waits for (see `waitUntil`). */
export type WaitUntil = "idle" | "drained" | "stopped";

/** How long spawn/resume wait for a first snapshot and stop waits for an
 * idle boundary (§4.3). */
export const SETTLE_MS = 500;
/** Upper bound on waiting for an aborted loop to unwind at stop. */
const UNWIND_MS = 5000;

export interface DaemonIdentity {
  id: string;
  name: string;
  prompt: string;
  system: string | null;
  sessionId: string;
  capacity: number;
  /** Absolute root directory; for a daemon in a database, the store's
   * URL (without its password) and the daemon's name. */
  root: string;
  /** The store's URL without its password, for a daemon in a database;
   * null for a root directory. */
  store?: string | null;
  /** The loop options as the metadata stores them (data only). */
  storedOptions: JsonObject;
  /** The loop's `max_iterations` (over the daemon's life, §4.1). */
  maxIterations: number;
}

/** The queue and snapshot a daemon starts from (empty for a new one). */
export interface DaemonState {
  pending: QueuedEvent[];
  nextSeq: number;
  snapshot: Snapshot | null;
}

export class Daemon implements DaemonHost, StoreListener {
  readonly inbox = new DaemonInbox();
  status: DaemonStatus = "running";
  stopping = false;
  error: string | null = null;
  /** Why the daemon stopped by itself (`budget_exhausted`, `watchdog`,
   * `error: <text>`), null while running or after daemon_stop. */
  stopReason: string | null = null;
  result: HDict | null = null;
  pending: QueuedEvent[];
  inflight: QueuedEvent | null = null;
  /** `total_iterations` of the snapshot current at delivery. */
  private inflightMark = 0;
  /** Above every sequence number seen (the metadata's next_event_seq). */
  private nextSeq: number;
  /** Triggers whose event is being made durable. */
  private enqueuing = 0;
  /** The idle commit in progress. */
  private committing: Promise<void> | null = null;
  /** Makes each commit's frozen snapshot and delta. */
  private readonly tracker: SnapshotTracker;
  /** The last committed snapshot (frozen: see delta.ts). */
  committed: Snapshot | null;
  readonly resumeSnapshot: Snapshot | null;
  private session: SessionCallContext | null = null;
  private loopDone: Promise<void> = Promise.resolve();
  private stopDone: Promise<void> | null = null;
  /** The loop task has finished (however it ended). */
  private ended = false;
  private readonly snapshotWaiters = new Set<() => void>();
  private readonly idleWaiters = new Set<() => void>();
  /** The dict `daemon_snapshot` last built, and what it was built from. */
  private shown: { from: Snapshot | null; dict: HDict } | null = null;
  private readonly messageValues: MessageValues = new WeakMap();
  /** Resolves once the loop has ended, every write settled and the lock is
   * released: the root may then be spawned or resumed again. */
  readonly released: Promise<void>;
  private markReleased!: () => void;

  constructor(
    readonly identity: DaemonIdentity,
    /** The agent-loop options (daemon keys forced). */
    readonly options: HDict,
    state: DaemonState,
    private readonly store: DaemonStore,
    private lock: RootLock | null,
    private readonly rt: Runtime,
    /** Where durable queue changes are reported (`harn test --crash-points`). */
    private readonly journal: DaemonJournal = { record: null },
  ) {
    this.pending = state.pending;
    this.nextSeq = state.nextSeq;
    this.committed = state.snapshot;
    this.resumeSnapshot = state.snapshot;
    this.tracker = new SnapshotTracker(state.snapshot);
    this.released = new Promise<void>((r) => (this.markReleased = r));
    store.attach(this);
  }

  get id(): string {
    return this.identity.id;
  }
  get place(): string {
    return this.identity.root;
  }
  get snapshotPath(): string {
    return join(this.identity.root, SNAPSHOT_FILE);
  }
  get running(): boolean {
    return this.status === "running";
  }
  /** Times the settle and unwind waits (the runtime's clock: they race the
   * script's own waits, virtual under `harn test --deterministic`). */
  private get clock(): Clock {
    return this.rt.clock ?? realClock;
  }

  /** The state of a daemon that has not run yet. */
  static initialRecord(identity: DaemonIdentity): DaemonRecord {
    return { meta: metaOf(identity, 1, []), snapshot: null };
  }

  /** What the store persists when the daemon ends: the queue with the
   * event in flight back at its head, the snapshot with the stop reason. */
  record(): DaemonRecord {
    const meta = metaOf(this.identity, this.nextSeq, this.inflight ? [this.inflight, ...this.pending] : this.pending);
    let snapshot = this.committed;
    if (snapshot !== null && this.stopReason !== null) snapshot = { ...snapshot, stop_reason: this.stopReason };
    return { meta, snapshot };
  }

  // --- the queue ---------------------------------------------------------------

  private note(op: DaemonJournalEntry["op"], seq: number): void {
    this.journal.record?.({ op, root: this.identity.root, seq });
  }

  notRunning(builtin: string): HarnError {
    const why = this.stopReason === null ? "" : ` (stop_reason: ${this.stopReason})`;
    return HarnError.runtime(`${builtin}: daemon ${this.id} is not running${why}`);
  }

  /** §4.3 `daemon_trigger` steps 2–5; resolves once the event is durable. */
  async trigger(payload: Json): Promise<void> {
    if (!this.running) throw this.notRunning("daemon_trigger");
    this.enqueuing++;
    let event: QueuedEvent;
    try {
      // The store checks the capacity: with a shared store, other
      // processes fill the same queue.
      event = await this.store.enqueue(payload);
    } finally {
      this.enqueuing--;
    }
    this.note("trigger", event.seq);
    this.clock.boundary("daemon trigger persisted");
    this.deliver();
    this.notify();
  }

  // --- StoreListener (called by the store) ----------------------------------------

  queued(events: readonly QueuedEvent[]): void {
    for (const e of events) {
      let i = this.pending.length;
      while (i > 0 && this.pending[i - 1]!.seq > e.seq) i--;
      this.pending.splice(i, 0, e);
      if (e.seq >= this.nextSeq) this.nextSeq = e.seq + 1;
    }
    this.deliver();
    this.notify();
  }

  deliverable(): void {
    this.deliver();
  }

  /** Hand the oldest durable event to an idle loop (§4.3 "Delivery"). */
  deliver(): boolean {
    if (!this.running || this.stopping || this.inflight !== null || !this.inbox.idle) return false;
    const head = this.pending[0];
    if (!head || !this.store.mayDeliver()) return false;
    this.pending.shift();
    this.inflight = head;
    this.inflightMark = this.committed?.total_iterations ?? 0;
    this.inbox.deliver(eventText(head.payload));
    this.note("deliver", head.seq);
    this.clock.boundary("daemon event delivered");
    return true;
  }

  // --- DaemonHost (called by the loop) -------------------------------------------

  async commitSnapshot(snapshot: Snapshot, textAppended: string[]): Promise<void> {
    // Frozen before anything waits: the loop goes on changing its lists.
    const { snapshot: frozen, delta } = this.tracker.commit(snapshot, textAppended);
    const handled = this.inflight !== null && snapshot.total_iterations > this.inflightMark ? this.inflight : null;
    // The completion is durable somewhere between these two records.
    if (handled !== null) this.note("completing", handled.seq);
    const commit = this.store.commitIdle(frozen, delta, handled?.seq ?? null);
    this.committing = commit;
    try {
      await commit;
    } finally {
      if (this.committing === commit) this.committing = null;
    }
    this.committed = frozen;
    // Cleared only now: until the commit is durable the event is still
    // the daemon's to re-queue (a stop waits for the commit first).
    if (handled !== null) {
      if (this.inflight === handled) this.inflight = null;
      this.note("complete", handled.seq);
      this.clock.boundary("daemon completion persisted");
    }
    for (const w of [...this.snapshotWaiters]) w();
  }

  becameIdle(): void {
    this.deliver();
    this.notify();
  }

  /** Let the idle waiters look again. */
  private notify(): void {
    for (const w of [...this.idleWaiters]) w();
  }

  // --- lifecycle ---------------------------------------------------------------

  /** Start the loop task (from `resumeSnapshot` when there is one). */
  start(ctx: CallContext): void {
    const session = ctx.inSession ? ctx.inSession(this.identity.sessionId, { detached: true }) : null;
    this.session = session;
    this.loopDone = runAgentLoop(session ?? ctx, {
      task: this.identity.prompt,
      system: this.identity.system,
      options: this.options,
      daemonHost: this,
      // Background work: the host's Ctrl-C does not cut a turn short (it
      // ends the program, and shutdown stops the daemon at a boundary).
      background: true,
    }).then(
      (result) => {
        this.result = result;
        const status = result.get("status");
        if (!this.stopping && (status === "budget_exhausted" || status === "watchdog")) this.stopReason = status;
        if (this.status === "running") this.status = "stopped";
      },
      (e: unknown) => {
        if (this.stopping) return;
        this.status = "failed";
        this.error = describe(e);
        this.stopReason = `error: ${this.error}`;
      },
    );
    void this.loopDone.then(() => this.loopEnded());
  }

  /** The loop ended by itself (or was aborted by `stop`). */
  private loopEnded(): void {
    this.ended = true;
    for (const w of [...this.snapshotWaiters, ...this.idleWaiters]) w();
    if (this.stopping) return; // stop() persists and unlocks
    if (this.stopReason === "budget_exhausted") this.rt.stderr.write(this.budgetNotice());
    this.close().catch((e: unknown) => (this.error ??= describe(e)));
  }

  /** One line on stderr when the budget ends the daemon (§4.1: it counts
   * over the daemon's life, so a resume needs a higher limit). */
  private budgetNotice(): string {
    const d = this.identity;
    const more = (this.committed?.total_iterations ?? d.maxIterations) + Math.max(d.maxIterations, 1);
    if (d.store) {
      return `daemon '${d.name}' stopped: its max_iterations (${d.maxIterations} model turns, counted over the daemon's life) are used up; to go on, spawn it again with a higher limit: daemon_spawn({name: ${JSON.stringify(d.name)}, store: …, max_iterations: ${more}, …})\n`;
    }
    return `daemon '${d.name}' stopped: its max_iterations (${d.maxIterations} model turns, counted over the daemon's life) are used up; to go on, resume it with a higher limit: daemon_resume(${JSON.stringify(d.root)}, {max_iterations: ${more}})\n`;
  }

  /** Persist the state at rest and let go of the root. */
  private async close(): Promise<void> {
    try {
      await this.store.settled();
      await this.store.close(this.record());
    } finally {
      this.releaseLock();
    }
  }

  /** Resolves when a snapshot is committed, the loop ends, or after `ms`. */
  waitForSnapshot(ms: number): Promise<void> {
    let saved = false;
    const mark = () => (saved = true);
    this.snapshotWaiters.add(mark);
    return this.waitOn(this.snapshotWaiters, ms, () => saved || this.ended).finally(() => this.snapshotWaiters.delete(mark));
  }

  /** Until the loop waits at an idle boundary with no event in flight
   * (the in-flight one was handled), or ends. */
  private waitForIdle(ms: number): Promise<void> {
    const ready = () => this.ended || (this.inbox.idle && this.inflight === null);
    return this.waitOn(this.idleWaiters, ms, ready);
  }

  /**
   * [extension] `daemon_wait`: until the loop waits at an idle boundary
   * with nothing in flight (`idle`), and also no event is queued or being
   * queued (`drained`), or the daemon is no longer running. False when
   * `ms` (null: no limit) passed first; rejects when `signal` aborts.
   */
  async waitUntil(until: WaitUntil, ms: number | null, signal: AbortSignal): Promise<boolean> {
    const ready = () =>
      this.ended ||
      !this.running ||
      (until !== "stopped" && this.inbox.idle && this.inflight === null && (until === "idle" || (this.pending.length === 0 && this.enqueuing === 0)));
    let reached = false;
    await this.waitOn(this.idleWaiters, ms, () => (reached = ready()), signal);
    return reached;
  }

  /** Wait until `ready()` holds (checked now and whenever `set` fires),
   * `ms` passed (null: no limit) or `signal` aborted (rejects). */
  private waitOn(set: Set<() => void>, ms: number | null, ready: () => boolean, signal?: AbortSignal): Promise<void> {
    if (ready()) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const finish = (error?: unknown) => {
        cancelTimer?.();
        set.delete(check);
        signal?.removeEventListener("abort", onAbort);
        if (error === undefined) resolve();
        else reject(error);
      };
      const check = () => {
        if (ready()) finish();
      };
      const onAbort = () => finish(signal!.reason);
      const cancelTimer = ms === null ? null : this.clock.timer(Math.max(0, ms), () => finish());
      signal?.addEventListener("abort", onAbort, { once: true });
      set.add(check);
    });
  }

  /** §4.3 `daemon_stop`. Idempotent; concurrent calls share one stop. */
  stop(): Promise<void> {
    if (this.stopDone) return this.stopDone;
    if (!this.running) return this.released;
    this.stopping = true;
    this.stopDone = (async () => {
      await this.waitForIdle(SETTLE_MS);
      // A commit that acknowledges the event in flight decides its fate.
      await this.committing?.catch(() => undefined);
      if (this.inflight !== null) {
        this.pending.unshift(this.inflight);
        this.inflight = null;
      }
      await this.abortLoop();
      this.status = "stopped";
      await this.close();
    })();
    return this.stopDone;
  }

  /**
   * The store lost the right to change the daemon's state (with a shared
   * store: another process holds its lease now). The loop ends at once and
   * nothing is written: the events are the store's, and the new holder
   * replays the one in flight. Called before the store fails the write
   * that found out, so the loop's error is not the daemon's failure.
   */
  fence(): Promise<void> {
    if (this.stopDone) return this.stopDone;
    this.stopping = true;
    this.stopDone = (async () => {
      this.inflight = null;
      this.pending = [];
      await this.abortLoop();
      this.status = "stopped";
      this.releaseLock();
    })();
    return this.stopDone;
  }

  /** Abort the loop task and wait (up to UNWIND_MS) for it to unwind.
   * Aborting runs the loop's session cleanup (§1.15) in its finally. */
  private async abortLoop(): Promise<void> {
    this.session?.cancel();
    // A referenced timer: while the stop waits, something must keep Node
    // alive, or a loop stuck on an unref'd handle ends the run silently.
    let cancelTimer: (() => void) | undefined;
    await Promise.race([this.loopDone, new Promise<void>((r) => (cancelTimer = this.clock.timer(UNWIND_MS, r)))]);
    cancelTimer?.();
  }

  /** Script end: stop if running, and let every write finish. */
  async shutdown(): Promise<void> {
    try {
      await this.stop();
    } catch {
      // shutdown never throws; the error was the script's to see
    }
    await this.loopDone;
    await this.released;
  }

  private releaseLock(): void {
    this.lock?.release();
    this.lock = null;
    this.markReleased();
  }

  // --- what scripts see ----------------------------------------------------------

  /** The handle / summary dict (§4.3). */
  summary(): HDict {
    const d = this.identity;
    const m = new Map<string, Value>([
      ["id", d.id],
      ["name", d.name],
      ["status", this.status],
      ["session_id", d.sessionId],
      ["persist_path", d.store ? null : d.root],
      ["snapshot_path", d.store ? null : this.snapshotPath],
      ["pending_event_count", this.pending.length],
      ["queued_event_count", this.pending.length + (this.inflight ? 1 : 0)],
      ["event_queue_capacity", d.capacity],
    ]);
    if (d.store) m.set("store", d.store);
    if (this.error !== null) m.set("error", this.error);
    if (this.stopReason !== null) m.set("stop_reason", this.stopReason);
    if (this.result !== null) m.set("result", this.result);
    if (this.committed !== null) {
      m.set("daemon_state", this.committed.daemon_state);
      m.set("saved_at", this.committed.saved_at);
    }
    if (this.inflight !== null) m.set("inflight_event", fromJson(this.inflight));
    return new HDict(m);
  }

  /** `daemon_snapshot` (§4.3): the last snapshot plus the live queue. */
  snapshotDict(): HDict {
    if (this.shown === null || this.shown.from !== this.committed) {
      this.shown = { from: this.committed, dict: snapshotValue(this.committed ?? defaultSnapshot(), this.messageValues) };
    }
    return queueFields(this.shown.dict, {
      pending: this.pending,
      inflight: this.inflight,
      capacity: this.identity.capacity,
      maxIterations: this.identity.maxIterations,
      stopReason: this.stopReason,
    });
  }
}

/** A snapshot dict plus the live queue fields of `daemon_snapshot`, and
 * [extension] the budget (`max_iterations`, `iterations_left`) and
 * `stop_reason` when the daemon stopped by itself. */
export function queueFields(
  base: HDict,
  q: { pending: QueuedEvent[]; inflight: QueuedEvent | null; capacity: number; maxIterations: number; stopReason: string | null },
): HDict {
  const m = new Map(base.map);
  m.set("pending_events", fromJson(q.pending));
  m.set("pending_event_count", q.pending.length);
  m.set("inflight_event", q.inflight ? fromJson(q.inflight) : null);
  m.set("queued_event_count", q.pending.length + (q.inflight ? 1 : 0));
  m.set("event_queue_capacity", q.capacity);
  const used = base.get("total_iterations");
  m.set("max_iterations", q.maxIterations);
  m.set("iterations_left", Math.max(0, q.maxIterations - (typeof used === "number" ? used : 0)));
  if (q.stopReason !== null) m.set("stop_reason", q.stopReason);
  return new HDict(m);
}

/** What the loop receives: the payload itself if it is a string, else its
 * compact JSON (§4.3). */
export function eventText(payload: Json): string {
  return typeof payload === "string" ? payload : stringifyJsonKeepingFloats(payload);
}

export function describe(e: unknown): string {
  if (e instanceof HarnError) return e.description();
  return e instanceof Error ? e.message : String(e);
}

/** The §4.4 metadata of a daemon with this queue. */
function metaOf(d: DaemonIdentity, nextSeq: number, pending: QueuedEvent[]): Meta {
  return {
    _type: "daemon_meta",
    id: d.id,
    name: d.name,
    prompt: d.prompt,
    system: d.system,
    session_id: d.sessionId,
    options: d.storedOptions,
    event_queue_capacity: d.capacity,
    next_event_seq: nextSeq,
    pending_events: pending,
    inflight_event: null,
  };
}
