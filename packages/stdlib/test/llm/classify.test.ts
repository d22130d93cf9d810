import { describe, expect, it } from "vitest";
import { categorize, classify, errorFromMessage, isRetryable, parseRetryAfter, retryAfterFromMessage } from "../../src/llm";
import { apiError, httpError } from "../../src/llm/classify";

const NOW = Date.UTC(2025, 0, 15, 10, 0, 0);
const target = { provider: "anthropic", model: "claude-x" };

describe("classification (agents.md §5.3)", () => {
  it.each([
    ["This model's maximum context length is 8192 tokens", "generic", "terminal", "context_overflow"],
    ["prompt is too long: 250000 tokens > 200000 maximum", "generic", "terminal", "context_overflow"],
    ["invalid x-api-key", "auth", "terminal", "auth_failure"],
    ['{"error":{"type":"not_found_error"}}', "generic", "terminal", "model_unavailable"],
    ["429 Too Many Requests", "generic", "transient", "rate_limit"],
    ["529 overloaded", "generic", "transient", "server_error"],
    ["request timed out", "generic", "transient", "timeout"],
    ["anthropic stream error (body): read ECONNRESET", "generic", "transient", "network_error"],
    ["connection reset by peer", "generic", "transient", "network_error"],
    // phrases outside the spec lists leave the decision to the category
    ["read ECONNRESET", "generic", "terminal", "unknown"],
    ["internal server error", "generic", "terminal", "unknown"],
    ["internal server error", "server_error", "transient", "server_error"],
    ["Bad Request: missing field", "generic", "terminal", "invalid_request"],
    ["upstream busy", "overloaded", "transient", "server_error"],
    ["nothing recognisable", "transient_network", "transient", "network_error"],
    ["nothing recognisable", "tool_error", "terminal", "unknown"],
  ])("%s (category %s) -> %s/%s", (message, category, kind, reason) => {
    expect(classify(message, category)).toEqual({ kind, reason });
  });

  it("retries an unknown reason only for transient categories", () => {
    expect(isRetryable("rate_limit", { kind: "terminal", reason: "unknown" })).toBe(true);
    expect(isRetryable("generic", { kind: "terminal", reason: "unknown" })).toBe(false);
    expect(isRetryable("generic", { kind: "transient", reason: "timeout" })).toBe(true);
  });

  it("categorizes by status, then identifiers, then network phrases", () => {
    expect(categorize("x", 401)).toBe("auth");
    expect(categorize("x", 410)).toBe("not_found");
    expect(categorize("x", 524)).toBe("timeout");
    expect(categorize("x", 529)).toBe("overloaded");
    expect(categorize("x", 502)).toBe("server_error");
    expect(categorize("insufficient_quota")).toBe("rate_limit");
    expect(categorize("openai stream error (connect): socket hang up")).toBe("transient_network");
    expect(categorize("???")).toBe("generic");
  });
});

describe("Retry-After", () => {
  it("parses delta seconds, their numeric prefix, HTTP dates, and clamps", () => {
    expect(parseRetryAfter("12", NOW)).toBe(12_000);
    expect(parseRetryAfter("12)", NOW)).toBe(12_000);
    expect(parseRetryAfter("1.5", NOW)).toBe(1500);
    expect(parseRetryAfter(new Date(NOW + 7000).toUTCString(), NOW)).toBe(7000);
    expect(parseRetryAfter(new Date(NOW - 7000).toUTCString(), NOW)).toBe(0);
    expect(parseRetryAfter("3600", NOW)).toBe(60_000);
    expect(parseRetryAfter("-5", NOW)).toBeUndefined();
    expect(parseRetryAfter("soon", NOW)).toBeUndefined();
  });

  it("finds the marker anywhere in a message, case-insensitively", () => {
    expect(retryAfterFromMessage("upstream busy\nRetry-After: 2.5\n", NOW)).toBe(2500);
    expect(retryAfterFromMessage("x HTTP 429 [rate_limited]: {} (retry-after: 12)", NOW)).toBe(12_000);
    expect(retryAfterFromMessage("no hint", NOW)).toBeUndefined();
  });
});

