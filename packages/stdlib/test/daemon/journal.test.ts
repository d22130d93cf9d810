/**
 * The file store's journal (file-store.ts, delta.ts, appendlog.ts): what a
 * reader finds after each kind of write, a crash's torn last line,
 * compaction, the state at rest, and damaged journals.
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HarnError } from "@harn/vm";
import { applyDelta, frozenSnapshot, SnapshotTracker } from "../../src/agent/daemon/delta";
import { COMPACT_MIN_BYTES, FileStore, JOURNAL_FILE, parseJournal, readRootSync } from "../../src/agent/daemon/file-store";
import { defaultSnapshot, type Meta, type QueuedEvent, type Snapshot } from "../../src/agent/daemon/files";
import type { JsonObject } from "../../src/core/json";
import { runHarn } from "../agent/harness";
import { noteEdit } from "../../src/agent/loop/transcript";

const made: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), "harn-journal-"));
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const META: Meta = {
  _type: "daemon_meta",
  id: "daemon_j",
  name: "j",
  prompt: "t",
  system: null,
  session_id: "s",
  options: { provider: "mock" },
  event_queue_capacity: 1024,
  next_event_seq: 1,
  pending_events: [],
  inflight_event: null,
};
const event = (seq: number, payload: unknown = { n: seq }): QueuedEvent => ({ seq, enqueued_at: "2026-01-01T00:00:00Z", payload: payload as never });

/** A snapshot as the loop makes it: one message list for both fields. */
function snap(messages: JsonObject[], extra: Partial<Snapshot> = {}): Snapshot {
  return { ...defaultSnapshot(), saved_at: "2026-01-01T00:00:00Z", visible_messages: messages, recorded_messages: messages, ...extra };
}

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return e instanceof HarnError ? e.description() : String(e);
  }
  return "no error";
}

describe("snapshot deltas", () => {
  it("an append is the new messages only; a replaced message splices from it; text grows; the lists stay one", () => {
    const m1 = { role: "user", content: "t" };
    const m2 = { role: "assistant", content: "a" };
    const live: JsonObject[] = [m1, m2];
    const t = new SnapshotTracker(null);
    const a = t.commit(snap(live, { total_text: "a", total_iterations: 1 }), ["a"]);
    live.push({ role: "user", content: "e" }, { role: "assistant", content: "b" });
    const b = t.commit(snap(live, { total_text: "ab", total_iterations: 2 }), ["b"]);
    expect(b.delta).toEqual({
      set: { total_iterations: 2 },
      splice: { visible_messages: [2, [{ role: "user", content: "e" }, { role: "assistant", content: "b" }]] },
      grow: { total_text: "b" },
      shared: true,
    });
    // the frozen copies do not follow the live list
    expect(a.snapshot.visible_messages).toHaveLength(2);
    expect(b.snapshot.visible_messages).toHaveLength(4);
    // nor do they follow later commits, read field by field, spread or as JSON
    live.push({ role: "user", content: "f" });
    const b2 = t.commit(snap(live, { total_text: "ab", total_iterations: 2 }), []);
    expect(b2.snapshot.visible_messages).toHaveLength(5);
    expect({ ...a.snapshot }.recorded_messages).toEqual([m1, m2]);
    expect(JSON.parse(JSON.stringify(b.snapshot)).visible_messages).toHaveLength(4);
    live.pop();
    noteEdit(live);
    t.commit(snap(live, { total_text: "ab", total_iterations: 2 }), []);
    live[1] = { ...m2, superseded: true };
    noteEdit(live);
    // a text that did not just grow is set whole
    const c = t.commit(snap(live, { total_text: "x", total_iterations: 2, stop_reason: "watchdog" }), []);
    expect((c.delta.splice as JsonObject).visible_messages).toEqual([1, live.slice(1)]);
    expect(c.delta.set).toEqual({ total_text: "x", stop_reason: "watchdog" });

    const work = frozenSnapshot(a.snapshot);
    for (const delta of [b.delta, c.delta]) applyDelta(work, JSON.parse(JSON.stringify(delta)));
    expect(work).toEqual(c.snapshot);
    expect(work.recorded_messages).toBe(work.visible_messages);
  });

  it("a list that is another array than last time is compared entry by entry", () => {
    const live: JsonObject[] = [{ role: "user", content: "t" }];
    const t = new SnapshotTracker(null);
    t.commit(snap(live), []);
    live[0] = { role: "user", content: "changed" };
    live.push({ role: "assistant", content: "a" });
    const d = t.commit(snap([...live]), []).delta;
    expect((d.splice as JsonObject).visible_messages).toEqual([0, live]);
  });

  it("the first delta sets everything", () => {
    const s = snap([{ role: "user", content: "t" }]);
    const work = frozenSnapshot({ ...defaultSnapshot(), saved_at: "" });
    applyDelta(work, JSON.parse(JSON.stringify(new SnapshotTracker(null).commit(s, []).delta)));
    expect(work).toEqual(s);
  });
});

