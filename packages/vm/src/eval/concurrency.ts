/**
 * Concurrency (spec/semantics.md §9): spawn/await/cancel, parallel fan-out,
 * channels and `select`, `deadline`, `mutex`, atomics and `sleep`.
 *
 * Tasks are cooperative on the one JS thread: a task lets others run only
 * while it waits. Every wait honours the waiting task's current abort
 * signal, so cancellation and deadlines interrupt sleeps and channel waits
 * promptly, and pending timers are cleared (nothing keeps Node alive).
 */
import { setMaxListeners } from "node:events";
import { HarnError } from "../errors";
import type { BuiltinFn, CallContext } from "../runtime";
import { RuntimeSlot } from "../runtime";
import { type CancelTimer, type Clock, realClock } from "../clock";
import {
  HChannel,
  HClosure,
  HDict,
  HDuration,
  HFloat,
  HGenerator,
  HTask,
  type IterStep,
  type Value,
  err,
  ok,
  truthy,
  typeOf,
} from "../values";
import { DONE, type Stepper } from "./compile/loops";
import type { ClosureImpl, Frame } from "./frame";
import type { Interpreter, VmCallContext } from "./interpreter";
import { CANCELLED_TEXT, ExitRequest, Task, raceSignal } from "./task";

// ---------------------------------------------------------------------------
// Channels

export class ChannelState {
  readonly queue: Value[] = [];
  closed = false;
  private waiters: (() => void)[] = [];
  constructor(readonly capacity: number) {}

  notify(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Resolves at the next send, receive or close. */
  changed(signal: AbortSignal): Promise<void> {
    return raceSignal(new Promise<void>((resolve) => this.waiters.push(resolve)), signal);
  }

  tryTake(): { v: Value } | null {
    if (this.queue.length === 0) return null;
    const v = this.queue.shift()!;
    this.notify();
    return { v };
  }
}

export function chanState(ch: HChannel): ChannelState {
  return ch.impl as ChannelState;
}

export function makeChannel(name: string, capacity: number): HChannel {
  return new HChannel(name, new ChannelState(Math.max(1, capacity)));
}

export async function channelSend(ch: HChannel, v: Value, signal: AbortSignal): Promise<boolean> {
  const st = chanState(ch);
  while (!st.closed && st.queue.length >= st.capacity) await st.changed(signal);
  if (st.closed) return false;
  st.queue.push(v);
  st.notify();
  return true;
}

export function channelReceive(ch: HChannel, signal: AbortSignal): Value | Promise<Value> {
  const st = chanState(ch);
  const t = st.tryTake();
  if (t) return t.v;
  if (st.closed) return null;
  return (async () => {
    for (;;) {
      await st.changed(signal);
      const x = st.tryTake();
      if (x) return x.v;
      if (st.closed) return null;
    }
  })();
}

/** A value waiting in `ch`, without waiting (`try_receive`); null if none. */
export function channelTryReceive(ch: HChannel): Value {
  const t = chanState(ch).tryTake();
  return t ? t.v : null;
}

/** Close `ch` (`close_channel`): senders fail, receivers drain what is left. */
export function closeChannel(ch: HChannel): void {
  const st = chanState(ch);
  st.closed = true;
  st.notify();
}

// ---------------------------------------------------------------------------
// Locks (the `mutex` block's process-wide default lock, §9.8)

/** A waiter in a FIFO queue of a lock-like primitive. */
export interface QueuedWaiter {
  /** Called by the primitive when the waiter's turn comes. */
  grant(): void;
}

/**
 * Queue `waiter` and wait for its grant: true once granted, false after
 * `timeoutMs` (null: no limit); rejects with the signal's reason on
 * cancellation. A waiter that times out or is cancelled leaves the queue, so
 * it is never handed what it no longer waits for. `onGranted` runs
 * synchronously inside `grant()`, so a primitive serving several waiters in
 * a loop sees each grant take effect before it looks at the next one.
 */
export function waitInQueue<W extends QueuedWaiter>(
  queue: W[],
  waiter: Omit<W, "grant">,
  signal: AbortSignal,
  timeoutMs: number | null,
  onGranted?: () => void,
  clock: Clock = realClock,
): Promise<boolean> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<boolean>((resolve, reject) => {
    let timer: CancelTimer | null = null;
    const leave = () => {
      const i = queue.indexOf(queued);
      if (i >= 0) queue.splice(i, 1);
      if (timer) timer();
      signal.removeEventListener("abort", onAbort);
    };
    const queued = {
      ...waiter,
      grant: () => {
        leave();
        onGranted?.();
        resolve(true);
      },
    } as W;
    const onAbort = () => {
      leave();
      reject(signal.reason);
    };
    queue.push(queued);
    signal.addEventListener("abort", onAbort, { once: true });
    if (timeoutMs !== null) {
      timer = clock.timer(timeoutMs, () => {
        leave();
        resolve(false);
      });
    }
  });
}

