/**
 * Error classification and the provider error texts (spec/agents.md §5.2,
 * §5.3, §3.8; extensions.md §3.4). One table of phrases, read in order,
 * decides whether a failure is transient (worth retrying) and why.
 */

import { LlmError, redact, type LlmErrorKind, type LlmErrorReason } from "./errors";

export interface Classification {
  kind: LlmErrorKind;
  reason: LlmErrorReason;
}

/** Network phrases (§5.3). Node's own texts (`ECONNRESET`, `socket hang
 * up`, …) need no entry: every transport failure is reported as
 * `<provider> stream error (<kind>): …`, which "stream error" matches. */
const NETWORK = /connection (?:reset|refused|closed)|broken pipe|dns error|stream error|\beof\b/i;

/** §5.3 step 1: message phrases, first match wins. Apart from the
 * open-ended context-overflow and content-policy families, the lists are
 * the spec's own: a phrase added here would change how a mock error of a
 * non-transient category is classified (and whether it is retried). HTTP
 * errors do not need more phrases: their status tag (`[rate_limited]`,
 * `[http_error]`) and the client-error rule below decide them. */
const MESSAGE_RULES: ReadonlyArray<readonly [RegExp, LlmErrorKind, LlmErrorReason]> = [
  [
    /maximum context length|context length|context_length_exceeded|prompt is too long|context[^\n]*exceed|exceed[^\n]*context|max_tokens[^\n]*exceed|input is too long/i,
    "terminal",
    "context_overflow",
  ],
  [/content[_ ]policy|content[_ ]filter|usage polic|safety system/i, "terminal", "content_policy"],
  [
    /invalid_api_key|authentication_error|unauthorized|forbidden/i,
    "terminal",
    "auth_failure",
  ],
  [/model_not_found|not_found_error|model not found|model unavailable/i, "terminal", "model_unavailable"],
  [
    /\[rate_limited\]|too many requests|insufficient_quota|billing_hard_limit_reached/i,
    "transient",
    "rate_limit",
  ],
  [/\[http_error\]|bad gateway|service unavailable|overloaded|api_error/i, "transient", "server_error"],
  [/timed out|timeout/i, "transient", "timeout"],
  [NETWORK, "transient", "network_error"],
  [/invalid_request|bad request/i, "terminal", "invalid_request"],
];

/** §5.3 step 2: the category decides when no phrase matched. */
const CATEGORY_CLASSIFICATION: Readonly<Record<string, Classification>> = {
  rate_limit: { kind: "transient", reason: "rate_limit" },
  timeout: { kind: "transient", reason: "timeout" },
  overloaded: { kind: "transient", reason: "server_error" },
  server_error: { kind: "transient", reason: "server_error" },
  transient_network: { kind: "transient", reason: "network_error" },
  auth: { kind: "terminal", reason: "auth_failure" },
  not_found: { kind: "terminal", reason: "model_unavailable" },
};

const TRANSIENT_CATEGORIES = new Set(["timeout", "rate_limit", "overloaded", "server_error", "transient_network"]);

/** Classify a categorized error into (kind, reason), §5.3. */
export function classify(message: string, category: string): Classification {
  for (const [re, kind, reason] of MESSAGE_RULES) {
    if (re.test(message)) return { kind, reason };
  }
  return CATEGORY_CLASSIFICATION[category] ?? { kind: "terminal", reason: "unknown" };
}

/** The §5.3 retry decision for a categorized error. */
export function isRetryable(category: string, c: Classification): boolean {
  if (c.reason === "unknown") return TRANSIENT_CATEGORIES.has(category);
  return c.kind === "transient";
}

/** Known identifiers in message text, for the category of an
 * uncategorized message (checked after the HTTP status). */
const CATEGORY_IDENTIFIERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\[rate_limited\]|too many requests|insufficient_quota|billing_hard_limit_reached|rate_limit/i, "rate_limit"],
  [/overloaded/i, "overloaded"],
  [/timed out|timeout/i, "timeout"],
  [/invalid_api_key|authentication_error|unauthorized|forbidden|permission_error/i, "auth"],
  [/model_not_found|not_found_error|model not found/i, "not_found"],
  [/\[http_error\]|bad gateway|service unavailable|api_error|internal server error/i, "server_error"],
];

