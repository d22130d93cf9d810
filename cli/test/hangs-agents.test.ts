/**
 * Model servers and daemons that misbehave, through the built `harn`
 * (cli/bin/harn.cjs; the other LLM end-to-end tests use a one-file bundle
 * of the source, which is not what users run). A stream that stalls after
 * its headers ends with the `timeout` (agents.md §5.5), one that ends
 * without its terminator is a transient network error, retries stop at
 * their budget, and `daemon_stop` (§4.3) or the end of the script while a
 * trigger is being handled — by a tool running a command or by a model
 * call that never answers — ends promptly with nothing left running.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alive, buildCli, eventually, harn, interrupt, liveInGroup, workDir } from "./hang-harness";

let work: ReturnType<typeof workDir>;
let server: Server;
let base = "";
let requests = 0;
const open = new Set<ServerResponse>();

const chunk = (content: string) =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

/** An OpenAI-compatible server (the `local` provider); the first path
 * segment of the base URL picks the misbehaviour. */
function serve(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  req.on("end", () => {
    requests++;
    const mode = (req.url ?? "").split("/")[1];
    if (mode === "silent") {
      open.add(res);
      return;
    }
    if (mode === "overloaded") {
      res.writeHead(503, { "content-type": "application/json" });
      res.end('{"error":{"message":"overloaded"}}');
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(chunk("Half "));
    if (mode === "stall") open.add(res);
    else res.end(chunk("an answer")); // "unterminated": no finish_reason, no [DONE]
  });
}

beforeAll(async () => {
  buildCli();
  work = workDir("harn-hangs-agents-");
  server = createServer(serve);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  for (const res of open) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  work.dispose();
});

/** harn with the `local` provider pointed at `mode` of the test server. */
function harnAt(mode: string, source: string) {
  return harn(work.dir, source, undefined, { LOCAL_LLM_BASE_URL: `${base}/${mode}` });
}

const call = (options: string) => `pipeline main() {
  println(try { llm_call("hi", nil, {provider: "local", model: "m", ${options}}) })
}
`;

describe("a model server that misbehaves", () => {
  it("a stream that stalls after its headers ends with the timeout", async () => {
    // 2 s, not less: on a loaded machine a shorter timeout can expire before the headers arrive
    const run = harnAt("stall", call("timeout: 2"));
    expect(await run.exit).toEqual({ code: 0, signal: null });
    expect(run.stdout()).toBe(
      "Result.Err({category: timeout, kind: transient, message: local stream error (timeout): request timed out after 2s without data, model: m, provider: local, reason: timeout})\n",
    );
  });

  it("a stream that ends without its terminator is a transient network error", async () => {
    const run = harnAt("unterminated", call("llm_retries: 0"));
    expect(await run.exit).toEqual({ code: 0, signal: null });
    expect(run.stdout()).toBe(
      "Result.Err({category: transient_network, kind: transient, message: local stream error (body): connection closed before the response was complete, model: m, provider: local, reason: network_error})\n",
    );
  });

  it("retries stop at their budget", async () => {
    const before = requests;
    const run = harnAt("overloaded", call("llm_retries: 2, llm_backoff_ms: 10"));
    expect(await run.exit).toEqual({ code: 0, signal: null });
    expect(run.stdout()).toContain("Result.Err({category: overloaded, kind: transient, message: local HTTP 503");
    expect(requests - before).toBe(3);
  });

  it("Ctrl-C during a stalled stream interrupts the call; the script goes on and harn exits", async () => {
    const run = harnAt(
      "stall",
      `pipeline main() {
  let r = llm_call("hi", nil, {provider: "local", model: "m", on_event: { ev -> println(ev.kind) }})
  println(r.text + " | " + r.stop_reason + " | " + to_string(r.interrupted))
}
`,
    );
    const { code } = await interrupt(run, () => run.stdout().includes("text_delta"), "the first delta");
    expect(code).toBe(0);
    expect(run.stdout()).toBe("text_delta\nHalf [interrupted] | interrupted | true\n");
  });
});

describe("a daemon handling a trigger", () => {
  let n = 0;
  const root = () => join(work.dir, `root${++n}`);

  /** A script whose daemon is triggered into calling the `work` tool,
   * which records its shell's pid in `pidFile` and runs `command`; once
   * the pid is written, the pipeline goes on with `then` (`d` is the
   * daemon). */
  const whileToolRuns = (pidFile: string, command: string, then: string) => `tool work(n: int) -> string {
  description "Do the work"
  shell("echo $$ > ${pidFile}; ${command}")
  return "ok"
}
pipeline main() {
  llm_mock({match: "*go*", tool_calls: [{name: "work", arguments: {n: 1}}]})
  llm_mock({match: "*", text: "idle"})
  let d = daemon_spawn({task: "Work", provider: "mock", tools: work, persist_path: "${root()}"})
  daemon_trigger(d, "go")
  while !file_exists("${pidFile}") { sleep(10) }
  ${then}
}
`;

  it("daemon_stop while its tool runs a command: stopped, the command killed, the event re-queued", async () => {
    const pidFile = join(work.dir, "tool.pid");
    const run = harn(
      work.dir,
      whileToolRuns(
        pidFile,
        "sleep 100 & sleep 100",
        `println(daemon_stop(d).status)
  println(daemon_snapshot(d).pending_event_count)`,
      ),
    );
    expect(await run.exit).toEqual({ code: 0, signal: null });
    expect(run.stderr()).toBe("");
    expect(run.stdout()).toBe("stopped\n1\n");
    const pgid = Number(readFileSync(pidFile, "utf8").trim());
    await eventually(() => liveInGroup(pgid).length === 0, "the tool's command to be gone");
  });

  it("daemon_stop while the model never answers", async () => {
    const run = harnAt(
      "silent",
      `pipeline main() {
  let d = daemon_spawn({task: "Work", provider: "local", model: "m", persist_path: "${root()}"})
  daemon_trigger(d, "go")
  sleep(200)
  println(daemon_stop(d).status)
}
`,
    );
    expect(await run.exit).toEqual({ code: 0, signal: null });
    expect(run.stdout()).toBe("stopped\n");
  });

  it("the script ends while the model streams and stalls", async () => {
    const dir = root();
    const run = harnAt(
      "stall",
      `pipeline main() {
  let d = daemon_spawn({task: "Work", provider: "local", model: "m", persist_path: "${dir}"})
  sleep(200)
  println("leaving")
}
`,
    );
    expect(await run.exit).toEqual({ code: 0, signal: null });
    expect(run.stdout()).toBe("leaving\n");
    expect(existsSync(join(dir, "daemon.lock"))).toBe(false);
  });

  it("Ctrl-C while its tool runs a command: 130, the command killed", async () => {
    const pidFile = join(work.dir, "sigint-tool.pid");
    const run = harn(
      work.dir,
      whileToolRuns(
        pidFile,
        "trap '' TERM; sleep 100",
        `println("in flight")
  sleep(600000)`,
      ),
    );
    const { code } = await interrupt(run, () => run.stdout().includes("in flight"), "the tool to run");
    expect(code).toBe(130);
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    await eventually(() => !alive(pid), "the tool's command to be gone");
  });
});

describe("background sub-agents at the end of the script", () => {
  it("Ctrl-C during the exit grace (5 min by default) ends harn with 130 and cancels the task", async () => {
    const run = harn(
      work.dir,
      `pipeline main() {
  llm_mock({match: "*mainjob*", tool_calls: [{name: "background_task", arguments: {prompt: "slowjob"}}], consume_match: true})
  llm_mock({match: "*mainjob*", text: "ok"})
  llm_mock({match: "*slowjob*", text: "never", delay_ms: 600000})
  agent_loop("mainjob", nil, {provider: "mock", background_tasks: true})
  println("loop done")
}
`,
    );
    const { code } = await interrupt(run, () => run.stderr().includes("Waiting for 1 background task"), "the exit grace");
    expect(code).toBe(130);
    expect(run.stdout()).toBe("loop done\n");
    expect(run.stderr()).toMatch(/✗ \[[0-9a-f]{8}\] error: cancelled\n$/);
  });
});