export class NamedLocks {
  private readonly held = new Map<string, { queue: QueuedWaiter[] }>();
  constructor(private readonly clock: Clock = realClock) {}
  /** Wait for the lock (see `acquireWithin`). */
  async acquire(name: string, signal: AbortSignal): Promise<void> {
    if (this.tryAcquire(name)) return;
    if (!(await this.acquireWithin(name, signal, null))) throw new Error("unreachable: untimed lock wait ended");
  }
  tryAcquire(name: string): boolean {
    if (this.held.has(name)) return false;
    this.held.set(name, { queue: [] });
    return true;
  }
  /** Wait at most `timeoutMs` (null: no limit) for the lock: true once it
   * is held, false on timeout; rejects with the signal's reason on
   * cancellation. The named sync primitives (stdlib) share these locks, so
   * `sync_mutex_acquire("__default__")` and the `mutex` block exclude each
   * other. */
  acquireWithin(name: string, signal: AbortSignal, timeoutMs: number | null): Promise<boolean> {
    if (this.tryAcquire(name)) return Promise.resolve(true);
    if (timeoutMs !== null && timeoutMs <= 0 && !signal.aborted) return Promise.resolve(false);
    return waitInQueue(this.held.get(name)!.queue, {}, signal, timeoutMs, undefined, this.clock);
  }
  /** Hand the lock to the next waiter, or free it. */
  release(name: string): void {
    const h = this.held.get(name);
    if (!h) return;
    const next = h.queue[0];
    if (next) next.grant();
    else this.held.delete(name);
  }
  isHeld(name: string): boolean {
    return this.held.has(name);
  }
  waiting(name: string): number {
    return this.held.get(name)?.queue.length ?? 0;
  }
}

export const LOCKS = new RuntimeSlot<NamedLocks>("vm.locks", (rt) => new NamedLocks(rt.clock));

// ---------------------------------------------------------------------------

/** Milliseconds of a duration or number (deadline, cancel_graceful and
 * channel_select timeouts; floats count as milliseconds here). */
export function durationMs(v: Value): number {
  if (v instanceof HDuration) return v.ms;
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof HFloat) return v.v;
  return 0;
}

function taskOf(ctx: CallContext): Task {
  return ctx.task as Task;
}

export class Concurrency {
  /** Builtins the interpreter handles itself (§7.5). */
  readonly specials = new Map<string, BuiltinFn>();

  constructor(readonly interp: Interpreter) {
    this.specials.set("await", (args, ctx) => this.await(args[0] ?? null, ctx));
    this.specials.set("cancel", (args) => {
      const h = args[0];
      if (h instanceof HTask) {
        const t = h.impl as Task;
        t.awaited = true;
        t.cancel();
      }
      return null;
    });
    this.specials.set("cancel_graceful", (args, ctx) => this.cancelGraceful(args[0] ?? null, args[1] ?? null, ctx));
    this.specials.set("exit", (args) => {
      // Rust's process::exit(n): the OS keeps the low 8 bits (exit(-1) is
      // status 255, exit(300) is 44); only a returned int is clamped
      const v = args[0] ?? 0;
      const n = typeof v === "number" ? BigInt(v) : typeof v === "bigint" ? v : 0n;
      throw new ExitRequest(Number(BigInt.asUintN(8, n)));
    });
    this.specials.set("is_cancelled", (_args, ctx) => taskOf(ctx).cancelRequested || taskOf(ctx).ac.signal.aborted);
  }

  /** Run a closure body as a task; settles the task, never rejects. */
  startTask(child: Task, impl: ClosureImpl, args: Value[], fr: Frame): void {
    const interp = this.interp;
    child.promise = interp.rt.clock
      .turn()
      .then(() => {
        child.signal.throwIfAborted();
        const f = interp.newFrame(impl, args, fr, null, child);
        return f instanceof Promise ? f.then((x) => interp.start(x)) : interp.start(f);
      })
      .then(
        (v) => {
          child.result = v;
          child.done = true;
        },
        (e) => {
          child.error = e instanceof HarnError ? e.escaped(e.span?.line ?? 0) : e;
          child.done = true;
        },
      );
  }

  private await(h: Value, ctx: CallContext): Value | Promise<Value> {
    if (!(h instanceof HTask)) return h;
    const t = h.impl as Task;
    if (t.awaited) return null;
    const finish = () => {
      if (t.awaited) return null;
      t.awaited = true;
      if (t.error !== null) throw t.error;
      ctx.out(t.output());
      return t.result;
    };
    if (t.done) return finish();
    return raceSignal(t.promise!, ctx.signal).then(finish);
  }

  private async cancelGraceful(h: Value, timeout: Value, ctx: CallContext): Promise<Value> {
    if (!(h instanceof HTask)) return ok(null);
    const t = h.impl as Task;
    if (t.awaited) return ok(null);
    t.cancelRequested = true;
    const ms = timeout === null ? 5000 : durationMs(timeout);
    if (!t.done) {
      const ac = new AbortController();
      const link = () => ac.abort(ctx.signal.reason);
      ctx.signal.addEventListener("abort", link, { once: true });
      try {
        await Promise.race([t.promise!, this.interp.rt.clock.sleep(ms, ac.signal).catch(() => undefined)]);
      } finally {
        ctx.signal.removeEventListener("abort", link);
        ac.abort();
      }
      ctx.signal.throwIfAborted();
    }
    t.awaited = true;
    if (!t.done) {
      t.cancel();
      return err("cancel_graceful: timeout, task forcefully aborted");
    }
    if (t.error !== null) return err(t.error instanceof HarnError ? t.error.description() : String(t.error));
    return ok(t.result);
  }

