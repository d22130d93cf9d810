/**
 * A daemon in a PostgreSQL store, as one process sees it
 * (docs/daemons-postgresql.md). Every process that spawns it takes part:
 * the one holding the lease runs it (`active`: a `Daemon` over a
 * `PgStore`); the others stand by (`standby`), try the lease every
 * quarter of `lease_ms` (at once when the runner lets it go) and, once
 * they hold it, run the daemon from the stored snapshot and queue, the
 * in-flight event first. A runner that loses its lease ends its loop
 * without writing and stands by again. `daemon_connect` gives a handle
 * (`connected`) that only feeds and observes.
 *
 * A remote observer cannot tell an event in flight from a pending one:
 * its queue counts and `daemon_wait` (idle and drained alike: the queue
 * is empty) go by the stored queue, which holds an event until the idle
 * commit that handled it.
 */
import { HarnError, HDict, type CallContext, type Runtime, type Value } from "@harn/vm";
import { fromJson, type Json } from "../../../core/json";
import { loopOptions, maxIterationsOf, storedOptions } from "../config";
import { Daemon, queueFields, SETTLE_MS, type DaemonIdentity, type WaitUntil } from "../daemon";
import { defaultSnapshot } from "../files";
import { DAEMON_JOURNAL } from "../journal";
import type { DaemonHandle } from "../registry";
import { snapshotValue } from "../values";
import { CHANNEL, ownerName, type NewsKind, type PgConnection } from "./connection";
import { acquireLease, PgStore, readEvents, readRow, readSnapshot, enqueueEvent, type DaemonRow, type Lease } from "./store";

export type Role = "active" | "standby" | "connected" | "stopped";

/** What a process that spawned the daemon runs it with. */
export interface RunPlan {
  /** A context that outlives `daemon_spawn` (a detached session's). */
  ctx: CallContext;
  /** The config (or its `options` dict): this process's loop options. */
  source: HDict;
  leaseMs: number;
}

export class SharedDaemon implements DaemonHandle {
  role: Role;
  private run: Daemon | null = null;
  private runStore: PgStore | null = null;
  /** The run whose lease was lost (it ends without writing). */
  private fenced: Daemon | null = null;
  /** The last run, kept for the summary once the daemon stopped. */
  private lastRun: Daemon | null = null;
  private readonly owner = ownerName();
  private pollTimer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private acquiring: Promise<void> | null = null;
  private stopping = false;
  private stopDone: Promise<void> | null = null;
  /** Called on every role change and every piece of news. */
  private readonly watchers = new Set<() => void>();
  readonly released: Promise<void>;
  private markReleased!: () => void;
  /** The last stop reason read or seen. */
  private stopReason: string | null;

  constructor(
    readonly conn: PgConnection,
    private row: DaemonRow,
    private readonly plan: RunPlan | null,
    private readonly rt: Runtime,
  ) {
    this.role = plan ? "standby" : "connected";
    this.stopReason = row.stopReason;
    this.released = new Promise<void>((r) => (this.markReleased = r));
    if (!plan) this.markReleased();
  }

  get id(): string {
    return this.row.id;
  }
  get name(): string {
    return this.row.name;
  }
  get place(): string {
    return `${this.conn.shown}#${this.row.name}`;
  }
  get running(): boolean {
    return this.role === "active" || this.role === "standby";
  }
  private get pollMs(): number {
    return Math.min(1000, Math.max(25, Math.floor(this.plan!.leaseMs / 4)));
  }

  /** Take part: run the daemon if its lease is free, else stand by. */
  async begin(): Promise<void> {
    this.unsubscribe = this.conn.subscribe(this.name, (k) => this.news(k));
    // News must not be missed between the first look and the LISTEN.
    await this.conn.listen().catch(() => undefined);
    await this.tryTakeOver(true);
    if (this.role === "standby") this.schedulePoll();
    else if (this.run) await this.run.waitForSnapshot(SETTLE_MS);
  }

  private news(kind: NewsKind): void {
    if (kind === "e") this.runStore?.refill().catch(() => undefined);
    if (kind === "l" && this.role === "standby") void this.tryTakeOver(false);
    this.changed();
  }

  private changed(): void {
    for (const w of [...this.watchers]) w();
  }

