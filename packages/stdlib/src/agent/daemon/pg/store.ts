/**
 * A daemon's state in PostgreSQL (schema.ts): the queue every process
 * reads and feeds, and the store of the one process that runs the daemon
 * (`PgStore`), which holds its lease.
 *
 * Queue: a trigger is one statement (its own transaction): it locks the
 * daemon's row, takes the next sequence number, checks the capacity and
 * inserts the event, and notifies listeners at commit. The row lock makes
 * triggers of one daemon commit in sequence order, so a reader that has
 * seen event N has seen every event before it: the runner fetches
 * `seq > last seen`.
 *
 * Lease and fencing: the runner holds a lease, a generation number and an
 * expiry by the server's clock (so machines' clocks need not agree). It
 * renews the lease every third of `lease_ms`, and every write it makes
 * first checks (and renews) its generation in the same transaction: a
 * runner that lost the lease (a standby took over while it was stopped or
 * cut off) cannot commit anything, and learns so from that failure. It
 * also hands an event to its loop only while its own clock says the lease
 * cannot have lapsed (counted from when the renewal was sent), so a
 * runner that was stopped for longer than `lease_ms` delivers nothing
 * before it has checked.
 */
import type { ClientBase } from "pg";
import { HarnError } from "@harn/vm";
import { type Json, type JsonObject, parseJsonKeepingFloats, stringifyJsonKeepingFloats } from "../../../core/json";
import { applyDelta, frozenSnapshot } from "../delta";
import { COMPACT_MIN_BYTES } from "../file-store";
import { defaultSnapshot, metaFromObject, nowRfc3339, snapshotFromObject, type MetaHeader, type QueuedEvent, type Snapshot } from "../files";
import type { DaemonRecord, DaemonStore, StoreListener } from "../store";
import { CHANNEL, type PgConnection } from "./connection";

type Querier = Pick<ClientBase, "query"> | PgConnection["pool"];

export interface DaemonRow {
  name: string;
  id: string;
  header: MetaHeader;
  capacity: number;
  nextSeq: number;
  /** Events in the queue (pending and in flight). */
  queued: number;
  stopReason: string | null;
  /** Someone holds an unexpired lease. */
  leased: boolean;
  leaseOwner: string | null;
  leaseGeneration: number;
}

const ROW_COLUMNS = `name, id, header, capacity, next_seq::float8 AS next_seq, queued, stop_reason, lease_owner, lease_generation::float8 AS lease_generation,
  (lease_owner IS NOT NULL AND lease_expires_at > clock_timestamp()) AS leased`;

interface RawRow {
  name: string;
  id: string;
  header: string;
  capacity: number;
  next_seq: number;
  queued: number;
  stop_reason: string | null;
  lease_owner: string | null;
  lease_generation: number;
  leased: boolean;
}

function parseJson(text: string, what: string): Json {
  try {
    return parseJsonKeepingFloats(text, { exactInts: true }) as Json;
  } catch (e) {
    throw new Error(`${what} is not valid JSON: ${(e as { message?: string }).message ?? String(e)}`);
  }
}

function toRow(r: RawRow): DaemonRow {
  const h = parseJson(r.header, `daemon '${r.name}' header`) as JsonObject;
  const meta = metaFromObject(h, `daemon '${r.name}'`);
  const { next_event_seq: _n, pending_events: _p, inflight_event: _i, ...header } = meta;
  return {
    name: r.name,
    id: r.id,
    header,
    capacity: r.capacity,
    nextSeq: r.next_seq,
    queued: r.queued,
    stopReason: r.stop_reason,
    leased: r.leased,
    leaseOwner: r.lease_owner,
    leaseGeneration: r.lease_generation,
  };
}

export async function readRow(conn: PgConnection, name: string): Promise<DaemonRow | null> {
  const rows = await conn.query<RawRow>(`SELECT ${ROW_COLUMNS} FROM harn_daemons WHERE name = $1`, [name]);
  try {
    return rows[0] ? toRow(rows[0]) : null;
  } catch (e) {
    throw conn.error(e);
  }
}

/** Create the row of a new daemon; false if one of that name exists. */
export async function createRow(conn: PgConnection, header: MetaHeader): Promise<boolean> {
  const rows = await conn.query(
    "INSERT INTO harn_daemons (name, id, header, capacity) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING RETURNING 1",
    [header.name, header.id, stringifyJsonKeepingFloats(header as unknown as JsonObject), header.event_queue_capacity],
  );
  return rows.length === 1;
}

/** Discard daemon `name` (its queue and state) unless someone holds its
 * lease; false if someone does. */
