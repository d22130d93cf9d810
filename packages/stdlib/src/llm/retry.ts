/**
 * Backoff, jitter and the retry budget (spec/agents.md §5.3,
 * extensions.md §3.4). Time and randomness are injected so tests are
 * deterministic and never wait for real.
 */

import { realClock } from "@harn/vm";
import { LlmError } from "./errors";
import type { LlmClock } from "./types";

export interface RetryPolicy {
  /** Retries after the first attempt (`llm_retries`). */
  retries: number;
  /** Base delay (`llm_backoff_ms`). */
  backoffMs: number;
  /** Upper bound of a computed delay (a server's Retry-After is honoured up
   * to its own 60 s clamp). */
  maxDelayMs: number;
}

export const DEFAULT_MAX_DELAY_MS = 30_000;
export const DEFAULT_RETRY_BUDGET_MS = 120_000;

/**
 * Delay before retry `k` (1, 2, …): the server's hint when it gave one,
 * else `min(maxDelay, base × 2^min(k, 4) + uniform(0, base))`. The exponent
 * cap follows the reference; the jitter term spreads clients that failed
 * together so they do not retry in lockstep.
 */
export function retryDelay(k: number, policy: RetryPolicy, retryAfterMs: number | undefined, random: () => number): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  const base = Math.max(0, policy.backoffMs);
  const exp = base * 2 ** Math.min(Math.max(k, 1), 4);
  return Math.round(Math.min(policy.maxDelayMs, exp + random() * base));
}

/**
 * Time an agent loop may spend waiting for and making retries
 * (`retry_budget_ms`). Owned by the caller and shared by every call of the
 * loop; first attempts are free, backoff sleeps and retry attempts are
 * charged.
 */
export class RetryBudget {
  spentMs = 0;

  constructor(readonly limitMs: number = DEFAULT_RETRY_BUDGET_MS) {}

  allows(delayMs: number): boolean {
    return this.spentMs + delayMs <= this.limitMs;
  }

  charge(ms: number): void {
    if (ms > 0) this.spentMs += ms;
  }
}

/** The error raised when the budget would be overdrawn; it keeps the last
 * failure's classification and carries it as `cause`. */
export function budgetExhausted(last: LlmError, budget: RetryBudget, attempts: number): LlmError {
  return new LlmError({
    message: `retry budget exhausted (${budget.limitMs} ms, ${attempts} attempt${attempts === 1 ? "" : "s"}); last error: ${last.message}`,
    category: last.category,
    kind: last.kind,
    reason: last.reason,
    provider: last.provider,
    model: last.model,
    retryAfterMs: last.retryAfterMs,
    status: last.status,
    retryable: false,
    budgetExhausted: true,
    cause: last,
    summary: last.summary,
  });
}

/** Real time: the vm's real clock (`Date.now` and an abortable timer). */
export const systemClock: LlmClock = realClock;
