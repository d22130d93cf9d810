/**
 * `monitor_wait_for_native(options)`, behind `std/monitors`' `wait_for`
 * (spec/core-gaps.md §4): poll a source, test a condition on each state,
 * until it holds or the timeout passes. The condition is always tested at
 * least once. Push wake-ups (`prefers_push` with a `push_filter` on the
 * trigger inbox) are not implemented: `push_wake_count` stays 0.
 */
import { HarnError, HClosure, HDict, truthy, typeOf, type CallContext, type Value } from "@harn/vm";
import { arg } from "./args";
import { builtinModule } from "../registry/define";
import { uuidV7 } from "./encoding";
import { jsonCopy, rfc3339, timeoutMs, WAIT_RESULTS } from "./wait";

const FN = "monitor_wait_for_native";

function need(opts: HDict, key: string): Value {
  const v = opts.get(key);
  if (v === null) throw HarnError.runtime(`${FN}: ${key} is required`);
  return v;
}

function duration(v: Value): number {
  const ms = timeoutMs(v);
  if (ms === null) throw HarnError.runtime(`${FN}: expected duration or non-negative millisecond count, got ${typeOf(v)}`);
  return ms;
}

async function waitFor(opts: HDict, ctx: CallContext): Promise<Value> {
  const condition = opts.get("condition");
  if (condition === null) throw HarnError.runtime(`${FN}: condition must be a closure`);
  if (!(condition instanceof HClosure)) throw HarnError.runtime(`${FN}: condition must be a closure, got ${typeOf(condition)}`);
  const source = need(opts, "source");
  let poll: Value;
  let label: Value = null;
  if (source instanceof HClosure) poll = source;
  else if (source instanceof HDict) {
    poll = source.get("poll");
    label = source.get("label");
    if (!(poll instanceof HClosure)) throw HarnError.runtime(`${FN}: source must be a closure or dict, got ${typeOf(poll)}`);
  } else throw HarnError.runtime(`${FN}: source must be a closure or dict, got ${typeOf(source)}`);
  const timeout = duration(need(opts, "timeout"));
  const every = opts.get("poll_interval") === null ? 10_000 : duration(opts.get("poll_interval"));
  if (every === 0) throw HarnError.runtime(`${FN}: poll_interval must be greater than zero`);
  const rt = ctx.runtime;
  const w = opts.get("wait_id");
  const waitId = typeof w === "string" && w.trim() !== "" ? w : `monitor_wait_${uuidV7(rt)}`;
  const results = rt.slot(WAIT_RESULTS);
  const seen = results.get(waitId);
  if (seen !== undefined) return seen;
  const clock = rt.clock;
  const startedAt = rfc3339(rt);
  const traceId = `trace_${uuidV7(rt)}`;
  const deadline = clock.monotonic() + timeout;
  let count = 0;
  for (;;) {
    ctx.signal.throwIfAborted();
    const state = await ctx.call(poll, [HDict.of({ last_push_event: null, poll_count: count, wait_id: waitId })]);
    count++;
    const value = await ctx.call(condition, [state]);
    const matched = truthy(value);
    const left = deadline - clock.monotonic();
    if (matched || left <= 0) {
      const r = HDict.of({
        condition_value: jsonCopy(value),
        poll_count: count,
        push_wake_count: 0,
        reason: matched ? null : "deadline elapsed",
        replay_of_event_id: null,
        resolved_at: rfc3339(rt),
        source_label: label,
        started_at: startedAt,
        state: jsonCopy(state),
        status: matched ? "matched" : "timed_out",
        trace_id: traceId,
        wait_id: waitId,
      });
      results.set(waitId, r);
      return r;
    }
    await clock.sleep(Math.min(every, left), ctx.signal);
  }
}

export const MONITOR_BUILTINS = builtinModule("core/monitor", (def) => {
  def(FN, (args, ctx) => {
    if (args.length === 0 || args[0] === null) throw HarnError.runtime(`${FN}: options are required`);
    const opts = arg(args, 0);
    if (!(opts instanceof HDict)) throw HarnError.runtime(`${FN}: expected dict options, got ${typeOf(opts)}`);
    return waitFor(opts, ctx);
  });
});