describe("the journal of a running daemon", () => {
  it("a reader sees every trigger and boundary; a torn last line (a crash mid-write) is dropped", async () => {
    const root = fresh();
    const store = await FileStore.open(root, { meta: META, snapshot: null }, true);
    expect((await store.enqueue(event(1).payload)).seq).toBe(1);
    expect((await store.enqueue("text")).seq).toBe(2);
    const c = new SnapshotTracker(null).commit(snap([{ role: "user", content: "t" }, { role: "user", content: '{"n":1}' }], { total_iterations: 2 }), []);
    await store.commitIdle(c.snapshot, c.delta, 1);
    const state = readRootSync(root, "test");
    expect(state.journal).toBe(true);
    expect(state.meta.pending_events.map((e) => e.seq)).toEqual([2]);
    expect(state.meta.next_event_seq).toBe(3);
    expect(state.snapshot!.total_iterations).toBe(2);
    expect(state.snapshot!.visible_messages).toHaveLength(2);

    appendFileSync(join(root, JOURNAL_FILE), '{"op":"trigger","seq":3,"enqueued_at":"","payl');
    const after = readRootSync(root, "test");
    expect(after.meta.pending_events.map((e) => e.seq)).toEqual([2]);
    await store.close({ meta: { ...META, next_event_seq: 3, pending_events: [event(2, "text")] }, snapshot: state.snapshot });
  });

  it("the state at rest: the two files, and no journal", async () => {
    const root = fresh();
    const store = await FileStore.open(root, { meta: META, snapshot: null }, true);
    expect((await store.enqueue(event(1).payload)).seq).toBe(1);
    const { snapshot: s, delta } = new SnapshotTracker(null).commit(snap([{ role: "user", content: "t" }], { stop_reason: "budget_exhausted" }), []);
    await store.commitIdle(s, delta, null);
    await store.close({ meta: { ...META, next_event_seq: 2, pending_events: [event(1)] }, snapshot: s });
    expect(existsSync(join(root, JOURNAL_FILE))).toBe(false);
    const state = readRootSync(root, "test");
    expect(state.journal).toBe(false);
    expect(state.meta.pending_events.map((e) => [e.seq, e.payload])).toEqual([[1, { n: 1 }]]);
    expect(state.snapshot!.stop_reason).toBe("budget_exhausted");
    expect(JSON.parse(readFileSync(join(root, "daemon.json"), "utf8")).stop_reason).toBe("budget_exhausted");
  });

  it("compacts into one checkpoint once it has doubled, keeping the state", async () => {
    const root = fresh();
    const store = await FileStore.open(root, { meta: META, snapshot: null }, true);
    const big = "x".repeat(64 * 1024);
    const n = Math.ceil((2 * COMPACT_MIN_BYTES) / big.length);
    for (let i = 1; i <= n; i++) await store.enqueue(big);
    // acknowledge all but the last two
    const messages: JsonObject[] = [{ role: "user", content: "t" }];
    const tracker = new SnapshotTracker(null);
    for (let i = 1; i <= n - 2; i++) {
      messages.push({ role: "user", content: `e${i}` });
      const c = tracker.commit(snap(messages, { total_iterations: i }), []);
      await store.commitIdle(c.snapshot, c.delta, i);
    }
    const lines = readFileSync(join(root, JOURNAL_FILE), "utf8").trimEnd().split("\n");
    // it was rewritten: far fewer lines than writes, starting with a checkpoint
    expect(lines.length).toBeLessThan(n);
    expect(JSON.parse(lines[0]!).op).toBe("checkpoint");
    const state = readRootSync(root, "test");
    expect(state.meta.pending_events.map((e) => e.seq)).toEqual([n - 1, n]);
    expect(state.snapshot!.visible_messages).toEqual(messages);
    expect(existsSync(join(root, `${JOURNAL_FILE}.tmp`))).toBe(false);
    await store.close({ meta: { ...META, next_event_seq: n + 1, pending_events: state.meta.pending_events }, snapshot: state.snapshot });
  });
});

describe("damaged journals", () => {
  const path = "/r/daemon.journal";
  const checkpoint = JSON.stringify({ op: "checkpoint", meta: META, snapshot: null });
  const trigger = (seq: number) => JSON.stringify({ op: "trigger", seq, enqueued_at: "", payload: seq });

  it("name the file and the line", () => {
    expect(errorOf(() => parseJournal(`${checkpoint}\n{oops\n${trigger(1)}\n`, path))).toBe(
      "Runtime error: daemon journal parse error: /r/daemon.journal: line 2: key must be a string at line 1 column 2",
    );
    expect(errorOf(() => parseJournal(`${trigger(1)}\n`, path))).toBe("Runtime error: daemon journal parse error: /r/daemon.journal: line 1: the first line must be a checkpoint");
    expect(errorOf(() => parseJournal(`${checkpoint}\n${trigger(2)}\n${trigger(2)}\n`, path))).toBe(
      "Runtime error: daemon journal parse error: /r/daemon.journal: line 3: trigger has duplicate sequence number 2 (after 2)",
    );
    expect(errorOf(() => parseJournal(`${checkpoint}\n{"op":"trigger","seq":1}\n`, path))).toBe(
      "Runtime error: daemon journal parse error: /r/daemon.journal: line 2: trigger (seq 1) has no `payload`",
    );
    expect(errorOf(() => parseJournal(`${checkpoint}\n{"op":"idle","ack":null,"delta":{"splice":{"visible_messages":[5,[]]}}}\n`, path))).toBe(
      "Runtime error: daemon journal parse error: /r/daemon.journal: line 2: `splice.visible_messages` does not fit the 0 entries before it",
    );
  });

  it("a resume of a damaged journal fails naming it and leaves the root as it was", async () => {
    const root = fresh();
    writeFileSync(join(root, "daemon.meta.json"), JSON.stringify(META));
    writeFileSync(join(root, JOURNAL_FILE), `${checkpoint}\n${trigger(3)}\n${trigger(1)}\n`);
    const r = await runHarn(`pipeline main() { daemon_resume(${JSON.stringify(root)}) }`);
    expect(r.error).toBe(
      `Runtime error: daemon journal parse error: ${join(root, JOURNAL_FILE)}: line 3: trigger has out-of-order sequence number 1 (after 3) (line 1)`,
    );
    expect(readFileSync(join(root, JOURNAL_FILE), "utf8")).toBe(`${checkpoint}\n${trigger(3)}\n${trigger(1)}\n`);
    expect(existsSync(join(root, "daemon.lock"))).toBe(false);
  });
});
