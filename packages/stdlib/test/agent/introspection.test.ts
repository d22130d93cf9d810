/**
 * LLM introspection against the environment and real HTTP servers
 * (agents-surface.md §8.1, §8.6, §8.9): what `llm_info` reads from the
 * environment, `llm_healthcheck` probing a provider's model list with the
 * provider's own auth header, and the rate limiter's 60 s window on a
 * virtual clock.
 */
import { afterEach, describe, expect, it } from "vitest";
import { VirtualClock } from "@harn/vm";
import { sendJson, startServer, type TestServer } from "../llm/server";
import { anthropicBody, ollamaBody, openAiChatBody, type Script } from "../llm/wire";
import { lines, runHarn } from "./harness";

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const NO_KEYS = { ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "", OPENROUTER_API_KEY: "", HF_TOKEN: "", HUGGINGFACE_API_KEY: "" };

describe("llm_info", () => {
  it("resolves HARN_LLM_MODEL through the aliases and reports whether the provider's key is set", async () => {
    const script = `pipeline main() { println(json_stringify(llm_info())) }`;
    expect(await lines(script, { env: { ...NO_KEYS, HARN_LLM_MODEL: "mid", OPENAI_API_KEY: "sk-x" } })).toEqual([
      '{"api_key_set":true,"model":"gpt-4o-mini","provider":"openai"}',
    ]);
    expect(await lines(script, { env: { ...NO_KEYS, HARN_LLM_MODEL: "claude-3-5-haiku-20241022" } })).toEqual([
      '{"api_key_set":false,"model":"claude-3-5-haiku-20241022","provider":"anthropic"}',
    ]);
    expect(await lines(script, { env: { ...NO_KEYS, HARN_LLM_MODEL: "llama3.2:latest", HARN_LLM_PROVIDER: "ollama" } })).toEqual([
      '{"api_key_set":true,"model":"llama3.2:latest","provider":"ollama"}',
    ]);
    expect(await lines(script, { env: { ...NO_KEYS, HARN_DEFAULT_PROVIDER: "openai" } })).toEqual(['{"api_key_set":false,"model":"","provider":"openai"}']);
  });
});

describe("llm_healthcheck", () => {
  const CHECK = (args: string) => `pipeline main() { println(json_stringify(llm_healthcheck(${args}))) }`;

  it("asks an OpenAI-compatible provider for its model list with the bearer key, and never shows the key", async () => {
    server = await startServer((req, res) => {
      const ok = req.headers.authorization === "Bearer sk-good-123456";
      res.writeHead(ok ? 200 : 401, { "content-type": "application/json" });
      res.end(ok ? '{"data":[]}' : '{"error":{"message":"bad key sk-bad-654321"}}');
    });
    const env = { ...NO_KEYS, OPENAI_API_KEY: "sk-good-123456", OPENAI_BASE_URL: `${server.url}/v1`, HARN_LLM_CALLS_DISABLED: "" };
    const [good] = await lines(CHECK('"openai"'), { env });
    expect(JSON.parse(good!)).toEqual({
      provider: "openai",
      valid: true,
      message: "openai is reachable and accepted the credentials",
      metadata: { provider: "openai", reason: "ok", status: 200, url: `${server.url}/v1/models` },
    });
    const [bad] = await lines(CHECK('"openai", {api_key: "sk-bad-654321"}'), { env });
    expect(JSON.parse(bad!)).toMatchObject({ valid: false, metadata: { reason: "invalid_credentials", status: 401 } });
    expect(bad).not.toContain("sk-bad");
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/models", "GET /v1/models"]);
    expect(server.requests[1]!.headers.authorization).toBe("Bearer sk-bad-654321");
  });

  it("sends Anthropic's x-api-key and version headers", async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"data":[]}');
    });
    const env = { ...NO_KEYS, ANTHROPIC_API_KEY: "sk-ant-abc", ANTHROPIC_BASE_URL: server.url, HARN_LLM_CALLS_DISABLED: "" };
    const [out] = await lines(CHECK(""), { env });
    expect(JSON.parse(out!)).toMatchObject({ provider: "anthropic", valid: true });
    const req = server.requests[0]!;
    expect(`${req.method} ${req.path}`).toBe("GET /v1/models");
    expect(req.headers["x-api-key"]).toBe("sk-ant-abc");
    expect(req.headers["anthropic-version"]).toMatch(/^\d{4}-\d\d-\d\d$/);
  });

  it("lists Ollama's tags, and warms a model with a generate request", async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
    const env = { ...NO_KEYS, OLLAMA_HOST: server.url, HARN_LLM_CALLS_DISABLED: "" };
    expect(JSON.parse((await lines(CHECK('"ollama"'), { env }))[0]!)).toMatchObject({ valid: true, metadata: { reason: "ok" } });
    expect(JSON.parse((await lines(CHECK('"ollama", {warm: true, model: "qwen3:8b"}'), { env }))[0]!)).toMatchObject({ valid: true, status: "warm" });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /api/tags", "POST /api/generate"]);
    expect(server.requests[1]!.body).toMatchObject({ model: "qwen3:8b", prompt: "" });
  });

  it("answers without a request when the key is missing, calls are disabled or nothing listens", async () => {
    expect(JSON.parse((await lines(CHECK('"huggingface"'), { env: NO_KEYS }))[0]!)).toEqual({
      provider: "huggingface",
      valid: false,
      message: "Missing credentials for huggingface: set HF_TOKEN, HUGGINGFACE_API_KEY or pass an api_key",
      metadata: { provider: "huggingface", reason: "missing_credentials" },
    });
    const disabled = await lines(CHECK('"openai", {api_key: "sk-1"}'), { env: { ...NO_KEYS, HARN_LLM_CALLS_DISABLED: "1" } });
    expect(JSON.parse(disabled[0]!)).toMatchObject({ valid: false, metadata: { reason: "calls_disabled" } });
    // a port nothing listens on: a server closed before the check
    const gone = await startServer(() => undefined);
    const url = gone.url;
    await gone.close();
    const [out] = await lines(CHECK('"local"'), { env: { ...NO_KEYS, LOCAL_LLM_BASE_URL: url, HARN_LLM_CALLS_DISABLED: "" } });
    expect(JSON.parse(out!)).toMatchObject({ valid: false, metadata: { reason: "unreachable", url: `${url}/v1/models`, error: "ECONNREFUSED" } });
  });
});

