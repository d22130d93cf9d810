import { describe, expect, it } from "vitest";
import { HDict, Runtime } from "@harn/vm";
import { BackgroundPool } from "../../src/agent/background/pool";
import { longRunState } from "../../src/longrun/index";
import { lines, runHarn } from "./harness";

describe("session ownership (agents.md §1.2)", () => {
  it("handles started inside a tool handler, and by tasks it spawns, belong to the loop's session", async () => {
    const out = await lines(`
let seen = channel("seen", 10)
tool start(dir: string) {
  description "Start work"
  let a = walk_dir(dir, {long_running: true})
  let t = spawn { walk_dir(dir, {long_running: true}) }
  let b = await(t)
  send(seen, agent_session_current_id())
  return "started"
}
pipeline main() {
  llm_mock({text: "", tool_calls: [{name: "start", arguments: {dir: temp_dir()}}]})
  llm_mock({text: "ok"})
  agent_loop("go", nil, {provider: "mock", tools: start, session_id: "owner-test"})
  println(receive(seen))
  println(agent_session_current_id())
}
`);
    expect(out).toEqual(["owner-test", "nil"]);
  });

  it("records the owner session on each handle", async () => {
    const owners: string[] = [];
    await runHarn(
      `
tool start(dir: string) {
  description "Start work"
  return host_tool_call("run_command", {argv: ["sleep", "30"], background: true})
}
pipeline main() {
  let root = host_tool_call("run_command", {argv: ["sleep", "30"], background: true})
  llm_mock({text: "", tool_calls: [{name: "start", arguments: {dir: "."}}]})
  llm_mock({text: "", tool_calls: [{name: "probe", arguments: {}}]})
  llm_mock({text: "ok"})
  let reg = tool_define(start, "probe", "Probe", {parameters: {}, handler: { a -> __probe() }})
  agent_loop("go", nil, {provider: "mock", tools: reg, session_id: "s-own"})
  cancel_handle(root)
}
`,
      {
        setup: (rt) =>
          rt.defineBuiltin("__probe", (_args, ctx) => {
            for (const r of longRunState(ctx.runtime).running()) owners.push(r.sessionId);
            return null;
          }),
      },
    );
    expect(owners.sort()).toEqual(["", "s-own"]);
  });
});

describe("feedback delivery and session end", () => {
  it("a named session drains its items; items that arrive after its loop wait for the next one", async () => {
    const out = await lines(`
pipeline main() {
  agent_inject_feedback("keep", "note", "for the named session")
  let r = agent_loop("hi", nil, {provider: "mock", session_id: "keep"})
  println(contains(json_stringify(llm_mock_calls()[0].messages), "for the named session"))
  // injected after its loop ended: stays queued for the next loop of "keep"
  agent_inject_feedback("keep", "note", "later")
  println(len(pending_feedback_drain("keep")))
}
`);
    expect(out).toEqual(["true", "1"]);
  });

  it("root-scope items are adopted by the first loop that runs a preflight", async () => {
    const out = await lines(`
pipeline main() {
  agent_inject_feedback("", "note", "from the root")
  agent_loop("hi", nil, {provider: "mock"})
  println(contains(json_stringify(llm_mock_calls()[0].messages), "from the root"))
  println(len(pending_feedback_drain("")))
}
`);
    expect(out).toEqual(["true", "0"]);
  });

  it("a loop cancelled from outside cleans up its handles and rethrows the cancellation", async () => {
    const r = await runHarn(`
let started = channel("started", 1)
tool start() {
  description "Start a command, then wait forever"
  let h = host_tool_call("run_command", {argv: ["sleep", "30"], background: true})
  send(started, h.handle_id)
  sleep(60s)
  return "never"
}
pipeline main() {
  llm_mock({text: "", tool_calls: [{name: "start", arguments: {}}]})
  let t = spawn { agent_loop("go", nil, {provider: "mock", tools: start}) }
  let id = receive(started)
  cancel(t)
  sleep(20ms)
  println(handle_status(id))
}
`);
    expect(r.error).toBeNull();
    expect(r.stdout).toBe("cancelled\n");
  });
});

describe("long-running calls linked to handles", () => {
  it("feedback items naming a pending call's handle update that call's response", async () => {
    const out = await lines(`
tool deploy(env: string) {
  description "Deploy"
  long_running true
  return {handle_id: "ext-" + env, status: "pending"}
}
pipeline main() {
  let reg = tool_define(deploy, "report", "Report progress", {parameters: {status: "string"}, handler: { a ->
    agent_inject_feedback(agent_session_current_id(), "tool_result", json_stringify({handle_id: "ext-eu", status: a.status, note: "from report"}))
    "reported"
  }})
  llm_mock({text: "", tool_calls: [{name: "deploy", arguments: {env: "eu"}}]})
  llm_mock({text: "", tool_calls: [{name: "report", arguments: {status: "running"}}]})
  llm_mock({text: "", tool_calls: [{name: "report", arguments: {status: "completed"}}]})
  llm_mock({text: "all done"})
  let r = agent_loop("deploy", nil, {provider: "mock", tools: reg, tool_format: "native"})
  let calls = llm_mock_calls()
  // turn 3 sees the progress where the initial response was, and no extra message
  println(calls[2].messages[2].content)
  println(len(calls[2].messages))
  println(calls[3].messages[2].content)
  println(r.status)
}
`);
    expect(out).toEqual([
      '{"handle_id":"ext-eu","note":"from report","status":"running"}',
      "5",
      '{"handle_id":"ext-eu","note":"from report","status":"completed"}',
      "done",
    ]);
  });
});

