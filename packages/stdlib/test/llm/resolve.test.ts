/**
 * Provider/model resolution, API keys and the kill switch (agents.md
 * §5.1), and the rule that a key never shows up in anything a user sees.
 */

import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { LlmClient, LlmError, LlmSetupError, resolveStream, resolveTimeoutMs } from "../../src/llm";
import { implicitMockNotice } from "../../src/llm/resolve";
import { client, FORMATS, request, SECRET } from "./helpers";
import { sendJson, sendStream, startServer, type TestServer } from "./server";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const resolve = (env: Record<string, string>, input: Parameters<LlmClient["resolve"]>[0] = {}) =>
  new LlmClient({ env }).resolve(input);

describe("provider resolution", () => {
  it("follows the documented order", () => {
    expect(resolve({}, { provider: "openai" })).toEqual({ provider: "openai", model: "gpt-4o" });
    expect(resolve({}, { provider: "auto", model: "claude-3-5-haiku-20241022" }).provider).toBe("anthropic");
    expect(resolve({ HARN_LLM_PROVIDER: "ollama" }, { model: "gpt-4o" }).provider).toBe("ollama");
    expect(resolve({ LLM_PROVIDER: "openrouter" }).provider).toBe("openrouter");
    expect(resolve({ LOCAL_LLM_BASE_URL: "http://h:1", LOCAL_LLM_MODEL: "qwen" })).toEqual({ provider: "local", model: "qwen" });
    expect(resolve({}, { model: "gpt-4o-mini" })).toEqual({ provider: "openai", model: "gpt-4o-mini" });
    expect(resolve({}, { model: "o3-mini" }).provider).toBe("openai");
    expect(resolve({}, { model: "meta-llama/llama-3.1-70b" }).provider).toBe("openrouter");
    expect(resolve({}, { model: "llama3.2:3b" }).provider).toBe("ollama");
    expect(resolve({ HARN_LLM_MODEL: "gpt-4.1" })).toEqual({ provider: "openai", model: "gpt-4.1" });
  });

  it("without a choice, takes the first provider whose variable is set, in the documented order, else the mock", () => {
    expect(resolve({ ANTHROPIC_API_KEY: "k" })).toEqual({ provider: "anthropic", model: "claude-sonnet-4-20250514" });
    expect(resolve({ OPENAI_API_KEY: "k" })).toEqual({ provider: "openai", model: "gpt-4o" });
    expect(resolve({ OPENROUTER_API_KEY: "k" })).toEqual({ provider: "openrouter", model: "anthropic/claude-sonnet-4.6" });
    // Hugging Face has no default model; `vendor/model` names go there when only its key is set
    expect(() => resolve({ HF_TOKEN: "k" })).toThrow("provider 'huggingface' needs an explicit model");
    expect(resolve({ HF_TOKEN: "k" }, { model: "Qwen/Qwen3-8B" })).toEqual({ provider: "huggingface", model: "Qwen/Qwen3-8B" });
    expect(resolve({ HUGGINGFACE_API_KEY: "k", HARN_LLM_MODEL: "Qwen/Qwen3-8B" }).provider).toBe("huggingface");
    expect(resolve({ HF_TOKEN: "k", OPENROUTER_API_KEY: "k" }, { model: "Qwen/Qwen3-8B" }).provider).toBe("openrouter");
    expect(resolve({}, { model: "Qwen/Qwen3-8B" }).provider).toBe("openrouter");
    expect(resolve({ OLLAMA_HOST: "localhost:11434" })).toEqual({ provider: "ollama", model: "llama3.2" });
    expect(resolve({ LOCAL_LLM_BASE_URL: "http://h:1" })).toEqual({ provider: "local", model: "gpt-4o" });
    // the order decides between several
    const all = { LOCAL_LLM_BASE_URL: "http://h:1", OLLAMA_HOST: "h", HF_TOKEN: "k", OPENROUTER_API_KEY: "k", OPENAI_API_KEY: "k" };
    expect(resolve(all).provider).toBe("openai");
    expect(resolve({ ...all, ANTHROPIC_API_KEY: "k" }).provider).toBe("anthropic");
    expect(resolve({ OLLAMA_HOST: "h", LOCAL_LLM_BASE_URL: "http://h:1" }).provider).toBe("ollama");
    // blank values do not count
    expect(resolve({ ANTHROPIC_API_KEY: " ", OPENAI_API_KEY: "k" }).provider).toBe("openai");
    // a chosen default wins over the keys, and keeps its missing-key error
    expect(resolve({ HARN_DEFAULT_PROVIDER: "openai", ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "k" }).provider).toBe("openai");
    expect(resolve({ HARN_DEFAULT_PROVIDER: "openai", ANTHROPIC_API_KEY: "k" }).provider).toBe("openai");
    expect(resolve({ HARN_LLM_PROVIDER: "mock", OPENAI_API_KEY: "k" }).provider).toBe("mock");
    expect(resolve({ OPENAI_API_KEY: "k" }, { provider: "anthropic" }).provider).toBe("anthropic");
    expect(resolve({}).provider).toBe("mock");
  });

  it("tells the user once when it falls back to the mock, naming every variable that selects a provider", () => {
    const notices: string[] = [];
    const llm = new LlmClient({ env: {}, onNotice: (line) => notices.push(line) });
    llm.resolve({});
    llm.resolve({});
    llm.resolve({ provider: "mock" });
    expect(notices).toEqual([implicitMockNotice()]);
    const chosen: string[] = [];
    new LlmClient({ env: { HARN_DEFAULT_PROVIDER: "mock" }, onNotice: (line) => chosen.push(line) }).resolve({});
    expect(chosen).toEqual([]);
    expect(implicitMockNotice()).toBe(
      "note: no LLM provider configured; using the offline mock provider (set one of ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY, HF_TOKEN, OLLAMA_HOST, LOCAL_LLM_BASE_URL, or HARN_LLM_PROVIDER)",
    );
  });

  it("resolves models: explicit, tier, HARN_LLM_MODEL of the same family, provider default", () => {
    expect(resolve({}, { provider: "anthropic", model_tier: "small" }).model).toBe("claude-3-5-haiku-20241022");
    expect(resolve({}, { provider: "openai", model: "frontier" }).model).toBe("o3");
    expect(resolve({ HARN_LLM_MODEL: "claude-opus-4-20250514" }, { provider: "anthropic" }).model).toBe("claude-opus-4-20250514");
    expect(resolve({ HARN_LLM_MODEL: "claude-opus-4-20250514" }, { provider: "openai" }).model).toBe("gpt-4o");
    expect(resolve({ HARN_LLM_MODEL: "my-finetune" }, { provider: "local" }).model).toBe("my-finetune");
    expect(resolve({}, { provider: "mock" }).model).toBe("claude-sonnet-4-20250514");
    expect(resolve({ HARN_LLM_MODEL: "gpt-4o" }, { provider: "mock" }).model).toBe("gpt-4o");
    expect(() => resolve({}, { provider: "huggingface" })).toThrow(LlmSetupError);
  });

  it("rejects an unknown provider with the list of known ones", () => {
    expect(() => resolve({}, { provider: "nope" })).toThrow(
      "unknown LLM provider 'nope' (known: anthropic, huggingface, local, mock, ollama, openai, openai_responses, openrouter)",
    );
  });

  it("reads the timeout and stream settings from options, then the env", () => {
    expect(resolveTimeoutMs(2.5, {})).toBe(2500);
    expect(resolveTimeoutMs(undefined, { HARN_LLM_TIMEOUT: "30" })).toBe(30_000);
    expect(resolveTimeoutMs(undefined, {})).toBe(120_000);
    expect(resolveStream(undefined, {})).toBe(true);
    expect(resolveStream(undefined, { HARN_LLM_STREAM: "0" })).toBe(false);
    expect(resolveStream(true, { HARN_LLM_STREAM: "false" })).toBe(true);
  });
});

