/**
 * Fallback chains (agents.md §5.4, extensions.md §3.5) against two real
 * servers.
 */

import { afterEach, describe, expect, it } from "vitest";
import { LlmClient, LlmError } from "../../src/llm";
import { fallbackProviders } from "../../src/llm/fallback";
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

  it("without fallback_models sends the same model string (reference behaviour)", async () => {
    const [p, s] = [await primaryDown(), await secondaryUp()];
    await twoProviders(p, s).completeWithRetries(request("anthropic", { model: "claude-x" }), { fallbackChain: "openai" });
    expect(s.requests[0]!.body.model).toBe("claude-x");
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

  it("uses the provider's configured fallback after the chain", async () => {
    const [p, s] = [await primaryDown(), await secondaryUp()];
    const llm = new LlmClient({
      env: { ...anthropic.env(p.url), ...openai.env(s.url) },
      clock: new FakeClock(),
      providerSettings: { anthropic: { fallback: "openai" } },
    });
    const res = await llm.completeWithRetries(request("anthropic"));
    expect(res.provider).toBe("openai");
  });

  it("orders, de-duplicates and filters the chain", () => {
    const usable = (n: string) => ["openai", "ollama", "local"].includes(n);
    expect(
      fallbackProviders({ primary: "anthropic", chain: " openai, anthropic,nope, ollama,openai ", configured: "local", usable }),
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
