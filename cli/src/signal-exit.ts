/**
 * The signals that end a run, and what harn does with them. `harn run`
 * (run-script.ts) and `harn test` stop the running script the same way:
 * cancel it, so its `defer`/`finally` blocks run and its runtime kills
 * every process it started, then exit with the signal's status. Without a
 * handler Node's default action ended harn at once (SIGHUP when a
 * terminal closes or an SSH session drops, SIGQUIT from Ctrl-\) and left
 * the commands a script had started running: they sit in process groups
 * of their own, so the terminal's signal never reaches them.
 */
/** The exit status when a signal ends a run: 128 + the signal number, as
 * a shell reports it, except SIGTERM's 124 (cli.md §2.6 gives 124 to both
 * SIGINT and SIGTERM; extensions.md §3.3 refines Ctrl-C to 130). */
export const EXIT_STATUS = { SIGINT: 130, SIGTERM: 124, SIGHUP: 129, SIGQUIT: 131 } as const;
export type EndingSignal = keyof typeof EXIT_STATUS;
/** Every signal that ends a run, in the order handlers are installed. */
export const ENDING_SIGNALS = Object.keys(EXIT_STATUS) as EndingSignal[];
/** What harn says when a signal starts ending a run. */
export const SIGNAL_NOTICE = "[harn] signal received, flushing state...\n";

/**
 * Installs `handlers` for the ending signals (a missing entry gets
 * `fallback`) and returns their removal. A hang-up means the terminal may
 * be gone: writing to it then fails with EIO, and an unhandled stream
 * error would end harn before its cleanup ran, so from that signal on
 * stdout/stderr errors are ignored.
 */
export function onEndingSignals(fallback: (signal: EndingSignal) => void, handlers: Partial<Record<EndingSignal, () => void>> = {}): () => void {
  const ignore = () => {};
  let ignoring = false;
  const installed = ENDING_SIGNALS.map((signal) => {
    const handler = () => {
      if (signal === "SIGHUP" && !ignoring) {
        ignoring = true;
        process.stdout.on("error", ignore);
        process.stderr.on("error", ignore);
      }
      (handlers[signal] ?? (() => fallback(signal)))();
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return () => {
    for (const [signal, handler] of installed) process.off(signal, handler);
    if (ignoring) {
      process.stdout.off("error", ignore);
      process.stderr.off("error", ignore);
    }
  };
}

export interface SignalGuard {
  /** Ends the process if a signal arrived; call once the run's outcome
   * is in, which is after its runtime shut down (processes killed,
   * defers run). */
  exitIfSignalled(): void;
  /** Removes the handlers. */
  dispose(): void;
}

/** While a run is in progress (`harn test`), turn an ending signal into
 * cancelling it with `reason` (the engine's cancellation error; this
 * module stays free of the lazily loaded engine). */
export function cancelOnSignal(handle: { cancel(reason: unknown): void }, reason: () => unknown): SignalGuard {
  let status: number | null = null;
  const dispose = onEndingSignals((signal) => {
    if (status !== null) return;
    status = EXIT_STATUS[signal];
    process.stderr.write(SIGNAL_NOTICE);
    handle.cancel(reason());
  });
  return {
    exitIfSignalled() {
      if (status !== null) process.exit(status);
    },
    dispose,
  };
}
