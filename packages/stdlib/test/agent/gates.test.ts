/**
 * Image blocks are checked once per message of a growing request list
 * (agent/llm/gates.ts): the agent loop sends the same array turn after
 * turn, and a daemon with 20,000 messages spent a third of its time
 * re-checking them. What is appended, a changed provider and a list that
 * was not only appended to must still be checked.
 */
import { afterEach, describe, expect, it } from "vitest";
import { HarnError, Runtime } from "@harn/vm";
import { checkImages } from "../../src/agent/llm/gates";
import type { LlmMessage } from "../../src/llm/types";

const runtimes: Runtime[] = [];
afterEach(async () => {
  for (const rt of runtimes.splice(0)) await rt.shutdown();
});

function runtime(): Runtime {
  const rt = new Runtime({ stdout: { write() {} }, stderr: { write() {} }, cwd: process.cwd(), env: {} });
  runtimes.push(rt);
  return rt;
}

/** What a script's `catch (e)` gets: the thrown string. */
function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return (e as HarnError).value;
  }
  return "nothing thrown";
}

const text = (t: string): LlmMessage => ({ role: "user", content: t }) as LlmMessage;
const image = (block: Record<string, unknown>): LlmMessage => ({ role: "user", content: [{ type: "image", ...block }] }) as LlmMessage;
const urlImage = image({ url: "http://x/y.png", media_type: "image/png" });

describe("checkImages on a growing list", () => {
  it("checks what is appended and remembers that an image was seen", () => {
    const rt = runtime();
    const list: LlmMessage[] = [text("a"), urlImage, text("b")];
    expect(checkImages(rt, list, "openai")).toBe(true);
    list.push(text("c"));
    expect(checkImages(rt, list, "openai")).toBe(true);
    list.push(image({ media_type: "image/png" }));
    expect(thrown(() => checkImages(rt, list, "openai"))).toContain("llm_call image content requires exactly one of url or base64");
    // still refused on the next turn: a message that threw is not recorded as checked
    expect(thrown(() => checkImages(rt, list, "openai"))).toContain("requires exactly one of url or base64");
  });

  it("checks the whole list again for another provider", () => {
    const rt = runtime();
    const list: LlmMessage[] = [urlImage, text("a")];
    expect(checkImages(rt, list, "openai")).toBe(true);
    expect(thrown(() => checkImages(rt, list, "ollama"))).toContain('provider "ollama" requires image base64');
  });

  it("checks the whole list again when it was edited rather than appended to", () => {
    const rt = runtime();
    const list: LlmMessage[] = [text("a"), text("b")];
    expect(checkImages(rt, list, "openai")).toBe(false);
    list[1] = image({ url: "http://x/y.png", media_type: "image/png", detail: "max" });
    expect(thrown(() => checkImages(rt, list, "openai"))).toContain('llm_call image detail must be "low", "high", or "auto"');
    list.length = 1;
    list.push(text("c"), text("d"));
    expect(checkImages(rt, list, "openai")).toBe(false);
    list.splice(0, 3, urlImage);
    expect(checkImages(rt, list, "openai")).toBe(true);
  });
});
