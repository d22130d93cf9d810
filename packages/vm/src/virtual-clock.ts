/**
 * The virtual clock of `harn test --deterministic` (spec/extensions.md §5)
 * and its seeded scheduler.
 *
 * Time stands still while anything can run, and jumps to the earliest
 * pending timer when nothing can: a test that sleeps 60 s finishes at
 * once, and reports 60 000 ms of virtual time. "Nothing can run" (idle)
 * means, at a `setImmediate` turn of the event loop (all microtasks
 * drained):
 *   - no clock activity (a timer set, a task started) since the previous
 *     turn, for two turns in a row;
 *   - no other `setImmediate` callback pending (the interpreter yields a
 *     CPU-bound task through one, and so do the stdlib's sliced crawls);
 *   - no real work in flight that we can see: `beginReal` brackets (the
 *     stdlib's HTTP requests and commands), child processes, file-system and
 *     DNS requests (`process.getActiveResourcesInfo`).
 * While real work is in flight, the virtual clock follows real time
 * (timers fire no earlier than a real one would), so a script that waits
 * for a child process with a timeout behaves as it would for real. Open
 * sockets and servers are not "work in flight": they wait for a peer,
 * which may never come.
 *
 * Computation takes no virtual time, up to a point: a program that stays
 * busy (CPU-bound, yielding but never waiting) for more than
 * BUSY_REAL_MS of real time while a timer is pending sees the virtual
 * clock follow real time for the whole of that stretch, so `deadline`
 * still interrupts a runaway loop. Shorter bursts take no virtual time.
 *
 * The scheduler decides two orders. Tasks started together (`spawn`, the
 * bodies of `parallel`) first run in the order `turn()` hands out, and
 * timers due at the same virtual instant fire in the order it picks; both
 * only at idle points, so the interleaving does not depend on how fast
 * the machine is. Without a seed both orders are FIFO (start order,
 * registration order); with a seed, a PRNG (sfc32, seeded-random.ts) picks among the
 * candidates, so one seed is one reproducible order and different seeds
 * explore different ones.
 */
import type { CancelTimer, Clock } from "./clock";
import { abortableWait, monotonicMs } from "./clock";
import { seededRandom } from "./seeded-random";

/** 2026-01-01T00:00:00Z: where the virtual wall clock starts, so a test's
 * timestamps are the same at every run. */
export const VIRTUAL_EPOCH_MS = 1_767_225_600_000;

/** Consecutive quiet event-loop turns before the clock treats the moment as
 * idle. */
const QUIET_TURNS = 2;
/** A task waiting for its first turn is started after this many busy turns
 * even if the program never goes idle (a parent busy-waiting on a flag its
 * child sets must not starve it). */
const STARVE_TURNS = 4;
/** How often the clock looks again while real work is in flight. */
const REAL_POLL_MS = 5;
/** A busy stretch longer than this (real ms) takes real time (see above). */
const BUSY_REAL_MS = 100;

/** libuv requests (FSReqCallback, FSReqPromise, CloseReq, GetAddrInfoReqWrap,
 * …), connects and child processes: they finish on their own, so while one
 * is in flight the program is waiting for the outside world, not idle. */
function isRealWork(resource: string): boolean {
  return resource.includes("Req") || resource === "ProcessWrap" || resource === "ConnectWrap";
}

interface Timer {
  due: number;
  seq: number;
  fn: (() => void) | null;
}

export interface VirtualClockOptions {
  /** Seed of the scheduler's PRNG; absent or null: FIFO orders. */
  seed?: number | null;
  /** Virtual wall-clock time at start (Unix ms); default VIRTUAL_EPOCH_MS. */
  epochMs?: number;
  /** `harn test --crash-points`: at the crashAt-th boundary (1-based; each
   * scheduler step and each `boundary()` call counts), call `onCrash`,
   * which is expected not to return (the process dies). */
  crashAt?: number | null;
  onCrash?: (point: number, label: string) => void;
}

export class VirtualClock implements Clock {
  readonly virtual = true;
  readonly seed: number | null;
  private readonly epochMs: number;
  /** Virtual milliseconds elapsed since the clock was created. */
  private t = 0;
  private readonly heap: Timer[] = [];
  private live = 0;
  private seq = 0;
  private readonly ready: (() => void)[] = [];
  private readonly rng: (() => number) | null;
  private activity = 0;
  private seen = -1;
  private quiet = 0;
  private busyTurns = 0;
  private realOpen = 0;
  private immediate: ReturnType<typeof setImmediate> | null = null;
  private poll: ReturnType<typeof setTimeout> | null = null;
  /** Real monotonic ms when the clock last synced with real time (pacing). */
  private realMark: number | null = null;
  /** Real monotonic ms when the current busy stretch began, and when it
   * last advanced virtual time. */
  private busySince: number | null = null;
  private busyMark = 0;
  private disposed = false;
  private boundaries = 0;
  private readonly crashAt: number | null;
  private readonly onCrash: ((point: number, label: string) => void) | null;

  constructor(options: VirtualClockOptions = {}) {
    this.crashAt = options.crashAt ?? null;
    this.onCrash = options.onCrash ?? null;
    this.seed = options.seed ?? null;
    this.epochMs = options.epochMs ?? VIRTUAL_EPOCH_MS;
    this.rng = this.seed === null ? null : seededRandom(this.seed);
  }

  /** Virtual milliseconds elapsed since the clock was created. */
  elapsed(): number {
    return this.t;
  }

  now(): number {
    return this.epochMs + this.t;
  }

  monotonic(): number {
    return this.t;
  }

