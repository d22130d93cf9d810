/**
 * One daemon (spec/agents.md §4.3–§4.5): an agent loop in daemon mode
 * running as a detached background task, plus the durable bounded FIFO
 * trigger queue in front of it.
 *
 * Queue invariants:
 * - `daemon_trigger` appends and returns only after a metadata commit that
 *   includes the event is durable; only durable events are delivered.
 * - At most one event is in flight; events are handed over strictly in
 *   sequence order, one per idle boundary (the loop waiting with a
 *   snapshot of its state already on disk).
 * - An in-flight event is cleared once a later snapshot shows a model turn
 *   after the delivery (its `total_iterations` grew), so a snapshot on
 *   disk is always from before or after an event, never half-way.
 *   [TS decision] §4.3 also clears it when only `saved_at` changed; that
 *   drops an event the loop never answered (the final snapshot of a loop
 *   that ran out of `max_iterations` right after the wake), so here such
 *   an event stays in flight and is replayed on resume (§4.5
 *   at-least-once).
 * - Stop, a crash or a restart re-queue the in-flight event at the front
 *   (at-least-once). The delivery itself need not be durable before the
 *   hand-over: an event in flight and an event at the head of the pending
 *   list resume identically.
 *
 * Delivery is event-driven: a trigger delivers right after its event is
 * durable, and the loop's idle hook delivers the next pending event. The
 * reference polls with a 10 ms "delivery monitor"; here there is no timer
 * at all (nothing to clear on stop, nothing that could keep Node alive, no
 * latency floor), with the same observable order.
 *
 * Crash points (SIGKILL): mid-write leaves a stale `.tmp` and the old file;
 * between a snapshot rename and the metadata rename the snapshot is newer,
 * which can only replay the in-flight event; after delivery and before the
 * next snapshot the event is replayed on resume. No point loses a durable
 * event or reorders first handling.
 */
import type { DaemonJournal, DaemonJournalEntry } from "./journal";
import { join } from "node:path";
import { HarnError, HDict, HDuration, HFloat, realClock, type CallContext, type Clock, type SessionCallContext, type Value } from "@harn/vm";
import { parseJsonKeepingFloats, stringifyJsonKeepingFloats } from "../../core/json";
import { floatToJson, fromJson, type Json, type JsonObject } from "../json";
import { runAgentLoop } from "../loop/start";
import { DirectoryWriter } from "./durable";
import { defaultSnapshot, encodeState, META_FILE, nowRfc3339, SNAPSHOT_FILE, type Meta, type QueuedEvent } from "./files";
import { DaemonInbox } from "./inbox";
import type { RootLock } from "./lock";
import type { DaemonHost, SavedSnapshot } from "./mode";

export type DaemonStatus = "running" | "stopped" | "failed";

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
  /** Absolute root directory. */
  root: string;
}

/** The queue and snapshot a daemon starts from (empty for a new one). */
export interface DaemonState {
  pending: QueuedEvent[];
  nextSeq: number;
  snapshot: SavedSnapshot | null;
}

export class Daemon implements DaemonHost {
  readonly inbox = new DaemonInbox();
  readonly writer: DirectoryWriter;
  status: DaemonStatus = "running";
  stopping = false;
  error: string | null = null;
  result: HDict | null = null;
  pending: QueuedEvent[];
  inflight: QueuedEvent | null = null;
  /** `total_iterations` of the snapshot current at delivery. */
  private inflightMark = 0;
  private nextSeq: number;
  /** Highest sequence number known to be on disk. */
  private durableSeq: number;
  snapshot: SavedSnapshot | null;
  private session: SessionCallContext | null = null;
  private loopDone: Promise<void> = Promise.resolve();
  private stopDone: Promise<void> | null = null;
  /** The loop task has finished (however it ended). */
  private ended = false;
  private readonly snapshotWaiters = new Set<() => void>();
  private readonly idleWaiters = new Set<() => void>();
  /** Last failure of a metadata write nobody awaited (delivery, clear). */
  private backgroundError: string | null = null;
  /** An unawaited metadata write is scheduled for the next macrotask. */
  private laterScheduled = false;
  /** The options as the metadata stores them (computed once). */
  private readonly stored: JsonObject;
  /** The parsed form of `snapshot.text` (dicts are immutable values, so
   * repeated `daemon_snapshot` calls share it). */
  private parsed: { text: string; dict: HDict } | null = null;
  /** Resolves once the loop has ended, every write settled and the lock is
   * released: the root may then be spawned or resumed again. */
  readonly released: Promise<void>;
  private markReleased!: () => void;

