/**
 * What a daemon's owner sees across its life (issue 25): spawn never drops
 * a queue, resume finds declared tools by name, a stopped daemon says why,
 * waiting without polling, exact payloads, inspecting a root, and the
 * errors of a damaged queue. Real Harn programs on real state folders.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lines, runHarn } from "../agent/harness";

const made: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), "harn-daemon-life-"));
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
const q = (s: string) => JSON.stringify(s);

/** A stopped daemon at `root` with `n` events still queued. */
async function leaveQueued(root: string, n: number): Promise<void> {
  await lines(`
pipeline main() {
  llm_mock({match: "*first*", text: "", delay_ms: 60000})
  llm_mock({match: "*", text: "idle"})
  let d = daemon_spawn({task: "t", provider: "mock", persist_path: ${q(root)}, name: "keeper"})
  daemon_trigger(d, "first")
  for i in 2 to ${n} { daemon_trigger(d, {i: i}) }
  daemon_stop(d)
}
`);
}

describe("daemon_spawn never silently discards a queue", () => {
  it("refuses a root whose daemon has queued events, naming the root, the count and daemon_resume", async () => {
    const root = fresh();
    await leaveQueued(root, 3);
    const before = readFileSync(join(root, "daemon.meta.json"), "utf8");
    const out = await lines(`
pipeline main() {
  let r = try { daemon_spawn({task: "new", provider: "mock", persist_path: ${q(root)}}) }
  println(unwrap_err(r))
}
`);
    expect(out).toEqual([
      `Runtime error: daemon_spawn: '${root}' holds daemon 'keeper' with 3 pending events; resume it with daemon_resume(${q(root)}), or pass on_existing: "resume" (keep them) or "replace" (discard them)`,
    ]);
    // untouched, and not locked
    expect(readFileSync(join(root, "daemon.meta.json"), "utf8")).toBe(before);
    expect(existsSync(join(root, "daemon.lock"))).toBe(false);
  });

  it('on_existing: "resume" keeps and handles them; "replace" discards them', async () => {
    const kept = fresh();
    await leaveQueued(kept, 2);
    const out = await lines(`
pipeline main() {
  llm_mock({match: "*", text: "idle"})
  let d = daemon_spawn({task: "new", provider: "mock", persist_path: ${q(kept)}, on_existing: "resume"})
  println(d.name)
  daemon_wait(d)
  let users = daemon_snapshot(d).visible_messages.filter({ m -> m.role == "user" }).map({ m -> m.content })
  println(json_stringify(users))
  daemon_stop(d)
}
`);
    expect(out).toEqual(["keeper", '["t","first","{\\"i\\":2}"]']);

    const replaced = fresh();
    await leaveQueued(replaced, 2);
    const out2 = await lines(`
pipeline main() {
  llm_mock({match: "*", text: "idle"})
  let d = daemon_spawn({task: "new", provider: "mock", persist_path: ${q(replaced)}, on_existing: "replace", name: "fresh"})
  println(d.name + " " + to_string(d.queued_event_count))
  daemon_stop(d)
}
`);
    expect(out2).toEqual(["fresh 0"]);
    expect(JSON.parse(readFileSync(join(replaced, "daemon.meta.json"), "utf8")).pending_events).toEqual([]);
  });

  it("spawns over a root whose daemon has nothing queued, and rejects an unknown on_existing", async () => {
    const root = fresh();
    await lines(`pipeline main() { daemon_stop(daemon_spawn({task: "t", provider: "mock", persist_path: ${q(root)}})) }`);
    const out = await lines(`
pipeline main() {
  let d = daemon_spawn({task: "again", provider: "mock", persist_path: ${q(root)}})
  println(d.status)
  daemon_stop(d)
  println(unwrap_err(try { daemon_spawn({task: "x", provider: "mock", persist_path: ${q(root)}, on_existing: "merge"}) }))
}
`);
    expect(out).toEqual(["running", 'Runtime error: daemon_spawn: `on_existing` must be "resume" or "replace"']);
  });
});