describe("keys and the kill switch", () => {
  it("missing key: the exact thrown-string text, before any request", async () => {
    const llm = new LlmClient({ env: {} });
    const err = await llm.completeWithRetries(request("anthropic")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmSetupError);
    expect((err as LlmSetupError).shape).toBe("thrown");
    expect((err as LlmSetupError).message).toBe(
      "Missing API key: set ANTHROPIC_API_KEY environment variable (provider 'anthropic' selected via LLM_PROVIDER / llm.toml @ <built-in defaults>; set HARN_LLM_PROVIDER=mock or LLM_PROVIDER=mock for offline use)",
    );
    expect(() => llm.requireKey("huggingface")).toThrow(
      "Missing API key: set one of HF_TOKEN, HUGGINGFACE_API_KEY environment variables (provider 'huggingface' selected via LLM_PROVIDER / llm.toml @ <built-in defaults>; set HARN_LLM_PROVIDER=mock or LLM_PROVIDER=mock for offline use)",
    );
    expect(() => new LlmClient({ env: { HUGGINGFACE_API_KEY: "hf_x" } }).requireKey("huggingface")).not.toThrow();
    expect(() => llm.requireKey("ollama")).not.toThrow();
  });

  it("HARN_LLM_CALLS_DISABLED: the exact runtime-error text, and no network I/O", async () => {
    server = await startServer((_req, res) => sendJson(res, 200, {}));
    for (const value of ["1", "true", "YES", "on"]) {
      const llm = client({ LOCAL_LLM_BASE_URL: server.url, HARN_LLM_CALLS_DISABLED: value });
      const err = await llm.completeWithRetries(request("local"), { fallbackChain: ["ollama"] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LlmSetupError);
      expect((err as LlmSetupError).shape).toBe("runtime");
      expect((err as LlmSetupError).message).toBe(
        "LLM calls are disabled by HARN_LLM_CALLS_DISABLED; provider `local` would make a real LLM request",
      );
    }
    expect(server.requests).toHaveLength(0);
    const allowed = client({ LOCAL_LLM_BASE_URL: server.url, HARN_LLM_CALLS_DISABLED: "0" });
    await allowed.completeWithRetries(request("local")).catch(() => {});
    expect(server.requests).toHaveLength(1);
  });

  it("a key echoed by the server never reaches error texts or thrown values", async () => {
    const anthropic = FORMATS[0]!;
    server = await startServer((req, res, n) => {
      const echoed = `invalid x-api-key: ${String(req.headers["x-api-key"])}`;
      if (n === 0) return sendJson(res, 401, { type: "error", error: { type: "authentication_error", message: echoed } });
      // In-stream error event quoting the key.
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(`event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "overloaded_error", message: echoed } })}\n\n`);
    });
    const llm = client(anthropic.env(server.url));
    for (let i = 0; i < 2; i++) {
      const err = (await llm.completeWithRetries(request("anthropic")).catch((e: unknown) => e)) as LlmError;
      expect(err).toBeInstanceOf(LlmError);
      expect(err.message).toContain("[redacted]");
      for (const shown of [err.message, String(err), inspect(err), JSON.stringify(err.toDict()), err.stack ?? ""]) {
        expect(shown).not.toContain(SECRET);
      }
    }
    expect(server.requests[0]!.headers["x-api-key"]).toBe(SECRET);
  });

  it("an Anthropic error event before any output is retried like a failed open", async () => {
    const anthropic = FORMATS[0]!;
    server = await startServer(async (_req, res, n) => {
      if (n === 0) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        return res.end(
          'event: message_start\ndata: {"type":"message_start","message":{"model":"m","usage":{"input_tokens":1,"output_tokens":1}}}\n\n' +
            'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
        );
      }
      await sendStream(res, anthropic.stream({ model: "m", text: ["recovered"], usage: { input: 1, output: 1 } }));
    });
    const res = await client(anthropic.env(server.url)).completeWithRetries(request("anthropic"), { retries: 1 });
    expect(res.text).toBe("recovered");
  });
});
