/**
 * `llm_call` and `agent_loop` end to end through `harn run`, against a
 * model server on 127.0.0.1 for every wire format (Anthropic Messages,
 * OpenAI Chat, OpenAI Responses, Ollama NDJSON, a `local`
 * OpenAI-compatible server), base URLs and keys from the environment:
 * streamed text, batched tool calls executed in order and answered in the
 * provider's own tool-result shape, `stream: false` giving the same
 * result, `on_event`, and `harn run --stream` rendering.
 */
import type http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sseFrame } from "../../packages/stdlib/test/llm/wire";
import { cleanEnv, FORMATS, format, modelServer, run, streamed, type Script, type SeenRequest, type Workspace, workspace } from "./llm-harness";

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace("harn-llm-providers-");
});
afterAll(() => ws.dispose());

const LOOP = `
tool lookup(city: string) -> string {
  description "Current weather for a city"
  return city + ": sunny, 21C"
}
pipeline main() {
  let stream = env_or("TEST_STREAM", "true") == "true"
  let r = agent_loop("Weather in Paris and Oslo?", "Be brief.", {
    provider: env("TEST_PROVIDER"), model: "test-model", tools: lookup, tool_format: "native", stream: stream,
  })
  println(r.status + " after " + to_string(r.llm.iterations) + " turns")
  println(r.visible_text)
  println(r.tools.calls)
  println(r.llm.input_tokens > 0 && r.llm.output_tokens > 0)
}
`;

/** Turn 1: some text and two calls in one reply, arguments in fragments;
 * turn 2: the answer. */
function weather(req: SeenRequest, index: number): Script {
  if (index === 0) {
    return {
      model: "test-model",
      text: ["Let me ", "check both."],
      calls: [
        { id: "call_paris", name: "lookup", fragments: ['{"ci', 'ty": "Pa', 'ris"}'] },
        { id: "call_oslo", name: "lookup", fragments: ['{"city"', ': "Oslo"}'] },
      ],
      usage: { input: 120, output: 40 },
    };
  }
  return { model: "test-model", text: ["Paris and Oslo ", "are both sunny (21C)."], usage: { input: 210, output: 12 } };
}

/** The tool results of the second request, read in the provider's shape. */
function toolResults(provider: string, body: any): { id: string; text: string }[] {
  switch (provider) {
    case "anthropic":
      return body.messages
        .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
        .filter((b: any) => b.type === "tool_result")
        .map((b: any) => ({ id: b.tool_use_id, text: typeof b.content === "string" ? b.content : b.content.map((c: any) => c.text).join("") }));
    case "openai_responses":
      return body.input.filter((i: any) => i.type === "function_call_output").map((i: any) => ({ id: i.call_id, text: i.output }));
    case "ollama":
      return body.messages.filter((m: any) => m.role === "tool").map((m: any) => ({ id: m.tool_name ?? m.name ?? "", text: m.content }));
    default:
      return body.messages.filter((m: any) => m.role === "tool").map((m: any) => ({ id: m.tool_call_id, text: m.content }));
  }
}

describe.each(FORMATS.map((f) => [f.provider, f] as const))("agent_loop against a %s server", (provider, wire) => {
  it("streams, runs a batch of two calls in order, and answers each in the provider's shape", async () => {
    const server = await modelServer(wire, weather);
    try {
      const script = ws.file(`loop_${provider}.harn`, LOOP);
      const r = await run(ws, ["run", script], cleanEnv({ ...wire.env(server.url), TEST_PROVIDER: provider }));
      expect(r.stderr).toBe("");
      expect(r.stdout).toBe('done after 2 turns\nParis and Oslo are both sunny (21C).\n[lookup, lookup]\ntrue\n');
      expect(r.code).toBe(0);
      expect(server.requests.length).toBe(2);
      expect(server.requests.every((q) => q.path === wire.path)).toBe(true);
      expect(server.requests.every(streamed)).toBe(true);
      const results = toolResults(provider, server.requests[1]!.body);
      expect(results.map((x) => x.text)).toEqual(["Paris: sunny, 21C", "Oslo: sunny, 21C"]);
      if (provider !== "ollama") expect(results.map((x) => x.id)).toEqual(["call_paris", "call_oslo"]);
    } finally {
      await server.close();
    }
  });

  it("gives the identical result with stream: false", async () => {
    const server = await modelServer(wire, weather);
    try {
      const script = ws.file(`loop_${provider}.harn`, LOOP);
      const env = cleanEnv({ ...wire.env(server.url), TEST_PROVIDER: provider, TEST_STREAM: "false" });
      const r = await run(ws, ["run", script], env);
      expect(r.stdout).toBe('done after 2 turns\nParis and Oslo are both sunny (21C).\n[lookup, lookup]\ntrue\n');
      expect(r.code).toBe(0);
      expect(server.requests.some(streamed)).toBe(false);
    } finally {
      await server.close();
    }
  });
});

