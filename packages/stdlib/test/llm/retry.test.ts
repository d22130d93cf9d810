/**
 * Retries against a real server: Retry-After in all three spellings,
 * 503 then success, client errors never retried, backoff with jitter from
 * an injected random source, the retry budget, and the chaos tests.
 * Virtual time (FakeClock) makes every delay observable without waiting.
 */

import { afterEach, describe, expect, it } from "vitest";
import { seededRandom } from "@harn/vm";
import { LlmError, LlmInterrupted, RetryBudget, retryDelay, systemClock, type LlmEvent, type LlmProvider } from "../../src/llm";
import { client, FakeClock, FORMATS, request } from "./helpers";
import { sendJson, sendStream, startServer, type TestServer } from "./server";
import type { Script } from "./wire";

const anthropic = FORMATS[0]!;
const OK: Script = { model: "served", text: ["fine"], usage: { input: 1, output: 1 } };

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Fail the first `failures` requests with `fail`, then answer OK. */
async function flaky(failures: number, fail: (res: import("node:http").ServerResponse) => void, format = anthropic) {
  server = await startServer(async (req, res, n) => {
    if (n < failures) return fail(res);
    await sendStream(res, format.stream(OK));
  });
  return server;
}

describe("retry delays", () => {
  it("429 Retry-After in seconds", async () => {
    const srv = await flaky(1, (res) => sendJson(res, 429, { type: "error", error: { type: "rate_limit_error", message: "slow" } }, { "retry-after": "2" }));
    const clock = new FakeClock();
    const res = await client(anthropic.env(srv.url), clock).completeWithRetries(request("anthropic"), { retries: 2 });
    expect(res.text).toBe("fine");
    expect(clock.sleeps).toEqual([2000]);
    expect(srv.requests).toHaveLength(2);
  });

  it("429 Retry-After as an HTTP date", async () => {
    const clock = new FakeClock();
    const when = new Date(clock.now() + 5000).toUTCString();
    const srv = await flaky(1, (res) => sendJson(res, 429, "{}", { "retry-after": when }));
    await client(anthropic.env(srv.url), clock).completeWithRetries(request("anthropic"), { retries: 1 });
    expect(clock.sleeps).toEqual([5000]);
  });

  it("429 retry-after-ms (OpenAI) wins over retry-after", async () => {
    const openai = FORMATS[1]!;
    const srv = await flaky(1, (res) => sendJson(res, 429, "{}", { "retry-after-ms": "1500", "retry-after": "2" }), openai);
    const clock = new FakeClock();
    await client(openai.env(srv.url), clock).completeWithRetries(request("openai"), { retries: 1 });
    expect(clock.sleeps).toEqual([1500]);
  });

  it("503 then success backs off base × 2^k + jitter", async () => {
    const srv = await flaky(2, (res) => sendJson(res, 503, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }));
    const clock = new FakeClock();
    const res = await client(anthropic.env(srv.url), clock, () => 0.5).completeWithRetries(request("anthropic"), {
      retries: 3,
      backoffMs: 100,
    });
    expect(res.text).toBe("fine");
    expect(clock.sleeps).toEqual([100 * 2 + 50, 100 * 4 + 50]);
  });

  it("computes min(max_delay, base × 2^min(k,4) + uniform(0, base))", () => {
    const policy = { retries: 9, backoffMs: 1000, maxDelayMs: 30_000 };
    expect(retryDelay(1, policy, undefined, () => 0)).toBe(2000);
    expect(retryDelay(1, policy, undefined, () => 0.999)).toBe(2999);
    expect(retryDelay(4, policy, undefined, () => 0)).toBe(16_000);
    expect(retryDelay(7, policy, undefined, () => 0)).toBe(16_000);
    expect(retryDelay(4, { ...policy, maxDelayMs: 5000 }, undefined, () => 0.5)).toBe(5000);
    expect(retryDelay(3, policy, 700, () => 0.5)).toBe(700);
  });

  it.each([
    [400, { type: "error", error: { type: "invalid_request_error", message: "bad" } }, "invalid_request"],
    [401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }, "auth_failure"],
    [403, { type: "error", error: { type: "permission_error", message: "no" } }, "auth_failure"],
    [404, { type: "error", error: { type: "not_found_error", message: "model: nope" } }, "model_unavailable"],
  ])("%i is not retried", async (status, body, reason) => {
    const srv = await flaky(5, (res) => sendJson(res, status, body));
    const clock = new FakeClock();
    const err = (await client(anthropic.env(srv.url), clock)
      .completeWithRetries(request("anthropic"), { retries: 3 })
      .catch((e: unknown) => e)) as LlmError;
    expect(err).toBeInstanceOf(LlmError);
    const asked = status === 404 ? ` (asked ${srv.url}/v1/messages for model 'test-model')` : "";
    expect(err.message).toBe(`anthropic HTTP ${status} [${reason}]: ${JSON.stringify(body)}${asked}`);
    expect(err.kind).toBe("terminal");
    expect(srv.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it("throws the last error once retries run out", async () => {
    const srv = await flaky(9, (res) => sendJson(res, 500, "boom"));
    const err = (await client(anthropic.env(srv.url))
      .completeWithRetries(request("anthropic"), { retries: 2 })
      .catch((e: unknown) => e)) as LlmError;
    expect(err.message).toBe("anthropic HTTP 500 [http_error]: boom");
    expect(err.toDict()).toMatchObject({ category: "server_error", kind: "transient", reason: "server_error", provider: "anthropic", model: "test-model" });
    expect(srv.requests).toHaveLength(3);
  });

  it("retries a refused connection (nothing listening)", async () => {
    const srv = await startServer(() => {});
    const url = srv.url;
    await srv.close();
    const clock = new FakeClock();
    const err = (await client(anthropic.env(url), clock)
      .completeWithRetries(request("anthropic"), { retries: 2 })
      .catch((e: unknown) => e)) as LlmError;
    expect(err.message).toMatch(/^anthropic stream error \(connect\): connection refused by 127\.0\.0\.1:\d+ /);
    expect([err.kind, err.reason, err.category]).toEqual(["transient", "network_error", "transient_network"]);
    expect(clock.sleeps).toHaveLength(2);
  });

  it("an offline provider (the mock) retries at once, without jitter", async () => {
    let calls = 0;
    const mock: LlmProvider = {
      name: "mock",
      offline: true,
      async *stream(): AsyncGenerator<LlmEvent> {
        if (calls++ === 0) {
          throw new LlmError({
            message: "upstream busy\nretry-after: 5\n",
            category: "overloaded",
            kind: "transient",
            reason: "server_error",
            provider: "mock",
            model: "m",
            retryAfterMs: 5000,
            retryable: true,
          });
        }
        yield { kind: "text_delta", text: "second try" };
      },
    };
    const clock = new FakeClock();
    const llm = client({ HARN_LLM_CALLS_DISABLED: "1" }, clock);
    llm.register(mock);
    const res = await llm.completeWithRetries(request("mock"), { retries: 1, backoffMs: 2000 });
    expect(res.text).toBe("second try");
    expect(clock.sleeps).toEqual([0]);
  });
});

describe("retry budget", () => {
  it("gives up before a delay would overdraw it, carrying the last error", async () => {
    const srv = await flaky(99, (res) => sendJson(res, 503, "busy"));
    const clock = new FakeClock();
    const budget = new RetryBudget(1000);
    const err = (await client(anthropic.env(srv.url), clock, () => 0)
      .completeWithRetries(request("anthropic"), { retries: 10, backoffMs: 200, budget })
      .catch((e: unknown) => e)) as LlmError;
    expect(err.budgetExhausted).toBe(true);
    expect(err.message).toBe("retry budget exhausted (1000 ms, 2 attempts); last error: anthropic HTTP 503 [http_error]: busy");
    expect(err.cause?.message).toBe("anthropic HTTP 503 [http_error]: busy");
    expect(err.category).toBe("overloaded");
    expect(clock.sleeps).toEqual([400]);
    expect(budget.spentMs).toBe(400);
    expect(srv.requests).toHaveLength(2);
  });

  it("is shared by the calls of one loop", async () => {
    const srv = await flaky(99, (res) => sendJson(res, 503, "busy"));
    const clock = new FakeClock();
    const budget = new RetryBudget(1000);
    const llm = client(anthropic.env(srv.url), clock, () => 0);
    await llm.completeWithRetries(request("anthropic"), { retries: 1, backoffMs: 200, budget }).catch(() => {});
    expect(budget.spentMs).toBe(400);
    const err = (await llm
      .completeWithRetries(request("anthropic"), { retries: 5, backoffMs: 200, budget })
      .catch((e: unknown) => e)) as LlmError;
    expect(err.budgetExhausted).toBe(true);
    expect(clock.sleeps).toEqual([400, 400]);
  });
});

/** A server that fails a share of requests before sending anything, in
 * every transient way a provider fails. */
async function chaosServer(format: (typeof FORMATS)[number], failureRate: number, seed: number) {
  const rand = seededRandom(seed);
  let failures = 0;
  const srv = await startServer(async (req, res) => {
    if (rand() < failureRate) {
      failures++;
      const mode = Math.floor(rand() * 5);
      if (mode === 0) return sendJson(res, 429, { error: "rate limited" }, { "retry-after": "1" });
      if (mode === 1) return sendJson(res, 500, { error: "internal" });
      if (mode === 2) return sendJson(res, 503, { error: "unavailable" });
      if (mode === 3) return sendJson(res, 529, { error: "overloaded" });
      res.socket?.destroy(); // connection reset before any byte
      return;
    }
    const n = (req.body.messages ?? req.body.input).length;
    await sendStream(res, format.stream({ ...OK, text: [`answer ${n}`] }));
  });
  server = srv;
  return { srv, failures: () => failures };
}

describe.each(FORMATS)("chaos against $provider", (format) => {
  it("20 sequential requests all succeed while 20% of requests fail at random", async () => {
    const { srv, failures } = await chaosServer(format, 0.2, 7);
    const clock = new FakeClock();
    const llm = client(format.env(srv.url), clock, seededRandom(1));
    const budget = new RetryBudget(120_000);
    const messages: { role: string; content: string }[] = [];
    for (let turn = 1; turn <= 20; turn++) {
      messages.push({ role: "user", content: `turn ${turn}` });
      const res = await llm.completeWithRetries(request(format.provider, { messages: [...messages] }), {
        retries: 6,
        backoffMs: 250,
        budget,
      });
      expect(res.text).toBe(`answer ${messages.length}`);
      messages.push({ role: "assistant", content: res.text });
    }
    expect(failures()).toBeGreaterThan(0);
    expect(srv.requests).toHaveLength(20 + failures());
    expect(clock.sleeps).toHaveLength(failures());
  });

  it("at 100% failure the call stops within its budget with a clear error", async () => {
    const { srv } = await chaosServer(format, 1, 11);
    const clock = new FakeClock();
    const start = clock.now();
    const budget = new RetryBudget(10_000);
    const err = (await client(format.env(srv.url), clock, seededRandom(2))
      .completeWithRetries(request(format.provider), { retries: 1000, backoffMs: 250, budget })
      .catch((e: unknown) => e)) as LlmError;
    expect(err).toBeInstanceOf(LlmError);
    expect(err.budgetExhausted).toBe(true);
    expect(err.message).toMatch(/^retry budget exhausted \(10000 ms, \d+ attempts\); last error: /);
    expect(err.cause).toBeInstanceOf(LlmError);
    expect(clock.now() - start).toBeLessThanOrEqual(10_000);
    expect(budget.spentMs).toBeLessThanOrEqual(10_000);
    expect(srv.requests.length).toBeGreaterThan(3);
  });
});

describe("real time", () => {
  it("gives up within a small budget on the system clock", async () => {
    const srv = await flaky(999, (res) => sendJson(res, 503, "busy"));
    const budget = new RetryBudget(200);
    const llm = client(anthropic.env(srv.url), systemClock as FakeClock);
    const err = (await llm
      .completeWithRetries(request("anthropic"), { retries: 100, backoffMs: 10, budget })
      .catch((e: unknown) => e)) as LlmError;
    expect(err.budgetExhausted).toBe(true);
    expect(srv.requests.length).toBeLessThan(101);
  });

  it("an abort during a backoff sleep interrupts at once", async () => {
    const srv = await flaky(9, (res) => sendJson(res, 503, "busy", { "retry-after": "30" }));
    const ac = new AbortController();
    const llm = client(anthropic.env(srv.url), systemClock as FakeClock);
    const err = await llm
      .completeWithRetries(request("anthropic"), { retries: 3, signal: ac.signal, onRetry: () => ac.abort() })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmInterrupted);
    expect((err as LlmInterrupted).partial.text).toBe("");
    expect(srv.requests).toHaveLength(1);
  });
});
