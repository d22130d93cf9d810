/**
 * The `--stream` / `harn chat` renderer (extensions.md §3.2): deltas to
 * stdout as they come, one line per tool call / result / retry on stderr,
 * previews of at most 120 characters, and streams that never share a line.
 */
import { describe, expect, it } from "vitest";
import { preview, type RenderOptions, StreamRenderer } from "../src/stream-render";

function capture(opts: RenderOptions = {}) {
  const log: string[] = [];
  let flushes = 0;
  const out = { write: (t: string) => void log.push(`out:${t}`), flush: () => void flushes++ };
  const renderer = new StreamRenderer(out, (t) => void log.push(`err:${t}`), opts);
  return { log, renderer, flushes: () => flushes };
}

describe("preview", () => {
  it("is one line of at most 120 characters", () => {
    expect(preview("a\n  b\tc ")).toBe("a b c");
    const long = preview("é".repeat(500));
    expect(Array.from(long).length).toBe(120);
    expect(long.endsWith("…")).toBe(true);
    expect(preview("x".repeat(120))).toBe("x".repeat(120));
  });
});

describe("StreamRenderer", () => {
  it("writes deltas as they arrive and ends a half line before anything else", () => {
    const { log, renderer, flushes } = capture({ hideReasoning: true });
    renderer.event({ kind: "text_delta", text: "Hel" });
    renderer.event({ kind: "reasoning_delta", text: "hidden" });
    renderer.event({ kind: "text_delta", text: "lo" });
    expect(flushes()).toBe(2);
    renderer.toolCall("read", { path: "a.txt" });
    renderer.toolResult("read", "ok", "line 1\nline 2");
    renderer.toolResult("read", "error", "Error: nope");
    renderer.toolResult("read", "rejected", '{"error": "permission_denied"}');
    renderer.event({ kind: "text_delta", text: "Done.\n" });
    renderer.callEnd();
    renderer.scriptOut().write("script\n");
    expect(log).toEqual([
      "out:Hel",
      "out:lo",
      "out:\n",
      'err:⚙ read({"path":"a.txt"})\n',
      "err:→ line 1 line 2\n",
      "err:✗ Error: nope\n",
      'err:✗ {"error": "permission_denied"}\n',
      "out:Done.\n",
      "out:script\n",
    ]);
  });

  it("script output after streamed text starts on a new line", () => {
    const { log, renderer } = capture();
    renderer.event({ kind: "text_delta", text: "partial" });
    renderer.scriptOut().write("printed\n");
    renderer.callEnd();
    expect(log).toEqual(["out:partial", "out:\n", "out:printed\n"]);
  });

  it("shows reasoning dimmed on stderr, each piece as it comes; text starts on its own line", () => {
    const { log, renderer } = capture({ dim: (t) => `<${t}>` });
    renderer.event({ kind: "reasoning_delta", text: "Think" });
    renderer.event({ kind: "reasoning_delta", text: "ing." });
    renderer.event({ kind: "text_delta", text: "Answer" });
    renderer.event({ kind: "reasoning_delta", text: "more\n" });
    renderer.event({ kind: "text_delta", text: "!" });
    renderer.callEnd();
    expect(log).toEqual(["err:<Think>", "err:<ing.>", "err:\n", "out:Answer", "out:\n", "err:<more\n>", "out:!", "out:\n"]);
  });

  it("marks an interrupted answer once, one space after its text", () => {
    const { log, renderer } = capture();
    renderer.event({ kind: "text_delta", text: "Once upon" });
    renderer.interrupted();
    renderer.callEnd();
    renderer.interrupted();
    renderer.startAnswer();
    renderer.interrupted();
    expect(log).toEqual(["out:Once upon", "out: [interrupted]\n", "out:[interrupted]\n"]);
  });
});
