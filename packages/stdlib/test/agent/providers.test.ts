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

  it("HARN_LLM_CALLS_DISABLED stops a real loop before any request", async () => {
    server = await startServer((_req, res) => sendStream(res, openAiChatStream(textTurn)));
    await expect(
      lines(SCRIPT.replace("PROVIDER", 'provider: "local", model: "test-model"'), { env: { LOCAL_LLM_BASE_URL: server.url } }),
    ).rejects.toThrow("LLM calls are disabled by HARN_LLM_CALLS_DISABLED; provider `local` would make a real LLM request");
    expect(server.requests).toHaveLength(0);
  });
});
