/**
 * What waitpoints and monitors share (spec/core-gaps.md §3, §4): a
 * per-runtime table of waiters woken when anything they wait on changes
 * (no polling), timeouts as durations or milliseconds, and the recorded
 * results of finished waits (a wait id seen again returns its result).
 */
import { HDuration, HFloat, RuntimeSlot, type Clock, type Runtime, type Value } from "@harn/vm";
import { fromJson, toJson } from "./json";

/** Waiters of one registry: each is called at every change. */
export class Wakeups {
  private readonly waiters = new Set<() => void>();

  notify(): void {
    for (const w of [...this.waiters]) w();
  }

  /**
   * Resolve with `check()`'s first non-undefined answer, checked now and at
   * every `notify`; resolve with `onTimeout()` when `timeoutMs` passes;
   * reject with the signal's reason when the task is cancelled. Leaves no
   * timer or listener behind.
   */
  until<T>(check: () => T | undefined, signal: AbortSignal, clock: Clock, timeoutMs: number | null, onTimeout: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let cancelTimer: (() => void) | null = null;
      const finish = () => {
        this.waiters.delete(poll);
        signal.removeEventListener("abort", onAbort);
        cancelTimer?.();
      };
      const poll = () => {
        let v: T | undefined;
        try {
          v = check();
        } catch (e) {
          finish();
          return reject(e);
        }
        if (v !== undefined) {
          finish();
          resolve(v);
        }
      };
      const onAbort = () => {
        finish();
        reject(signal.reason);
      };
      if (signal.aborted) return reject(signal.reason);
      this.waiters.add(poll);
      signal.addEventListener("abort", onAbort, { once: true });
      if (timeoutMs !== null) {
        cancelTimer = clock.timer(timeoutMs, () => {
          finish();
          try {
            resolve(onTimeout());
          } catch (e) {
            reject(e);
          }
        });
      }
      poll();
    });
  }
}

/** A non-negative duration, int or float milliseconds; otherwise null. */
export function timeoutMs(v: Value): number | null {
  if (v instanceof HDuration) return v.ms >= 0 ? v.ms : null;
  if (typeof v === "number") return v >= 0 ? v : null;
  if (typeof v === "bigint") return v >= 0n ? Number.MAX_SAFE_INTEGER : null;
  if (v instanceof HFloat) return v.v >= 0 && Number.isFinite(v.v) ? v.v : null;
  return null;
}

/** A value as it comes back from JSON (records keep only data). */
export function jsonCopy(v: Value): Value {
  return fromJson(toJson(v));
}

export function rfc3339(rt: Runtime): string {
  return new Date(rt.clock.now()).toISOString();
}

/** Results of finished waits by wait id, per runtime (both surfaces and
 * monitors share the id space, as the reference's event log does). */
export const WAIT_RESULTS = new RuntimeSlot<Map<string, Value>>("stdlib.wait_results", () => new Map());
