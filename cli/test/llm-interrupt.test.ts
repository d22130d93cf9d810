/**
 * Ctrl-C during agent turns (extensions.md §3.3), with a real `harn run`
 * child process and a model server on 127.0.0.1 that stalls mid-stream:
 * the first SIGINT cancels the running turn — the HTTP stream is closed,
 * the partial text is kept with ` [interrupted]`, the loop returns status
 * `interrupted` and the script goes on; a second SIGINT within 1.5 s ends
 * the program with 130 after its `finally`/`defer` blocks ran.
 */
import type http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sseFrame } from "../../packages/stdlib/test/llm/wire";
import { cleanEnv, format, harn, modelServer, type SeenRequest, type TestServer, type Workspace, workspace } from "./llm-harness";

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace("harn-llm-interrupt-");
});
afterAll(() => ws.dispose());

const local = format("local");

/** An OpenAI-style stream that sends `pieces` and then stalls. */
function stall(pieces: string[]) {
  return (req: SeenRequest, res: http.ServerResponse) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (const content of pieces) {
      res.write(sseFrame({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content }, finish_reason: null }] }));
    }
  };
}

async function stalling(): Promise<TestServer> {
  return modelServer(local, () => stall(["Once upon ", "a time"]));
}

describe("the first Ctrl-C interrupts the running turn", () => {
  it("during a streamed answer: partial text kept, status interrupted, the script continues", async () => {
    const server = await stalling();
    try {
      const script = ws.file(
        "int_stream.harn",
        `pipeline main() {
  defer { println("defer ran") }
  let r = agent_loop("Tell me a story", nil, {provider: "local", model: "m"})
  println("status: " + r.status)
  let last = r.transcript.messages[len(r.transcript.messages) - 1]
  println(last.role + ": " + last.content)
  println("visible: " + r.visible_text)
  println("script continues")
}
`,
      );
      const c = harn(ws, ["run", "--stream", script], cleanEnv(local.env(server.url)));
      await c.until((o) => o.stdout.includes("a time"), "the partial answer");
      c.child.kill("SIGINT");
      const { code } = await c.exited;
      expect(c.stdout()).toBe(
        "Once upon a time [interrupted]\nstatus: interrupted\nassistant: Once upon a time [interrupted]\nvisible: Once upon a time [interrupted]\nscript continues\ndefer ran\n",
      );
      expect(c.stderr()).toBe("[harn] interrupted the current turn (Ctrl-C again within 1.5s to exit)\n");
      expect(code).toBe(0);
      // the HTTP stream was aborted, not left open
      await server.requests[0]!.socketClosed;
      expect(server.openSockets()).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("during llm_call: the partial reply comes back marked interrupted", async () => {
    const server = await stalling();
    try {
      const script = ws.file(
        "int_call.harn",
        `pipeline main() {
  let r = llm_call("Tell me a story", nil, {provider: "local", model: "m", on_event: { ev -> println(ev.kind) }})
  println(r.text + " | " + r.stop_reason + " | " + to_string(r.interrupted))
}
`,
      );
      const c = harn(ws, ["run", script], cleanEnv(local.env(server.url)));
      await c.until((o) => o.stdout.split("text_delta").length === 3, "two deltas");
      c.child.kill("SIGINT");
      const { code } = await c.exited;
      expect(c.stdout()).toBe("text_delta\ntext_delta\nOnce upon a time [interrupted] | interrupted | true\n");
      expect(code).toBe(0);
      await server.requests[0]!.socketClosed;
    } finally {
      await server.close();
    }
  });

  it("during a tool: the tool is cancelled, every call of the batch is answered, the loop returns", async () => {
    const server = await modelServer(local, () => ({
      model: "m",
      text: ["Working."],
      calls: [
        { id: "call_1", name: "slow", fragments: ['{"what":"build"}'] },
        { id: "call_2", name: "slow", fragments: ['{"what":"test"}'] },
      ],
      usage: { input: 1, output: 1 },
    }));
    try {
      const script = ws.file(
        "int_tool.harn",
        `tool slow(what: string) -> string {
  description "Takes a while"
  try {
    sleep(1h)
  } finally {
    println("tool cleanup: " + what)
  }
  return "finished " + what
}
pipeline main() {
  let r = agent_loop("Build and test", nil, {provider: "local", model: "m", tools: slow, tool_format: "native"})
  println("status: " + r.status)
  for m in r.transcript.messages {
    if m.role == "tool" { println(m.tool_call_id + ": " + m.content) }
  }
  println(r.tools.calls)
}
`,
      );
      const c = harn(ws, ["run", "--stream", script], cleanEnv(local.env(server.url)));
      await c.until((o) => o.stderr.includes('⚙ slow({"what":"build"})'), "the tool to start");
      c.child.kill("SIGINT");
      const { code } = await c.exited;
      expect(c.stdout()).toBe(
        "Working.\ntool cleanup: build\nstatus: interrupted\n" +
          "call_1: Error: interrupted by the user (Ctrl-C) while this tool was running\n" +
          "call_2: Error: not run: the user interrupted this turn (Ctrl-C) before this tool started\n" +
          "[slow]\n",
      );
      expect(c.stderr()).toContain("[harn] interrupted the current turn");
      expect(c.stderr()).toContain("✗ Error: interrupted by the user (Ctrl-C) while this tool was running");
      expect(code).toBe(0);
      // the model was not asked again
      expect(server.requests.length).toBe(1);
    } finally {
      await server.close();
    }
  });
});

describe("Ctrl-C while only a background sub-agent is answering", () => {
  it("ends the program: background turns are not what the user is watching", async () => {
    const script = ws.file(
      "int_background.harn",
      `pipeline main() {
  defer { println("defer ran") }
  llm_mock({match: "user\\nSlow job*", text: "child done", delay_ms: 60000, consume_match: true})
  llm_mock({match: "user\\nStart it", text: "", tool_calls: [{name: "background_task", arguments: {prompt: "Slow job"}}], consume_match: true})
  llm_mock({match: "*submitted*", text: "Started.", consume_match: true})
  let r = agent_loop("Start it", nil, {provider: "mock", background_tasks: true, tool_format: "native"})
  println(r.status + ": " + r.visible_text)
  sleep(1h)
}
`,
    );
    const c = harn(ws, ["run", script], cleanEnv());
    await c.until((o) => o.stdout.includes("done: Started."), "the parent loop to finish");
    c.child.kill("SIGINT");
    const { code } = await c.exited;
    expect(code).toBe(130);
    expect(c.stdout()).toBe("done: Started.\ndefer ran\n");
    expect(c.stderr()).not.toContain("interrupted the current turn");
  });
});

describe("a second Ctrl-C within 1.5 s ends the program", () => {
  it("exits 130 after finally and defer ran, even while a new turn runs", async () => {
    const server = await stalling();
    try {
      const script = ws.file(
        "int_twice.harn",
        `pipeline main() {
  defer { println("defer ran") }
  let first = agent_loop("one", nil, {provider: "local", model: "m"})
  println("first: " + first.status)
  try {
    agent_loop("two", nil, {provider: "local", model: "m"})
    println("not reached")
  } finally {
    println("finally ran")
  }
}
`,
      );
      const c = harn(ws, ["run", script], cleanEnv(local.env(server.url)));
      await c.until(() => server.requests.length === 1, "the first request");
      await c.until((o) => o.stdout === "" && server.openSockets() > 0, "the first stream");
      c.child.kill("SIGINT");
      await c.until((o) => o.stdout.includes("first: interrupted") && server.requests.length === 2, "the second turn");
      c.child.kill("SIGINT");
      const { code } = await c.exited;
      expect(c.stdout()).toBe("first: interrupted\nfinally ran\ndefer ran\n");
      expect(c.stderr()).toBe(
        "[harn] interrupted the current turn (Ctrl-C again within 1.5s to exit)\n[harn] signal received, flushing state...\n",
      );
      expect(code).toBe(130);
      await server.requests[1]!.socketClosed;
    } finally {
      await server.close();
    }
  });
});
