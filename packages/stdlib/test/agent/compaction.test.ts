import { describe, expect, it } from "vitest";
import type { CallContext } from "@harn/vm";
import { compactMessages, estimateTokens, type CompactionSettings } from "../../src/agent/loop/compaction";
import type { Msg } from "../../src/agent/loop/transcript";
import { microcompact } from "../../src/agent/transcript/microcompact";

const truncate = (keepFirst: number, keepLast: number): CompactionSettings => ({ keepFirst, keepLast, strategy: "truncate", callback: null });
const noModel = { ctx: {} as CallContext, llm: () => { throw new Error("truncate never asks the model"); } };

describe("the compaction step (agents-surface.md §1.9)", () => {
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
    const summary = "[auto-compacted 2 older messages via truncate strategy]\n[user] task\n[assistant] a1";
    expect(await compactMessages(msgs, truncate(0, 2), noModel)).toEqual({ summary, archived: 2 });
    expect(msgs.map((m) => m.content)).toEqual([summary, "u2", "a2", "u3"]);
  });

  it("truncates long contents to 500 bytes and lists at most 15 messages", async () => {
    const msgs: Msg[] = Array.from({ length: 20 }, (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: i === 0 ? "x".repeat(600) : `m${i}` }));
    msgs.push({ role: "user", content: "last" });
    const done = await compactMessages(msgs, truncate(0, 1), noModel);
    const lines = done!.summary.split("\n");
    expect(lines[0]).toBe("[auto-compacted 20 older messages via truncate strategy]");
    expect(lines[1]).toBe(`[user] ${"x".repeat(500)}... [truncated from 600 chars]`);
    expect(lines).toHaveLength(17);
    expect(lines[16]).toBe("... and 5 more");
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
    expect(msgs[1]!.content).toBe("[auto-compacted 2 older messages via truncate strategy]\n[tool] r1");
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
    expect((await compactMessages(msgs, truncate(1, 1), noModel))?.archived).toBe(2);
    expect(msgs.map((m) => m.role)).toEqual(["user", "user", "assistant", "user"]);
    expect(msgs[3]).toEqual(result("c2", "r2"));
  });

  it("leaves a list of at most keep_first + keep_last messages alone", async () => {
    const msgs: Msg[] = [{ role: "user", content: "a" }, { role: "assistant", content: "b" }];
    expect(await compactMessages(msgs, truncate(1, 1), noModel)).toBeNull();
    expect(msgs).toHaveLength(2);
  });

  it("masks long multi-line observations", async () => {
    const long = ["first line", ...Array.from({ length: 60 }, (_, i) => `line ${i} ${"y".repeat(10)}`)].join("\n");
    const msgs: Msg[] = [
      { role: "user", content: "task" },
      { role: "tool", tool_call_id: "c", content: long },
      { role: "assistant", content: "done" },
      { role: "user", content: "next" },
    ];
    const done = await compactMessages(msgs, { ...truncate(0, 1), strategy: "observation_mask" }, noModel);
    expect(done!.summary).toBe(
      `[auto-compacted 3 older messages via observation masking]\n[user] task\n[tool] first line... [61 lines, ${Buffer.byteLength(long)} chars masked]\n[assistant] done`,
    );
  });
});

describe("microcompact (agents-surface.md §1.9)", () => {
  it("returns short texts, and any text when max_chars < 200, unchanged", () => {
    expect(microcompact("abc", 200)).toBe("abc");
    expect(microcompact("x".repeat(1000), 100)).toBe("x".repeat(1000));
  });

  it("keeps head and tail at line boundaries in plain mode", () => {
    const text = "0123456789\n".repeat(40);
    const out = microcompact(text, 200);
    const head = "0123456789\n".repeat(9);
    expect(out).toBe(`${head}\n\n[... 242 characters snipped ...]\n\n${head}`);
  });

  it("preserves diagnostic lines", () => {
    const noise = Array.from({ length: 100 }, (_, i) => `ok step ${i}`).join("\n");
    const text = `${noise}\nsrc/main.rs:12:5: error: expected one argument\n${noise}`;
    const out = microcompact(text, 600);
    expect(out).toContain("\n\n[diagnostic lines preserved]\nsrc/main.rs:12:5: error: expected one argument\n\n[... output compacted ...]\n\n");
    expect(out.startsWith("ok step 0\n")).toBe(true);
    expect(out.endsWith("ok step 99")).toBe(true);
  });

  it("cuts at character boundaries", () => {
    const out = microcompact("é".repeat(300), 200);
    expect(out).toMatch(/^é+\n\n\[\.\.\. \d+ characters snipped \.\.\.\]\n\né+$/);
  });
});