describe("on_event and --stream", () => {
  it("llm_call passes every normalized event to on_event, in arrival order", async () => {
    const wire = format("anthropic");
    const server = await modelServer(wire, () => ({
      model: "claude-test",
      reasoning: ["Thinking."],
      text: ["Hel", "lo"],
      calls: [{ id: "toolu_1", name: "note", fragments: ['{"a":', "1}"] }],
      usage: { input: 9, output: 4 },
    }));
    try {
      const script = ws.file(
        "events.harn",
        `pipeline main() {
  let r = llm_call("hi", nil, {provider: "anthropic", model: "claude-test", on_event: { ev -> println(json_stringify(ev)) }})
  println(r.text + " / " + r.thinking + " / " + json_stringify(r.tool_calls[0].arguments))
}
`,
      );
      const r = await run(ws, ["run", script], cleanEnv(wire.env(server.url)));
      expect(r.stderr).toBe("");
      expect(r.stdout.trimEnd().split("\n")).toEqual([
        '{"kind":"reasoning_delta","text":"Thinking."}',
        '{"kind":"text_delta","text":"Hel"}',
        '{"kind":"text_delta","text":"lo"}',
        '{"id":"toolu_1","kind":"tool_call_start","name":"note"}',
        '{"args_fragment":"{\\"a\\":","id":"toolu_1","kind":"tool_call_delta"}',
        '{"args_fragment":"1}","id":"toolu_1","kind":"tool_call_delta"}',
        '{"input_tokens":9,"kind":"completed","output_tokens":4,"reasoning_tokens":0}',
        'Hello / Thinking. / {"a":1}',
      ]);
    } finally {
      await server.close();
    }
  });

  it("an error thrown by on_event ends the call and reaches the script", async () => {
    const wire = format("openai");
    const server = await modelServer(wire, () => ({ model: "gpt-test", text: ["a", "b", "c"], usage: { input: 1, output: 3 } }));
    try {
      const script = ws.file(
        "events_throw.harn",
        `pipeline main() {
  try {
    llm_call("hi", nil, {provider: "openai", model: "gpt-test", llm_retries: 3, on_event: { ev -> throw "stop at " + ev.kind }})
  } catch (e) {
    println("caught: " + to_string(e))
  }
}
`,
      );
      const r = await run(ws, ["run", script], cleanEnv(wire.env(server.url)));
      expect(r.stdout).toBe("caught: stop at text_delta\n");
      // an event had reached the script: never retried
      expect(server.requests.length).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("llm_stream delivers the reply's text chunks through a channel that closes at the end", async () => {
    const wire = format("ollama");
    const server = await modelServer(wire, (req, index) =>
      index === 0 ? { model: "llama3.2", text: ["The ", "quick ", "fox"], usage: { input: 3, output: 3 } } : { status: 500, body: { error: "model crashed" } },
    );
    try {
      const script = ws.file(
        "llm_stream.harn",
        `pipeline main() {
  for chunk in llm_stream("Say it", "Be brief.", {provider: "ollama"}) { println("[" + chunk + "]") }
  var n = 0
  for chunk in llm_stream("Again", nil, {provider: "ollama"}) { n = n + 1 }
  println("after a failure: " + to_string(n) + " chunks, channel closed")
}
`,
      );
      const r = await run(ws, ["run", script], cleanEnv(wire.env(server.url)));
      expect(r.stdout).toBe("[The ]\n[quick ]\n[fox]\nafter a failure: 0 chunks, channel closed\n");
      expect(r.stderr).toBe('llm_stream: ollama HTTP 500 [http_error]: {"error":"model crashed"}\n');
      expect(r.code).toBe(0);
      expect((server.requests[0]!.body as { messages: unknown[] }).messages).toEqual([
        { role: "system", content: "Be brief." },
        { role: "user", content: "Say it" },
      ]);
    } finally {
      await server.close();
    }
  });

  it("harn run --stream shows text as it arrives and one line per tool call and result", async () => {
    const wire = format("openai");
    const server = await modelServer(wire, (req, index) => {
      if (index === 0) {
        return {
          model: "gpt-test",
          text: ["Checking."],
          calls: [
            { id: "c1", name: "lookup", fragments: ['{"city":"Paris"}'] },
            { id: "c2", name: "fail", fragments: ["{}"] },
          ],
          usage: { input: 5, output: 5 },
        };
      }
      return { model: "gpt-test", text: ["All ", "done", "."], usage: { input: 5, output: 5 } };
    });
    try {
      const long = "x".repeat(300);
      const script = ws.file(
        "stream.harn",
        `tool lookup(city: string) -> string {
  description "Weather"
  return city + " is sunny\\n${long}"
}
tool fail() -> string {
  description "Always fails"
  throw "no luck"
}
pipeline main() {
  let r = agent_loop("go", nil, {provider: "openai", model: "gpt-test", tools: lookup.tools + fail.tools, tool_format: "native"})
  println("status: " + r.status)
}
`,
      );
      const r = await run(ws, ["run", "--stream", script], cleanEnv(wire.env(server.url)));
      expect(r.stdout).toBe("Checking.\nAll done.\nstatus: done\n");
      const lines = r.stderr.trimEnd().split("\n");
      expect(lines[0]).toBe('⚙ lookup({"city":"Paris"})');
      expect(lines[1]!.startsWith("→ Paris is sunny xxxx")).toBe(true);
      // previews are one line of at most 120 characters
      expect(Array.from(lines[1]!.slice(2)).length).toBe(120);
      expect(lines[1]!.endsWith("…")).toBe(true);
      expect(lines[2]).toBe("⚙ fail({})");
      expect(lines[3]).toBe("✗ Error: Thrown: no luck");
      expect(lines.length).toBe(4);
    } finally {
      await server.close();
    }
  });
});

describe("the provider comes from whichever variable is set", () => {
  const CALL = `pipeline main() {
  let r = llm_call("hi", nil, {})
  println(r.provider + ": " + r.text)
  let a = agent_loop("hello", nil, {})
  println(a.status + ": " + a.visible_text)
}
`;
  /** One provider's variables (its key, or the address of a keyless
   * server), pointing at `url`; the wire format that provider speaks; the
   * model it defaults to. */
  const CASES: { provider: string; wire: string; env: (url: string) => Record<string, string>; model: string }[] = [
    { provider: "anthropic", wire: "anthropic", env: (u) => ({ ANTHROPIC_API_KEY: "sk-a", ANTHROPIC_BASE_URL: u }), model: "claude-sonnet-4-20250514" },
    { provider: "openai", wire: "openai", env: (u) => ({ OPENAI_API_KEY: "sk-o", OPENAI_BASE_URL: `${u}/v1` }), model: "gpt-4o" },
    { provider: "openrouter", wire: "openai", env: (u) => ({ OPENROUTER_API_KEY: "sk-r", OPENROUTER_BASE_URL: `${u}/v1` }), model: "anthropic/claude-sonnet-4.6" },
    // Hugging Face has no default model: the user names one
    { provider: "huggingface", wire: "openai", env: (u) => ({ HF_TOKEN: "hf-x", HUGGINGFACE_BASE_URL: `${u}/v1`, HARN_LLM_MODEL: "Qwen/Qwen3-8B" }), model: "Qwen/Qwen3-8B" },
    { provider: "ollama", wire: "ollama", env: (u) => ({ OLLAMA_HOST: u.replace("http://", "") }), model: "llama3.2" },
    { provider: "local", wire: "local", env: (u) => ({ LOCAL_LLM_BASE_URL: u }), model: "gpt-4o" },
  ];

  it.each(CASES)("only $provider's variable set: llm_call and agent_loop ask $provider for $model", async (c) => {
    const wire = format(c.wire);
    const server = await modelServer(wire, (req) => ({ model: String((req.body as { model: string }).model), text: ["from ", c.provider], usage: { input: 1, output: 1 } }));
    try {
      const script = ws.file(`env_${c.provider}.harn`, CALL);
      const r = await run(ws, ["run", script], cleanEnv(c.env(server.url)));
      expect(r.stderr).toBe("");
      expect(r.stdout).toBe(`${c.provider}: from ${c.provider}\ndone: from ${c.provider}\n`);
      expect(server.requests.map((q) => [q.path, (q.body as { model: string }).model])).toEqual([
        [wire.path, c.model],
        [wire.path, c.model],
      ]);
    } finally {
      await server.close();
    }
  });

  it("several set: the documented order decides; HARN_DEFAULT_PROVIDER and HARN_LLM_PROVIDER outrank it", async () => {
    const servers = await Promise.all(CASES.map((c) => modelServer(format(c.wire), () => ({ model: "m", text: [c.provider], usage: { input: 1, output: 1 } }))));
    try {
      // (without HARN_LLM_MODEL: a model with LOCAL_LLM_BASE_URL selects `local`, agents.md §5.1)
      const { HARN_LLM_MODEL: _m, ...all } = Object.assign({}, ...CASES.map((c, i) => c.env(servers[i]!.url))) as Record<string, string>;
      const script = ws.file("env_order.harn", `pipeline main() { println(llm_call("hi", nil, {}).text) }\n`);
      const answer = async (env: Record<string, string>) => (await run(ws, ["run", script], cleanEnv(env))).stdout;
      expect(await answer(all)).toBe("anthropic\n");
      const { ANTHROPIC_API_KEY: _a, ...noAnthropic } = all;
      expect(await answer(noAnthropic)).toBe("openai\n");
      expect(await answer({ ...all, HARN_DEFAULT_PROVIDER: "ollama" })).toBe("ollama\n");
      expect(await answer({ ...all, HARN_LLM_PROVIDER: "local", HARN_DEFAULT_PROVIDER: "ollama" })).toBe("local\n");
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });

  it("none set: the offline mock answers, and stderr says once which variables would choose a provider", async () => {
    const script = ws.file("env_none.harn", CALL);
    const r = await run(ws, ["run", script], cleanEnv());
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^mock: .*\ndone: /);
    expect(r.stderr).toBe(
      "note: no LLM provider configured; using the offline mock provider (set one of ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY, HF_TOKEN, OLLAMA_HOST, LOCAL_LLM_BASE_URL, or HARN_LLM_PROVIDER)\n",
    );
  });

  it("harn chat: the same choice", async () => {
    const wire = format("openai");
    const server = await modelServer(wire, (req) => ({ model: "m", text: [`hi from ${(req.body as { model: string }).model}`], usage: { input: 1, output: 1 } }));
    try {
      const c = await run(ws, ["chat"], cleanEnv({ OPENAI_API_KEY: "sk-o", OPENAI_BASE_URL: `${server.url}/v1` }), 50_000, { input: "hello\n" });
      expect(c.stdout).toBe("hi from gpt-4o\n");
      expect(c.code).toBe(0);
      expect(server.requests.map((q) => q.path)).toEqual(["/v1/chat/completions"]);
    } finally {
      await server.close();
    }
  });
});

describe("OpenAI-compatible servers that leave out or repeat tool-call ids", () => {
  const SCRIPT = `
tool lookup(city: string) -> string {
  description "Current weather for a city"
  return city + ": sunny"
}
pipeline main() {
  let r = agent_loop("Weather in Paris, Oslo and Rome?", nil, {provider: "local", model: "m", tools: lookup, tool_format: "native"})
  println(r.status + " after " + to_string(r.llm.iterations) + " turns: " + r.visible_text)
  println(r.tools.calls)
}
`;
  const chunk = (delta: unknown, finish: string | null = null) =>
    sseFrame({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] });
  /** Turn 1: three calls in the given tool-call pieces; turn 2: the answer. */
  const server = (pieces: unknown[]) =>
    modelServer(format("local"), (_req, index) => {
      if (index > 0) return { model: "m", text: ["All sunny."], usage: { input: 1, output: 1 } };
      return (_r: SeenRequest, res: http.ServerResponse) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(pieces.map((p) => chunk({ tool_calls: [p] })).join("") + chunk({}, "tool_calls") + sseFrame("[DONE]"));
      };
    });
  const call = (city: string, extra: Record<string, unknown> = {}) => ({ ...extra, type: "function", function: { name: "lookup", arguments: `{"city": "${city}"}` } });

  /** The second request's assistant tool_calls ids and tool-result ids. */
  function ids(req: SeenRequest): { asked: string[]; answered: string[]; texts: string[] } {
    const msgs = (req.body as { messages: { role: string; tool_calls?: { id: string }[]; tool_call_id?: string; content: string }[] }).messages;
    return {
      asked: msgs.flatMap((m) => m.tool_calls ?? []).map((c) => c.id),
      answered: msgs.filter((m) => m.role === "tool").map((m) => m.tool_call_id!),
      texts: msgs.filter((m) => m.role === "tool").map((m) => m.content),
    };
  }

  it.each([
    ["no ids and no indexes", [call("Paris"), call("Oslo"), call("Rome")]],
    ["call_0 at three indexes", [call("Paris", { index: 0, id: "call_0" }), call("Oslo", { index: 1, id: "call_0" }), call("Rome", { index: 2, id: "call_0" })]],
  ])("%s: three calls run, and each result goes back under the id the transcript holds", async (_what, pieces) => {
    const srv = await server(pieces);
    try {
      const script = ws.file("ids.harn", SCRIPT);
      const r = await run(ws, ["run", script], cleanEnv({ LOCAL_LLM_BASE_URL: srv.url }));
      expect(r.stderr).toBe("");
      expect(r.stdout).toBe("done after 2 turns: All sunny.\n[lookup, lookup, lookup]\n");
      const second = ids(srv.requests[1]!);
      expect(second.texts).toEqual(["Paris: sunny", "Oslo: sunny", "Rome: sunny"]);
      expect(new Set(second.asked).size).toBe(3);
      expect(second.answered).toEqual(second.asked);
    } finally {
      await srv.close();
    }
  });
});

describe("errors name what was asked", () => {
  it("a wrong OPENAI_BASE_URL: the 404 names the URL, the model and the likely fix; a dead local server names host and port", async () => {
    const server = await modelServer(format("openai"), () => ({ status: 404, body: "404 page not found" }));
    const closed = await modelServer(format("local"), () => ({ status: 500, body: "" }));
    const deadUrl = closed.url;
    await closed.close();
    try {
      const script = ws.file(
        "asked.harn",
        `pipeline main() {
  for p in ["openai", "local"] {
    try { llm_call("hi", nil, {provider: p}) } catch (e) { println(e.message) }
  }
}
`,
      );
      const r = await run(ws, ["run", script], cleanEnv({ OPENAI_API_KEY: "sk-o", OPENAI_BASE_URL: server.url, LOCAL_LLM_BASE_URL: deadUrl }));
      expect(r.stdout).toBe(
        `openai HTTP 404 [model_unavailable]: 404 page not found (asked ${server.url}/chat/completions for model 'gpt-4o'; hint: OPENAI_BASE_URL is ${server.url}, which usually ends in /v1)\n` +
          `local stream error (connect): connection refused by 127.0.0.1:${new URL(deadUrl).port} (${deadUrl}/v1/chat/completions); is the server running?\n`,
      );
    } finally {
      await server.close();
    }
  });
});