  private schedulePoll(): void {
    if (this.pollTimer !== null || this.role !== "standby") return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = null;
      void this.tryTakeOver(false).finally(() => this.schedulePoll());
    }, this.pollMs);
  }

  /** One attempt at the lease; `clear`: an explicit spawn, which also
   * restarts a daemon that stopped by itself. */
  private tryTakeOver(clear: boolean): Promise<void> {
    if (this.acquiring) return this.acquiring;
    if (this.role !== "standby" || this.stopping) return Promise.resolve();
    this.acquiring = (async () => {
      try {
        const lease = await acquireLease(this.conn, this.name, this.owner, this.plan!.leaseMs, clear);
        if (lease !== null) await this.activate(lease);
      } catch (e) {
        // The first attempt's failure is daemon_spawn's; later ones are
        // retried at the next poll.
        if (clear) throw e;
      } finally {
        this.acquiring = null;
      }
    })();
    return this.acquiring;
  }

  private async activate(lease: Lease): Promise<void> {
    const plan = this.plan!;
    let store: PgStore | null = null;
    try {
      const row = await readRow(this.conn, this.name);
      if (row === null) throw this.conn.error(new Error(`daemon '${this.name}' was removed`));
      this.row = row;
      const snapshot = await readSnapshot(this.conn.pool, this.name);
      const events = await readEvents(this.conn.pool, this.name);
      // Sequence numbers have no gaps: the next event after these is
      // row.nextSeq or later (a later one queued meanwhile is fetched).
      const last = Math.max(events.at(-1)?.seq ?? 0, row.nextSeq - 1);
      store = new PgStore(this.conn, this.name, lease, last, () => this.lostLease());
      await store.loadSizes();
      if (this.stopping) throw new Error("stopping");
      const h = row.header;
      const options = loopOptions(plan.source, null, h.session_id, null);
      const identity: DaemonIdentity = {
        id: row.id,
        name: row.name,
        prompt: h.prompt,
        system: h.system,
        sessionId: h.session_id,
        capacity: row.capacity,
        root: this.place,
        store: this.conn.shown,
        storedOptions: storedOptions(options),
        maxIterations: maxIterationsOf(options),
      };
      const daemon = new Daemon(identity, options, { pending: events, nextSeq: row.nextSeq, snapshot }, store, null, this.rt, this.rt.slot(DAEMON_JOURNAL));
      // As a resume: the first event (the one in flight when the last
      // runner ended, if any) is handed over before the loop starts.
      daemon.inbox.idle = true;
      daemon.deliver();
      this.run = daemon;
      this.runStore = store;
      this.role = "active";
      this.stopReason = null;
      daemon.start(plan.ctx);
      void daemon.released.then(() => this.runEnded(daemon));
      this.changed();
    } catch (e) {
      // Let the lease go: another process may do better.
      await this.conn
        .query(
          `UPDATE harn_daemons SET lease_owner = NULL, lease_expires_at = NULL WHERE name = $1 AND lease_generation = $2;`,
          [this.name, lease.generation],
        )
        .then(() => this.conn.query(`SELECT pg_notify('${CHANNEL}', $1)`, ["l" + this.name]))
        .catch(() => undefined);
      if (!this.stopping) throw e;
    }
  }

  /** The store found the lease gone: end the run without writing. */
  private lostLease(): void {
    const run = this.run;
    if (run === null) return;
    this.fenced = run;
    void run.fence();
  }

  /** The run ended: stopped, fenced, or the loop ended by itself. */
  private runEnded(daemon: Daemon): void {
    if (this.run !== daemon) return;
    this.run = null;
    this.runStore = null;
    if (this.stopping) return;
    if (this.fenced !== daemon) {
      // It stopped by itself: it stays stopped everywhere until spawned again.
      this.lastRun = daemon;
      this.stopReason = daemon.stopReason;
      this.finish();
      return;
    }
    this.role = "standby";
    this.changed();
    this.schedulePoll();
  }

  private finish(): void {
    this.role = "stopped";
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.markReleased();
    this.changed();
  }

  // --- DaemonHandle ----------------------------------------------------------------

  async trigger(payload: Json): Promise<void> {
    const run = this.run;
    if (run?.running && !run.stopping) return run.trigger(payload);
    if (this.role === "stopped") {
      throw this.lastRun ? this.lastRun.notRunning("daemon_trigger") : HarnError.runtime(`daemon_trigger: daemon ${this.id} is not running`);
    }
    const { queued } = await enqueueEvent(this.conn, this.name, payload);
    this.justQueued = queued;
  }

  /** The queue length the last remote trigger saw (its summary needs no
   * other round trip). */
  private justQueued: number | null = null;

  stop(): Promise<void> {
    if (this.stopDone) return this.stopDone;
    if (this.role === "connected" || this.role === "stopped") return Promise.resolve();
    this.stopping = true;
    this.stopDone = (async () => {
      if (this.pollTimer) clearTimeout(this.pollTimer);
      this.pollTimer = null;
      await this.acquiring?.catch(() => undefined);
      const run = this.run;
      if (run) {
        this.lastRun = run;
        try {
          await run.stop();
        } finally {
          this.run = null;
          this.runStore = null;
        }
      }
      this.finish();
    })();
    return this.stopDone;
  }

  async shutdown(): Promise<void> {
    try {
      await this.stop();
    } catch {
      // the script saw it, or it has ended
    }
    await this.released;
  }

  async summary(): Promise<HDict> {
    if (this.run) return this.run.summary().with("runner", this.owner);
    const just = this.justQueued;
    this.justQueued = null;
    const row = just === null ? await readRow(this.conn, this.name) : this.row;
    if (row !== null) this.row = row;
    const queued = just ?? row?.queued ?? 0;
    const status = this.role === "connected" ? (row?.leased ? "running" : "stopped") : this.role === "stopped" && this.lastRun?.status === "failed" ? "failed" : this.role;
    const m = new Map<string, Value>([
      ["id", this.id],
      ["name", this.name],
      ["status", status],
      ["session_id", this.row.header.session_id],
      ["persist_path", null],
      ["snapshot_path", null],
      ["pending_event_count", queued],
      ["queued_event_count", queued],
      ["event_queue_capacity", this.row.capacity],
      ["store", this.conn.shown],
      ["runner", row?.leased ? row.leaseOwner : null],
    ]);
    const reason = row?.stopReason ?? this.stopReason;
    if (this.lastRun?.error) m.set("error", this.lastRun.error);
    if (reason !== null) m.set("stop_reason", reason);
    if (this.lastRun?.result) m.set("result", this.lastRun.result);
    return new HDict(m);
  }

  async snapshotDict(): Promise<HDict> {
    if (this.run) return this.run.snapshotDict();
    const row = (await readRow(this.conn, this.name)) ?? this.row;
    const snapshot = await readSnapshot(this.conn.pool, this.name);
    const events = await readEvents(this.conn.pool, this.name);
    const stored = fromJson(row.header.options);
    const options = stored instanceof HDict ? stored : HDict.empty();
    return queueFields(snapshotValue(snapshot ?? defaultSnapshot(), new WeakMap()), {
      pending: events,
      inflight: null,
      capacity: row.capacity,
      maxIterations: maxIterationsOf(options),
      stopReason: row.stopReason,
    });
  }

  async waitUntil(until: WaitUntil, ms: number | null, signal: AbortSignal): Promise<boolean> {
    const deadline = ms === null ? null : performance.now() + ms;
    const left = () => (deadline === null ? null : Math.max(0, deadline - performance.now()));
    let unsubscribe: (() => void) | null = null;
    try {
      for (;;) {
        const run = this.run;
        if (run) {
          if (!(await run.waitUntil(until, left(), signal))) return false;
          if (until !== "stopped" && run.running && !run.stopping) return true;
          // The run ended or is ending (stopped, or fenced: then this
          // process stands by again and the wait goes on).
          await run.released;
          continue;
        }
        if (this.role === "stopped") return true;
        if (this.role === "connected" && !unsubscribe) unsubscribe = this.conn.subscribe(this.name, () => this.changed());
        if (this.role === "connected" || until !== "stopped") {
          const r = (await this.conn.query<{ queued: number; stop_reason: string | null; leased: boolean }>(
            "SELECT queued, stop_reason, (lease_owner IS NOT NULL AND lease_expires_at > clock_timestamp()) AS leased FROM harn_daemons WHERE name = $1",
            [this.name],
          ))[0];
          if (!r || r.stop_reason !== null) return true;
          if (until === "stopped" ? !r.leased : r.queued === 0) return true;
        }
        const rest = left();
        if (rest === 0) return false;
        // Notifications wake the wait; the poll covers news lost while
        // the LISTEN connection was down.
        await this.nextChange(Math.min(rest ?? 1000, 1000), signal);
      }
    } finally {
      unsubscribe?.();
    }
  }

  private nextChange(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const done = (error?: unknown) => {
        clearTimeout(timer);
        this.watchers.delete(wake);
        signal.removeEventListener("abort", onAbort);
        if (error === undefined) resolve();
        else reject(error);
      };
      const wake = () => done();
      const onAbort = () => done(signal.reason);
      const timer = setTimeout(wake, ms);
      this.watchers.add(wake);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}
