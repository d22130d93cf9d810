/**
 * Where a daemon's state lives. The daemon (daemon.ts) keeps the queue and
 * the last committed snapshot in memory and tells its store each change
 * that must survive a crash; the store makes it durable. Two stores: the
 * files of a root directory (file-store.ts, the default) and PostgreSQL.
 *
 * What every store promises:
 * - `enqueue` assigns the event's sequence number (a shared store has
 *   producers in other processes, so only the store can), refuses an event
 *   beyond the queue's capacity, and resolves once the event is durable
 *   (daemon_trigger returns only then, §4.5) and its listener has it;
 * - the listener hears of every durable event once, in sequence order
 *   (the only way events reach the daemon);
 * - `commitIdle` writes the loop's snapshot and the acknowledgement of the
 *   event it handled as one atomic change: after any crash the state is
 *   from before the boundary (the event is replayed) or after it (the
 *   event is gone from the queue), never a mix;
 * - `close` leaves the state where a later resume, or a reader, finds it.
 */
import type { Meta, QueuedEvent, Snapshot } from "./files";
import type { Json, JsonObject } from "../../core/json";

/** Everything persisted about a daemon: its identity and queue (§4.4) and
 * its last snapshot (§4.2; null before the first idle boundary). */
export interface DaemonRecord {
  meta: Meta;
  snapshot: Snapshot | null;
}

/** What a store tells the daemon it runs. */
export interface StoreListener {
  /** Events now durable in the queue, in sequence order. */
  queued(events: readonly QueuedEvent[]): void;
  /** `mayDeliver` may have become true again. */
  deliverable(): void;
}

export interface DaemonStore {
  /** Where the daemon learns of queued events (called once, first). */
  attach(listener: StoreListener): void;
  /** Durably append an event with `payload` to the queue (the
   * DaemonQueueFull error when it holds its capacity). */
  enqueue(payload: Json): Promise<QueuedEvent>;
  /** Whether an event may be handed to the loop now: a shared store only
   * while it surely holds the daemon's lease. */
  mayDeliver(): boolean;
  /** The idle-boundary (or final) commit: `snapshot` (frozen: never
   * changed afterwards), `delta`, what changed since the last commit
   * (delta.ts), and, when the event in flight was handled, its
   * acknowledgement `ack`, atomically. */
  commitIdle(snapshot: Snapshot, delta: JsonObject, ack: number | null): Promise<void>;
  /** A clean end (stop, script end, the loop finished): persist `record`
   * as the state a resume starts from and let go of the state. */
  close(record: DaemonRecord): Promise<void>;
  /** Resolves when every requested change is durable (or failed). */
  settled(): Promise<void>;
}
