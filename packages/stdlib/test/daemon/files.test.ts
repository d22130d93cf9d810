/**
 * Snapshot and metadata files (agents.md §4.2, §4.4): defaults for missing
 * keys, normalisation, and a clear error naming the file for anything
 * corrupt — never a crash, never a silently empty queue.
 */
import { describe, expect, it } from "vitest";
import { display, HarnError } from "@harn/vm";
import { fromJson, type JsonObject, parseJsonKeepingFloats } from "../../src/core/json";
import { defaultSnapshot, encodeState, parseMeta, parseSnapshot, type Snapshot } from "../../src/agent/daemon/files";

function error(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof HarnError) return e.description();
    throw e;
  }
  throw new Error("expected an error");
}

describe("snapshot file", () => {
  it("round-trips and keeps the §4.2 key order", () => {
    const s = defaultSnapshot();
    const text = encodeState(s);
    expect(Object.keys(JSON.parse(text))).toEqual([
      "_type",
      "saved_at",
      "daemon_state",
      "visible_messages",
      "recorded_messages",
      "transcript_summary",
      "transcript_events",
      "total_text",
      "last_iteration_text",
      "all_tools_used",
      "rejected_tools",
      "deferred_user_messages",
      "total_iterations",
      "idle_backoff_ms",
      "last_run_exit_code",
      "watch_state",
    ]);
    expect(parseSnapshot(text, "/x/daemon.json")).toEqual(s);
  });

  it("keeps a tool call's integral float arguments as floats", () => {
    const s = defaultSnapshot();
    const args = parseJsonKeepingFloats('{"a": 2.0, "b": 2}') as JsonObject;
    s.visible_messages = [{ role: "assistant", content: "", tool_calls: [{ id: "c1", type: "tool_call", name: "probe", arguments: args }] }];
    s.recorded_messages = s.visible_messages;
    const text = encodeState(s);
    expect(text).toContain('"a": 2.0,');
    const back = parseSnapshot(text, "/x/daemon.json").visible_messages[0] as JsonObject;
    expect(display(fromJson(back.tool_calls))).toBe("[{arguments: {a: 2.0, b: 2}, id: c1, name: probe, type: tool_call}]");
  });

  it("loads missing keys with defaults and normalises empty _type/saved_at/daemon_state", () => {
    const s = parseSnapshot('{"_type": "", "saved_at": "", "daemon_state": "", "total_iterations": 4}', "/x/daemon.json");
    expect(s._type).toBe("daemon_snapshot");
    expect(s.daemon_state).toBe("active");
    expect(s.saved_at).not.toBe("");
    expect(s.total_iterations).toBe(4);
    expect(s.visible_messages).toEqual([]);
    expect(s.idle_backoff_ms).toBe(100);
  });

  it("reports invalid JSON, a non-object and wrongly typed keys with the path", () => {
    expect(error(() => parseSnapshot('{"_type": ', "/r/daemon.json"))).toBe("Runtime error: daemon snapshot parse error: /r/daemon.json: EOF while parsing a value at line 1 column 10");
    expect(error(() => parseSnapshot("[]", "/r/daemon.json"))).toBe("Runtime error: daemon snapshot parse error: /r/daemon.json: expected a JSON object, found an array");
    expect(error(() => parseSnapshot('{"visible_messages": {"a": 1}}', "/r/daemon.json"))).toBe(
      "Runtime error: daemon snapshot parse error: /r/daemon.json: `visible_messages` must be a list of messages, found an object",
    );
    expect(error(() => parseSnapshot('{"total_iterations": 3.0}', "/r/daemon.json"))).toBe(
      "Runtime error: daemon snapshot parse error: /r/daemon.json: `total_iterations` must be an integer, found a number",
    );
    expect(parseSnapshot('{"watch_state": {"/w/a": 1731000000000.0}}', "/r/daemon.json").watch_state).toEqual({ "/w/a": 1731000000000 });
    expect(error(() => parseSnapshot('{"total_iterations": "3"}', "/r/daemon.json"))).toBe(
      "Runtime error: daemon snapshot parse error: /r/daemon.json: `total_iterations` must be an integer, found a string",
    );
  });
});

describe("metadata file", () => {
  const meta = {
    _type: "daemon_meta",
    id: "daemon_1",
    name: "indexer",
    prompt: "Re-index",
    system: null,
    session_id: "daemon_session_1",
    options: { daemon: true, provider: "mock" },
    event_queue_capacity: 8,
    next_event_seq: 3,
    pending_events: [{ seq: 2, enqueued_at: "2026-01-05T09:01:00Z", payload: { kind: "changed" } }],
    inflight_event: { seq: 1, enqueued_at: "2026-01-05T09:00:00Z", payload: "first" },
  };

  it("round-trips", () => {
    expect(parseMeta(JSON.stringify(meta), "/r/daemon.meta.json")).toEqual(meta);
  });

  it("loads missing keys as defaults: capacity 1024, empty queue, seq 1", () => {
    const m = parseMeta('{"id": "daemon_2"}', "/r/daemon.meta.json")!;
    expect(m.event_queue_capacity).toBe(1024);
    expect(m.pending_events).toEqual([]);
    expect(m.inflight_event).toBeNull();
    expect(m.next_event_seq).toBe(1);
  });

  it("never reuses a sequence number even if the counter is behind the queue", () => {
    const m = parseMeta(JSON.stringify({ ...meta, next_event_seq: 1 }), "/r/daemon.meta.json")!;
    expect(m.next_event_seq).toBe(3);
  });

  it("is null for JSON that is not an object (the caller's 'is not a dict' error)", () => {
    expect(parseMeta("[1, 2]", "/r/daemon.meta.json")).toBeNull();
    expect(parseMeta('"text"', "/r/daemon.meta.json")).toBeNull();
  });

  it("reports invalid JSON and malformed queue entries with the path", () => {
    expect(error(() => parseMeta("{oops", "/r/daemon.meta.json"))).toMatch(/^Runtime error: daemon meta parse error: \/r\/daemon\.meta\.json: key must be a string at line 1 column 2$/);
    expect(error(() => parseMeta('{"pending_events": [{"payload": 1}]}', "/r/daemon.meta.json"))).toBe(
      "Runtime error: daemon meta parse error: /r/daemon.meta.json: `pending_events[0]` needs a positive integer `seq`",
    );
    expect(error(() => parseMeta('{"pending_events": 3}', "/r/daemon.meta.json"))).toBe(
      "Runtime error: daemon meta parse error: /r/daemon.meta.json: `pending_events` must be a list, found a number",
    );
  });
});

describe("snapshot encoding", () => {
  it("encodes a shared message list exactly as two separate lists", () => {
    const messages: JsonObject[] = [
      { role: "user", content: 'a "quoted"\nline \u0000 and \\u0000messages' },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "t", arguments: { n: [1, { x: null }] } }] },
    ];
    const shared: Snapshot = { ...defaultSnapshot(), visible_messages: messages, recorded_messages: messages, total_text: "\u0000messages\u0000" };
    const separate = { ...shared, recorded_messages: structuredClone(messages) };
    expect(encodeState(shared)).toBe(encodeState(separate));
    expect(encodeState(separate)).toBe(JSON.stringify(separate, null, 2) + "\n");
    const empty = { ...defaultSnapshot() };
    empty.recorded_messages = empty.visible_messages;
    expect(encodeState(empty)).toBe(JSON.stringify({ ...empty, recorded_messages: [] }, null, 2) + "\n");
  });
});