describe("HTTP error texts", () => {
  const h = (init: Record<string, string> = {}) => new Headers(init);

  it("429: [rate_limited], the header embedded, transient", () => {
    const e = httpError(target, 429, "Too Many Requests", '{"type":"error"}', h({ "retry-after": "12" }), NOW, []);
    expect(e.message).toBe('anthropic HTTP 429 [rate_limited]: {"type":"error"} (retry-after: 12)');
    expect([e.category, e.kind, e.reason, e.retryAfterMs, e.retryable]).toEqual(["rate_limit", "transient", "rate_limit", 12_000, true]);
    expect(e.toDict()).toEqual({
      category: "rate_limit",
      kind: "transient",
      reason: "rate_limit",
      message: e.message,
      retry_after_ms: 12_000,
      provider: "anthropic",
      model: "claude-x",
    });
  });

  it("retry-after-ms wins over retry-after", () => {
    const e = httpError(target, 429, "", "slow down", h({ "retry-after": "2", "retry-after-ms": "1250" }), NOW, []);
    expect(e.retryAfterMs).toBe(1250);
    expect(e.message).toBe("anthropic HTTP 429 [rate_limited]: slow down (retry-after: 2)");
  });

  it("5xx: [http_error], transient server errors", () => {
    const e = httpError(target, 503, "Service Unavailable", "", h(), NOW, []);
    expect(e.message).toBe("anthropic HTTP 503 [http_error]: Service Unavailable");
    expect([e.category, e.kind, e.reason, e.retryable]).toEqual(["overloaded", "transient", "server_error", true]);
  });

  it("4xx is never retried, whatever its body says", () => {
    const e = httpError(target, 400, "", '{"error":"invalid value for timeout"}', h(), NOW, []);
    expect(e.message).toBe('anthropic HTTP 400 [invalid_request]: {"error":"invalid value for timeout"}');
    expect([e.kind, e.reason, e.retryable]).toEqual(["terminal", "invalid_request", false]);
    const auth = httpError(target, 401, "", '{"type":"error","error":{"type":"authentication_error"}}', h(), NOW, []);
    expect(auth.message).toMatch(/^anthropic HTTP 401 \[auth_failure\]: /);
    expect([auth.category, auth.reason, auth.retryable]).toEqual(["auth", "auth_failure", false]);
  });

  it("the status decides before the body's words; the body only refines a plain 400", () => {
    const cases: [number, string, string, string][] = [
      [503, "model not found, try later", "transient", "server_error"],
      [401, "model not found", "terminal", "auth_failure"],
      [400, "request timeout parameter invalid", "terminal", "invalid_request"],
      [400, "This model's maximum context length is 8192 tokens", "terminal", "context_overflow"],
      [429, "overloaded", "transient", "rate_limit"],
      [409, "conflict, retry later: overloaded", "terminal", "invalid_request"],
      [507, "out of storage", "transient", "server_error"],
    ];
    for (const [status, body, kind, reason] of cases) {
      const e = httpError(target, status, "", body, h(), NOW, []);
      expect([status, e.kind, e.reason, e.retryable]).toEqual([status, kind, reason, kind === "transient"]);
    }
  });

  it("errors inside a response are classified by the provider's type or code", () => {
    const e = apiError(target, { type: "not_found_error", message: "model: claude-x" }, []);
    expect([e.message, e.kind, e.reason, e.status]).toEqual(["anthropic API error [model_unavailable]: not_found_error: model: claude-x", "terminal", "model_unavailable", 404]);
    expect(apiError(target, { type: "weird", code: "insufficient_quota", message: "pay" }, []).reason).toBe("rate_limit");
    expect(apiError(target, { message: "x", code: 422 }, []).kind).toBe("terminal");
    expect(apiError(target, "prompt is too long", []).reason).toBe("context_overflow");
    expect(apiError(target, "boom", []).retryable).toBe(true);
  });

  it("context overflow names the offending token count", () => {
    const e = httpError(target, 400, "", "prompt is too long: 212345 tokens > 200000 maximum", h(), NOW, []);
    expect(e.message).toBe("anthropic HTTP 400 [context_overflow]: prompt is too long: 212345 tokens > 200000 maximum (offending_tokens: 212345)");
    expect(e.reason).toBe("context_overflow");
  });

  it("redacts secrets the server echoes back", () => {
    const key = "sk-ant-api03-abcdefghijklmnop";
    const e = httpError(target, 401, "", `invalid key ${key}`, h(), NOW, [key]);
    expect(e.message).not.toContain(key);
    expect(e.message).toContain("[redacted]");
  });

  it("errorFromMessage builds the dict llm_call throws", () => {
    const e = errorFromMessage(target, "openai stream error (timeout): request timed out after 2s");
    expect([e.category, e.kind, e.reason]).toEqual(["timeout", "transient", "timeout"]);
  });
});