export async function deleteRow(conn: PgConnection, name: string): Promise<boolean> {
  const rows = await conn.query<{ leased: boolean }>(
    `WITH d AS (DELETE FROM harn_daemons WHERE name = $1 AND NOT (lease_owner IS NOT NULL AND lease_expires_at > clock_timestamp()) RETURNING 1)
     SELECT (SELECT count(*) FROM d) = 0 AND EXISTS (SELECT 1 FROM harn_daemons WHERE name = $1) AS leased`,
    [name],
  );
  return rows[0]?.leased !== true;
}

/** Durably queue `payload` for daemon `name` (§4.3 trigger steps 3–4):
 * the event and the queue's length after it. */
export async function enqueueEvent(conn: PgConnection, name: string, payload: Json): Promise<{ event: QueuedEvent; queued: number }> {
  const enqueuedAt = nowRfc3339();
  const rows = await conn.query<{ seq: number; queued: number }>(
    `WITH d AS (
       UPDATE harn_daemons SET next_seq = next_seq + 1, queued = queued + 1, updated_at = now()
       WHERE name = $1 AND queued < capacity AND stop_reason IS NULL
       RETURNING next_seq - 1 AS seq, queued),
     e AS (INSERT INTO harn_daemon_events (daemon, seq, enqueued_at, payload) SELECT $1, seq, $2, $3 FROM d RETURNING seq)
     SELECT e.seq::float8 AS seq, d.queued, pg_notify('${CHANNEL}', 'e' || $1) FROM e, d`,
    [name, enqueuedAt, stringifyJsonKeepingFloats(payload)],
  );
  const r = rows[0];
  if (r) return { event: { seq: r.seq, enqueued_at: enqueuedAt, payload }, queued: r.queued };
  const row = await readRow(conn, name);
  if (row === null) throw HarnError.runtime(`daemon_trigger: no daemon '${name}' in ${conn.shown}`);
  if (row.stopReason !== null) throw HarnError.runtime(`daemon_trigger: daemon ${row.id} is not running (stop_reason: ${row.stopReason})`);
  throw HarnError.daemonQueueFull(row.id, row.capacity);
}

/** The queue of daemon `name` after sequence number `after`, in order. */
export async function readEvents(q: Querier, name: string, after = 0): Promise<QueuedEvent[]> {
  const r = await q.query<{ seq: number; enqueued_at: string; payload: string }>(
    "SELECT seq::float8 AS seq, enqueued_at, payload FROM harn_daemon_events WHERE daemon = $1 AND seq > $2 ORDER BY seq",
    [name, after],
  );
  return r.rows.map((e) => ({ seq: e.seq, enqueued_at: e.enqueued_at, payload: parseJson(e.payload, `daemon '${name}' event ${e.seq}`) }));
}

/** The committed snapshot of daemon `name`: its checkpoint with every
 * delta since applied (as the file store's journal replays), or null. */
export async function readSnapshot(q: Querier, name: string): Promise<Snapshot | null> {
  const c = await q.query<{ checkpoint: string | null }>("SELECT checkpoint FROM harn_daemons WHERE name = $1", [name]);
  const text = c.rows[0]?.checkpoint ?? null;
  let work: Snapshot | null = text === null ? null : frozenSnapshot(snapshotFromObject(parseJson(text, `daemon '${name}' snapshot`) as JsonObject, `daemon '${name}'`));
  const deltas = await q.query<{ delta: string }>("SELECT delta FROM harn_daemon_deltas WHERE daemon = $1 ORDER BY n", [name]);
  for (const d of deltas.rows) {
    work ??= { ...defaultSnapshot(), saved_at: "" };
    applyDelta(work, parseJson(d.delta, `daemon '${name}' snapshot delta`) as JsonObject);
  }
  return work === null ? null : snapshotFromObject(work as unknown as JsonObject, `daemon '${name}'`);
}

export interface Lease {
  generation: number;
  owner: string;
  ms: number;
  /** performance.now() when the request that took it was sent. */
  sentAt: number;
}

/** Take the lease of daemon `name` if nobody holds it: its generation,
 * or null. `clear`: also clear a stop reason (an explicit spawn). */
export async function acquireLease(conn: PgConnection, name: string, owner: string, ms: number, clear: boolean): Promise<Lease | null> {
  const sentAt = performance.now();
  const rows = await conn.query<{ generation: number }>(
    `UPDATE harn_daemons SET lease_generation = lease_generation + 1, lease_owner = $2,
       lease_expires_at = clock_timestamp() + $3::int * interval '1 millisecond', stop_reason = NULL, updated_at = now()
     WHERE name = $1 AND (lease_owner IS NULL OR lease_expires_at <= clock_timestamp()) AND (stop_reason IS NULL OR $4)
     RETURNING lease_generation::float8 AS generation`,
    [name, owner, ms, clear],
  );
  return rows[0] ? { generation: rows[0].generation, owner, ms, sentAt } : null;
}