describe("daemon_resume(path) as the spec writes it", () => {
  const SPAWN = (root: string) => `
tool record(n: int) -> string {
  description "Record event n"
  println("spawned handler " + to_string(n))
  return "ok"
}
pipeline main() {
  llm_mock({match: "*", text: "idle"})
  let d = daemon_spawn({task: "t", provider: "mock", tools: record, persist_path: ${q(root)}, name: "rec"})
  daemon_stop(d)
}
`;

  it("finds a tool declared by name in the resuming script, without {tools: …}", async () => {
    const root = fresh();
    await lines(SPAWN(root));
    const out = await lines(`
tool record(n: int) -> string {
  description "Record event n"
  println("resumed handler " + to_string(n))
  return "ok"
}
pipeline main() {
  llm_mock({match: "*\\"n\\":7}", tool_calls: [{name: "record", arguments: {n: 7}}]})
  llm_mock({match: "*", text: "idle"})
  let d = daemon_resume(${q(root)})
  daemon_trigger(d, {n: 7})
  daemon_wait(d)
  println(daemon_stop(d).status)
}
`);
    expect(out).toEqual(["resumed handler 7", "stopped"]);
  });

  it("throws when a tool cannot be found, naming it and saying to pass {tools: …}", async () => {
    const root = fresh();
    await lines(SPAWN(root));
    const r = await runHarn(`pipeline main() { daemon_resume(${q(root)}) }`);
    expect(r.error).toBe(
      "Runtime error: daemon_resume: daemon 'rec' uses tool 'record', which this script does not declare; declare it (tool record(…) { … }) or pass it: daemon_resume(path, {tools: …}) (line 1)",
    );
    expect(existsSync(join(root, "daemon.lock"))).toBe(false);
    expect(existsSync(join(root, "daemon.journal"))).toBe(false);
  });

  it("says to pass the folder when given daemon.json", async () => {
    const root = fresh();
    await lines(SPAWN(root));
    const r = await runHarn(`pipeline main() { daemon_resume(${q(join(root, "daemon.json"))}) }`);
    expect(r.error).toBe(
      `Runtime error: daemon_resume: \`path\` is the daemon's folder (the persist_path given to daemon_spawn), not a file in it: pass '${root}', not 'daemon.json' (line 1)`,
    );
  });
});

describe("a stopped daemon says why", () => {
  it("budget: stop_reason in the handle, the snapshot and the trigger error; iterations used and left; one stderr line", async () => {
    const root = fresh();
    const r = await runHarn(`
pipeline main() {
  llm_mock({match: "*", text: "idle"})
  let d = daemon_spawn({task: "t", provider: "mock", persist_path: ${q(root)}, max_iterations: 2, name: "small"})
  let s0 = daemon_snapshot(d)
  println(to_string(s0.total_iterations) + " used, " + to_string(s0.iterations_left) + " left of " + to_string(s0.max_iterations))
  daemon_trigger(d, "a")
  daemon_trigger(d, "b")
  daemon_wait(d)
  let s = daemon_snapshot(d)
  println(s.stop_reason + " " + to_string(s.total_iterations) + " " + to_string(s.iterations_left))
  let h = daemon_stop(d)
  println(h.status + " " + h.stop_reason)
  println(unwrap_err(try { daemon_trigger(d, "c") }))
}
`);
    expect(r.error).toBeNull();
    const out = r.stdout.trim().split("\n");
    expect(out[0]).toBe("1 used, 1 left of 2");
    // "a" took the last turn; "b" woke a daemon with no turn left
    expect(out[1]).toBe("budget_exhausted 2 0");
    expect(out[2]).toBe("stopped budget_exhausted");
    expect(out[3]).toMatch(/^Runtime error: daemon_trigger: daemon daemon_[0-9a-f-]+ is not running \(stop_reason: budget_exhausted\)$/);
    expect(r.stderr.split("\n").filter((l) => l.startsWith("daemon "))).toEqual([
      `daemon 'small' stopped: its max_iterations (2 model turns, counted over the daemon's life) are used up; to go on, resume it with a higher limit: daemon_resume(${q(root)}, {max_iterations: 4})`,
    ]);
    // on disk too, and a resume with a higher limit goes on
    expect(JSON.parse(readFileSync(join(root, "daemon.json"), "utf8")).stop_reason).toBe("budget_exhausted");
    const again = await lines(`
pipeline main() {
  llm_mock({match: "*", text: "idle"})
  let d = daemon_resume(${q(root)}, {max_iterations: 6})
  daemon_trigger(d, "c")
  daemon_wait(d)
  let s = daemon_snapshot(d)
  println(to_string(s.total_iterations) + " " + to_string(s.iterations_left) + " " + d.status + " " + to_string(s.stop_reason))
  daemon_stop(d)
}
`);
    // "b" is replayed, then "c"
    expect(again).toEqual(["4 2 running nil"]);
  });

  it("the idle watchdog and a model failure", async () => {
    const out = await lines(`
pipeline main() {
  llm_mock({match: "*", text: "idle"})
  let w = daemon_spawn({task: "t", provider: "mock", persist_path: ${q(fresh())}, idle_watchdog_attempts: 0})
  while daemon_snapshot(w).stop_reason == nil { sleep(10) }
  println(daemon_snapshot(w).stop_reason)
  println(unwrap_err(try { daemon_trigger(w, "x") }).split("(")[1])
  llm_mock_clear()
  llm_mock({error: {category: "auth", message: "bad key"}})
  let f = daemon_spawn({task: "t", provider: "mock", persist_path: ${q(fresh())}})
  println(f.status + " | " + f.stop_reason)
}
`);
    expect(out).toEqual(["watchdog", "stop_reason: watchdog)", "failed | error: Error [auth]: bad key"]);
  });
});

