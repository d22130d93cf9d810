import { describe, expect, it } from "vitest";
import { canonicalText, hasDoneBlock, parseJsonToolCalls, parseTextToolCalls, visibleText } from "../../src/agent/tools/text_protocol";

describe("text tool-call protocol (agents.md §2.5)", () => {
  it("parses object-literal calls with bare keys, nesting and trailing commas", () => {
    const r = parseTextToolCalls(`I'll look.
<tool_call>
search({ query: "harn lang", limit: 5, opts: {exact: true, tags: ['a', "b"],}, none: null })
</tool_call>
<tool_call>ping()</tool_call>`);
    expect(r.errors).toEqual([]);
    expect(r.calls).toEqual([
      { name: "search", arguments: { query: "harn lang", limit: 5, opts: { exact: true, tags: ["a", "b"] }, none: null } },
      { name: "ping", arguments: {} },
    ]);
  });

  it("reads heredocs verbatim and JSON {name, arguments} bodies", () => {
    const r = parseTextToolCalls(`<tool_call>
write({ path: "a.txt", body: <<TXT
line "one"
  line two
TXT
})
</tool_call>
<tool_call>{"name": "x", "arguments": {"k": [1, 2]}}</tool_call>`);
    expect(r.errors).toEqual([]);
    expect(r.calls[0]).toEqual({ name: "write", arguments: { path: "a.txt", body: 'line "one"\n  line two' } });
    expect(r.calls[1]).toEqual({ name: "x", arguments: { k: [1, 2] } });
  });

  it("drops malformed calls with a message each", () => {
    const r = parseTextToolCalls("<tool_call>broken({ a: </tool_call><tool_call>ok({})</tool_call><tool_call>f(1)</tool_call>");
    expect(r.calls).toEqual([{ name: "ok", arguments: {} }]);
    expect(r.errors).toHaveLength(2);
    expect(r.errors[1]).toContain("arguments must be an object literal");
  });

  it("tool_parse_call keeps only JSON bodies", () => {
    expect(parseJsonToolCalls('<tool_call> {"name": "a"} </tool_call><tool_call>a()</tool_call>')).toEqual([{ name: "a" }]);
  });

  it("visible text strips control tags; plain text is kept as written", () => {
    expect(visibleText("  plain ##DONE## ")).toBe("  plain ##DONE## ");
    expect(visibleText("<assistant_prose>Hi</assistant_prose>\n<tool_call>x()</tool_call>\n<done>##DONE##</done>")).toBe("Hi");
    expect(visibleText("<user_response>Answer</user_response>")).toBe("Answer");
  });

  it("done blocks and canonical text", () => {
    expect(hasDoneBlock("x <done> ##DONE## </done>", "##DONE##")).toBe(true);
    expect(hasDoneBlock("##DONE##", "##DONE##")).toBe(false);
    expect(canonicalText("go", [{ name: "a", arguments: { x: 1 } }])).toBe('go\n<tool_call>\na({"x":1})\n</tool_call>');
  });
});