/** The store of the process that runs daemon `name` under `lease`. */
export class PgStore implements DaemonStore {
  private listener: StoreListener | null = null;
  /** performance.now() until which the lease surely holds. */
  private validUntil: number;
  private renewTimer: NodeJS.Timeout | null = null;
  private renewing: Promise<void> | null = null;
  private lost = false;
  private closed = false;
  private fetching: Promise<void> = Promise.resolve();
  private nextFetch: Promise<void> | null = null;
  private readonly writes = new Set<Promise<unknown>>();
  private deltaBytes = 0;
  private checkpointBytes = 0;

  constructor(
    readonly conn: PgConnection,
    readonly name: string,
    readonly lease: Lease,
    /** The highest sequence number the daemon was given. */
    private lastSeq: number,
    /** Called once, when a write or renewal finds the lease gone. */
    private readonly onLost: () => void,
  ) {
    this.validUntil = lease.sentAt + lease.ms;
    this.scheduleRenew();
  }

  /** Sizes of the stored checkpoint and deltas (compaction's measure). */
  async loadSizes(): Promise<void> {
    const r = await this.conn.query<{ c: number; d: number }>("SELECT checkpoint_bytes::float8 AS c, delta_bytes::float8 AS d FROM harn_daemons WHERE name = $1", [this.name]);
    this.checkpointBytes = r[0]?.c ?? 0;
    this.deltaBytes = r[0]?.d ?? 0;
  }

  attach(listener: StoreListener): void {
    this.listener = listener;
  }

  get holding(): boolean {
    return !this.lost && !this.closed;
  }

  mayDeliver(): boolean {
    if (!this.holding) return false;
    if (performance.now() < this.validUntil - this.lease.ms / 10) return true;
    // Check with the server before handing anything over.
    void this.renew();
    return false;
  }

  /** One round trip: the event comes back from the statement that
   * queued it, and when it directly follows the last one seen (no other
   * process queued one in between) it goes to the daemon as it is;
   * otherwise a fetch brings it with the ones before it. */
  async enqueue(payload: Json): Promise<QueuedEvent> {
    const { event } = await enqueueEvent(this.conn, this.name, payload);
    if (event.seq === this.lastSeq + 1 && this.holding) {
      this.lastSeq = event.seq;
      this.listener?.queued([event]);
    } else if (event.seq > this.lastSeq) await this.refill();
    return event;
  }

  /** Fetch events queued since the last fetch and hand them to the
   * daemon. Fetches run one at a time; a call made while one runs gets
   * the next one, which sees everything committed before the call. */
  refill(): Promise<void> {
    if (this.nextFetch !== null) return this.nextFetch;
    const next = this.fetching.then(() => {
      this.nextFetch = null;
      return this.fetchNew();
    });
    this.nextFetch = next;
    this.fetching = next.catch(() => undefined);
    return next;
  }

  private async fetchNew(): Promise<void> {
    if (!this.holding) return;
    let events: QueuedEvent[];
    try {
      events = await readEvents(this.conn.pool, this.name, this.lastSeq);
    } catch (e) {
      throw this.conn.error(e);
    }
    // Events queued by this process may have been handed over meanwhile.
    const fresh = events.filter((e) => e.seq > this.lastSeq);
    if (fresh.length === 0 || !this.holding) return;
    this.lastSeq = fresh[fresh.length - 1]!.seq;
    this.listener?.queued(fresh);
  }

  private scheduleRenew(): void {
    if (!this.holding) return;
    this.renewTimer = setTimeout(() => {
      this.renewTimer = null;
      void this.renew().finally(() => this.scheduleRenew());
    }, Math.max(50, Math.floor(this.lease.ms / 3)));
  }

  /** Extend the lease (one at a time). */
  renew(): Promise<void> {
    if (this.renewing) return this.renewing;
    this.renewing = (async () => {
      try {
        const sentAt = performance.now();
        const rows = await this.conn.query(
          `UPDATE harn_daemons SET lease_expires_at = clock_timestamp() + $3::int * interval '1 millisecond'
           WHERE name = $1 AND lease_generation = $2 AND lease_owner = $4 RETURNING 1`,
          [this.name, this.lease.generation, this.lease.ms, this.lease.owner],
        );
        if (!this.holding) return;
        if (rows.length === 0) return this.loseLease();
        this.validUntil = sentAt + this.lease.ms;
        this.listener?.deliverable();
      } catch {
        // The server is out of reach: try again at the next tick; until
        // then (and once the lease may have lapsed) nothing is delivered.
      } finally {
        this.renewing = null;
      }
    })();
    return this.renewing;
  }