  constructor(
    readonly identity: DaemonIdentity,
    /** The agent-loop options (daemon keys forced). */
    readonly options: HDict,
    state: DaemonState,
    private lock: RootLock | null,
    /** Times the settle and unwind waits of stop (the runtime's clock: they
     * race the script's own waits, virtual under `harn test --deterministic`). */
    private readonly clock: Clock = realClock,
    /** Where durable queue changes are reported (`harn test --crash-points`). */
    private readonly journal: DaemonJournal = { record: null },
  ) {
    this.writer = new DirectoryWriter(identity.root);
    this.pending = state.pending;
    this.nextSeq = state.nextSeq;
    this.durableSeq = state.nextSeq - 1;
    this.snapshot = state.snapshot;
    this.stored = storedOptions(options);
    this.released = new Promise<void>((r) => (this.markReleased = r));
  }

  get id(): string {
    return this.identity.id;
  }
  get snapshotPath(): string {
    return join(this.identity.root, SNAPSHOT_FILE);
  }
  get metaPath(): string {
    return join(this.identity.root, META_FILE);
  }
  get running(): boolean {
    return this.status === "running";
  }

  // --- files -----------------------------------------------------------------

  meta(): Meta {
    const d = this.identity;
    return {
      _type: "daemon_meta",
      id: d.id,
      name: d.name,
      prompt: d.prompt,
      system: d.system,
      session_id: d.sessionId,
      options: this.stored,
      event_queue_capacity: d.capacity,
      next_event_seq: this.nextSeq,
      pending_events: this.pending,
      inflight_event: this.inflight,
    };
  }

  /** Commit the metadata as it is when the commit starts. */
  persistMeta(): Promise<void> {
    return this.writer.write(META_FILE, "meta", () => encodeState(this.meta()));
  }

  /** A metadata write nobody waits for (delivery, reconciliation): the
   * state it records may be lost without losing an event (see the header).
   * Deferred to the next macrotask, so the reconciliation of one event and
   * the delivery of the next (same tick) share one commit. */
  private persistMetaLater(): void {
    if (this.laterScheduled) return;
    this.laterScheduled = true;
    setImmediate(() => {
      this.laterScheduled = false;
      const cleared = this.cleared.splice(0);
      // The completion is durable somewhere between these two records.
      for (const seq of cleared) this.note("completing", seq);
      this.persistMeta().then(
        () => {
          this.backgroundError = null;
          for (const seq of cleared) this.note("complete", seq);
          if (cleared.length > 0) this.clock.boundary("daemon completion persisted");
        },
        (e: unknown) => (this.backgroundError = describe(e)),
      );
    });
  }

  // --- the queue ---------------------------------------------------------------

  /** Events reconciled as handled whose metadata commit is still to come. */
  private readonly cleared: number[] = [];

  private note(op: DaemonJournalEntry["op"], seq: number): void {
    this.journal.record?.({ op, root: this.identity.root, seq });
  }

