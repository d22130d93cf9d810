/**
 * What a host sets and triggers for background sub-agents (`harn run
 * --background-grace`, Ctrl-C) before the agent layer is loaded (it loads
 * on first use, lazy/groups.ts): the grace period is kept here for the
 * pool to read, and the pool registers its cancel here once it exists.
 */
import { RuntimeSlot, type Runtime } from "@harn/vm";

export interface BackgroundControl {
  /** How long the end of the script waits for running sub-agents; 0
   * cancels them at once. */
  graceMs: number;
  /** Stops every sub-agent; set by the pool when it is created. */
  cancelAll: (() => void) | null;
}

export const BACKGROUND_CONTROL = new RuntimeSlot<BackgroundControl>("agent.backgroundControl", () => ({ graceMs: 0, cancelAll: null }));

/** `harn run --background-grace`: how long the end of the script waits for
 * running background sub-agents (0 cancels them at once). */
export function setBackgroundGrace(rt: Runtime, ms: number): void {
  rt.slot(BACKGROUND_CONTROL).graceMs = Math.max(0, ms);
}

/** Stop every background sub-agent (Ctrl-C); nothing to do when none was
 * ever started. */
export function cancelBackgroundTasks(rt: Runtime): void {
  rt.slot(BACKGROUND_CONTROL).cancelAll?.();
}
