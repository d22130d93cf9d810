/**
 * The three ways the provider layer fails. Builtins turn them into the
 * script-visible shapes of spec/agents.md §0.3 and §3.8:
 *
 * - `LlmError`: a provider or transport failure, classified (§5.3). `llm_call`
 *   throws it as the dict `{category, kind, reason, message,
 *   retry_after_ms?, provider, model}`; `agent_loop` as the categorized
 *   error `Error [<category>]: <message>`.
 * - `LlmSetupError`: the call could not be made at all (missing API key:
 *   a thrown string; kill switch: a runtime error), spec §5.1.
 * - `LlmInterrupted`: the caller's signal aborted the call; `partial` holds
 *   what had arrived so far (the agent loop appends ` [interrupted]`).
 */

import type { LlmResponse } from "./types";

export type LlmErrorKind = "transient" | "terminal";

export type LlmErrorReason =
  | "rate_limit"
  | "server_error"
  | "network_error"
  | "timeout"
  | "auth_failure"
  | "context_overflow"
  | "content_policy"
  | "invalid_request"
  | "model_unavailable"
  | "unknown";

export interface LlmErrorInit {
  message: string;
  category: string;
  kind: LlmErrorKind;
  reason: LlmErrorReason;
  provider: string;
  model: string;
  retryAfterMs?: number;
  /** HTTP status, when the failure was an HTTP error response. */
  status?: number;
  /** Whether the failure may be retried (§5.3 retry decision). */
  retryable: boolean;
  /** Set when the retry budget ran out; `cause` is then the last error. */
  budgetExhausted?: boolean;
  cause?: LlmError;
  /** A few words for notices (`HTTP 503 overloaded`, `connection refused
   * by host:port`); defaults to the message. */
  summary?: string;
  /** Nothing answered at that address (connection refused, unknown host):
   * with a fallback at hand, waiting to retry is pointless. */
  unreachable?: boolean;
}

export class LlmError extends Error {
  readonly category: string;
  readonly kind: LlmErrorKind;
  readonly reason: LlmErrorReason;
  readonly provider: string;
  readonly model: string;
  readonly retryAfterMs: number | undefined;
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly budgetExhausted: boolean;
  override readonly cause: LlmError | undefined;
  readonly summary: string;
  readonly unreachable: boolean;

  constructor(init: LlmErrorInit) {
    super(init.message);
    this.name = "LlmError";
    this.category = init.category;
    this.kind = init.kind;
    this.reason = init.reason;
    this.provider = init.provider;
    this.model = init.model;
    this.retryAfterMs = init.retryAfterMs;
    this.status = init.status;
    this.retryable = init.retryable;
    this.budgetExhausted = init.budgetExhausted ?? false;
    this.cause = init.cause;
    this.summary = init.summary ?? init.message;
    this.unreachable = init.unreachable ?? false;
  }

  /** The same failure reported for another provider/model (fallback
   * reports the *requested* primary, §3.8). */
  withTarget(provider: string, model: string): LlmError {
    return new LlmError({ ...this.init(), provider, model });
  }

  /** The plain-data form `llm_call` throws (spec/agents.md §3.8). */
  toDict(): Record<string, unknown> {
    const d: Record<string, unknown> = {
      category: this.category,
      kind: this.kind,
      reason: this.reason,
      message: this.message,
    };
    if (this.retryAfterMs !== undefined) d.retry_after_ms = this.retryAfterMs;
    d.provider = this.provider;
    d.model = this.model;
    return d;
  }

  private init(): LlmErrorInit {
    return {
      message: this.message,
      category: this.category,
      kind: this.kind,
      reason: this.reason,
      provider: this.provider,
      model: this.model,
      retryAfterMs: this.retryAfterMs,
      status: this.status,
      retryable: this.retryable,
      budgetExhausted: this.budgetExhausted,
      cause: this.cause,
      summary: this.summary,
      unreachable: this.unreachable,
    };
  }
}

export class LlmSetupError extends Error {
  /** `thrown`: scripts catch the message string itself; `runtime`: they
   * catch `Runtime error: <message>`. */
  readonly shape: "thrown" | "runtime";
  constructor(message: string, shape: "thrown" | "runtime") {
    super(message);
    this.name = "LlmSetupError";
    this.shape = shape;
  }
}

export class LlmInterrupted extends Error {
  constructor(readonly partial: LlmResponse) {
    super("LLM call interrupted");
    this.name = "LlmInterrupted";
  }
}

export function isLlmError(e: unknown): e is LlmError {
  return e instanceof LlmError;
}

/**
 * Remove secrets from text that may reach a user. Servers sometimes echo
 * the credential they rejected; an API key must never appear in an error
 * message, a transcript or a log line.
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    // Short values are not credentials and replacing them would mangle text.
    if (s.length >= 8 && out.includes(s)) out = out.split(s).join("[redacted]");
  }
  return out;
}