  /** §4.3 `daemon_trigger` steps 2–5; resolves once the event is durable. */
  async trigger(payload: Json): Promise<void> {
    if (!this.running) throw HarnError.runtime(`daemon_trigger: daemon ${this.id} is not running`);
    const cap = this.identity.capacity;
    if (this.pending.length + (this.inflight ? 1 : 0) >= cap) throw HarnError.daemonQueueFull(this.id, cap);
    const event: QueuedEvent = { seq: this.nextSeq++, enqueued_at: nowRfc3339(), payload };
    this.pending.push(event);
    try {
      await this.persistMeta();
    } catch (e) {
      // Not durable: the trigger failed and the event is withdrawn.
      const i = this.pending.indexOf(event);
      if (i >= 0) this.pending.splice(i, 1);
      throw e;
    }
    if (event.seq > this.durableSeq) this.durableSeq = event.seq;
    this.note("trigger", event.seq);
    this.clock.boundary("daemon trigger persisted");
    this.deliver();
  }

  /** Hand the oldest durable event to an idle loop (§4.3 "Delivery"). */
  deliver(): boolean {
    if (!this.running || this.stopping || this.inflight !== null || !this.inbox.idle) return false;
    const head = this.pending[0];
    if (!head || head.seq > this.durableSeq) return false;
    this.pending.shift();
    this.inflight = head;
    this.inflightMark = this.snapshot?.totalIterations ?? 0;
    this.persistMetaLater();
    this.inbox.deliver(eventText(head.payload));
    this.note("deliver", head.seq);
    this.clock.boundary("daemon event delivered");
    return true;
  }

  // --- DaemonHost (called by the loop) -------------------------------------------

  snapshotSaved(snapshot: SavedSnapshot): void {
    this.snapshot = snapshot;
    // Reconciliation: a model turn ran since the hand-over.
    if (this.inflight !== null && snapshot.totalIterations > this.inflightMark) {
      this.cleared.push(this.inflight.seq);
      this.inflight = null;
      this.persistMetaLater();
    }
    for (const w of [...this.snapshotWaiters]) w();
  }

  becameIdle(): void {
    for (const w of [...this.idleWaiters]) w();
    this.deliver();
  }

  // --- lifecycle ---------------------------------------------------------------

  /** Start the loop task. `resumeSnapshot`: continue from the snapshot on
   * disk rather than from the task. */
  start(ctx: CallContext, resumeSnapshot: boolean): void {
    const session = ctx.inSession ? ctx.inSession(this.identity.sessionId, { detached: true }) : null;
    this.session = session;
    let options = this.options;
    if (resumeSnapshot) options = options.with("resume_path", this.snapshotPath);
    this.loopDone = runAgentLoop(session ?? ctx, {
      task: this.identity.prompt,
      system: this.identity.system,
      options,
      daemonHost: this,
      // Background work: the host's Ctrl-C does not cut a turn short (it
      // ends the program, and shutdown stops the daemon at a boundary).
      background: true,
    }).then(
      (result) => {
        this.result = result;
        if (this.status === "running") this.status = "stopped";
      },
      (e: unknown) => {
        if (this.stopping) return;
        this.status = "failed";
        this.error = describe(e);
      },
    );
    void this.loopDone.then(() => this.loopEnded());
  }

  /** The loop ended by itself (or was aborted by `stop`). */
  private loopEnded(): void {
    this.ended = true;
    for (const w of [...this.snapshotWaiters, ...this.idleWaiters]) w();
    if (this.stopping) return; // stop() persists and unlocks
    this.persistMeta().then(
      () => this.releaseLock(),
      (e: unknown) => {
        this.backgroundError = describe(e);
        this.releaseLock();
      },
    );
  }

  /** Resolves when a snapshot is saved, the loop ends, or after `ms`. */
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

