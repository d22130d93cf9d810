/**
 * The common lifecycle of `walk_dir`, `glob` and `find_text` in
 * long-running mode (agents.md §1.1, §1.7, §1.10): register a `hso-` handle,
 * return the envelope at once, run the work in the background and queue the
 * completion payload — unless the handle was cancelled first.
 */
import { HarnError, HDict, type CallContext, monotonicMs } from "@harn/vm";
import { elapsedMs, rfc3339 } from "./clock";
import { longRunState } from "./state";
import { type Json } from "../core/json";

/** The work of one operation: resolves to its JSON result, or null once the
 * signal aborted. Errors become a `failed` payload. */
export type StdlibWork = (signal: AbortSignal) => Promise<Json | null>;

export function startStdlibOp(ctx: CallContext, operation: string, descriptor: string, work: StdlibWork): HDict {
  const state = longRunState(ctx.runtime);
  const id = state.nextStdlibHandleId();
  const startedAtMs = Date.now();
  const startedPerf = monotonicMs();
  const controller = new AbortController();
  state.register({
    id,
    family: "stdlib",
    sessionId: ctx.sessionId ?? "",
    operation,
    descriptor,
    startedAtMs,
    stop: () => controller.abort(),
  });

  const header = () => ({
    handle_id: id,
    operation,
    command_or_op_descriptor: descriptor,
    started_at: rfc3339(startedAtMs),
    ended_at: rfc3339(Date.now()),
    duration_ms: elapsedMs(startedPerf, monotonicMs()),
  });
  work(controller.signal).then(
    (result) => {
      if (result === null || controller.signal.aborted) return;
      state.complete(id, { ...header(), status: "completed", result });
    },
    (e: unknown) => {
      if (controller.signal.aborted) return;
      state.complete(id, { ...header(), status: "failed", error: errorText(e) });
    },
  );

  return HDict.of({
    handle_id: id,
    status: "running",
    operation,
    command_or_op_descriptor: descriptor,
    started_at: rfc3339(startedAtMs),
    ended_at: null,
    duration_ms: 0,
  });
}

/** How a failure reads in a `failed` payload: the error's one-line form. */
export function errorText(e: unknown): string {
  if (e instanceof HarnError) return e.description();
  if (e instanceof Error) return e.message;
  return String(e);
}

/** For the synchronous mode: the crawl resolved to null because the
 * caller's task was cancelled; surface the cancellation itself. */
export function cancelled(signal: AbortSignal): unknown {
  return signal.reason ?? HarnError.runtime("operation cancelled");
}
