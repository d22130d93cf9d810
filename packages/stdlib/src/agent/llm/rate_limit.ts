/**
 * Per-provider rate limits (spec/agents-surface.md §8.9, agents.md §5.3):
 * `llm_rate_limit(provider)` queries and `llm_rate_limit(provider, {rpm})`
 * sets a requests-per-minute limit (`rpm <= 0` clears it); initial limits
 * come from `HARN_RATE_LIMIT_<PROVIDER>`. The limiter is a sliding 60 s
 * window of request starts: a request waits until fewer than `rpm` starts
 * lie in the last 60 s. Every `llm_call`/agent turn to a limited provider
 * takes a permit, and so does `with_rate_limit(provider, closure,
 * {max_retries: 5, backoff_ms: 1000})`, which also retries the closure on
 * `rate_limit`, `overloaded`, `transient_network` and `timeout` failures
 * with a doubling delay capped at 30 000 ms.
 *
 * [TS decision] For the mock provider the delays are 0 ms, as for the
 * mock's own retries (§3.5), so offline tests never wait.
 */
import { HarnError, HBuiltinRef, HClosure, HDict, isInt, isPromise, RuntimeSlot, type CallContext, type Runtime, type Value } from "@harn/vm";
import { errorCategory } from "../../core/assert";
import { num } from "./options";
import { builtinModule } from "../../registry/define";

const RETRIED = new Set(["rate_limit", "overloaded", "transient_network", "timeout"]);
const MAX_DELAY_MS = 30_000;
const WINDOW_MS = 60_000;

interface Limiter {
  rpm: number;
  /** Start times (the runtime clock's ms) within the last window. */
  starts: number[];
}

/** Limits by provider; `null` marks a limit cleared (env not read again). */
const LIMITS = new RuntimeSlot<Map<string, Limiter | null>>("agent.rate_limits", () => new Map());

function envLimit(rt: Runtime, provider: string): number | null {
  for (const name of [`HARN_RATE_LIMIT_${provider.toUpperCase()}`, `HARN_RATE_LIMIT_${provider.toLowerCase()}`]) {
    const v = rt.env[name];
    if (v === undefined || v.trim() === "") continue;
    const n = Number(v);
    return Number.isFinite(n) && n > 0 ? Math.floor(n) : null;
  }
  return null;
}

function limiter(rt: Runtime, provider: string): Limiter | null {
  const limits = rt.slot(LIMITS);
  if (!limits.has(provider)) {
    const rpm = envLimit(rt, provider);
    limits.set(provider, rpm === null ? null : { rpm, starts: [] });
  }
  return limits.get(provider) ?? null;
}

/** Wait for a permit of `provider` (no wait without a limit, none for the mock). */
export async function acquirePermit(rt: Runtime, provider: string, signal: AbortSignal): Promise<void> {
  if (provider === "mock") return;
  const l = limiter(rt, provider);
  if (l === null) return;
  for (;;) {
    const now = rt.clock.monotonic();
    l.starts = l.starts.filter((t) => t > now - WINDOW_MS);
    if (l.starts.length < l.rpm) {
      l.starts.push(now);
      return;
    }
    await rt.clock.sleep(l.starts[0]! + WINDOW_MS - now, signal);
  }
}

async function withRateLimit(args: Value[], ctx: CallContext): Promise<Value> {
  const provider = args[0];
  if (typeof provider !== "string" || provider === "") throw HarnError.runtime("with_rate_limit: provider name is required");
  const fn = args[1];
  if (!(fn instanceof HClosure || fn instanceof HBuiltinRef)) throw HarnError.runtime("with_rate_limit: second argument must be a closure");
  const opts = args[2] instanceof HDict ? args[2] : HDict.empty();
  const maxRetries = Math.max(0, Math.floor(num(opts.get("max_retries")) ?? 5));
  let delay = Math.max(0, num(opts.get("backoff_ms")) ?? 1000);
  for (let attempt = 0; ; attempt++) {
    await acquirePermit(ctx.runtime, provider, ctx.signal);
    try {
      const r = ctx.call(fn, []);
      return isPromise<Value>(r) ? await r : r;
    } catch (e) {
      if (ctx.signal.aborted || !(e instanceof HarnError) || attempt >= maxRetries) throw e;
      if (!RETRIED.has(errorCategory(e.caughtValue()))) throw e;
      await ctx.runtime.clock.sleep(provider === "mock" ? 0 : delay, ctx.signal);
      delay = Math.min(MAX_DELAY_MS, delay * 2);
    }
  }
}

export const RATE_LIMITS_BUILTINS = builtinModule("agent/llm/rate_limit", (def) => {
  def("with_rate_limit", withRateLimit);
  def("llm_rate_limit", (args, ctx) => {
    const provider = args[0];
    if (typeof provider !== "string" || provider === "") throw HarnError.runtime("llm_rate_limit: provider name is required");
    const o = args[1];
    if (!(o instanceof HDict)) return limiter(ctx.runtime, provider)?.rpm ?? null;
    const rpm = o.get("rpm");
    if (!isInt(rpm)) throw HarnError.runtime("llm_rate_limit: options must include 'rpm' (integer)");
    const n = Number(rpm);
    const limits = ctx.runtime.slot(LIMITS);
    if (n <= 0) limits.set(provider, null);
    else limits.set(provider, { rpm: n, starts: limits.get(provider)?.starts ?? [] });
    return true;
  });
});
