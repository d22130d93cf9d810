/**
 * Named synchronisation permits (spec/stdlib.md §18.4, semantics.md §9.8):
 * `sync_mutex_acquire`, `sync_semaphore_acquire`, `sync_gate_acquire`,
 * `sync_rwlock_acquire`, `sync_release`, `sync_metrics`.
 *
 * What the spec fixes: acquisition with a timeout returns nil on timeout
 * (never throws); `sync_release` returns true only the first time; the
 * `mutex { … }` block's lock is the named mutex `__default__`, so the two
 * exclude each other (mutexes therefore live in the evaluator's lock table).
 *
 * This implementation's choices where the spec is silent:
 * - `opts` is a timeout (int milliseconds or a duration) or a dict with
 *   `timeout` / `timeout_ms`; absent or nil waits without limit; 0 only
 *   tries. A task cancelled while waiting stops waiting (and is not handed
 *   the permit later).
 * - `sync_semaphore_acquire(key, permits, opts?)`: `permits` is the
 *   semaphore's capacity, fixed by the first acquisition of the key; each
 *   acquisition takes one permit.
 * - A gate is an exclusive permit of its own namespace (a mutex that the
 *   `mutex` block does not share). `sync_rwlock_acquire(key, mode)` takes
 *   mode `"read"` (shared) or `"write"` (exclusive).
 * - Waiters are served first come, first served; a key belongs to the kind
 *   that first used it (reusing it for another kind is an error).
 * - A permit is an opaque value (`type_of` → `sync_permit`, displayed
 *   `<sync_permit KIND:KEY>`); permits are not released when their task
 *   ends (release in `defer` or `finally`).
 * - `sync_metrics(key)` → `{acquired, held, key, kind, released, timeouts,
 *   waiting}` (nil for an unknown key); `sync_metrics()` → a dict of those
 *   by key.
 */
import { display, HarnError, HDict, HDuration, HOpaque, LOCKS, RuntimeSlot, typeOf, waitInQueue, type CallContext, type QueuedWaiter, type Value } from "@harn/vm";
import { arg } from "./args";
import { builtinModule } from "../registry/define";

type Kind = "mutex" | "semaphore" | "gate" | "rwlock";
type Mode = "read" | "write" | "one";

interface Waiter extends QueuedWaiter {
  mode: Mode;
}

/** Counters of a key, and for kinds other than mutex its holders and queue. */
class Primitive {
  readonly waiters: Waiter[] = [];
  holders = 0;
  writer = false;
  acquired = 0;
  released = 0;
  timeouts = 0;
  constructor(
    readonly kind: Kind,
    readonly key: string,
    readonly capacity: number,
  ) {}

  grantable(mode: Mode): boolean {
    if (this.kind === "rwlock") return mode === "read" ? !this.writer : !this.writer && this.holders === 0;
    return this.holders < this.capacity;
  }

  take(mode: Mode): void {
    if (mode === "write") this.writer = true;
    else this.holders++;
  }

  give(mode: Mode): void {
    if (mode === "write") this.writer = false;
    else this.holders--;
    this.pump();
  }

  /** Serve the queue in order while its head can be granted. */
  pump(): void {
    while (this.waiters.length > 0 && this.grantable(this.waiters[0]!.mode)) this.waiters[0]!.grant();
  }
}

class Permit {
  released = false;
  constructor(
    readonly primitive: Primitive,
    readonly mode: Mode,
  ) {}
}

const SYNC = new RuntimeSlot<Map<string, Primitive>>("stdlib.sync", () => new Map());

function timeoutOf(fn: string, opts: Value): number | null {
  if (opts === null) return null;
  if (typeof opts === "number") return opts;
  if (typeof opts === "bigint") return opts > 0n ? Number.MAX_SAFE_INTEGER : 0;
  if (opts instanceof HDuration) return opts.ms;
  if (opts instanceof HDict) {
    const t = opts.has("timeout") ? opts.get("timeout") : opts.has("timeout_ms") ? opts.get("timeout_ms") : null;
    return t === null ? null : timeoutOf(fn, t);
  }
  throw HarnError.thrown(`${fn}: options must be a timeout (int or duration) or a dict, got ${typeOf(opts)}`);
}

function primitive(ctx: CallContext, fn: string, kind: Kind, key: string, capacity: number): Primitive {
  const table = ctx.runtime.slot(SYNC);
  let p = table.get(key);
  if (!p) table.set(key, (p = new Primitive(kind, key, capacity)));
  else if (p.kind !== kind) throw HarnError.thrown(`${fn}: '${key}' is a ${p.kind}, not a ${kind}`);
  return p;
}

