/**
 * Fallback chains (agents.md §5.4, extensions.md §3.5) against two real
 * servers.
 */

import { afterEach, describe, expect, it } from "vitest";
import { LlmClient, LlmError } from "../../src/llm";
import { fallbackModel, fallbackProviders, StickyFallback } from "../../src/llm/fallback";
import { FakeClock, FORMATS, request } from "./helpers";
import { sendJson, sendStream, startServer, type TestServer } from "./server";

const [anthropic, openai] = [FORMATS[0]!, FORMATS[1]!];
const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function primaryDown(status = 503) {
  const s = await startServer((_req, res) => sendJson(res, status, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }));
  servers.push(s);
  return s;
}

async function secondaryUp() {
  const s = await startServer((req, res) =>
    sendStream(res, openai.stream({ model: `served:${req.body.model}`, text: ["from the fallback"], usage: { input: 2, output: 3 } })),
  );
  servers.push(s);
  return s;
}

function twoProviders(primary: TestServer, secondary: TestServer, extra: Record<string, string> = {}) {
  return new LlmClient({
    env: { ...anthropic.env(primary.url), ...openai.env(secondary.url), ...extra },
    clock: new FakeClock(),
    random: () => 0,
  });
}

describe("fallback_chain", () => {
  it("after the primary's retries, asks the next provider with its fallback_models model", async () => {
    const [p, s] = [await primaryDown(), await secondaryUp()];
    const res = await twoProviders(p, s).completeWithRetries(request("anthropic", { model: "claude-sonnet-4-20250514" }), {
      retries: 1,
      fallbackChain: ["openai"],
      fallbackModels: { openai: "gpt-4o-mini" },
    });
    expect(res.text).toBe("from the fallback");
    expect(res.provider).toBe("openai");
    expect(res.model).toBe("served:gpt-4o-mini");
    expect(p.requests).toHaveLength(2);
    expect(s.requests).toHaveLength(1);
    expect(s.requests[0]!.body.model).toBe("gpt-4o-mini");
  });

  it("without fallback_models sends the same model string, unless it plainly names another vendor's model", async () => {
    const [p, s] = [await primaryDown(), await secondaryUp()];
    const llm = twoProviders(p, s, { OLLAMA_HOST: s.url });
    await llm.completeWithRetries(request("anthropic", { model: "my-finetune" }), { fallbackChain: "openai" });
    await llm.completeWithRetries(request("anthropic", { model: "claude-x" }), { fallbackChain: "openai" });
    expect(s.requests.map((r) => r.body.model)).toEqual(["my-finetune", "gpt-4o"]);
    expect(fallbackModel("openai_responses", "gpt-4.1", null, () => "gpt-4o")).toBe("gpt-4.1");
    expect(fallbackModel("huggingface", "claude-x", null, () => undefined)).toBe("claude-x");
  });

  it("reports the primary's error when every provider fails", async () => {
    const p = await primaryDown(503);
    const s = await startServer((_req, res) => sendJson(res, 500, "secondary broke"));
    servers.push(s);
    const err = (await twoProviders(p, s)
      .completeWithRetries(request("anthropic"), { fallbackChain: ["openai"] })
      .catch((e: unknown) => e)) as LlmError;
    expect(err).toBeInstanceOf(LlmError);
    expect(err.message).toMatch(/^anthropic HTTP 503 \[http_error\]: /);
    expect(err.provider).toBe("anthropic");
    expect(s.requests).toHaveLength(1);
  });

  it("is not used once output has reached the caller", async () => {
    const p = await startServer(async (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(anthropic.stream({ model: "m", text: ["partial"], usage: { input: 1, output: 1 } }, { dieAfterText: true }).body);
      await new Promise((r) => setTimeout(r, 10));
      res.socket?.destroy();
    });
    servers.push(p);
    const s = await secondaryUp();
    const err = await twoProviders(p, s)
      .completeWithRetries(request("anthropic"), { fallbackChain: ["openai"], onEvent: () => {} })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect(s.requests).toHaveLength(0);
  });

  it("orders, de-duplicates and filters the chain", () => {
    const usable = (n: string) => ["openai", "ollama", "local"].includes(n);
    expect(
      fallbackProviders({ primary: "anthropic", chain: " openai, anthropic,nope, ollama,openai, local", usable }),
    ).toEqual(["openai", "ollama", "local"]);
    expect(fallbackProviders({ primary: "openai", chain: ["openai", "gemini"], usable })).toEqual([]);
    expect(fallbackProviders({ primary: "openai", chain: null, usable })).toEqual([]);
  });

  it("skips providers without a key", () => {
    const llm = new LlmClient({ env: { OPENAI_API_KEY: "k" } });
    expect(llm.usable("openai")).toBe(true);
    expect(llm.usable("anthropic")).toBe(false);
    expect(llm.usable("ollama")).toBe(true);
    expect(llm.usable("mock")).toBe(false);
    expect(new LlmClient({ env: { OPENAI_API_KEY: "k", HARN_LLM_CALLS_DISABLED: "1" } }).usable("openai")).toBe(false);
  });
});