  private loseLease(): void {
    if (this.lost) return;
    this.lost = true;
    if (this.renewTimer) clearTimeout(this.renewTimer);
    this.renewTimer = null;
    this.onLost();
  }

  private lostError(): HarnError {
    return HarnError.runtime(`daemon '${this.name}' lost its lease in ${this.conn.shown}: another process runs it now`);
  }

  /** Run `fn` in a transaction that first checks (and renews) the lease;
   * the lease's validity moves on once it committed. */
  private write<T>(fn: (c: ClientBase) => Promise<T>): Promise<T> {
    if (this.lost) return Promise.reject(this.lostError());
    const sentAt = performance.now();
    const p = this.conn
      .transaction(async (c) => {
        const r = await c.query(
          `UPDATE harn_daemons SET lease_expires_at = clock_timestamp() + $3::int * interval '1 millisecond', updated_at = now()
           WHERE name = $1 AND lease_generation = $2 AND lease_owner = $4 RETURNING 1`,
          [this.name, this.lease.generation, this.lease.ms, this.lease.owner],
        );
        if (r.rowCount === 0) {
          this.loseLease();
          throw this.lostError();
        }
        return fn(c);
      })
      .then((v) => {
        if (!this.lost) this.validUntil = Math.max(this.validUntil, sentAt + this.lease.ms);
        return v;
      });
    this.writes.add(p);
    void p.finally(() => this.writes.delete(p)).catch(() => undefined);
    return p;
  }

  commitIdle(snapshot: Snapshot, delta: JsonObject, ack: number | null): Promise<void> {
    const text = stringifyJsonKeepingFloats(delta);
    const compact = this.deltaBytes + text.length > Math.max(COMPACT_MIN_BYTES, 2 * this.checkpointBytes);
    const full = compact ? stringifyJsonKeepingFloats(snapshot as unknown as JsonObject) : "";
    return this.write(async (c) => {
      const deleted = ack === null ? 0 : ((await c.query("DELETE FROM harn_daemon_events WHERE daemon = $1 AND seq = $2", [this.name, ack])).rowCount ?? 0);
      if (compact) {
        await c.query("DELETE FROM harn_daemon_deltas WHERE daemon = $1", [this.name]);
        await c.query("UPDATE harn_daemons SET checkpoint = $2, checkpoint_bytes = $3, delta_bytes = 0, queued = queued - $4 WHERE name = $1", [
          this.name,
          full,
          full.length,
          deleted,
        ]);
      } else {
        await c.query(
          `WITH d AS (UPDATE harn_daemons SET next_delta = next_delta + 1, delta_bytes = delta_bytes + $3, queued = queued - $4 WHERE name = $1 RETURNING next_delta - 1 AS n)
           INSERT INTO harn_daemon_deltas (daemon, n, delta) SELECT $1, n, $2 FROM d`,
          [this.name, text, text.length, deleted],
        );
      }
      if (deleted > 0) await c.query(`SELECT pg_notify('${CHANNEL}', $1)`, ["a" + this.name]);
    }).then(() => {
      if (compact) {
        this.checkpointBytes = full.length;
        this.deltaBytes = 0;
      } else this.deltaBytes += text.length;
    });
  }

  async settled(): Promise<void> {
    while (this.writes.size > 0) await Promise.allSettled([...this.writes]);
  }

  /** A clean end: the whole snapshot becomes the checkpoint, the stop
   * reason is recorded, and the lease is let go (a standby takes over at
   * once, unless the daemon stopped by itself). A runner that lost the
   * lease writes nothing. */
  async close(record: DaemonRecord): Promise<void> {
    if (this.renewTimer) clearTimeout(this.renewTimer);
    this.renewTimer = null;
    await this.settled();
    if (this.lost || this.closed) return;
    const snap = record.snapshot;
    const full = snap === null ? null : stringifyJsonKeepingFloats(snap as unknown as JsonObject);
    try {
      await this.write(async (c) => {
        if (full !== null) {
          await c.query("DELETE FROM harn_daemon_deltas WHERE daemon = $1", [this.name]);
          await c.query("UPDATE harn_daemons SET checkpoint = $2, checkpoint_bytes = $3, delta_bytes = 0 WHERE name = $1", [this.name, full, full.length]);
        }
        await c.query("UPDATE harn_daemons SET stop_reason = $2, lease_owner = NULL, lease_expires_at = NULL WHERE name = $1", [this.name, snap?.stop_reason ?? null]);
        await c.query(`SELECT pg_notify('${CHANNEL}', $1), pg_notify('${CHANNEL}', $2)`, ["l" + this.name, "a" + this.name]);
      });
    } finally {
      this.closed = true;
    }
  }
}
