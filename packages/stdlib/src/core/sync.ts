/**
 * Named synchronisation permits (spec/stdlib.md §18.4, core-gaps.md §6.2,
 * semantics.md §9.8): `sync_mutex_acquire`, `sync_semaphore_acquire`,
 * `sync_gate_acquire`, `sync_rwlock_acquire`, `sync_release`,
 * `sync_metrics`.
 *
 * A primitive is registered per `KIND:KEY`; its capacity is fixed by the
 * first acquisition. An acquisition takes a number of permits: one for a
 * mutex or a gate, `permits` for a semaphore, 1 (read) or all 1024 (write)
 * of a rwlock. Timeout 0 tries once without queueing; a positive one queues
 * and gives up with nil; none waits. Mutexes live in the evaluator's lock
 * table, so `sync_mutex_acquire("__default__")` and the `mutex { … }` block
 * exclude each other. Waiters are served first come, first served. A permit
 * is an opaque value (`<sync_permit KIND:KEY>`) that is not released when
 * its task ends (release in `defer` or `finally`).
 */
import { HarnError, HDict, HDuration, HFloat, HOpaque, LOCKS, RuntimeSlot, typeOf, waitInQueue, type CallContext, type QueuedWaiter, type Value } from "@harn/vm";
import { builtinModule } from "../registry/define";

type Kind = "mutex" | "semaphore" | "gate" | "rwlock";

const RWLOCK_CAPACITY = 1024;

interface Waiter extends QueuedWaiter {
  permits: number;
}

/** A primitive's permits, queue and counters (sync_metrics). A mutex's
 * holder and queue are the lock table's. */
class Primitive {
  readonly waiters: Waiter[] = [];
  held = 0;
  acquisitions = 0;
  cancellations = 0;
  releases = 0;
  timeouts = 0;
  maxQueueDepth = 0;
  totalWaitMs = 0;
  totalHeldMs = 0;
  constructor(
    readonly kind: Kind,
    readonly key: string,
    readonly capacity: number,
  ) {}

  grantable(permits: number): boolean {
    return this.held + permits <= this.capacity;
  }

  give(permits: number): void {
    this.held -= permits;
    // Serve the queue in order while its head can be granted.
    while (this.waiters.length > 0 && this.grantable(this.waiters[0]!.permits)) this.waiters[0]!.grant();
  }
}

class Permit {
  released = false;
  constructor(
    readonly primitive: Primitive,
    readonly permits: number,
    readonly since: number,
  ) {}
}

const SYNC = new RuntimeSlot<Map<string, Primitive>>("stdlib.sync", () => new Map());

/** An int ms, a duration, or a dict with `timeout_ms` / `max_wait_ms`;
 * null (absent or nil) waits without limit. */
function timeoutOf(v: Value | undefined): number | null {
  if (v === undefined || v === null) return null;
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return v > 0n ? Number.MAX_SAFE_INTEGER : 0;
  if (v instanceof HFloat) return v.v;
  if (v instanceof HDuration) return v.ms;
  if (v instanceof HDict) return timeoutOf(v.has("timeout_ms") ? v.get("timeout_ms") : v.has("max_wait_ms") ? v.get("max_wait_ms") : null);
  return null;
}

function keyOf(args: Value[], fallback: string): string {
  const v = args[0];
  return typeof v === "string" ? v : fallback;
}

/** A positive count argument (capacity, limit, permits), else `fallback`. */
function positive(fn: string, v: Value | undefined, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  const n = typeof v === "bigint" ? Number(v) : typeof v === "number" ? v : NaN;
  if (!(n > 0)) throw HarnError.runtime(`${fn}: value must be positive`);
  return n;
}

function primitive(ctx: CallContext, kind: Kind, key: string, capacity: number): Primitive {
  const table = ctx.runtime.slot(SYNC);
  const id = `${kind}:${key}`;
  let p = table.get(id);
  if (!p) table.set(id, (p = new Primitive(kind, key, capacity)));
  else if (p.capacity !== capacity) throw HarnError.runtime(`sync ${kind} '${key}' already exists with capacity ${p.capacity}, not ${capacity}`);
  return p;
}

/** Counts a wait that the task's cancellation ended, and passes it on. */
function cancelled(p: Primitive): (e: unknown) => never {
  return (e) => {
    p.cancellations++;
    throw e;
  };
}