describe("a fallback that answered sticks", () => {
  /** Two calls of one loop; what each server saw and what the clock slept. */
  async function twoCalls(opts: { reprobe?: { turns?: number; ms?: number }; calls?: number; primary?: TestServer; gapMs?: number } = {}) {
    const p = opts.primary ?? (await primaryDown());
    const s = await secondaryUp();
    const clock = new FakeClock();
    const notices: string[] = [];
    const llm = new LlmClient({ env: { ...anthropic.env(p.url), ...openai.env(s.url) }, clock, random: () => 0, onNotice: (l) => notices.push(l) });
    const sticky = new StickyFallback(opts.reprobe);
    const served: string[] = [];
    for (let i = 0; i < (opts.calls ?? 2); i++) {
      const res = await llm.completeWithRetries(request("anthropic", { model: "claude-sonnet-4-20250514" }), {
        retries: 2,
        backoffMs: 2000,
        fallbackChain: ["openai"],
        fallbackModels: { openai: "gpt-4o-mini" },
        sticky,
      });
      served.push(res.provider);
      clock.t += opts.gapMs ?? 0;
    }
    return { p, s, clock, notices, served };
  }

  it("a dead primary costs its retries once: the second call goes straight to the fallback (the test's clock, not a threshold)", async () => {
    const { p, s, clock, notices, served } = await twoCalls();
    expect(served).toEqual(["openai", "openai"]);
    expect(p.requests).toHaveLength(3); // first call: 1 + 2 retries; second call: none
    expect(s.requests).toHaveLength(2);
    // backoff base × 2^k + jitter (0 here): only the first call waited
    expect(clock.sleeps).toEqual([4000, 8000]);
    expect(notices).toEqual(["note: anthropic failed (HTTP 503 overloaded) — falling back to openai/gpt-4o-mini"]);
  });

  it("a primary that refuses connections is not retried when a fallback can answer", async () => {
    const dead = await startServer(() => {});
    const url = dead.url;
    await dead.close();
    const s = await secondaryUp();
    const clock = new FakeClock();
    const notices: string[] = [];
    const llm = new LlmClient({ env: { ...anthropic.env(url), ...openai.env(s.url) }, clock, onNotice: (l) => notices.push(l) });
    const res = await llm.completeWithRetries(request("anthropic"), { retries: 3, fallbackChain: ["openai"] });
    expect(res.provider).toBe("openai");
    expect(clock.sleeps).toEqual([]);
    expect(notices).toEqual([`note: anthropic failed (connection refused by 127.0.0.1:${new URL(url).port}) — falling back to openai/test-model`]);
  });

  it("re-probes the primary after N calls, and stays on it once it answers", async () => {
    let healthy = false;
    const p = await startServer((_req, res) =>
      healthy
        ? sendStream(res, anthropic.stream({ model: "claude", text: ["primary"], usage: { input: 1, output: 1 } }))
        : sendJson(res, 503, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }),
    );
    servers.push(p);
    const s = await secondaryUp();
    const clock = new FakeClock();
    const notices: string[] = [];
    const llm = new LlmClient({ env: { ...anthropic.env(p.url), ...openai.env(s.url) }, clock, random: () => 0, onNotice: (l) => notices.push(l) });
    const sticky = new StickyFallback({ turns: 2 });
    const served: string[] = [];
    const call = async () => served.push((await llm.completeWithRetries(request("anthropic"), { fallbackChain: ["openai"], sticky })).provider);
    await call(); // primary fails: fallback
    await call(); // fallback (1 of 2)
    await call(); // fallback (2 of 2)
    healthy = true;
    await call(); // re-probe: the primary answers
    await call(); // and keeps answering
    expect(served).toEqual(["openai", "openai", "openai", "anthropic", "anthropic"]);
    expect(p.requests).toHaveLength(3);
    expect(notices).toEqual(["note: anthropic failed (HTTP 503 overloaded) — falling back to openai/test-model", "note: anthropic answers again; leaving the fallback openai"]);
  });

  it("re-probes after M milliseconds on the fallback", async () => {
    const { p, served } = await twoCalls({ reprobe: { ms: 60_000 }, calls: 3, gapMs: 40_000 });
    expect(served).toEqual(["openai", "openai", "openai"]);
    // call 2 (40 s after the switch) stays on the fallback; call 3 (80 s) asks the primary again
    expect(p.requests).toHaveLength(6);
  });

  it("a rejected key is reported with the variable that holds it, not swallowed by the fallback", async () => {
    const p = await startServer((_req, res) => sendJson(res, 401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }));
    servers.push(p);
    const { notices, served } = await twoCalls({ primary: p });
    expect(served).toEqual(["openai", "openai"]);
    expect(p.requests).toHaveLength(1);
    expect(notices).toEqual(["note: anthropic failed (HTTP 401 authentication: check ANTHROPIC_API_KEY) — falling back to openai/gpt-4o-mini"]);
  });
});
