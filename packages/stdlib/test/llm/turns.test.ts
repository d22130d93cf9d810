/**
 * TurnControl: what the host's Ctrl-C reaches (extensions.md §3.3).
 */
import { describe, expect, it } from "vitest";
import { markInterrupted, TurnControl, TurnInterrupt } from "../../src/llm/turns";

describe("TurnControl", () => {
  it("interrupts every running turn and reports whether there was one", () => {
    const turns = new TurnControl();
    expect(turns.interrupt()).toBe(false);
    const parent = new AbortController();
    let cancelled = 0;
    const a = turns.begin(parent.signal, () => cancelled++);
    const b = turns.begin(parent.signal);
    expect(turns.active).toBe(true);
    expect(turns.interrupt()).toBe(true);
    expect(a.interrupted && b.interrupted).toBe(true);
    expect(a.signal.reason).toBeInstanceOf(TurnInterrupt);
    expect(cancelled).toBe(1);
    // the script's own signal is untouched
    expect(parent.signal.aborted).toBe(false);
    a.end();
    b.end();
    expect(turns.active).toBe(false);
    expect(turns.interrupt()).toBe(false);
  });

  it("follows the parent signal without counting it as an interruption", () => {
    const turns = new TurnControl();
    const parent = new AbortController();
    const t = turns.begin(parent.signal);
    parent.abort(new Error("task cancelled"));
    expect(t.signal.aborted).toBe(true);
    expect((t.signal.reason as Error).message).toBe("task cancelled");
    expect(t.interrupted).toBe(false);
    t.end();
    const late = turns.begin(parent.signal);
    expect(late.signal.aborted).toBe(true);
    late.end();
  });

  it("an ended turn is not interrupted and releases its parent listener", () => {
    const turns = new TurnControl();
    const parent = new AbortController();
    const t = turns.begin(parent.signal);
    t.end();
    t.end();
    expect(turns.interrupt()).toBe(false);
    expect(t.interrupted).toBe(false);
    parent.abort();
    expect(t.signal.aborted).toBe(false);
  });

  it("background turns follow their parent but are not interrupted", () => {
    const turns = new TurnControl();
    const parent = new AbortController();
    const bg = turns.begin(parent.signal, undefined, { background: true });
    expect(turns.active).toBe(false);
    expect(turns.interrupt()).toBe(false);
    expect(bg.signal.aborted).toBe(false);
    parent.abort();
    expect(bg.signal.aborted).toBe(true);
    bg.end();
  });

  it("marks interrupted text", () => {
    expect(markInterrupted("Once upon a time")).toBe("Once upon a time [interrupted]");
    expect(markInterrupted("")).toBe("[interrupted]");
    // one space, whatever whitespace the reply stopped after
    expect(markInterrupted("Half ")).toBe("Half [interrupted]");
    expect(markInterrupted("Line one\n")).toBe("Line one [interrupted]");
    expect(markInterrupted(" \n")).toBe("[interrupted]");
  });
});
