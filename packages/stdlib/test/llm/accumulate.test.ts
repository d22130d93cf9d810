import { describe, expect, it } from "vitest";
import { LlmAccumulator, parseArguments, type LlmEvent } from "../../src/llm";

function fold(events: LlmEvent[]) {
  const acc = new LlmAccumulator("p", "requested");
  for (const e of events) acc.push(e);
  return acc.result();
}

describe("accumulator (extensions.md §3.1)", () => {
  it("concatenates text and reasoning, keeps usage and the reported model", () => {
    const r = fold([
      { kind: "reasoning_delta", text: "hm" },
      { kind: "text_delta", text: "a" },
      { kind: "text_delta", text: "b" },
      { kind: "completed", input_tokens: 3, output_tokens: 4, reasoning_tokens: 1, stop_reason: "end_turn", model: "served" },
    ]);
    expect(r).toEqual({
      provider: "p",
      model: "served",
      text: "ab",
      reasoning: "hm",
      tool_calls: [],
      input_tokens: 3,
      output_tokens: 4,
      reasoning_tokens: 1,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      stop_reason: "end_turn",
    });
  });

  it("never drops a call: orphan fragments, unknown ids, fragments without id", () => {
    const r = fold([
      { kind: "tool_call_delta", args_fragment: '{"a":1}' }, // before any start: orphan entry
      { kind: "tool_call_start", id: "c1", name: "one" },
      { kind: "tool_call_delta", id: "c1", args_fragment: '{"x":' },
      { kind: "tool_call_delta", args_fragment: "2}" }, // no id: the last opened call
      { kind: "tool_call_delta", id: "c9", args_fragment: '{"y":3}' }, // unknown id: its own entry
      { kind: "tool_call_start", id: "c1", name: "one" }, // repeated start: no duplicate
      { kind: "tool_call_start", id: "c2", name: "two" },
    ]);
    expect(r.tool_calls).toEqual([
      { id: "orphan_1", name: "", arguments: { a: 1 } },
      { id: "c1", name: "one", arguments: { x: 2 } },
      { id: "c9", name: "", arguments: { y: 3 } },
      { id: "c2", name: "two", arguments: {} },
    ]);
  });

  it("fills in a name that arrives after the call opened", () => {
    const r = fold([
      { kind: "tool_call_start", id: "c1", name: "" },
      { kind: "tool_call_start", id: "c1", name: "late" },
    ]);
    expect(r.tool_calls).toEqual([{ id: "c1", name: "late", arguments: {} }]);
  });

  it("passes non-object argument text on as {_raw}", () => {
    expect(parseArguments("")).toEqual({});
    expect(parseArguments("  ")).toEqual({});
    expect(parseArguments('{"k": [1]}')).toEqual({ k: [1] });
    expect(parseArguments('{"k": ')).toEqual({ _raw: '{"k": ' });
    expect(parseArguments("null")).toEqual({ _raw: "null" });
    expect(parseArguments('"s"')).toEqual({ _raw: '"s"' });
  });
});
