import { describe, expect, it } from "vitest";
import { JsonFloat } from "../../src/core/json";
import { LlmClient } from "../../src/llm/client";
import { LlmError } from "../../src/llm/errors";
import type { LlmRequest } from "../../src/llm/types";
import { MockProvider } from "../../src/agent/mock/provider";
import { globMatch, matchText, MockState } from "../../src/agent/mock/state";
import type { MockEntry } from "../../src/agent/mock/state";

function client(state: MockState): LlmClient {
  const c = new LlmClient({ env: { HARN_LLM_CALLS_DISABLED: "1" } });
  c.register(new MockProvider(state));
  return c;
}

function request(content: string, extra: Partial<LlmRequest> = {}): LlmRequest {
  return { provider: "mock", model: "test-model", messages: [{ role: "user", content }], ...extra };
}

function entry(e: Partial<MockEntry>): MockEntry {
  return { text: "", toolCalls: [], match: null, consumeMatch: false, model: "mock", ...e };
}

describe("mock pattern language (agents.md §3.3)", () => {
  it.each([
    ["abc", "abc", true],
    ["abc", "abcd", false],
    ["*", "", true],
    ["*", "anything", true],
    ["ab*", "abc", true],
    ["ab*", "xabc", false],
    ["*bc", "abc", true],
    ["*bc", "abcd", false],
    ["a*c", "abbbc", true],
    ["a*c", "ac", true],
    ["a*b*c", "aXbYc", true],
    ["a*b*c", "acb", false],
    ["*a*b*", "xxaxxbxx", true],
    ["*a*b*", "ba", false],
    ["ab*ba", "aba", false],
    ["A*", "abc", false],
  ])("%s ~ %s = %s", (p, t, want) => {
    expect(globMatch(p, t)).toBe(want);
  });

  it("match text is every non-empty string leaf, roles included, in document order", () => {
    expect(matchText([{ role: "user", content: "hi there" }])).toBe("user\nhi there");
    expect(
      matchText([
        { role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "" }] },
        { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "t", arguments: { q: "x" } }] },
      ]),
    ).toBe("user\ntext\na\ntext\nassistant\nc1\nt\nx");
  });
});

describe("MockProvider through the shared client", () => {
  it("answers scripted entries as normalized events folded by the accumulator", async () => {
    const state = new MockState();
    state.queue.push(entry({ text: "hello", toolCalls: [{ name: "a", arguments: { x: 1 } }, { name: "b", arguments: {} }], model: "m2" }));
    const events: string[] = [];
    const res = await client(state).completeWithRetries(request("hi"), { onEvent: (e) => void events.push(e.kind) });
    expect(events).toEqual(["text_delta", "tool_call_start", "tool_call_delta", "tool_call_start", "tool_call_delta", "completed"]);
    expect(res.text).toBe("hello");
    expect(res.model).toBe("m2");
    expect(res.tool_calls).toEqual([
      { id: "mock_call_1", name: "a", arguments: { x: 1 } },
      { id: "mock_call_2", name: "b", arguments: {} },
    ]);
    // input tokens default to the match text's UTF-8 length
    expect(res.input_tokens).toBe(Buffer.byteLength("user\nhi"));
    expect(res.output_tokens).toBe(30);
    expect(state.queue).toEqual([]);
  });

  it("records every call before matching, including failed attempts", async () => {
    const state = new MockState();
    state.queue.push(entry({ error: { category: "overloaded", message: "busy" } }), entry({ text: "ok" }));
    const res = await client(state).completeWithRetries(request("x", { system: "sys" }), { retries: 1 });
    expect(res.text).toBe("ok");
    expect(state.calls).toHaveLength(2);
    expect(state.calls[0]).toEqual({ messages: [{ role: "user", content: "x" }], count: 1, system: "sys", tools: null, thinking: { mode: "disabled" } });
  });

  it("fails with a classified error carrying the retry-after hint", async () => {
    const state = new MockState();
    state.queue.push(entry({ error: { category: "rate_limit", message: "slow", retryAfterMs: 1000 } }));
    const e = await client(state)
      .completeWithRetries(request("x"))
      .then(() => null, (err: unknown) => err);
    expect(e).toBeInstanceOf(LlmError);
    const err = e as LlmError;
    expect(err.message).toBe("slow\nretry-after: 1\n");
    expect(err.retryAfterMs).toBe(1000);
    expect([err.category, err.kind, err.reason]).toEqual(["rate_limit", "transient", "rate_limit"]);
  });

  it("terminal errors are not retried even with retries configured", async () => {
    const state = new MockState();
    state.queue.push(entry({ error: { category: "auth", message: "bad key" } }), entry({ text: "never" }));
    await expect(client(state).completeWithRetries(request("x"), { retries: 3 })).rejects.toBeInstanceOf(LlmError);
    expect(state.queue).toHaveLength(1);
  });

  it("default reply: a call to the first native tool with typed placeholders", async () => {
    const state = new MockState();
    const res = await client(state).completeWithRetries(
      request("go", {
        tools: [
          {
            name: "t",
            parameters: {
              type: "object",
              properties: { s: { type: "string" }, i: { type: "integer" }, n: { type: "number" }, o: { type: "object" }, opt: { type: "string" } },
              required: ["s", "i", "n", "o"],
            },
          },
          { name: "second" },
        ],
      }),
    );
    expect(res.text).toBe("");
    expect(res.tool_calls).toEqual([{ id: "mock_call_1", name: "t", arguments: { s: "", i: 0, n: new JsonFloat(0), o: {} } }]);
    // `number` is the float 0.0 (§3.6), `integer` the int 0.
    expect(res.tool_calls[0]!.arguments.n).toBeInstanceOf(JsonFloat);
    expect(res.tool_calls[0]!.arguments.i).toBe(0);
    expect(res.output_tokens).toBe(20);
    expect(res.model).toBe("test-model");
  });

  it("default reply: the tagged protocol only when the system prompt asks for <done>", async () => {
    const state = new MockState();
    const c = client(state);
    expect((await c.completeWithRetries(request("one two  three"))).text).toBe("Mock response to 3-word prompt: one two  three");
    expect((await c.completeWithRetries(request("hi", { system: "finish with <done>##DONE##</done>" }))).text).toBe(
      "<assistant_prose>Mock response to 1-word prompt: hi</assistant_prose>\n<done>##DONE##</done>",
    );
    expect((await c.completeWithRetries(request("   "))).text).toBe("Mock LLM response");
    const long = "é".repeat(150);
    expect((await c.completeWithRetries(request(long))).text).toBe(`Mock response to 1-word prompt: ${"é".repeat(100)}`);
  });

  it("a delayed entry resolves later and is cancelled by the signal", async () => {
    const state = new MockState();
    state.queue.push(entry({ text: "late", delayMs: 60_000 }));
    const ac = new AbortController();
    const p = client(state).completeWithRetries(request("x"), { signal: ac.signal });
    ac.abort(new Error("stop"));
    await expect(p).rejects.toBeTruthy();
  });
});