function acquire(ctx: CallContext, p: Primitive, permits: number, timeoutMs: number | null): Value | Promise<Value> {
  if (permits > p.capacity) throw HarnError.runtime(`sync ${p.kind} '${p.key}' requested ${permits} permits from capacity ${p.capacity}`);
  const clock = ctx.runtime.clock;
  const start = clock.monotonic();
  const granted = (ok: boolean): Value => {
    if (!ok) {
      p.timeouts++;
      return null;
    }
    p.acquisitions++;
    p.totalWaitMs += Math.round(clock.monotonic() - start);
    return new HOpaque("sync_permit", `<sync_permit ${p.kind}:${p.key}>`, new Permit(p, permits, clock.monotonic()));
  };
  if (p.kind === "mutex") {
    const locks = ctx.runtime.slot(LOCKS);
    if (locks.tryAcquire(p.key)) return granted(true);
    if (timeoutMs !== null && timeoutMs <= 0) return granted(false);
    const wait = locks.acquireWithin(p.key, ctx.signal, timeoutMs);
    p.maxQueueDepth = Math.max(p.maxQueueDepth, locks.waiting(p.key));
    return wait.then(granted, cancelled(p));
  }
  if (p.waiters.length === 0 && p.grantable(permits)) {
    p.held += permits;
    return granted(true);
  }
  if (timeoutMs !== null && timeoutMs <= 0) return granted(false);
  const wait = waitInQueue(p.waiters, { permits }, ctx.signal, timeoutMs, () => (p.held += permits), clock);
  p.maxQueueDepth = Math.max(p.maxQueueDepth, p.waiters.length);
  return wait.then((ok) => {
    // a waiter that gave up may have held back smaller ones behind it
    if (!ok) p.give(0);
    return granted(ok);
  }, cancelled(p));
}

function metrics(ctx: CallContext, p: Primitive): HDict {
  const mutex = p.kind === "mutex";
  const locks = ctx.runtime.slot(LOCKS);
  return HDict.of({
    acquisition_count: p.acquisitions,
    cancellation_count: p.cancellations,
    capacity: p.capacity,
    current_held: mutex ? (locks.isHeld(p.key) ? 1 : 0) : p.held,
    current_queue_depth: mutex ? locks.waiting(p.key) : p.waiters.length,
    key: p.key,
    kind: p.kind,
    max_queue_depth: p.maxQueueDepth,
    release_count: p.releases,
    timeout_count: p.timeouts,
    total_held_ms: p.totalHeldMs,
    total_wait_ms: p.totalWaitMs,
  });
}

export const SYNC_BUILTINS = builtinModule("core/sync", (def) => {
  def("sync_mutex_acquire", (args, ctx) => acquire(ctx, primitive(ctx, "mutex", keyOf(args, "__default__"), 1), 1, timeoutOf(args[1])));
  def("sync_semaphore_acquire", (args, ctx) => {
    const capacity = positive("sync_semaphore_acquire", args[1], 1);
    const permits = positive("sync_semaphore_acquire", args[2], 1);
    return acquire(ctx, primitive(ctx, "semaphore", keyOf(args, "default"), capacity), permits, timeoutOf(args[3]));
  });
  def("sync_gate_acquire", (args, ctx) => {
    const limit = positive("sync_gate_acquire", args[1], 1);
    return acquire(ctx, primitive(ctx, "gate", keyOf(args, "default"), limit), 1, timeoutOf(args[2]));
  });
  def("sync_rwlock_acquire", (args, ctx) => {
    const mode = args[1] ?? "read";
    if (mode !== "read" && mode !== "write") throw HarnError.runtime("sync_rwlock_acquire: mode must be read or write");
    const p = primitive(ctx, "rwlock", keyOf(args, "default"), RWLOCK_CAPACITY);
    return acquire(ctx, p, mode === "read" ? 1 : RWLOCK_CAPACITY, timeoutOf(args[2]));
  });
  def("sync_release", (args, ctx) => {
    const v = args[0] ?? null;
    if (!(v instanceof HOpaque && v.payload instanceof Permit)) throw HarnError.runtime("sync_release: first argument must be a sync permit");
    const permit = v.payload;
    if (permit.released) return false;
    permit.released = true;
    const p = permit.primitive;
    p.releases++;
    p.totalHeldMs += Math.round(ctx.runtime.clock.monotonic() - permit.since);
    if (p.kind === "mutex") ctx.runtime.slot(LOCKS).release(p.key);
    else p.give(permit.permits);
    return true;
  });
  def("sync_metrics", (args, ctx) => {
    const table = ctx.runtime.slot(SYNC);
    const kind = typeof args[0] === "string" ? args[0] : null;
    if (kind !== null && typeof args[1] === "string") {
      const p = table.get(`${kind}:${args[1]}`);
      return p ? metrics(ctx, p) : null;
    }
    return [...table.entries()]
      .filter(([, p]) => kind === null || p.kind === kind)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, p]) => metrics(ctx, p));
  });
});