/** The category of a message that arrived without one: HTTP status, then
 * known identifiers, then network phrases, else `generic` (§5.3). */
export function categorize(message: string, status?: number): string {
  if (status !== undefined) {
    if (status === 401 || status === 403) return "auth";
    if (status === 404 || status === 410) return "not_found";
    if (status === 408 || status === 504 || status === 522 || status === 524) return "timeout";
    if (status === 429) return "rate_limit";
    if (status === 503 || status === 529) return "overloaded";
    if (status === 500 || status === 502) return "server_error";
  }
  for (const [re, category] of CATEGORY_IDENTIFIERS) {
    if (re.test(message)) return category;
  }
  if (NETWORK.test(message)) return "transient_network";
  return "generic";
}

const RETRY_AFTER_CAP_MS = 60_000;

/**
 * A `Retry-After` value in milliseconds: delta seconds (integer or
 * fractional; the leading numeric prefix of the token counts, so `12)` is
 * 12 s) or an HTTP date (past dates give 0). Clamped to 60 000 ms.
 * `undefined` when the value says nothing usable.
 */
export function parseRetryAfter(value: string, nowMs: number): number | undefined {
  const v = value.trim();
  const num = /^\d+(?:\.\d+)?/.exec(v);
  if (num) return clampRetryAfter(Number(num[0]) * 1000);
  // Only a value with letters can be a date; `Date.parse("-5")` is a year.
  if (!/[a-z]/i.test(v)) return undefined;
  const when = Date.parse(v);
  if (Number.isNaN(when)) return undefined;
  return clampRetryAfter(when - nowMs);
}

function clampRetryAfter(ms: number): number {
  return Math.round(Math.min(RETRY_AFTER_CAP_MS, Math.max(0, ms)));
}

/** The retry hint of an error message: a `retry-after:` marker anywhere in
 * it (case-insensitive), spec §5.3. */
export function retryAfterFromMessage(message: string, nowMs: number): number | undefined {
  const m = /retry-after:\s*([^\n)]*)/i.exec(message);
  return m ? parseRetryAfter(m[1]!, nowMs) : undefined;
}

/** Server hints from response headers: `retry-after-ms` (OpenAI, more
 * precise) wins over `retry-after`. */
export function retryAfterFromHeaders(headers: Headers, nowMs: number): { ms: number; text: string } | undefined {
  const msHeader = headers.get("retry-after-ms");
  if (msHeader !== null && /^\s*\d+(?:\.\d+)?\s*$/.test(msHeader)) {
    const ms = clampRetryAfter(Number(msHeader));
    const header = headers.get("retry-after");
    return { ms, text: header !== null ? header.trim() : String(ms / 1000) };
  }
  const header = headers.get("retry-after");
  if (header === null) return undefined;
  const ms = parseRetryAfter(header, nowMs);
  return ms === undefined ? undefined : { ms, text: header.trim() };
}

export interface ErrorTarget {
  provider: string;
  model: string;
}

/**
 * Build a classified error from a message and what is known about it.
 * Structure decides before text (extensions.md §3.4): with an HTTP status
 * (or the status a provider's error type stands for) the status decides,
 * and the message text may only make a generic bad request more precise
 * (a 400 about the context length is a context overflow; a 400 whose body
 * mentions "timeout" is still a terminal 400). Without one, the message
 * phrases and then the category decide (agents.md §5.3).
 */
export function errorFromMessage(
  target: ErrorTarget,
  message: string,
  extra: { status?: number; category?: string; retryAfterMs?: number; summary?: string; unreachable?: boolean } = {},
): LlmError {
  const category = extra.category ?? categorize(message, extra.status);
  const text = classify(message, category);
  const structural = extra.status !== undefined ? statusClassification(extra.status) : undefined;
  let c = text;
  let retryable = isRetryable(category, text);
  if (structural !== undefined) {
    c = structural.reason === "invalid_request" && text.kind === "terminal" && text.reason !== "unknown" ? text : structural;
    retryable = c.kind === "transient";
  }
  return new LlmError({
    message,
    category,
    kind: c.kind,
    reason: c.reason,
    provider: target.provider,
    model: target.model,
    retryAfterMs: extra.retryAfterMs,
    status: extra.status,
    retryable,
    summary: extra.summary,
    unreachable: extra.unreachable,
  });
}