  // -------------------------------------------------------------------------
  // Fan-out (the `parallel` forms, compile/concurrency.ts)

  /** Start tasks in order, at most `limit` at a time (0: unlimited);
   * `settled` hears of each task as it finishes. */
  runFanout(tasks: Task[], items: Value[], impl: ClosureImpl, fr: Frame, limit: number, settled?: (t: Task) => void): Promise<void> {
    if (tasks.length === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let next = 0;
      let running = 0;
      let finished = 0;
      const launch = () => {
        while (next < tasks.length && (limit === 0 || running < limit)) {
          const i = next++;
          const t = tasks[i]!;
          running++;
          this.startTask(t, impl, [items[i]!], fr);
          t.promise!.then(() => {
            settled?.(t);
            running--;
            finished++;
            if (finished === tasks.length) resolve();
            else launch();
          });
        }
      };
      launch();
    });
  }

  /** `parallel each … as stream`: results in completion order (§9.4).
   * Tasks report through `settled` (wired by runFanout: with
   * max_concurrent, a task not started yet has no promise to wait on). */
  fanoutStream(tasks: Task[]): { gen: HGenerator; settled: (t: Task) => void } {
    const order: Task[] = [];
    const waiters: (() => void)[] = [];
    const settled = (t: Task) => {
      order.push(t);
      waiters.splice(0).forEach((f) => f());
    };
    let taken = 0;
    let gen: HGenerator;
    const pull = (): IterStep | Promise<IterStep> => {
      if (taken >= tasks.length) {
        gen.done = true;
        return { done: true, value: null };
      }
      if (order.length > taken) {
        const t = order[taken++]!;
        if (t.error !== null) {
          for (const o of tasks) if (!o.done) o.cancel();
          taken = tasks.length;
          gen.done = true;
          throw t.error;
        }
        return { done: false, value: t.result };
      }
      return new Promise<void>((resolve) => waiters.push(resolve)).then(pull);
    };
    gen = new HGenerator(true, pull, null);
    return { gen, settled };
  }

  channelStepper(ch: HChannel, fr: Frame): Stepper {
    return {
      next: () => {
        const st = chanState(ch);
        const t = st.tryTake();
        if (t) return t.v;
        if (st.closed) return DONE;
        return (async () => {
          for (;;) {
            await st.changed(fr.task.signal);
            const x = st.tryTake();
            if (x) return x.v;
            if (st.closed) return DONE;
          }
        })();
      },
    };
  }
}

/** Cancel `child` when `signal` aborts (task cancel or a `deadline`). */
export function linkToSignal(child: Task, signal: AbortSignal): void {
  if (signal.aborted) {
    child.cancel(signal.reason);
    return;
  }
  const onAbort = () => child.cancel(signal.reason);
  // A parent may have any number of children listening at once; Node's
  // default of 10 listeners would print a leak warning to the user's stderr.
  setMaxListeners(0, signal);
  signal.addEventListener("abort", onAbort, { once: true });
  const p = () => signal.removeEventListener("abort", onAbort);
  // Detach once the child is done so long-lived signals do not accumulate.
  queueMicrotask(() => child.promise?.then(p));
}

/**
 * Wait for a value on any of `chs` (`select`, `channel_select`; stdlib.md
 * §18.2): `{channel, index, value}` of the first channel, in list order,
 * that has one; null when all are closed and drained or after `timeoutMs`.
 */
export async function selectChannels(chs: HChannel[], timeoutMs: number | null, signal: AbortSignal, clock: Clock): Promise<HDict | null> {
  const deadline = timeoutMs === null ? Infinity : clock.monotonic() + timeoutMs;
  for (;;) {
    for (let i = 0; i < chs.length; i++) {
      const t = chanState(chs[i]!).tryTake();
      if (t) return HDict.of({ channel: chs[i]!.name, index: i, value: t.v });
    }
    if (chs.every((c) => chanState(c).closed)) return null;
    const left = deadline - clock.monotonic();
    if (left <= 0) return null;
    const ac = new AbortController();
    const link = () => ac.abort(signal.reason);
    signal.addEventListener("abort", link, { once: true });
    const waits: Promise<unknown>[] = chs.map((c) => chanState(c).changed(ac.signal).catch(() => undefined));
    if (left !== Infinity) waits.push(clock.sleep(left, ac.signal).catch(() => undefined));
    try {
      await Promise.race(waits);
    } finally {
      signal.removeEventListener("abort", link);
      ac.abort();
    }
    signal.throwIfAborted();
  }
}


export { CANCELLED_TEXT, truthy };
export type { VmCallContext };
