import { describe, expect, it } from "vitest";
import { FeedbackItem, LongRunState } from "../../src/longrun/state";

function record(state: LongRunState, sessionId = "", stops: string[] = []) {
  const id = state.nextStdlibHandleId();
  state.register({ id, family: "stdlib", sessionId, operation: "walk_dir", descriptor: "walk_dir /x", startedAtMs: Date.now(), stop: () => stops.push(id) });
  return id;
}

describe("handle ids", () => {
  it("use the pid in hex and two independent counters starting at 1", () => {
    const s = new LongRunState();
    const hex = process.pid.toString(16);
    expect(s.nextStdlibHandleId()).toBe(`hso-${hex}-1`);
    expect(s.nextCommandHandleId()).toBe(`hto-${hex}-1`);
    expect(s.nextStdlibHandleId()).toBe(`hso-${hex}-2`);
    expect(s.nextCommandId()).toMatch(new RegExp(`^cmd_${process.pid}_\\d{19,}_1$`));
    expect(s.nextCommandId()).toMatch(/_2$/);
  });

  it("are per state: two runtimes never share counters", () => {
    const a = new LongRunState();
    const b = new LongRunState();
    a.nextStdlibHandleId();
    expect(b.nextStdlibHandleId()).toMatch(/-1$/);
  });
});

describe("completion and cancellation", () => {
  it("queues a tool_result item for the owner session with the payload as compact JSON", () => {
    const s = new LongRunState();
    const id = record(s, "sess");
    expect(s.status(id)).toBe("running");
    expect(s.complete(id, { handle_id: id, status: "completed", result: [1, "a"] })).toBe(true);
    const [item] = s.pending();
    expect(item!.sessionId).toBe("sess");
    expect(item!.kind).toBe("tool_result");
    expect(item!.content).toBe(`{"handle_id":"${id}","status":"completed","result":[1,"a"]}`);
    expect(s.status(id)).toBe("completed");
    expect(s.isRunning(id)).toBe(false);
  });

  it("cancel is true once, then false, stops the work, and drops a later payload", () => {
    const s = new LongRunState();
    const stops: string[] = [];
    const id = record(s, "", stops);
    expect(s.cancel(id)).toBe(true);
    expect(stops).toEqual([id]);
    expect(s.cancel(id)).toBe(false);
    expect(s.complete(id, { status: "completed" })).toBe(false);
    expect(s.pending()).toEqual([]);
    expect(s.status(id)).toBe("cancelled");
  });

  it("cancel of a completed handle is false and does not retract its payload", () => {
    const s = new LongRunState();
    const id = record(s);
    s.complete(id, { status: "failed", error: "boom" });
    expect(s.cancel(id)).toBe(false);
    expect(s.status(id)).toBe("failed");
    expect(s.pending()).toHaveLength(1);
  });

  it("unknown ids are unknown and not cancellable", () => {
    const s = new LongRunState();
    expect(s.cancel("hso-0-99")).toBe(false);
    expect(s.status("hso-0-99")).toBe("unknown");
  });

  it("a stop function that throws does not break cancellation", () => {
    const s = new LongRunState();
    const id = s.nextStdlibHandleId();
    s.register({ id, family: "stdlib", sessionId: "", operation: "glob", descriptor: "", startedAtMs: 0, stop: () => { throw new Error("kill failed"); } });
    expect(s.cancel(id)).toBe(true);
  });

  it("session cleanup cancels only that session's handles; cancelAll takes root handles first", () => {
    const s = new LongRunState();
    const stops: string[] = [];
    const a = record(s, "A", stops);
    const root = record(s, "", stops);
    const b = record(s, "B", stops);
    expect(s.cancelSession("A").map((r) => r.id)).toEqual([a]);
    expect(stops).toEqual([a]);
    expect(s.cancelAll()).toBe(2);
    expect(stops).toEqual([a, root, b]);
    expect(s.running()).toEqual([]);
  });
});