/** What an HTTP status says about a failure: 408, 429 and 5xx are worth
 * retrying, every other client error is final. */
function statusClassification(status: number): Classification | undefined {
  const known = STATUS_CLASSIFICATION[status];
  if (known !== undefined) return known;
  if (status >= 500) return { kind: "transient", reason: "server_error" };
  if (status >= 400) return { kind: "terminal", reason: "invalid_request" };
  return undefined;
}

const STATUS_CLASSIFICATION: Readonly<Record<number, Classification>> = {
  400: { kind: "terminal", reason: "invalid_request" },
  401: { kind: "terminal", reason: "auth_failure" },
  403: { kind: "terminal", reason: "auth_failure" },
  404: { kind: "terminal", reason: "model_unavailable" },
  408: { kind: "transient", reason: "timeout" },
  410: { kind: "terminal", reason: "model_unavailable" },
  413: { kind: "terminal", reason: "invalid_request" },
  422: { kind: "terminal", reason: "invalid_request" },
  429: { kind: "transient", reason: "rate_limit" },
  504: { kind: "transient", reason: "timeout" },
  522: { kind: "transient", reason: "timeout" },
  524: { kind: "transient", reason: "timeout" },
};

/**
 * The HTTP status a provider's error type or code stands for, so an error
 * reported inside a 200 stream (or body) is classified like the response
 * it replaces: Anthropic's `error.type`s, OpenAI's `type`s and `code`s.
 */
const ERROR_TYPE_STATUS: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  invalid_prompt: 400,
  context_length_exceeded: 400,
  authentication_error: 401,
  invalid_api_key: 401,
  permission_error: 403,
  not_found_error: 404,
  model_not_found: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  rate_limit_exceeded: 429,
  insufficient_quota: 429,
  api_error: 500,
  server_error: 500,
  overloaded_error: 529,
};

/**
 * An error the provider reported inside a response (an SSE `error` event,
 * an `error` member of a chunk or body, a failed Responses object):
 * `<provider> API error [<reason>]: <type>: <message>`, classified by the
 * status its type or numeric code stands for. One with neither is taken
 * for a server-side failure (transient) unless its text says otherwise.
 */
export function apiError(target: ErrorTarget, error: unknown, secrets: readonly string[]): LlmError {
  const e = error !== null && typeof error === "object" && !Array.isArray(error) ? (error as Record<string, unknown>) : {};
  const names = [e.type, e.code].filter((v): v is string => typeof v === "string" && v !== "");
  const type = names.find((n) => ERROR_TYPE_STATUS[n] !== undefined) ?? names[0];
  const code = typeof e.code === "number" ? e.code : typeof e.status === "number" ? e.status : undefined;
  const status = code !== undefined && code >= 400 && code < 600 ? code : type !== undefined ? ERROR_TYPE_STATUS[type] : undefined;
  const said = typeof e.message === "string" ? e.message : typeof error === "string" ? error : JSON.stringify(error);
  const text = redact(type !== undefined && type !== said ? `${type}: ${said}` : said, secrets);
  const summary = type !== undefined ? typeWord(type) : shortText(text);
  if (status === undefined) return errorFromMessage(target, `${target.provider} API error: ${text}`, { category: "server_error", summary });
  return errorFromMessage(target, `${target.provider} API error [${httpTag(status, text)}]: ${text}`, { status, summary });
}

/** `overloaded_error` → `overloaded`: a provider's error type as words. */
function typeWord(type: string): string {
  return type.replace(/_error$/, "").replace(/_/g, " ");
}

