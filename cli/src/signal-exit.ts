/**
 * Ctrl-C (or SIGTERM) during `harn test`: stop the running test the way
 * `harn run` stops a script, then end the command. Without this Node's
 * default handler ended the process at once, and commands a test had
 * started in the background (they run in process groups of their own,
 * so the terminal's SIGINT never reaches them) were left running.
 * The exit statuses and the notice are `harn run`'s too (run-script.ts).
 */
/** The exit status when a signal ends a run, here and in `harn run`
 * (extensions.md §3.3 gives Ctrl-C 130, refining cli.md §2.6, which gives
 * 124 to both signals; SIGTERM keeps 124). */
export const EXIT_STATUS = { SIGINT: 130, SIGTERM: 124 } as const;
/** What harn says when a signal starts ending a run. */
export const SIGNAL_NOTICE = "[harn] signal received, flushing state...\n";

export interface SignalGuard {
  /** Ends the process if a signal arrived; call once the run's outcome
   * is in, which is after its runtime shut down (processes killed,
   * defers run). */
  exitIfSignalled(): void;
  /** Removes the handlers. */
  dispose(): void;
}

/** While a run is in progress, turn SIGINT/SIGTERM into cancelling it
 * with `reason` (the engine's cancellation error; this module stays free
 * of the lazily loaded engine). */
export function cancelOnSignal(handle: { cancel(reason: unknown): void }, reason: () => unknown): SignalGuard {
  let status: number | null = null;
  const on = (signal: keyof typeof EXIT_STATUS) => () => {
    if (status !== null) return;
    status = EXIT_STATUS[signal];
    process.stderr.write(SIGNAL_NOTICE);
    handle.cancel(reason());
  };
  const onInt = on("SIGINT");
  const onTerm = on("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  return {
    exitIfSignalled() {
      if (status !== null) process.exit(status);
    },
    dispose() {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
    },
  };
}
