/**
 * Every wire format against a real HTTP server speaking it: streamed text,
 * reasoning, batched tool calls with awkwardly split fragments, the
 * identical result over the non-streaming transport, broken argument JSON,
 * and a stream that dies midway.
 */

import { afterEach, describe, expect, it } from "vitest";
import { LlmClient, LlmError, type LlmEvent } from "../../src/llm";
import { client, FORMATS, request, SECRET } from "./helpers";
import { sendJson, sendStream, startServer, type TestServer } from "./server";
import { openAiChatBody, openAiChatStream, sseFrame, type Script } from "./wire";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server answering every request with `script`, streaming or not as the
 * request asks, written in `pieceBytes`-sized pieces. */
async function serve(format: (typeof FORMATS)[number], script: Script, pieceBytes = 0): Promise<TestServer> {
  server = await startServer(async (req, res) => {
    if (req.path !== format.path) return sendJson(res, 404, { error: `no route ${req.path}` });
    if (req.body.stream === true) await sendStream(res, format.stream(script), { pieceBytes });
    else sendJson(res, 200, format.body(script));
  });
  return server;
}

const TEXT_SCRIPT: Script = {
  model: "served-model-2025",
  reasoning: ["Let me ", "think."],
  text: ["Héllo ", "wörld 🌍", ", done."],
  usage: { input: 31, output: 12, reasoning: 0 },
};

const TOOLS_SCRIPT: Script = {
  model: "served-model-2025",
  text: ["Checking three things."],
  calls: [
    { id: "call_first", name: "read_file", fragments: ['{"pa', 'th": "a.t', 'xt"}'] },
    { id: "call_second", name: "grep", fragments: ["{", '"pattern": "fo\\u00e9o', '", "max": 1', "0}"] },
    { id: "call_third", name: "list_dir", fragments: [] },
  ],
  usage: { input: 50, output: 40 },
};

