/**
 * The agent loop against real HTTP servers speaking the providers' wire
 * formats: a native tool call round-trips into the next request as the
 * provider's own tool-result shape, and the loop finishes on the text turn.
 */
import { afterEach, describe, expect, it } from "vitest";
import { anthropicStream, openAiChatStream, type Script } from "../llm/wire";
import { sendStream, startServer, type TestServer } from "../llm/server";
import { lines } from "./harness";

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const SCRIPT = `
tool lookup(city: string) -> string {
  description "Weather for a city"
  return "sunny in " + city
}
pipeline main() {
  let r = agent_loop("Weather in Lisbon?", "Be brief.", {PROVIDER, tools: lookup, tool_format: "native", llm_retries: 0})
  println(r.status + " / " + r.visible_text)
  println(json_stringify(r.tools.calls))
  println(json_stringify(r.transcript.messages.map({ m -> m.role })))
  println(r.llm.input_tokens + r.llm.output_tokens)
}
`;

const toolTurn = (id: string): Script => ({
  model: "m",
  text: ["Let me check."],
  calls: [{ id, name: "lookup", fragments: ['{"ci', 'ty": "Lis', 'bon"}'] }],
  usage: { input: 10, output: 5 },
});
const textTurn: Script = { model: "m", text: ["It is ", "sunny."], usage: { input: 20, output: 3 } };