function permitValue(p: Primitive, mode: Mode): HOpaque {
  return new HOpaque("sync_permit", `<sync_permit ${p.kind}:${p.key}>`, new Permit(p, mode));
}

/** Wait for a permit of a queue-based primitive: the permit, or nil on timeout. */
function acquireQueued(p: Primitive, mode: Mode, ctx: CallContext, timeoutMs: number | null): Value | Promise<Value> {
  if (p.waiters.length === 0 && p.grantable(mode)) {
    p.take(mode);
    p.acquired++;
    return permitValue(p, mode);
  }
  if (timeoutMs !== null && timeoutMs <= 0 && !ctx.signal.aborted) {
    p.timeouts++;
    return null;
  }
  const granted = () => {
    p.take(mode);
    p.acquired++;
  };
  return waitInQueue(p.waiters, { mode }, ctx.signal, timeoutMs, granted, ctx.runtime.clock).then((ok) => {
    if (ok) return permitValue(p, mode);
    p.timeouts++;
    // Readers queued behind a writer that gave up may go now.
    p.pump();
    return null;
  });
}

function metrics(ctx: CallContext, p: Primitive): HDict {
  const locks = ctx.runtime.slot(LOCKS);
  const held = p.kind === "mutex" ? (locks.isHeld(p.key) ? 1 : 0) : p.holders + (p.writer ? 1 : 0);
  const waiting = p.kind === "mutex" ? locks.waiting(p.key) : p.waiters.length;
  return HDict.of({ acquired: p.acquired, held, key: p.key, kind: p.kind, released: p.released, timeouts: p.timeouts, waiting });
}

export const SYNC_BUILTINS = builtinModule("core/sync", (def) => {
  def("sync_mutex_acquire", (args, ctx) => {
    const key = display(arg(args, 0));
    const timeoutMs = timeoutOf("sync_mutex_acquire", arg(args, 1));
    const p = primitive(ctx, "sync_mutex_acquire", "mutex", key, 1);
    const got = (ok: boolean): Value => {
      if (!ok) {
        p.timeouts++;
        return null;
      }
      p.acquired++;
      return permitValue(p, "one");
    };
    const locks = ctx.runtime.slot(LOCKS);
    if (locks.tryAcquire(key)) return got(true);
    return locks.acquireWithin(key, ctx.signal, timeoutMs).then(got);
  });
  def("sync_semaphore_acquire", (args, ctx) => {
    const key = display(arg(args, 0));
    const permits = arg(args, 1);
    if (typeof permits !== "number" || permits < 1) {
      throw HarnError.thrown(`sync_semaphore_acquire: permits must be a positive int, got ${display(permits)}`);
    }
    const timeoutMs = timeoutOf("sync_semaphore_acquire", arg(args, 2));
    return acquireQueued(primitive(ctx, "sync_semaphore_acquire", "semaphore", key, permits), "one", ctx, timeoutMs);
  });
  def("sync_gate_acquire", (args, ctx) => {
    const key = display(arg(args, 0));
    const timeoutMs = timeoutOf("sync_gate_acquire", arg(args, 1));
    return acquireQueued(primitive(ctx, "sync_gate_acquire", "gate", key, 1), "one", ctx, timeoutMs);
  });
  def("sync_rwlock_acquire", (args, ctx) => {
    const key = display(arg(args, 0));
    const mode = arg(args, 1);
    if (mode !== "read" && mode !== "write") {
      throw HarnError.thrown(`sync_rwlock_acquire: mode must be "read" or "write", got ${display(mode)}`);
    }
    const timeoutMs = timeoutOf("sync_rwlock_acquire", arg(args, 2));
    return acquireQueued(primitive(ctx, "sync_rwlock_acquire", "rwlock", key, 1), mode, ctx, timeoutMs);
  });
  def("sync_release", (args, ctx) => {
    const v = arg(args, 0);
    if (!(v instanceof HOpaque && v.payload instanceof Permit)) {
      throw HarnError.thrown(`sync_release: argument must be a sync permit, got ${typeOf(v)}`);
    }
    const permit = v.payload;
    if (permit.released) return false;
    permit.released = true;
    const p = permit.primitive;
    p.released++;
    if (p.kind === "mutex") ctx.runtime.slot(LOCKS).release(p.key);
    else p.give(permit.mode);
    return true;
  });
  def("sync_metrics", (args, ctx) => {
    const table = ctx.runtime.slot(SYNC);
    if (args.length > 0 && args[0] !== null) {
      const p = table.get(display(args[0]!));
      return p ? metrics(ctx, p) : null;
    }
    return new HDict(new Map([...table.values()].map((p) => [p.key, metrics(ctx, p)] as [string, Value])));
  });
});