describe.each(FORMATS)("$provider wire format", (format) => {
  it("streams text and reasoning as normalized events, in order", async () => {
    const srv = await serve(format, TEXT_SCRIPT);
    const events: LlmEvent[] = [];
    const res = await client(format.env(srv.url)).completeWithRetries(request(format.provider), {
      onEvent: (e) => void events.push(e),
    });
    expect(res.text).toBe("Héllo wörld 🌍, done.");
    expect(res.reasoning).toBe("Let me think.");
    expect(res.tool_calls).toEqual([]);
    expect(res.input_tokens).toBe(31);
    expect(res.output_tokens).toBe(12);
    expect(res.model).toBe("served-model-2025");
    expect(res.provider).toBe(format.provider);
    const texts = events.filter((e) => e.kind === "text_delta").map((e) => (e as { text: string }).text);
    expect(texts).toEqual(["Héllo ", "wörld 🌍", ", done."]);
    expect(events[events.length - 1]!.kind).toBe("completed");
    expect(events.filter((e) => e.kind === "completed")).toHaveLength(1);
    expect(srv.requests[0]!.path).toBe(format.path);
  });

  it("keeps every batched tool call, in arrival order, with fragments split mid-token", async () => {
    const srv = await serve(format, TOOLS_SCRIPT);
    const events: LlmEvent[] = [];
    const res = await client(format.env(srv.url)).completeWithRetries(request(format.provider), {
      onEvent: (e) => void events.push(e),
    });
    expect(res.text).toBe("Checking three things.");
    expect(res.tool_calls.map((c) => c.name)).toEqual(["read_file", "grep", "list_dir"]);
    expect(res.tool_calls[0]!.arguments).toEqual({ path: "a.txt" });
    expect(res.tool_calls[1]!.arguments).toEqual({ pattern: "foéo", max: 10 });
    expect(res.tool_calls[2]!.arguments).toEqual({});
    if (format.provider !== "ollama") {
      // Ollama has no call ids on the wire; the others keep the server's.
      expect(res.tool_calls.map((c) => c.id)).toEqual(["call_first", "call_second", "call_third"]);
    } else {
      expect(res.tool_calls.map((c) => c.id)).toEqual(["call_1", "call_2", "call_3"]);
    }
    const starts = events.filter((e) => e.kind === "tool_call_start");
    expect(starts.map((e) => (e as { name: string }).name)).toEqual(["read_file", "grep", "list_dir"]);
  });

  it("survives bodies written a few bytes at a time (split frames and UTF-8 sequences)", async () => {
    const srv = await serve(format, { ...TOOLS_SCRIPT, text: TEXT_SCRIPT.text }, 13);
    const res = await client(format.env(srv.url)).completeWithRetries(request(format.provider));
    expect(res.text).toBe("Héllo wörld 🌍, done.");
    expect(res.tool_calls.map((c) => c.arguments)).toEqual([{ path: "a.txt" }, { pattern: "foéo", max: 10 }, {}]);
  });

  it("reads bodies delivered one byte per chunk", async () => {
    const srv = await serve(format, { ...TOOLS_SCRIPT, reasoning: TEXT_SCRIPT.reasoning, text: TEXT_SCRIPT.text });
    // The real server's body, re-cut into single-byte chunks on the way in:
    // every frame boundary and every multi-byte character is split.
    const bytewise: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const bytes = new Uint8Array(await res.arrayBuffer());
      let i = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (i < bytes.length) controller.enqueue(bytes.subarray(i, ++i));
          else controller.close();
        },
      });
      return new Response(body, { status: res.status, headers: res.headers });
    };
    const llm = new LlmClient({ env: format.env(srv.url), fetch: bytewise });
    const res = await llm.completeWithRetries(request(format.provider));
    expect(res.text).toBe("Héllo wörld 🌍, done.");
    expect(res.reasoning).toBe("Let me think.");
    expect(res.tool_calls.map((c) => c.arguments)).toEqual([{ path: "a.txt" }, { pattern: "foéo", max: 10 }, {}]);
  });

  it("gives the identical result over the non-streaming transport", async () => {
    for (const script of [TEXT_SCRIPT, TOOLS_SCRIPT]) {
      const srv = await serve(format, script);
      const llm = client(format.env(srv.url));
      const streamed = await llm.completeWithRetries(request(format.provider, { stream: true }));
      const events: LlmEvent[] = [];
      const whole = await llm.completeWithRetries(request(format.provider, { stream: false }), {
        onEvent: (e) => void events.push(e),
      });
      expect(whole).toEqual(streamed);
      expect(srv.requests.map((r) => r.body.stream === true)).toEqual([true, false]);
      expect(events[events.length - 1]!.kind).toBe("completed");
      await srv.close();
      server = undefined;
    }
  });

  it("reads to the end of each body, so the next call reuses the connection", async () => {
    const srv = await serve(format, TOOLS_SCRIPT);
    const llm = client(format.env(srv.url));
    const pause = () => new Promise((r) => setTimeout(r, 20)); // let the pool take the socket back
    await llm.completeWithRetries(request(format.provider));
    await pause();
    await llm.completeWithRetries(request(format.provider));
    await pause();
    await llm.completeWithRetries(request(format.provider, { stream: false }));
    const [first, ...rest] = srv.requests.map((r) => r.remotePort);
    expect(rest).toContain(first);
  });

  it("a server that keeps the stream open after its end marker still gives the complete answer", async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": format.stream(TEXT_SCRIPT).contentType });
      res.write(format.stream(TEXT_SCRIPT).body); // and never end
    });
    const res = await client(format.env(server.url)).completeWithRetries(request(format.provider, { timeout_ms: 10_000 }));
    expect(res.text).toBe("Héllo wörld 🌍, done.");
    expect(res.output_tokens).toBe(12);
    await server.requests[0]!.socketClosed;
  });

  it("passes argument text that is not a JSON object on as {_raw}", async () => {
    if (format.provider === "ollama") return; // Ollama sends arguments as parsed objects only
    const srv = await serve(format, {
      model: "m",
      calls: [
        { id: "call_bad", name: "write", fragments: ['{"path": "x", "content": "unterminated'] },
        { id: "call_arr", name: "sum", fragments: ["[1, 2]"] },
      ],
      usage: { input: 1, output: 1 },
    });
    // The Anthropic/Ollama non-streaming bodies carry parsed objects, so
    // broken JSON can only arrive streamed.
    const res = await client(format.env(srv.url)).completeWithRetries(request(format.provider));
    expect(res.tool_calls).toEqual([
      { id: "call_bad", name: "write", arguments: { _raw: '{"path": "x", "content": "unterminated' } },
      { id: "call_arr", name: "sum", arguments: { _raw: "[1, 2]" } },
    ]);
  });

  it("surfaces a stream that dies midway and does not retry it", async () => {
    server = await startServer(async (_req, res) => {
      res.writeHead(200, { "content-type": format.stream(TEXT_SCRIPT).contentType });
      res.write(format.stream(TEXT_SCRIPT, { dieAfterText: true }).body);
      await new Promise((r) => setTimeout(r, 20));
      res.socket?.destroy();
    });
    const events: LlmEvent[] = [];
    const err = await client(format.env(server.url))
      .completeWithRetries(request(format.provider), { retries: 3, onEvent: (e) => void events.push(e) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    const e = err as LlmError;
    expect(e.message).toMatch(new RegExp(`^${format.provider} stream error \\(body\\): connection closed before the response was complete`));
    expect(e.kind).toBe("transient");
    expect(e.reason).toBe("network_error");
    expect(server.requests).toHaveLength(1);
    expect(events.some((ev) => ev.kind === "text_delta")).toBe(true);
    expect(e.message).not.toContain(SECRET);
  });
});