describe("background pool", () => {
  function pool(limit: number): { pool: BackgroundPool; stderr: string[] } {
    const stderr: string[] = [];
    const rt = new Runtime({ stdout: { write() {} }, stderr: { write: (t) => void stderr.push(t) }, cwd: "/", env: {} });
    const p = new BackgroundPool(rt);
    p.limit = limit;
    return { pool: p, stderr };
  }

  it("runs at most `limit` tasks at once; the rest start in FIFO order", async () => {
    const { pool: p, stderr } = pool(2);
    const started: string[] = [];
    const finish = new Map<string, (text: string) => void>();
    const ids = ["a", "b", "c", "d"].map(
      (name) =>
        p.submit(name, "", false, () => {
          started.push(name);
          return new Promise<string>((resolve) => finish.set(name, resolve));
        }).id,
    );
    expect(started).toEqual(["a", "b"]);
    // not started yet: queued, not running
    expect(p.check(ids[2]!)).toEqual(HDict.of({ status: "queued" }));
    expect(p.list().map((d) => d.get("status"))).toEqual(["running", "running", "queued", "queued"]);
    expect(ids.every((id) => /^[0-9a-f]{8}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(4);
    finish.get("b")!("B");
    await p.tasks.get(ids[1]!)!.done;
    expect(started).toEqual(["a", "b", "c"]);
    finish.get("a")!("A");
    await p.tasks.get(ids[0]!)!.done;
    expect(started).toEqual(["a", "b", "c", "d"]);
    expect(p.check(ids[0]!)).toEqual(HDict.of({ status: "done", result: "A" }));
    expect(p.check(ids[2]!)).toEqual(HDict.of({ status: "running" }));
    expect(stderr).toEqual([`Background task [${ids[1]}] done\n`, `Background task [${ids[0]}] done\n`]);
  });

  it("reports failures and cancels queued tasks without starting them", async () => {
    const { pool: p } = pool(1);
    let stop!: () => void;
    const first = p.submit("x", "", false, (_t, onCancel) => {
      return new Promise<string>((_resolve, reject) => {
        onCancel((stop = () => reject(new Error("stopped"))));
      });
    });
    let ran = false;
    const queued = p.submit("y", "", false, async () => {
      ran = true;
      return "y";
    });
    queued.cancel();
    await queued.done;
    // the queued task never held a slot: cancelling it frees none, so the
    // next task still waits for the first one
    let starts = 0;
    const later = p.submit("z", "", false, () => (starts++, new Promise<string>(() => {})));
    expect([starts, p.check(later.id).get("status")]).toEqual([0, "queued"]);
    first.cancel();
    await first.done;
    expect([starts, p.check(later.id).get("status")]).toEqual([1, "running"]);
    expect(ran).toBe(false);
    // one wording, whether the task had started or not
    expect(p.check(first.id)).toEqual(HDict.of({ status: "error", error: "cancelled" }));
    expect(p.check(queued.id)).toEqual(HDict.of({ status: "error", error: "cancelled" }));
    expect(p.check("nope")).toEqual(HDict.of({ status: "not_found", error: "No task with id 'nope'" }));
    void stop;
  });
});

describe("token sums (agents.md §2.10 [TS decision])", () => {
  it("a turn's schema re-prompts count toward the loop's own token sums", async () => {
    const out = await lines(`
pipeline main() {
  let schema = {type: "object", properties: {n: {type: "integer"}}, required: ["n"]}
  llm_mock({text: "{}", input_tokens: 5, output_tokens: 7})
  llm_mock({text: "{\\"n\\": 2}", input_tokens: 11, output_tokens: 13})
  let v = agent_loop("count", nil, {provider: "mock", output_schema: schema, output_validation: "error", schema_retries: 1})
  println([v.llm.input_tokens, v.llm.output_tokens, v.llm.iterations])
}
`);
    expect(out).toEqual(["[16, 20, 1]"]);
  });
});

describe("llm_mock_calls after an agent loop", () => {
  it("each call shows the messages of its own request, not those of later turns", async () => {
    // The loop's requests share one growing array (RequestBuilder): the log
    // must read each call's own prefix of it.
    const out = await lines(`
tool ping(n: int) {
  description "Ping"
  return "pong " + to_string(n)
}
pipeline main() {
  llm_mock({text: "", tool_calls: [{name: "ping", arguments: {n: 1}}]})
  llm_mock({text: "", tool_calls: [{name: "ping", arguments: {n: 2}}]})
  llm_mock({text: "done"})
  let r = agent_loop("go", nil, {provider: "mock", tools: ping, tool_format: "native"})
  println(llm_mock_calls().map({ c -> len(c.messages) }))
  println(r.status)
}
`);
    expect(out).toEqual(["[1, 3, 5]", "done"]);
  });
});
