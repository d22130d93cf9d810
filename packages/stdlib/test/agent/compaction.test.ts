import { describe, expect, it } from "vitest";
import type { CallContext } from "@harn/vm";
import { compactMessages, estimateTokens, type CompactionSettings } from "../../src/agent/loop/compaction";
import type { Msg } from "../../src/agent/loop/transcript";

const truncate = (keepFirst: number, keepLast: number): CompactionSettings => ({ keepFirst, keepLast, strategy: "truncate", callback: null });
const noModel = { ctx: {} as CallContext, llm: () => { throw new Error("truncate never asks the model"); } };

describe("transcript compaction (agents.md §2.14)", () => {
  it("estimates tokens as content bytes / 4 plus system bytes / 4", () => {
    const msgs: Msg[] = [{ role: "user", content: "abcdefg" }, { role: "assistant", content: "é" }, { role: "tool", tool_call_id: "x", content: null }];
    expect(estimateTokens(msgs, null)).toBe(2); // 9 bytes
    expect(estimateTokens(msgs, "12345678")).toBe(4);
  });

  it("moves the split back to a user message, so the kept tail starts with one", async () => {
    const msgs: Msg[] = [
      { role: "user", content: "task" },
      { role: "assistant", content: "a1" },
      { role: "user", content: "u2" },
      { role: "assistant", content: "a2" },
      { role: "user", content: "u3" },
    ];
    expect(await compactMessages(msgs, truncate(0, 2), noModel)).toBe("user: task\nassistant: a1");
    expect(msgs.map((m) => m.content)).toEqual(["[auto-compacted 2 older messages]\nuser: task\nassistant: a1", "u2", "a2", "u3"]);
  });

  it("never keeps a tool result without the assistant turn that called it", async () => {
    const msgs: Msg[] = [
      { role: "user", content: "task" },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "t", arguments: {} }] },
      { role: "tool", tool_call_id: "c1", content: "r1" },
      { role: "assistant", content: "", tool_calls: [{ id: "c2", name: "t", arguments: {} }] },
      { role: "tool", tool_call_id: "c2", content: "r2" },
    ];
    await compactMessages(msgs, truncate(1, 1), noModel);
    expect(msgs.map((m) => m.role)).toEqual(["user", "user", "assistant", "tool"]);
    expect(msgs[1]!.content).toMatch(/^\[auto-compacted 2 older messages\]\n/);
  });

  it("treats Anthropic-style tool_result messages as tool results, not as user turns to split at", async () => {
    const result = (id: string, text: string): Msg => ({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: text }] });
    const msgs: Msg[] = [
      { role: "user", content: "task" },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "t", arguments: {} }] },
      result("c1", "r1"),
      { role: "assistant", content: "", tool_calls: [{ id: "c2", name: "t", arguments: {} }] },
      result("c2", "r2"),
    ];
    expect(await compactMessages(msgs, truncate(1, 1), noModel)).toBe("assistant: \nuser: r1");
    expect(msgs.map((m) => m.role)).toEqual(["user", "user", "assistant", "user"]);
    expect(msgs[3]).toEqual(result("c2", "r2"));
  });

  it("leaves a list of at most keep_first + keep_last messages alone", async () => {
    const msgs: Msg[] = [{ role: "user", content: "a" }, { role: "assistant", content: "b" }];
    expect(await compactMessages(msgs, truncate(1, 1), noModel)).toBeNull();
    expect(msgs).toHaveLength(2);
  });
});
