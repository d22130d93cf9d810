/**
 * Per-provider rate limiting for scripts (spec/agents.md §5.3, P2):
 * `llm_rate_limit(provider, rpm)` sets a requests-per-minute limit (also
 * read from `HARN_RATE_LIMIT_<PROVIDER>`), and
 * `with_rate_limit(provider, closure, {max_retries: 5, backoff_ms: 1000})`
 * runs the closure in the provider's next free slot, retrying it on
 * `rate_limit`, `overloaded`, `transient_network` and `timeout` failures
 * with a doubling delay capped at 30 000 ms.
 *
 * [TS decision] For the mock provider the delays are 0 ms, as for the
 * mock's own retries (§3.5), so offline tests never wait.
 */
import { HarnError, HBuiltinRef, HClosure, HDict, isPromise, RuntimeSlot, type CallContext, type Runtime, type Value } from "@harn/vm";
import { errorCategory } from "../../core/assert";
import { num } from "./options";
import { builtinModule } from "../../registry/define";

const RETRIED = new Set(["rate_limit", "overloaded", "transient_network", "timeout"]);
const MAX_DELAY_MS = 30_000;

interface Limiter {
  rpm: number;
  /** When the next request may start (ms since the epoch). */
  nextAt: number;
}

const LIMITS = new RuntimeSlot<Map<string, Limiter>>("agent.rate_limits", () => new Map());

function limiter(rt: Runtime, provider: string): Limiter | null {
  const limits = rt.slot(LIMITS);
  let l = limits.get(provider);
  if (!l) {
    const fromEnv = Number(rt.env[`HARN_RATE_LIMIT_${provider.toUpperCase()}`]);
    if (!Number.isFinite(fromEnv) || fromEnv <= 0) return null;
    l = { rpm: fromEnv, nextAt: 0 };
    limits.set(provider, l);
  }
  return l;
}


/** Wait for the provider's next slot (no wait without a limit). */
async function acquire(ctx: CallContext, provider: string): Promise<void> {
  const l = provider === "mock" ? null : limiter(ctx.runtime, provider);
  if (l === null) return;
  const now = ctx.runtime.clock.now();
  const start = Math.max(now, l.nextAt);
  l.nextAt = start + 60_000 / l.rpm;
  await ctx.runtime.clock.sleep(start - now, ctx.signal);
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
    await acquire(ctx, provider);
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
    const rpm = num(args[1] ?? null);
    if (rpm === undefined || rpm <= 0) throw HarnError.runtime("llm_rate_limit: rpm must be a positive number");
    ctx.runtime.slot(LIMITS).set(provider, { rpm, nextAt: 0 });
    return null;
  });
});