describe("OpenAI-compatible tool-call fragments", () => {
  it("routes interleaved fragments of parallel calls by index", async () => {
    server = await startServer((_req, res) => sendStream(res, openAiChatStream(TOOLS_SCRIPT, { interleaveCalls: true })));
    const res = await client({ LOCAL_LLM_BASE_URL: server.url }).completeWithRetries(request("local"));
    expect(res.tool_calls).toEqual([
      { id: "call_first", name: "read_file", arguments: { path: "a.txt" } },
      { id: "call_second", name: "grep", arguments: { pattern: "foéo", max: 10 } },
      { id: "call_third", name: "list_dir", arguments: {} },
    ]);
  });

  it("reads a single JSON document from a server that ignores stream: true", async () => {
    server = await startServer((_req, res) => sendJson(res, 200, openAiChatBody(TOOLS_SCRIPT)));
    const res = await client({ LOCAL_LLM_BASE_URL: server.url }).completeWithRetries(request("local"));
    expect(server.requests[0]!.body.stream).toBe(true);
    expect(res.tool_calls.map((c) => c.name)).toEqual(["read_file", "grep", "list_dir"]);
    expect(res.text).toBe("Checking three things.");
  });

  it("accepts a body that ends after the finish reason without [DONE]", async () => {
    server = await startServer((_req, res) => sendStream(res, openAiChatStream(TEXT_SCRIPT, { omitDone: true })));
    const res = await client({ LOCAL_LLM_BASE_URL: server.url }).completeWithRetries(request("local"));
    expect(res.text).toBe("Héllo wörld 🌍, done.");
    expect(res.stop_reason).toBe("stop");
  });

  /** A streamed Chat Completions reply whose tool-call fragments are
   * exactly `pieces`, one chunk each (no text). */
  async function serveFragments(pieces: unknown[][]): Promise<TestServer> {
    const chunk = (choices: unknown[]) => ({ id: "chatcmpl-x", object: "chat.completion.chunk", created: 1, model: "m", choices });
    const frames = [
      ...pieces.map((tool_calls) => chunk([{ index: 0, delta: { tool_calls }, finish_reason: null }])),
      chunk([{ index: 0, delta: {}, finish_reason: "tool_calls" }]),
    ];
    server = await startServer((_req, res) =>
      sendStream(res, { contentType: "text/event-stream", body: frames.map((f) => sseFrame(f)).join("") + sseFrame("[DONE]") }),
    );
    return server;
  }
  const fn = (name: string | undefined, args: string) => ({ type: "function", function: { ...(name ? { name } : {}), arguments: args } });
  const THREE = [
    { name: "read_file", arguments: { path: "a.txt" } },
    { name: "read_file", arguments: { path: "b.txt" } },
    { name: "list_dir", arguments: {} },
  ];

  it("a server without ids or indexes, one whole call per chunk: three calls, none merged", async () => {
    await serveFragments([[fn("read_file", '{"path": "a.txt"}')], [fn("read_file", '{"path": "b.txt"}')], [fn("list_dir", "{}")]]);
    const res = await client({ LOCAL_LLM_BASE_URL: server!.url }).completeWithRetries(request("local"));
    expect(res.tool_calls).toEqual(THREE.map((c, i) => ({ id: `call_${i}`, ...c })));
  });

  it("a server without ids or indexes, in fragments: a name opens a call, the pieces after it are its arguments", async () => {
    await serveFragments([
      [fn("read_file", "")],
      [fn(undefined, '{"pa')],
      [fn(undefined, 'th": "a.txt"}')],
      [fn("read_file", '{"path"')],
      [fn(undefined, ': "b.txt"}')],
      [fn("list_dir", "")],
    ]);
    const res = await client({ LOCAL_LLM_BASE_URL: server!.url }).completeWithRetries(request("local"));
    expect(res.tool_calls).toEqual(THREE.map((c, i) => ({ id: `call_${i}`, ...c })));
  });

  it("several whole calls in one chunk without indexes, and calls that all say index 0 without ids", async () => {
    await serveFragments([
      [fn("read_file", '{"path": "a.txt"}'), fn("read_file", '{"path": "b.txt"}')],
      [{ index: 0, ...fn("list_dir", "{}") }],
    ]);
    const res = await client({ LOCAL_LLM_BASE_URL: server!.url }).completeWithRetries(request("local"));
    expect(res.tool_calls).toEqual(THREE.map((c, i) => ({ id: `call_${i}`, ...c })));
  });

  it("the same id for every call (call_0 at three indexes) becomes three distinct ids, streamed or not", async () => {
    await serveFragments([
      [{ index: 0, id: "call_0", ...fn("read_file", "") }],
      [{ index: 0, ...fn(undefined, '{"path": "a.txt"}') }],
      [{ index: 1, id: "call_0", ...fn("read_file", '{"path": "b.txt"}') }],
      [{ index: 2, id: "call_0", ...fn("list_dir", "{}") }],
    ]);
    const llm = client({ LOCAL_LLM_BASE_URL: server!.url });
    const expected = THREE.map((c, i) => ({ id: ["call_0", "call_0_2", "call_0_3"][i], ...c }));
    expect((await llm.completeWithRetries(request("local"))).tool_calls).toEqual(expected);
    await server!.close();
    const body = openAiChatBody({ model: "m", calls: THREE.map((c) => ({ id: "call_0", name: c.name, fragments: [JSON.stringify(c.arguments)] })), usage: { input: 1, output: 1 } });
    server = await startServer((_req, res) => sendJson(res, 200, body));
    const whole = await client({ LOCAL_LLM_BASE_URL: server.url }).completeWithRetries(request("local", { stream: false }));
    expect(whole.tool_calls).toEqual(expected);
  });

  it("keeps fragments that name no known call: to the open call, or to an orphan entry", async () => {
    const frames = [
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 3, function: { arguments: '{"lost":' } }] } }] },
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 3, function: { arguments: " true}" } }] } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
    ];
    server = await startServer((_req, res) =>
      sendStream(res, { contentType: "text/event-stream", body: frames.map((f) => sseFrame(f)).join("") + sseFrame("[DONE]") }),
    );
    const res = await client({ LOCAL_LLM_BASE_URL: server.url }).completeWithRetries(request("local"));
    expect(res.tool_calls).toEqual([{ id: "orphan_1", name: "", arguments: { lost: true } }]);
  });
});