/** The first line of a text, cut to a notice's length. */
function shortText(text: string, max = 80): string {
  const line = text.trim().split("\n")[0]!;
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** What an HTTP error body says in a few words: the provider's error type
 * (`{"error": {"type": "overloaded_error"}}`), else its message, else the
 * start of the body. */
function bodyWords(body: string): string {
  try {
    const v: unknown = JSON.parse(body);
    const o = v !== null && typeof v === "object" ? (v as Record<string, unknown>) : {};
    const e = o.error !== null && typeof o.error === "object" ? (o.error as Record<string, unknown>) : o;
    for (const k of ["type", "code"]) {
      const t = e[k];
      if (typeof t === "string" && t !== "" && t !== "error") return typeWord(t);
    }
    const m = typeof e.message === "string" ? e.message : typeof o.error === "string" ? o.error : undefined;
    if (m !== undefined) return shortText(m);
  } catch {
    // not JSON: the text itself
  }
  return shortText(body);
}

const MAX_BODY_IN_MESSAGE = 4000;

/**
 * The error for an HTTP error response:
 * `<provider> HTTP <status> [<tag>]: <body>` with ` (retry-after: <v>)`
 * when the server sent a hint and ` (offending_tokens: <n>)` for a context
 * overflow whose size the body states (spec §5.3). Secrets are redacted
 * and very long bodies (HTML error pages) shortened.
 */
export function httpError(
  target: ErrorTarget,
  status: number,
  statusText: string,
  body: string,
  headers: Headers,
  nowMs: number,
  secrets: readonly string[],
  asked: { url?: string; hint?: string } = {},
): LlmError {
  let text = redact(body.trim(), secrets);
  if (text === "") text = statusText || "(empty body)";
  if (text.length > MAX_BODY_IN_MESSAGE) text = text.slice(0, MAX_BODY_IN_MESSAGE) + "… (truncated)";
  const hint = retryAfterFromHeaders(headers, nowMs);
  const tag = httpTag(status, text);
  let message = `${target.provider} HTTP ${status} [${tag}]: ${text}`;
  if (hint) message += ` (retry-after: ${hint.text})`;
  // A 404 is a wrong model or a wrong URL: say which were asked for.
  if ((status === 404 || status === 405) && asked.url !== undefined) {
    message += ` (asked ${redact(asked.url, secrets)} for model '${target.model}'${asked.hint ? `; hint: ${asked.hint}` : ""})`;
  }
  if (tag === "context_overflow") {
    const n = offendingTokens(text);
    if (n !== undefined) message += ` (offending_tokens: ${n})`;
  }
  return errorFromMessage(target, message, { status, retryAfterMs: hint?.ms, summary: `HTTP ${status} ${bodyWords(text)}` });
}

/** The bracketed tag of an error text: `rate_limited` (429),
 * `http_error` (5xx), else the client error's reason, refined by the body
 * (`context_overflow`). */
function httpTag(status: number, body: string): string {
  if (status === 429) return "rate_limited";
  if (status >= 500) return "http_error";
  const reason = statusClassification(status)?.reason ?? "invalid_request";
  const c = classify(body, categorize(body, status));
  return reason === "invalid_request" && c.kind === "terminal" && c.reason !== "unknown" ? c.reason : reason;
}

/** The prompt size a context-overflow body reports (Anthropic: "prompt is
 * too long: 212345 tokens > 200000 maximum"; OpenAI: "your messages
 * resulted in 130000 tokens"). */
function offendingTokens(body: string): number | undefined {
  const m = /(?:too long:\s*|resulted in\s+)(\d+)\s*tokens/i.exec(body);
  return m ? Number(m[1]) : undefined;
}

export type StreamErrorKind = "timeout" | "connect" | "request_build" | "body" | "unknown";

/** A transport failure: `<provider> stream error (<kind>): <detail>`
 * (spec §5.2); classifies as a transient network or timeout error. */
export function streamError(
  target: ErrorTarget,
  kind: StreamErrorKind,
  detail: string,
  secrets: readonly string[],
  unreachable = false,
): LlmError {
  const text = redact(detail, secrets);
  const message = `${target.provider} stream error (${kind}): ${text}`;
  // the words before any parenthesized URL or cause
  return errorFromMessage(target, message, { summary: text.split(" (")[0]!, unreachable });
}
