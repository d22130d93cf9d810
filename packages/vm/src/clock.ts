/**
 * The runtime's one source of time (spec/extensions.md §5): the wall clock,
 * the monotonic clock, timers and sleeps, and the moment a new task first
 * runs. Every wait that the script's semantics define in time units (sleep,
 * deadlines, timeouts, retry backoff, `Retry-After`) goes through
 * `Runtime.clock`, so `harn test --deterministic` can swap in a virtual
 * clock (virtual-clock.ts) without the evaluator or the stdlib knowing.
 *
 * What stays on real time, whatever the clock: the interpreter's CPU
 * quantum, I/O safety bounds on real peers (HTTP total timeouts, stream
 * idle timeouts, pipe-drain graces) and the test runner's own `--timeout`.
 */

/** Cancels a pending `Clock.timer`; a no-op once it fired. */
export type CancelTimer = () => void;

export interface Clock {
  /** True for the virtual clock of `harn test --deterministic`. */
  readonly virtual: boolean;
  /** Wall clock, Unix milliseconds. */
  now(): number;
  /** Monotonic milliseconds from an arbitrary origin (only differences
   * mean anything). */
  monotonic(): number;
  /** Run `fn` once after `ms` milliseconds (clamped to 0 … 2^31-1). */
  timer(ms: number, fn: () => void): CancelTimer;
  /** Resolve after `ms`; reject with `signal.reason` when it aborts first.
   * Leaves no timer behind either way. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Resolves when a newly started task may run its first step. The real
   * clock: at once (the next microtask). A seeded scheduler picks among
   * the tasks waiting here in an order its seed decides. */
  turn(): Promise<void>;
  /** Real outside work the script waits for has started (a request, a
   * child process); call the result when it is over. While any is open,
   * a virtual clock does not jump: its timers fire after real time. */
  beginReal(): () => void;
  /** A point where a crash must leave consistent durable state (a daemon
   * queue change just committed, say). `harn test --crash-points` crashes
   * the process at each such point in turn, and at each scheduler step. */
  boundary(label: string): void;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

function clampMs(ms: number): number {
  return ms > 0 ? Math.min(ms, MAX_TIMER_MS) : 0;
}

const resolved = Promise.resolve();
const noop = () => {};

/** A monotonic clock in milliseconds, always real time: the interpreter's
 * quantum, the stdlib's time slices and durations, the virtual clock's own
 * pacing, and `realClock.monotonic`. Not `performance.now()`:
 * the first read of the `performance` global loads node:perf_hooks (about a
 * millisecond), and every interpreter reads the clock when it is created.
 * `process.hrtime()` reads the same high-resolution monotonic clock (and,
 * unlike `process.uptime()`, leaves the event loop's cached time alone);
 * only differences of its readings are used. */
export function monotonicMs(): number {
  const [s, ns] = process.hrtime();
  return s * 1000 + ns / 1e6;
}

/** `Date.now`, `process.hrtime` and Node's timers. Stateless, so one
 * instance serves every runtime. */
export const realClock: Clock = Object.freeze({
  virtual: false,
  now: () => Date.now(),
  monotonic: monotonicMs,
  timer(ms: number, fn: () => void): CancelTimer {
    const t = setTimeout(fn, clampMs(ms));
    return () => clearTimeout(t);
  },
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return abortableWait(realClock, ms, signal);
  },
  turn: () => resolved,
  beginReal: () => noop,
  boundary: noop,
});

/** `sleep` on any clock's `timer`: the timer is cancelled on abort and the
 * abort listener removed when it fires. */
export function abortableWait(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (!(ms > 0)) return resolved;
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      cancel();
      reject(signal!.reason);
    };
    const cancel = clock.timer(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