describe("request rendering", () => {
  const transcript = {
    system: "Be brief.",
    messages: [
      { role: "user", content: "List the files." },
      {
        role: "assistant",
        content: "Looking.",
        tool_calls: [{ id: "call_1", type: "tool_call", name: "list_dir", arguments: { path: "." } }],
      },
      { role: "tool", tool_call_id: "call_1", content: "a.txt\nb.txt" },
      { role: "user", content: [{ type: "text", text: "Thanks. Now read a.txt." }] },
    ],
    tools: [{ name: "list_dir", description: "List a directory", parameters: { type: "object", properties: { path: { type: "string" } } } }],
    tool_choice: "required" as const,
    max_tokens: 512,
    temperature: 0.2,
    stop: ["END"],
  };

  async function captured(provider: string): Promise<{ body: any; headers: Record<string, unknown> }> {
    const format = FORMATS.find((f) => f.provider === provider)!;
    const srv = await serve(format, TEXT_SCRIPT);
    await client(format.env(srv.url)).completeWithRetries({ provider, model: "m-1", ...transcript });
    return { body: srv.requests[0]!.body, headers: srv.requests[0]!.headers };
  }

  it("anthropic: system apart, tool_use / tool_result blocks, x-api-key and version headers", async () => {
    const { body, headers } = await captured("anthropic");
    expect(headers["x-api-key"]).toBe(SECRET);
    expect(headers["anthropic-version"]).toBe("2023-06-01");
    expect(headers.authorization).toBeUndefined();
    expect(body).toEqual({
      model: "m-1",
      max_tokens: 512,
      system: "Be brief.",
      messages: [
        { role: "user", content: [{ type: "text", text: "List the files." }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Looking." },
            { type: "tool_use", id: "call_1", name: "list_dir", input: { path: "." } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_1", content: "a.txt\nb.txt" },
            { type: "text", text: "Thanks. Now read a.txt." },
          ],
        },
      ],
      tools: [{ name: "list_dir", description: "List a directory", input_schema: transcript.tools[0]!.parameters }],
      tool_choice: { type: "any" },
      temperature: 0.2,
      stop_sequences: ["END"],
      stream: true,
    });
  });

  // workflows.md §3.3: a provider-native tool (the tool-search meta-tool) is
  // sent as it is, and deferred tools carry their flags where the provider
  // has native tool search; providers without it never see the meta-tool.
  it("native tool search: the meta-tool as given, defer_loading (and namespace) on function tools", async () => {
    const tools = [
      { type: "tool_search", mode: "hosted", namespaces: ["ops"] },
      { name: "deploy", description: "Deploy", parameters: { type: "object", properties: {} }, defer_loading: true, namespace: "ops" },
    ] as never[];
    const send = async (provider: string) => {
      const format = FORMATS.find((f) => f.provider === provider)!;
      const srv = await serve(format, TEXT_SCRIPT);
      await client(format.env(srv.url)).completeWithRetries({ provider, model: "m-1", messages: [{ role: "user", content: "hi" }], tools });
      return srv.requests[0]!.body.tools;
    };
    expect(await send("anthropic")).toEqual([tools[0], { name: "deploy", description: "Deploy", input_schema: { type: "object", properties: {} }, defer_loading: true }]);
    expect(await send("openai_responses")).toEqual([
      tools[0],
      { type: "function", name: "deploy", description: "Deploy", parameters: { type: "object", properties: {} }, defer_loading: true, namespace: "ops" },
    ]);
    const chat = await send("openai");
    expect(chat).toEqual([{ type: "function", function: { name: "deploy", description: "Deploy", parameters: { type: "object", properties: {} } } }]);
  });

  it("openai: system message, tool_calls with JSON string arguments, tool role results, bearer key", async () => {
    const { body, headers } = await captured("openai");
    expect(headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(body).toEqual({
      model: "m-1",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "List the files." },
        {
          role: "assistant",
          content: "Looking.",
          tool_calls: [{ id: "call_1", type: "function", function: { name: "list_dir", arguments: '{"path":"."}' } }],
        },
        { role: "tool", tool_call_id: "call_1", content: "a.txt\nb.txt" },
        { role: "user", content: "Thanks. Now read a.txt." },
      ],
      tools: [{ type: "function", function: { name: "list_dir", description: "List a directory", parameters: transcript.tools[0]!.parameters } }],
      tool_choice: "required",
      max_completion_tokens: 512,
      temperature: 0.2,
      stop: ["END"],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("openai_responses: instructions, function_call and function_call_output items", async () => {
    const { body } = await captured("openai_responses");
    expect(body).toEqual({
      model: "m-1",
      instructions: "Be brief.",
      store: false,
      input: [
        { role: "user", content: "List the files." },
        { role: "assistant", content: "Looking." },
        { type: "function_call", call_id: "call_1", name: "list_dir", arguments: '{"path":"."}' },
        { type: "function_call_output", call_id: "call_1", output: "a.txt\nb.txt" },
        { role: "user", content: "Thanks. Now read a.txt." },
      ],
      tools: [{ type: "function", name: "list_dir", description: "List a directory", parameters: transcript.tools[0]!.parameters }],
      tool_choice: "required",
      max_output_tokens: 512,
      temperature: 0.2,
      stream: true,
    });
  });

  it("ollama: object arguments, tool results named after their call, options block, no auth", async () => {
    const { body, headers } = await captured("ollama");
    expect(headers.authorization).toBeUndefined();
    expect(body).toEqual({
      model: "m-1",
      stream: true,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "List the files." },
        { role: "assistant", content: "Looking.", tool_calls: [{ function: { name: "list_dir", arguments: { path: "." } } }] },
        { role: "tool", content: "a.txt\nb.txt", tool_name: "list_dir" },
        { role: "user", content: "Thanks. Now read a.txt." },
      ],
      tools: [{ type: "function", function: { name: "list_dir", description: "List a directory", parameters: transcript.tools[0]!.parameters } }],
      options: { num_predict: 512, temperature: 0.2, stop: ["END"] },
    });
  });

  it("local: an OpenAI-compatible body with max_tokens and no key", async () => {
    const { body, headers } = await captured("local");
    expect(headers.authorization).toBeUndefined();
    expect(body.max_tokens).toBe(512);
    expect(body.max_completion_tokens).toBeUndefined();
    expect(body.messages[0]).toEqual({ role: "system", content: "Be brief." });
  });

  it("merges provider-specific extra fields into the body", async () => {
    const format = FORMATS[0]!;
    const srv = await serve(format, TEXT_SCRIPT);
    await client(format.env(srv.url)).completeWithRetries(
      request("anthropic", { extra: { thinking: { type: "enabled", budget_tokens: 2048 } } }),
    );
    expect(srv.requests[0]!.body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
  });
});

describe("errors reported inside a response", () => {
  /** An SSE body that opens normally and then reports `frame`. */
  const errorStream = (opening: string, frame: string) => async (_req: unknown, res: import("node:http").ServerResponse) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(opening + frame);
  };
  const ANTHROPIC_OPEN = sseFrame({ type: "message_start", message: { model: "m", usage: { input_tokens: 1, output_tokens: 1 } } }, "message_start");

  it.each(["invalid_request_error", "authentication_error", "permission_error", "not_found_error"])(
    "Anthropic error event %s: terminal, exactly one request",
    async (type) => {
      server = await startServer(errorStream(ANTHROPIC_OPEN, sseFrame({ type: "error", error: { type, message: "the request timed out upstream" } }, "error")));
      const err = (await client(FORMATS[0]!.env(server.url))
        .completeWithRetries(request("anthropic"), { retries: 3 })
        .catch((e: unknown) => e)) as LlmError;
      expect(err).toBeInstanceOf(LlmError);
      expect(err.kind).toBe("terminal");
      expect(err.retryable).toBe(false);
      expect(err.message).toMatch(new RegExp(`^anthropic API error \\[\\w+\\]: ${type}: the request timed out upstream$`));
      expect(server.requests).toHaveLength(1);
    },
  );

  it("Anthropic overloaded_error in the stream: transient, retried", async () => {
    server = await startServer(errorStream(ANTHROPIC_OPEN, sseFrame({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, "error")));
    const err = (await client(FORMATS[0]!.env(server.url))
      .completeWithRetries(request("anthropic"), { retries: 2 })
      .catch((e: unknown) => e)) as LlmError;
    expect(err.message).toBe("anthropic API error [http_error]: overloaded_error: Overloaded");
    expect([err.kind, err.reason]).toEqual(["transient", "server_error"]);
    expect(server.requests).toHaveLength(3);
  });

  it("OpenAI-compatible error chunks: by type, by numeric code, and unstructured", async () => {
    const cases: [unknown, string, number][] = [
      [{ message: "messages: too many", type: "invalid_request_error", param: null, code: null }, "terminal", 1],
      // vLLM's shape: the HTTP status as `code`
      [{ object: "error", message: "bad", type: "BadRequestError", code: 400 }, "terminal", 1],
      [{ message: "upstream failed", type: "server_error" }, "transient", 3],
      ["something broke", "transient", 3],
    ];
    for (const [error, kind, requests] of cases) {
      server = await startServer(errorStream("", sseFrame({ id: "x", object: "chat.completion.chunk", choices: [], error })));
      const err = (await client({ LOCAL_LLM_BASE_URL: server.url })
        .completeWithRetries(request("local"), { retries: 2 })
        .catch((e: unknown) => e)) as LlmError;
      expect([err.kind, server.requests.length]).toEqual([kind, requests]);
      expect(err.message).toMatch(/^local API error/);
      await server.close();
      server = undefined;
    }
  });

  it("OpenAI Responses: response.failed and error events by their code", async () => {
    const failed = sseFrame({ type: "response.failed", response: { status: "failed", error: { code: "invalid_prompt", message: "nope" } } }, "response.failed");
    server = await startServer(errorStream("", failed));
    const env = FORMATS[2]!.env(server.url);
    const err = (await client(env).completeWithRetries(request("openai_responses"), { retries: 2 }).catch((e: unknown) => e)) as LlmError;
    expect(err.message).toBe("openai_responses API error [invalid_request]: invalid_prompt: nope");
    expect(server.requests).toHaveLength(1);
    await server.close();
    server = await startServer(errorStream("", sseFrame({ type: "error", code: "rate_limit_exceeded", message: "slow down", sequence_number: 1 }, "error")));
    const limited = (await client(FORMATS[2]!.env(server.url)).completeWithRetries(request("openai_responses"), { retries: 1 }).catch((e: unknown) => e)) as LlmError;
    expect([limited.kind, limited.reason, limited.message]).toEqual(["transient", "rate_limit", "openai_responses API error [rate_limited]: rate_limit_exceeded: slow down"]);
    expect(server.requests).toHaveLength(2);
  });
});

describe("errors name what was asked", () => {
  it("a 404 names the URL and the model, with a hint when the base URL looks wrong", async () => {
    server = await startServer((_req, res) => {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("404 page not found");
    });
    const url = server.url;
    const cases: [string, Record<string, string>, string, string][] = [
      ["openai", { OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: url }, `${url}/chat/completions`, `; hint: OPENAI_BASE_URL is ${url}, which usually ends in /v1`],
      ["openai", { OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: `${url}/v1` }, `${url}/v1/chat/completions`, ""],
      ["ollama", { OLLAMA_HOST: `${url}/api` }, `${url}/api/api/chat`, `; hint: OLLAMA_HOST is ${url}/api; it should name the host and port only, without a path`],
      ["local", { LOCAL_LLM_BASE_URL: `${url}/openai` }, `${url}/openai/v1/chat/completions`, `; hint: LOCAL_LLM_BASE_URL is ${url}/openai; it is usually the server's address, with or without /v1`],
      ["anthropic", { ANTHROPIC_API_KEY: SECRET, ANTHROPIC_BASE_URL: `${url}/v1/messages` }, `${url}/v1/messages/v1/messages`, `; hint: ANTHROPIC_BASE_URL is ${url}/v1/messages; it should be the API root (like https://api.anthropic.com)`],
    ];
    for (const [provider, env, asked, hint] of cases) {
      const err = (await client(env).completeWithRetries(request(provider, { model: "my-model" })).catch((e: unknown) => e)) as LlmError;
      expect(err.message).toBe(`${provider} HTTP 404 [model_unavailable]: 404 page not found (asked ${asked} for model 'my-model'${hint})`);
      expect(err.retryable).toBe(false);
    }
  });

  it("connection refused names the host and port; an unknown host says it could not be resolved", async () => {
    const closed = await startServer(() => {});
    const url = closed.url;
    await closed.close();
    const port = new URL(url).port;
    const err = (await client({ LOCAL_LLM_BASE_URL: url }).completeWithRetries(request("local")).catch((e: unknown) => e)) as LlmError;
    expect(err.message).toBe(`local stream error (connect): connection refused by 127.0.0.1:${port} (${url}/v1/chat/completions); is the server running?`);
    expect([err.kind, err.reason]).toEqual(["transient", "network_error"]);
    const dns = (await client({ OLLAMA_HOST: "no-such-host.invalid:11434" }).completeWithRetries(request("ollama")).catch((e: unknown) => e)) as LlmError;
    expect(dns.message).toBe("ollama stream error (connect): dns error: cannot resolve no-such-host.invalid (http://no-such-host.invalid:11434/api/chat)");
  });
});