  /** Wait until `ready()` holds (checked now and whenever `set` fires)
   * or `ms` passed. */
  private waitOn(set: Set<() => void>, ms: number, ready: () => boolean): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const finish = () => {
        cancelTimer();
        set.delete(check);
        resolve();
      };
      const check = () => {
        if (ready()) finish();
      };
      const cancelTimer = this.clock.timer(ms, finish);
      set.add(check);
    });
  }

  /** §4.3 `daemon_stop`. Idempotent; concurrent calls share one stop. */
  stop(): Promise<void> {
    if (this.stopDone) return this.stopDone;
    if (!this.running) return Promise.resolve();
    this.stopping = true;
    this.stopDone = (async () => {
      await this.persistMeta().catch(() => undefined);
      await this.waitForIdle(SETTLE_MS);
      if (this.inflight !== null) {
        this.pending.unshift(this.inflight);
        this.inflight = null;
      }
      // Aborting runs the loop's session cleanup (§1.15) in its finally.
      this.session?.cancel();
      // A referenced timer: while the stop waits, something must keep Node
      // alive, or a loop stuck on an unref'd handle ends the run silently.
      let cancelTimer: (() => void) | undefined;
      await Promise.race([this.loopDone, new Promise<void>((r) => (cancelTimer = this.clock.timer(UNWIND_MS, r)))]);
      cancelTimer?.();
      this.status = "stopped";
      try {
        await this.persistMeta();
      } finally {
        await this.writer.settled();
        this.releaseLock();
      }
    })();
    return this.stopDone;
  }

  /** Script end: stop if running, and let every write finish. */
  async shutdown(): Promise<void> {
    try {
      await this.stop();
    } catch {
      // shutdown never throws; the error was the script's to see
    }
    await this.loopDone;
    await this.writer.settled();
    this.releaseLock();
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
      ["persist_path", d.root],
      ["snapshot_path", this.snapshotPath],
      ["pending_event_count", this.pending.length],
      ["queued_event_count", this.pending.length + (this.inflight ? 1 : 0)],
      ["event_queue_capacity", d.capacity],
    ]);
    const error = this.error ?? this.backgroundError;
    if (error !== null) m.set("error", error);
    if (this.result !== null) m.set("result", this.result);
    if (this.snapshot !== null) {
      m.set("daemon_state", this.snapshot.state);
      m.set("saved_at", this.snapshot.savedAt);
    }
    if (this.inflight !== null) m.set("inflight_event", fromJson(this.inflight));
    return new HDict(m);
  }

  /** `daemon_snapshot` (§4.3): the last snapshot plus the live queue. */
  snapshotDict(): HDict {
    let base: HDict;
    if (this.snapshot === null) base = fromJson(defaultSnapshot()) as HDict;
    else if (this.parsed?.text === this.snapshot.text) base = this.parsed.dict;
    else {
      base = fromJson(parseJsonKeepingFloats(this.snapshot.text) as JsonObject) as HDict;
      this.parsed = { text: this.snapshot.text, dict: base };
    }
    const m = new Map(base.map);
    m.set("pending_events", fromJson(this.pending));
    m.set("pending_event_count", this.pending.length);
    m.set("inflight_event", this.inflight ? fromJson(this.inflight) : null);
    m.set("queued_event_count", this.pending.length + (this.inflight ? 1 : 0));
    m.set("event_queue_capacity", this.identity.capacity);
    return new HDict(m);
  }
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

/** Options as stored in the metadata: data only (closures such as tool
 * handlers cannot be stored; `daemon_resume(path, options)` supplies them
 * again). */
export function storedOptions(options: HDict): JsonObject {
  return (dataOnly(options) ?? {}) as JsonObject;
}

function dataOnly(v: Value): Json | undefined {
  if (v === null || typeof v === "string" || typeof v === "boolean" || typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (Array.isArray(v)) return v.map((x) => dataOnly(x) ?? null);
  if (v instanceof HDict) {
    const o: JsonObject = {};
    for (const k of v.keys()) {
      const d = dataOnly(v.get(k));
      if (d !== undefined) o[k] = d;
    }
    return o;
  }
  if (v instanceof HFloat) return floatToJson(v);
  if (v instanceof HDuration) return v.ms;
  // closures, builtin references and other host objects are dropped
  return undefined;
}