describe("llm_rate_limit", () => {
  it("reads HARN_RATE_LIMIT_<PROVIDER>, and 0 there means no limit", async () => {
    const script = `pipeline main() { println([llm_rate_limit("openai"), llm_rate_limit("anthropic"), llm_rate_limit("local")]) }`;
    expect(await lines(script, { env: { HARN_RATE_LIMIT_OPENAI: "90", HARN_RATE_LIMIT_ANTHROPIC: "0" } })).toEqual(["[90, nil, nil]"]);
  });

  it("lets rpm requests start in any 60 s window and holds the next one until the oldest leaves it", async () => {
    const script = `
pipeline main() {
  llm_rate_limit("acme", {rpm: 2})
  let t0 = monotonic_ms()
  var starts = []
  for i in 0 to 5 {
    starts = starts + [with_rate_limit("acme", { -> monotonic_ms() - t0 })]
    sleep(10s)
  }
  println(starts)
}`;
    // a virtual clock: the waits take no real time, and the readings are exact
    expect(await lines(script, { clock: new VirtualClock() })).toEqual(["[0, 10000, 60000, 70000, 120000, 130000]"]);
  });
});

describe("image content blocks on the wire (§8.10)", () => {
  const SCRIPT = (opts: string, image: string) => `
pipeline main() {
  let msgs = [{role: "user", content: [{type: "text", text: "What is it?"}, ${image}]}]
  println(llm_call("", nil, {${opts}, messages: msgs, stream: false}).text)
}`;
  const B64 = '{type: "image", base64: "aGVsbG8=", media_type: "image/png"}';
  const URL_IMG = '{type: "image", url: "https://example.com/cat.png", media_type: "image/png", detail: "low"}';
  const reply: Script = { model: "m", text: ["A cat."], usage: { input: 5, output: 2 } };

  it("Anthropic: base64 and url sources", async () => {
    server = await startServer((_req, res) => sendJson(res, 200, anthropicBody(reply)));
    const env = { ANTHROPIC_API_KEY: "sk-ant-1", ANTHROPIC_BASE_URL: server.url, HARN_LLM_CALLS_DISABLED: "" };
    const opts = 'provider: "anthropic", model: "claude-sonnet-4-20250514"';
    expect(await lines(SCRIPT(opts, B64), { env })).toEqual(["A cat."]);
    expect(await lines(SCRIPT(opts, URL_IMG), { env })).toEqual(["A cat."]);
    expect(server.requests[0]!.body.messages[0].content).toEqual([
      { type: "text", text: "What is it?" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "aGVsbG8=" } },
    ]);
    expect(server.requests[1]!.body.messages[0].content[1]).toEqual({ type: "image", source: { type: "url", url: "https://example.com/cat.png" } });
  });

  it("OpenAI chat: image_url parts, base64 as a data URL", async () => {
    server = await startServer((_req, res) => sendJson(res, 200, openAiChatBody(reply)));
    const env = { OPENAI_API_KEY: "sk-1", OPENAI_BASE_URL: `${server.url}/v1`, HARN_LLM_CALLS_DISABLED: "" };
    const opts = 'provider: "openai", model: "gpt-4o"';
    await lines(SCRIPT(opts, B64), { env });
    await lines(SCRIPT(opts, URL_IMG), { env });
    expect(server.requests[0]!.body.messages[0].content).toEqual([
      { type: "text", text: "What is it?" },
      { type: "image_url", image_url: { url: "data:image/png;base64,aGVsbG8=" } },
    ]);
    expect(server.requests[1]!.body.messages[0].content[1]).toEqual({ type: "image_url", image_url: { url: "https://example.com/cat.png", detail: "low" } });
  });

  it("Ollama: the message's images list", async () => {
    server = await startServer((_req, res) => sendJson(res, 200, ollamaBody(reply)));
    const env = { OLLAMA_HOST: server.url, HARN_LLM_CALLS_DISABLED: "" };
    expect(await lines(SCRIPT('provider: "ollama", model: "llava:7b"', B64), { env })).toEqual(["A cat."]);
    expect(server.requests[0]!.body.messages[0]).toEqual({ role: "user", content: "What is it?", images: ["aGVsbG8="] });
  });

  it("a model without vision is refused before any request", async () => {
    server = await startServer((_req, res) => sendJson(res, 200, ollamaBody(reply)));
    const r = await runHarn(SCRIPT('provider: "ollama", model: "llama3.2"', B64), { env: { OLLAMA_HOST: server.url, HARN_LLM_CALLS_DISABLED: "" } });
    expect(r.error).toContain("option `vision` is not supported by `llama3.2` (provider `ollama`)");
    expect(server.requests).toEqual([]);
  });
});