describe("daemon_wait", () => {
  it("returns once every event is handled (drained), or when its timeout passes", async () => {
    const out = await lines(`
pipeline main() {
  llm_mock({match: "*slow*", text: "done", delay_ms: 200})
  llm_mock({match: "*", text: "idle"})
  let d = daemon_spawn({task: "t", provider: "mock", persist_path: ${q(fresh())}})
  daemon_trigger(d, "slow")
  daemon_trigger(d, "second")
  let early = daemon_wait(d, {until: "drained", timeout_ms: 20})
  println(to_string(early.timed_out) + " " + to_string(early.queued_event_count > 0))
  let w = daemon_wait(d, {until: "drained"})
  println(to_string(w.timed_out) + " " + to_string(w.queued_event_count))
  println(len(daemon_snapshot(d).visible_messages))
  println(daemon_wait(d, {until: "idle", timeout_ms: 10s}).timed_out)
  daemon_stop(d)
  println(daemon_wait(d).status)
  println(unwrap_err(try { daemon_wait(d, {until: "soon"}) }))
}
`);
    expect(out).toEqual(["true true", "false 0", "6", "false", "stopped", 'Runtime error: daemon_wait: `until` must be "idle", "drained" or "stopped"']);
  });
});

describe("payloads are exact", () => {
  it("a 64-bit int is stored and delivered unchanged; a function is an error", async () => {
    const root = fresh();
    const out = await lines(`
pipeline main() {
  llm_mock({match: "*first*", text: "", delay_ms: 60000})
  llm_mock({match: "*", text: "idle"})
  let d = daemon_spawn({task: "t", provider: "mock", persist_path: ${q(root)}})
  daemon_trigger(d, "first")
  daemon_trigger(d, {big: 9007199254740993, min: -9223372036854775807 - 1, list: [9223372036854775807]})
  println(daemon_snapshot(d).pending_events[0].payload.big)
  println(daemon_snapshot(${q(root)}).pending_events[1].payload.big)
  println(unwrap_err(try { daemon_trigger(d, {job: 1, cb: { x -> x }}) }))
  daemon_stop(d)
}
`);
    expect(out).toEqual([
      "9007199254740993",
      "9007199254740993",
      "Runtime error: daemon_trigger: the event payload must be data, but payload.cb is a closure; pass its result or a name instead",
    ]);
    const meta = readFileSync(join(root, "daemon.meta.json"), "utf8");
    expect(meta).toContain('"big": 9007199254740993');
    expect(meta).toContain('"min": -9223372036854775808');
    // and the loop receives the exact digits
    const got = await lines(`
pipeline main() {
  llm_mock({match: "*", text: "idle"})
  let d = daemon_resume(${q(root)})
  daemon_wait(d)
  println(daemon_snapshot(d).visible_messages.filter({ m -> m.role == "user" }).map({ m -> m.content })[2])
  daemon_stop(d)
}
`);
    expect(got).toEqual(['{"big":9007199254740993,"list":[9223372036854775807],"min":-9223372036854775808}']);
  });
});

describe("inspecting a root, and damaged queues", () => {
  it("daemon_snapshot(path) reads a stopped daemon's root without resuming it", async () => {
    const root = fresh();
    await leaveQueued(root, 2);
    const out = await lines(`
pipeline main() {
  let s = daemon_snapshot(${q(root)})
  println(to_string(s.queued_event_count) + " " + json_stringify(s.pending_events.map({ e -> e.seq })) + " " + s.daemon_state)
}
`);
    expect(out).toEqual(["2 [1,2] idle"]);
    expect(existsSync(join(root, "daemon.lock"))).toBe(false);
  });

  const META = (pending: unknown[]) => JSON.stringify({ _type: "daemon_meta", id: "daemon_x", prompt: "t", options: { provider: "mock" }, pending_events: pending });
  it.each([
    ["a missing payload", [{ seq: 1, enqueued_at: "" }], "`pending_events[0]` (seq 1) has no `payload`"],
    ["a duplicate sequence number", [{ seq: 1, payload: 1 }, { seq: 1, payload: 2 }], "`pending_events[1]` has duplicate sequence number 1 (after 1)"],
    ["an out-of-order sequence number", [{ seq: 3, payload: 1 }, { seq: 2, payload: 2 }], "`pending_events[1]` has out-of-order sequence number 2 (after 3)"],
  ])("rejects %s, naming the file", async (_what, pending, detail) => {
    const root = fresh();
    writeFileSync(join(root, "daemon.meta.json"), META(pending));
    const r = await runHarn(`pipeline main() { daemon_resume(${q(root)}) }`);
    expect(r.error).toBe(`Runtime error: daemon meta parse error: ${join(root, "daemon.meta.json")}: ${detail} (line 1)`);
  });

  it("the queue-full error caught as a dict carries kind daemon_queue_full", async () => {
    const out = await lines(`
pipeline main() {
  llm_mock({match: "*first*", text: "", delay_ms: 60000})
  llm_mock({match: "*", text: "idle"})
  let d = daemon_spawn({task: "t", provider: "mock", persist_path: ${q(fresh())}, event_queue_capacity: 1})
  daemon_trigger(d, "first")
  let e = try { daemon_trigger(d, "second") } catch (e: dict) { e }
  println(e.kind + " " + to_string(e.capacity) + " " + to_string(e.daemon_id == d.id))
  println(e.message == unwrap_err(try { daemon_trigger(d, "third") }))
  daemon_stop(d)
}
`);
    expect(out).toEqual(["daemon_queue_full 1 true", "true"]);
  });
});