describe("agent_loop over real provider wire formats", () => {
  it("OpenAI-compatible (local)", async () => {
    server = await startServer((_req, res, i) => sendStream(res, openAiChatStream(i === 0 ? toolTurn("call_abc") : textTurn), { pieceBytes: 7 }));
    const out = await lines(SCRIPT.replace("PROVIDER", 'provider: "local", model: "test-model"'), {
      env: { LOCAL_LLM_BASE_URL: server.url, HARN_LLM_CALLS_DISABLED: "" },
    });
    expect(out).toEqual([
      "done / It is sunny.",
      '["lookup"]',
      '["user","assistant","tool","assistant"]',
      "38",
    ]);
    const second = server.requests[1]!.body;
    expect(second.messages[0]).toEqual({ role: "system", content: "Be brief." });
    expect(second.messages[2].role).toBe("assistant");
    expect(second.messages[2].tool_calls[0].id).toBe("call_abc");
    expect(JSON.parse(second.messages[2].tool_calls[0].function.arguments)).toEqual({ city: "Lisbon" });
    expect(second.messages[3]).toMatchObject({ role: "tool", tool_call_id: "call_abc", content: "sunny in Lisbon" });
    expect(second.tools[0].function.name).toBe("lookup");
  });

  it("Anthropic Messages", async () => {
    server = await startServer((_req, res, i) => sendStream(res, anthropicStream(i === 0 ? toolTurn("toolu_1") : textTurn), { pieceBytes: 11 }));
    const out = await lines(SCRIPT.replace("PROVIDER", 'provider: "anthropic", model: "claude-sonnet-4-20250514"'), {
      env: { ANTHROPIC_API_KEY: "sk-ant-test-key-123456", ANTHROPIC_BASE_URL: server.url, HARN_LLM_CALLS_DISABLED: "" },
    });
    expect(out[0]).toBe("done / It is sunny.");
    const second = server.requests[1]!.body;
    expect(second.system).toContain("Be brief.");
    const results = second.messages.flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : []));
    expect(results).toContainEqual(expect.objectContaining({ type: "tool_use", id: "toolu_1", name: "lookup", input: { city: "Lisbon" } }));
    expect(results).toContainEqual(expect.objectContaining({ type: "tool_result", tool_use_id: "toolu_1" }));
  });

  // §2.6 step 9: what a script sees of the conversation follows the
  // provider's style (OpenAI-compatible for the mock and OpenAI-style
  // providers, Anthropic-style tool_result blocks for Anthropic), and a
  // session stored in either style continues on the other provider.
  const SHAPE_SCRIPT = `
tool lookup(city: string) -> string {
  description "Weather for a city"
  return "sunny in " + city
}
pipeline main() {
  let r = agent_loop("Weather in Lisbon?", nil, {PROVIDER, tools: lookup, tool_format: "native", llm_retries: 0, session_id: "s"})
  println(json_stringify(r.transcript.messages[2]))
  println(json_stringify(agent_session_snapshot("s").messages[2]))
}
`;

  it("stores Anthropic tool results as tool_result blocks", async () => {
    server = await startServer((_req, res, i) => sendStream(res, anthropicStream(i === 0 ? toolTurn("toolu_1") : textTurn)));
    const out = await lines(SHAPE_SCRIPT.replace("PROVIDER", 'provider: "anthropic", model: "claude-sonnet-4-20250514"'), {
      env: { ANTHROPIC_API_KEY: "sk-ant-test-key-123456", ANTHROPIC_BASE_URL: server.url, HARN_LLM_CALLS_DISABLED: "" },
    });
    const expected = '{"content":[{"content":"sunny in Lisbon","tool_use_id":"toolu_1","type":"tool_result"}],"role":"user"}';
    expect(out).toEqual([expected, expected]);
  });

  it("stores OpenAI-style tool results as tool messages", async () => {
    server = await startServer((_req, res, i) => sendStream(res, openAiChatStream(i === 0 ? toolTurn("call_abc") : textTurn)));
    const out = await lines(SHAPE_SCRIPT.replace("PROVIDER", 'provider: "local", model: "test-model"'), {
      env: { LOCAL_LLM_BASE_URL: server.url, HARN_LLM_CALLS_DISABLED: "" },
    });
    const expected = '{"content":"sunny in Lisbon","role":"tool","tool_call_id":"call_abc"}';
    expect(out).toEqual([expected, expected]);
  });

  it("continues an Anthropic-style session on an OpenAI-compatible provider", async () => {
    const anthropic = await startServer((_req, res, i) => sendStream(res, anthropicStream(i === 0 ? toolTurn("toolu_1") : textTurn)));
    server = await startServer((_req, res) => sendStream(res, openAiChatStream(textTurn)));
    try {
      const out = await lines(
        `
tool lookup(city: string) -> string {
  description "Weather for a city"
  return "sunny in " + city
}
pipeline main() {
  agent_loop("Weather in Lisbon?", nil, {provider: "anthropic", model: "claude-sonnet-4-20250514", tools: lookup, tool_format: "native", session_id: "s"})
  let r = agent_loop("And tomorrow?", nil, {provider: "local", model: "m", tools: lookup, tool_format: "native", session_id: "s"})
  println(r.status)
}
`,
        { env: { ANTHROPIC_API_KEY: "sk-ant-test-key-123456", ANTHROPIC_BASE_URL: anthropic.url, LOCAL_LLM_BASE_URL: server.url, HARN_LLM_CALLS_DISABLED: "" } },
      );
      expect(out).toEqual(["done"]);
      const sent = server.requests[0]!.body.messages;
      expect(sent[1].tool_calls[0].id).toBe("toolu_1");
      expect(sent[2]).toMatchObject({ role: "tool", tool_call_id: "toolu_1", content: "sunny in Lisbon" });
    } finally {
      await anthropic.close();
    }
  });

  it("HARN_LLM_CALLS_DISABLED stops a real loop before any request", async () => {
    server = await startServer((_req, res) => sendStream(res, openAiChatStream(textTurn)));
    await expect(
      lines(SCRIPT.replace("PROVIDER", 'provider: "local", model: "test-model"'), { env: { LOCAL_LLM_BASE_URL: server.url } }),
    ).rejects.toThrow("LLM calls are disabled by HARN_LLM_CALLS_DISABLED; provider `local` would make a real LLM request");
    expect(server.requests).toHaveLength(0);
  });
});