  timer(ms: number, fn: () => void): CancelTimer {
    const tm: Timer = { due: this.t + (ms > 0 ? ms : 0), seq: this.seq++, fn };
    this.push(tm);
    this.live++;
    this.touch();
    return () => {
      if (tm.fn === null) return;
      tm.fn = null;
      this.live--;
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return abortableWait(this, ms, signal);
  }

  turn(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.ready.push(resolve);
      this.touch();
    });
  }

  beginReal(): () => void {
    this.realOpen++;
    this.activity++;
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.realOpen--;
      this.touch();
    };
  }

  boundary(label: string): void {
    this.boundaries++;
    if (this.boundaries === this.crashAt) this.onCrash?.(this.boundaries, label);
  }

  /** Boundaries passed so far (scheduler steps and `boundary()` calls). */
  boundaryCount(): number {
    return this.boundaries;
  }

  /** Stop the pump (the test is over); pending timers never fire. */
  dispose(): void {
    this.disposed = true;
    if (this.immediate) clearImmediate(this.immediate);
    if (this.poll) clearTimeout(this.poll);
    this.immediate = null;
    this.poll = null;
  }

  // -------------------------------------------------------------------------

  private touch(): void {
    this.activity++;
    this.schedule();
  }

  private hasWork(): boolean {
    return !this.disposed && (this.ready.length > 0 || this.live > 0);
  }

  private schedule(): void {
    if (this.immediate !== null || this.poll !== null || !this.hasWork()) return;
    this.seen = this.activity;
    this.immediate = setImmediate(this.check);
  }

  private readonly check = (): void => {
    this.immediate = null;
    if (!this.hasWork()) return;
    const otherImmediates = process.getActiveResourcesInfo().includes("Immediate");
    if (this.activity !== this.seen || otherImmediates) {
      this.quiet = 0;
      this.busyTurns++;
      if (this.ready.length > 0 && this.busyTurns >= STARVE_TURNS) this.startOne();
      else this.followBusy();
      this.schedule();
      return;
    }
    this.busySince = null;
    if (++this.quiet < QUIET_TURNS) {
      this.schedule();
      return;
    }
    this.quiet = 0;
    this.busyTurns = 0;
    if (this.ready.length > 0) {
      this.startOne();
      this.schedule();
      return;
    }
    if (this.realBusy()) {
      this.pace();
      return;
    }
    this.realMark = null;
    this.fireNext(Infinity);
    this.schedule();
  };

  /** The program has been busy since `busySince`: once that exceeds
   * BUSY_REAL_MS, let virtual time follow real time up to the next timer. */
  private followBusy(): void {
    const realNow = monotonicMs();
    if (this.busySince === null) {
      this.busySince = this.busyMark = realNow;
      return;
    }
    if (realNow - this.busySince < BUSY_REAL_MS) return;
    const next = this.peek();
    if (next === null) return;
    this.t = Math.min(next.due, this.t + Math.floor(realNow - this.busyMark));
    this.busyMark = realNow;
    if (next.due <= this.t) this.fireNext(this.t);
  }

  private startOne(): void {
    this.busyTurns = 0;
    const i = this.pick(this.ready.length);
    const [resolve] = this.ready.splice(i, 1);
    this.activity++;
    this.boundary("task start");
    resolve!();
  }

  private realBusy(): boolean {
    if (this.realOpen > 0) return true;
    for (const r of process.getActiveResourcesInfo()) if (isRealWork(r)) return true;
    return false;
  }

  /** Real work is in flight: let virtual time follow real time up to the
   * next timer, and look again soon. */
  private pace(): void {
    const realNow = monotonicMs();
    if (this.realMark === null) this.realMark = realNow;
    const advance = realNow - this.realMark;
    this.realMark = realNow;
    const next = this.peek();
    if (next !== null && advance > 0) this.t = Math.min(next.due, this.t + Math.floor(advance));
    if (next !== null && next.due <= this.t) {
      this.fireNext(this.t);
      this.schedule();
      return;
    }
    const wait = next === null ? REAL_POLL_MS : Math.max(1, Math.min(REAL_POLL_MS, next.due - this.t));
    this.poll = setTimeout(() => {
      this.poll = null;
      this.schedule();
    }, wait);
  }

  /** Fire one of the live timers due earliest (not later than `limit`),
   * advancing virtual time to its due time. Ties: FIFO or the seed's pick. */
  private fireNext(limit: number): void {
    const first = this.peek();
    if (first === null || first.due > limit) return;
    const due = first.due;
    const tied: Timer[] = [];
    while (this.heap.length > 0 && this.heap[0]!.due === due) {
      const tm = this.pop()!;
      if (tm.fn !== null) tied.push(tm);
    }
    const i = this.pick(tied.length);
    const chosen = tied.splice(i, 1)[0]!;
    for (const tm of tied) this.push(tm);
    this.t = Math.max(this.t, due);
    const fn = chosen.fn!;
    chosen.fn = null;
    this.live--;
    this.activity++;
    this.boundary("timer");
    fn();
  }

  private pick(n: number): number {
    return this.rng === null || n <= 1 ? 0 : Math.floor(this.rng() * n);
  }

  /** The earliest live timer (dropping cancelled ones on the way). */
  private peek(): Timer | null {
    while (this.heap.length > 0 && this.heap[0]!.fn === null) this.pop();
    return this.heap[0] ?? null;
  }

  // A binary min-heap on (due, seq).
  private push(tm: Timer): void {
    const h = this.heap;
    h.push(tm);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  private pop(): Timer | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last !== undefined) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l]!, h[m]!)) m = l;
        if (r < h.length && before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}

function before(a: Timer, b: Timer): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}