describe("the pending feedback queue", () => {
  it("drains one session in FIFO order and keeps the relative order of the rest", () => {
    const s = new LongRunState();
    s.inject("a", "k", "1");
    s.inject("b", "k", "2");
    s.inject("a", "k", "3");
    s.inject("", "k", "4");
    s.inject("b", "k", "5");
    expect(s.drainSession("a").map((i) => i.content)).toEqual(["1", "3"]);
    expect(s.pending().map((i) => i.content)).toEqual(["2", "4", "5"]);
  });

  it("a turn preflight takes its own items and the root scope's, after yielding once", async () => {
    const s = new LongRunState();
    s.inject("x", "k", "1");
    s.inject("", "k", "2");
    s.inject("y", "k", "3");
    // pushed during the yield: a completion that lands before the drain is seen
    setImmediate(() => s.inject("x", "k", "late"));
    const items = await s.drainForTurn("x");
    expect(items.map((i) => i.content)).toEqual(["1", "2", "late"]);
    expect(s.pending().map((i) => i.content)).toEqual(["3"]);
  });

  it("discards an ended anonymous session's items", () => {
    const s = new LongRunState();
    s.inject("anon", "k", "1");
    s.inject("named", "k", "2");
    expect(s.discardSession("anon")).toBe(1);
    expect(s.pending().map((i) => i.sessionId)).toEqual(["named"]);
  });

  it("tells listeners about every new item", () => {
    const s = new LongRunState();
    const seen: string[] = [];
    const off = s.onFeedback((it) => seen.push(it.content));
    s.inject("", "k", "1");
    const id = record(s);
    s.complete(id, { n: 1 });
    off();
    s.inject("", "k", "2");
    expect(seen).toEqual(["1", '{"n":1}']);
  });

  it("builds a completion's JSON text only when it is read", () => {
    const payload = { handle_id: "hso-1-1", status: "completed" };
    const item = new FeedbackItem("", "tool_result", null, "hso-1-1", payload);
    payload.status = "changed before reading";
    expect(item.content).toContain("changed before reading");
  });
});

describe("waiting for a payload", () => {
  it("returns at once when the payload is already queued, and takes only that item", async () => {
    const s = new LongRunState();
    const id = record(s);
    s.inject("", "other", "x");
    s.complete(id, { status: "completed" });
    const item = await s.waitForPayload(id, null, new AbortController().signal);
    expect(item!.handleId).toBe(id);
    expect(s.pending().map((i) => i.kind)).toEqual(["other"]);
    expect(s.status(id)).toBe("unknown");
  });

  it("wakes when the work completes", async () => {
    const s = new LongRunState();
    const id = record(s);
    const waiting = s.waitForPayload(id, null, new AbortController().signal);
    setTimeout(() => s.complete(id, { status: "completed", result: 42 }), 5);
    expect((await waiting)!.payload).toEqual({ status: "completed", result: 42 });
  });

  it("gives null on cancel, on timeout (without cancelling), and for unknown ids", async () => {
    const s = new LongRunState();
    const a = record(s);
    const waitA = s.waitForPayload(a, null, new AbortController().signal);
    s.cancel(a);
    expect(await waitA).toBeNull();

    const b = record(s);
    expect(await s.waitForPayload(b, 5, new AbortController().signal)).toBeNull();
    expect(s.isRunning(b)).toBe(true);
    expect(await s.waitForPayload("hso-nope", null, new AbortController().signal)).toBeNull();
  });

  it("gives null when someone else drained the payload first", async () => {
    const s = new LongRunState();
    const id = record(s, "sess");
    const waiting = s.waitForPayload(id, null, new AbortController().signal);
    s.onFeedback(() => s.drainSession("sess"));
    s.complete(id, { status: "completed" });
    expect(await waiting).toBeNull();
  });

  it("rejects with the signal's reason when the waiting task is cancelled", async () => {
    const s = new LongRunState();
    const id = record(s);
    const ac = new AbortController();
    const waiting = s.waitForPayload(id, null, ac.signal);
    ac.abort("task cancelled");
    await expect(waiting).rejects.toBe("task cancelled");
    expect(s.isRunning(id)).toBe(true);
  });
});
