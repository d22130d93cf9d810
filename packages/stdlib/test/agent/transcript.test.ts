import { describe, expect, it } from "vitest";
import { appendUpdate, feedbackText, requestMessages, textResultsMessage, toolMessage, type Msg } from "../../src/agent/loop/transcript";

describe("runtime feedback and consolidation", () => {
  it("wraps feedback with an escaped kind and trimmed content", () => {
    expect(feedbackText('a<b>&"c"', "\n  body \n")).toBe('<runtime_feedback kind="a&lt;b&gt;&amp;&quot;c&quot;">\nbody\n</runtime_feedback>');
  });

  it("native format: the latest response of a call replaces the original in the request", () => {
    const msgs: Msg[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "build", arguments: {} }, { id: "c2", name: "lint", arguments: {} }] },
      toolMessage("c1", "pending"),
      toolMessage("c2", "clean"),
    ];
    appendUpdate(msgs, "c1", "50%");
    msgs.push({ role: "assistant", content: "waiting" });
    appendUpdate(msgs, "c1", "done: ok");
    // the stored transcript keeps everything, superseded responses flagged
    expect(msgs.map((m) => [m.role, m.superseded === true])).toEqual([
      ["user", false],
      ["assistant", false],
      ["tool", true],
      ["tool", false],
      ["tool", true],
      ["assistant", false],
      ["tool", false],
    ]);
    expect(requestMessages(msgs)).toEqual([
      { role: "user", content: "go" },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "build", arguments: {} }, { id: "c2", name: "lint", arguments: {} }] },
      { role: "tool", tool_call_id: "c1", content: "done: ok" },
      { role: "tool", tool_call_id: "c2", content: "clean" },
      { role: "assistant", content: "waiting" },
    ]);
  });

  it("native format, Anthropic style: updates keep the tool_result shape and replace the original in the request", () => {
    const block = (id: string, content: string) => ({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content }] });
    const msgs: Msg[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "build", arguments: {} }] },
      toolMessage("c1", "pending", "anthropic"),
    ];
    expect(msgs[2]).toEqual(block("c1", "pending"));
    appendUpdate(msgs, "c1", "done: ok");
    expect(msgs[3]).toEqual({ ...block("c1", "done: ok"), update_of: "c1" });
    expect(msgs[2]!.superseded).toBe(true);
    expect(requestMessages(msgs)).toEqual([
      { role: "user", content: "go" },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "build", arguments: {} }] },
      block("c1", "done: ok"),
    ]);
  });

  it("text format: the results message is re-rendered with the latest response", () => {
    const msgs: Msg[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: "<tool_call>..." },
      textResultsMessage([
        { tool_call_id: "t1", name: "build", text: "pending" },
        { tool_call_id: "t2", name: "lint", text: "clean" },
      ], true),
    ];
    appendUpdate(msgs, "t1", "built");
    const sent = requestMessages(msgs);
    expect(sent).toHaveLength(3);
    expect(sent[2]).toEqual({
      role: "user",
      content: feedbackText("tool_results", "[result of build]\nbuilt\n[end of build result]\n\n[result of lint]\nclean\n[end of lint result]"),
    });
    expect(JSON.stringify(msgs[2])).toContain('"superseded":true');
  });
});
