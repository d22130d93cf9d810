/**
 * Daemons in process (agents.md §4): real Harn programs against a fresh
 * Runtime and real state directories.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lines, runHarn } from "../agent/harness";

const made: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), "harn-daemon-"));
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
const q = (s: string) => JSON.stringify(s);

describe("delivery at idle boundaries (§4.5)", () => {
  it("while event n is handled, the snapshot on disk is from after event n-1 and before event n", async () => {
    const root = fresh();
    const out = await lines(`
tool record(n: int) -> string {
  description "Look at the snapshot on disk while handling event n"
  let snap = daemon_snapshot(${q(root)})
  let texts = snap.visible_messages.map({ m -> to_string(m.content) })
  let has_n = len(texts.filter({ t -> t == "{\\"n\\":" + to_string(n) + "}" })) > 0
  let prev_done = n == 1 || len(texts.filter({ t -> t == "{\\"n\\":" + to_string(n - 1) + "}" })) > 0
  println(to_string(n) + " " + snap.daemon_state + " " + to_string(has_n) + " " + to_string(prev_done))
  return "ok"
}
pipeline main() {
  for n in 1 to 4 {
    llm_mock({match: "*\\"n\\":" + to_string(n) + "}", tool_calls: [{name: "record", arguments: {n: n}}]})
  }
  llm_mock({match: "*", text: "idle"})
  let d = daemon_spawn({task: "Record", provider: "mock", tools: record, persist_path: ${q(root)}})
  for n in 1 to 4 { daemon_trigger(d, {n: n}) }
  while daemon_snapshot(d).queued_event_count > 0 { sleep(5) }
  daemon_stop(d)
}
`);
    expect(out).toEqual(["1 idle false true", "2 idle false true", "3 idle false true", "4 idle false true"]);
  });

  it("events are delivered one per wake in FIFO order, string payloads as they are", async () => {
    const out = await lines(`
pipeline main() {
  llm_mock({match: "*first*", text: "slow", delay_ms: 300})
  llm_mock({match: "*", text: "idle"})
  let d = daemon_spawn({task: "t", provider: "mock", persist_path: ${q(fresh())}})
  daemon_trigger(d, "first")
  daemon_trigger(d, {b: 2, a: 1})
  let s = daemon_trigger(d, "third")
  println(to_string(s.pending_event_count) + " " + to_string(s.queued_event_count) + " " + to_string(s.inflight_event.seq))
  println(json_stringify(daemon_snapshot(d).pending_events.map({ e -> e.seq })))
  while daemon_snapshot(d).queued_event_count > 0 { sleep(5) }
  let msgs = daemon_snapshot(d).visible_messages.filter({ m -> m.role == "user" }).map({ m -> m.content })
  println(json_stringify(msgs))
  println(len(llm_mock_calls()))
  daemon_stop(d)
}
`);
    expect(out).toEqual(["2 3 1", "[2,3]", '["t","first","{\\"a\\":1,\\"b\\":2}","third"]', "4"]);
  });
});

describe("wake sources (§4.1)", () => {
  it("a feedback item for the daemon's session wakes it [extension]", async () => {
    const out = await lines(`
pipeline main() {
  llm_mock({match: "*", text: "idle"})
  let d = daemon_spawn({task: "t", provider: "mock", persist_path: ${q(fresh())}, session_id: "d-sess"})
  agent_inject_feedback("d-sess", "note", "the build finished")
  while daemon_snapshot(d).total_iterations < 2 { sleep(5) }
  let last = llm_mock_calls()[1].messages
  println(last[len(last) - 1].content)
  daemon_stop(d)
}
`);
    expect(out).toEqual(['<runtime_feedback kind="note">', "the build finished", "</runtime_feedback>"]);
  });

  it("a watched file's change wakes the loop with the watch message; creation does not", async () => {
    const dir = fresh();
    const f = join(dir, "watched.txt");
    const g = join(dir, "created-later.txt");
    const snap = join(dir, "snap.json");
    writeFileSync(f, "v1");
    const out = await lines(`
pipeline main() {
  // once the loop is idle (its first snapshot is on disk)
  spawn {
    while !file_exists(${q(snap)}) { sleep(5) }
    write_file(${q(g)}, "new")
    write_file(${q(f)}, "v2")
  }
  let r = agent_loop("watch", nil, {provider: "mock", daemon: true, watch_paths: [${q(f)}, ${q(g)}],
                                    idle_watchdog_attempts: 2, max_iterations: 5, persist_path: ${q(snap)}})
  println(r.status + " " + to_string(r.llm.iterations))
  let fb = r.transcript.messages.filter({ m -> m.role == "user" && contains(m.content, "runtime_feedback") })
  for m in fb { println(m.content) }
}
`);
    expect(out).toEqual([
      "watchdog 2",
      '<runtime_feedback kind="watch">',
      `Daemon wake: watched paths changed: ${f}. Re-check the task state and act only if something actually changed.`,
      "</runtime_feedback>",
    ]);
  });

  it("[extension] a watched folder wakes the loop when a file deep inside it changes", async () => {
    const dir = fresh();
    const tree = join(dir, "tree");
    mkdirSync(join(tree, "a", "b"), { recursive: true });
    const deep = join(tree, "a", "b", "deep.txt");
    writeFileSync(deep, "v1");
    const snap = join(dir, "snap.json");
    const out = await lines(`
pipeline main() {
  spawn {
    while !file_exists(${q(snap)}) { sleep(5) }
    sleep(20)
    // same size, no entry added or removed: only the file's mtime moves
    write_file(${q(deep)}, "v2")
  }
  let r = agent_loop("watch", nil, {provider: "mock", daemon: true, watch_paths: ${q(tree)},
                                    idle_watchdog_attempts: 2, max_iterations: 5, persist_path: ${q(snap)}})
  println(r.status + " " + to_string(r.llm.iterations))
  let fb = r.transcript.messages.filter({ m -> m.role == "user" && contains(m.content, "runtime_feedback") })
  for m in fb { println(m.content) }
}
`);
    expect(out).toEqual([
      "watchdog 2",
      '<runtime_feedback kind="watch">',
      `Daemon wake: watched paths changed: ${tree}. Re-check the task state and act only if something actually changed.`,
      "</runtime_feedback>",
    ]);
  });

  it("without a wake source the loop stops idle after its first text turn", async () => {
    const out = await lines(`
pipeline main() {
  let r = agent_loop("hello", nil, {provider: "mock", daemon: true})
  println(r.status + " " + r.daemon_state + " " + to_string(r.llm.iterations) + " " + to_string(r.daemon_snapshot_path))
  let p = agent_loop("hello", nil, {provider: "mock", daemon: true, persistent: true, max_nudges: 0})
  println(p.status)
}
`);
    expect(out).toEqual(["idle idle 1 nil", "stuck"]);
  });

  it("resume_path restores messages, texts and the iteration count", async () => {
    const snap = join(fresh(), "s", "loop.json");
    const out = await lines(`
pipeline main() {
  let a = agent_loop("first", nil, {provider: "mock", daemon: true, persist_path: ${q(snap)}})
  let b = agent_loop("ignored", nil, {provider: "mock", daemon: true, resume_path: ${q(snap)}})
  println(to_string(a.llm.iterations) + " " + to_string(b.llm.iterations))
  println(json_stringify(b.transcript.messages.map({ m -> m.role })))
  println(b.text == a.text + b.visible_text)
  println(b.daemon_snapshot_path == ${q(snap)})
}
`);
    expect(out).toEqual(["1 2", '["user","assistant","assistant"]', "true", "true"]);
  });
});

describe("stop, resume and the end of the script", () => {
  it("the script ending with a daemon mid-turn re-queues its event and releases the root", async () => {
    const root = fresh();
    await lines(`
pipeline main() {
  llm_mock({match: "*slow*", text: "never", delay_ms: 60000})
  llm_mock({match: "*", text: "idle"})
  let d = daemon_spawn({task: "t", provider: "mock", persist_path: ${q(root)}})
  daemon_trigger(d, "slow")
  daemon_trigger(d, "second")
}
`);
    const meta = JSON.parse(readFileSync(join(root, "daemon.meta.json"), "utf8"));
    expect(meta.inflight_event).toBeNull();
    expect(meta.pending_events.map((e: { payload: string }) => e.payload)).toEqual(["slow", "second"]);
    expect(existsSync(join(root, "daemon.lock"))).toBe(false);
    const out = await lines(`
pipeline main() {
  llm_mock({match: "*", text: "handled"})
  let d = daemon_resume(${q(root)})
  while daemon_snapshot(d).queued_event_count > 0 { sleep(5) }
  let users = daemon_snapshot(d).visible_messages.filter({ m -> m.role == "user" }).map({ m -> m.content })
  println(json_stringify(users))
  println(daemon_stop(d).status)
}
`);
    expect(out).toEqual(['["t","slow","second"]', "stopped"]);
  });

  it("a loop that ends on its budget right after a wake keeps the unhandled event for the next resume", async () => {
    const out = await lines(`
pipeline main() {
  let root = ${q(fresh())}
  llm_mock({match: "*", text: "idle"})
  let d = daemon_spawn({task: "t", provider: "mock", persist_path: root, max_iterations: 1})
  daemon_trigger(d, "wake")
  while daemon_snapshot(d).daemon_state != "budget_exhausted" { sleep(5) }
  let s = daemon_stop(d)
  println(s.status + " " + s.result.status + " " + to_string(s.queued_event_count))
  // resumed at once: the root is free again, and the event is handled now
  let r = daemon_resume(root, {max_iterations: 10})
  while daemon_snapshot(r).queued_event_count > 0 { sleep(5) }
  let users = daemon_snapshot(r).visible_messages.filter({ m -> m.role == "user" }).map({ m -> m.content })
  println(json_stringify(users))
  daemon_stop(r)
}
`);
    expect(out).toEqual(["stopped budget_exhausted 1", '["t","wake"]']);
  });

  it("daemon_stop is idempotent, and a stopped daemon refuses triggers", async () => {
    const r = await runHarn(`
pipeline main() {
  llm_mock({match: "*", text: "idle"})
  let d = daemon_spawn({task: "t", provider: "mock", persist_path: ${q(fresh())}})
  let a = daemon_stop(d)
  let b = daemon_stop(d.id)
  println(a == b)
  daemon_trigger(d, 1)
}
`);
    expect(r.stdout).toBe("true\n");
    expect(r.error).toMatch(/^Runtime error: daemon_trigger: daemon daemon_[0-9a-f-]+ is not running/);
  });

  it("a second runtime in the same process cannot take a running daemon's root", async () => {
    const root = fresh();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const first = runHarn(
      `
pipeline main() {
  llm_mock({match: "*", text: "idle"})
  let d = daemon_spawn({task: "t", provider: "mock", persist_path: ${q(root)}})
  __held()
  daemon_stop(d)
}
`,
      { setup: (rt) => rt.defineBuiltin("__held", () => held.then(() => null)) },
    );
    while (!existsSync(join(root, "daemon.journal"))) await new Promise((r) => setTimeout(r, 5));
    const second = await runHarn(`
pipeline main() { daemon_resume(${q(root)}) }
`);
    expect(second.error).toBe(`Runtime error: daemon_resume: daemon '${root}' is already running (locked by process ${process.pid}) (line 2)`);
    release();
    expect((await first).error).toBeNull();
  });

  it("a loop that fails reports status failed with the error", async () => {
    const r = await lines(`
pipeline main() {
  llm_mock({error: {category: "auth", message: "bad key"}})
  let d = daemon_spawn({task: "t", provider: "mock", persist_path: ${q(fresh())}})
  println(d.status + " | " + d.error)
}
`);
    expect(r).toEqual(["failed | Error [auth]: bad key"]);
  });
});

describe("state file errors (§6.4)", () => {
  async function resumeError(setup: (root: string) => void): Promise<string | null> {
    const root = fresh();
    setup(root);
    return (await runHarn(`pipeline main() { daemon_resume(${q(root)}) }`)).error;
  }
  const SNAP = JSON.stringify({ _type: "daemon_snapshot", daemon_state: "idle", visible_messages: [{ role: "user", content: "t" }] });
  const META = JSON.stringify({ _type: "daemon_meta", id: "daemon_x", prompt: "t", options: { provider: "mock" } });

  it("a missing root is the snapshot read error naming the path", async () => {
    const root = join(fresh(), "nope");
    const r = await runHarn(`pipeline main() { daemon_resume(${q(root)}) }`);
    expect(r.error).toBe(`Runtime error: daemon snapshot read error: ${join(root, "daemon.json")}: No such file or directory (os error 2) (line 1)`);
  });

  it("corrupt snapshot, corrupt metadata, metadata that is not a dict, missing metadata", async () => {
    expect(
      await resumeError((root) => {
        writeFileSync(join(root, "daemon.json"), "{ torn");
        writeFileSync(join(root, "daemon.meta.json"), META);
      }),
    ).toMatch(/^Runtime error: daemon snapshot parse error: \/.*\/daemon\.json: /);
    expect(
      await resumeError((root) => {
        writeFileSync(join(root, "daemon.json"), SNAP);
        writeFileSync(join(root, "daemon.meta.json"), '{"pending_events": [');
      }),
    ).toMatch(/^Runtime error: daemon meta parse error: \/.*daemon\.meta\.json: /);
    const notDict = await resumeError((root) => {
      writeFileSync(join(root, "daemon.json"), SNAP);
      writeFileSync(join(root, "daemon.meta.json"), "[1]");
    });
    expect(notDict).toMatch(/^Runtime error: daemon_resume: metadata at '\/.*\/daemon\.meta\.json' is not a dict/);
    expect(await resumeError((root) => writeFileSync(join(root, "daemon.json"), SNAP))).toMatch(
      /^Runtime error: daemon meta read error: \/.*\/daemon\.meta\.json: No such file or directory \(os error 2\)/,
    );
  });

  it("a failed resume leaves the files as they were and the root unlocked", async () => {
    const root = fresh();
    writeFileSync(join(root, "daemon.json"), "{ torn");
    writeFileSync(join(root, "daemon.meta.json"), META);
    await runHarn(`pipeline main() { daemon_resume(${q(root)}) }`);
    expect(readFileSync(join(root, "daemon.json"), "utf8")).toBe("{ torn");
    expect(readFileSync(join(root, "daemon.meta.json"), "utf8")).toBe(META);
    expect(existsSync(join(root, "daemon.lock"))).toBe(false);
  });

  it("a root whose spawn was cut short before the first snapshot resumes from its task", async () => {
    const root = fresh();
    writeFileSync(
      join(root, "daemon.meta.json"),
      JSON.stringify({ ...JSON.parse(META), next_event_seq: 2, pending_events: [{ seq: 1, enqueued_at: "", payload: "queued" }] }),
    );
    const out = await lines(`
pipeline main() {
  llm_mock({match: "*", text: "idle"})
  let d = daemon_resume(${q(root)})
  while daemon_snapshot(d).queued_event_count > 0 { sleep(5) }
  println(d.id)
  println(json_stringify(daemon_snapshot(d).visible_messages.map({ m -> m.content })))
  daemon_stop(d)
}
`);
    expect(out).toEqual(["daemon_x", '["t","queued","idle"]']);
  });
});
