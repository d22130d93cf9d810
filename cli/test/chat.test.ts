/**
 * `harn chat` end to end (extensions.md §3.6): a child process driven
 * through its stdin, stdout, stderr and signals, talking to a model server
 * on 127.0.0.1 (the `local` OpenAI-compatible wire format). One
 * conversation across prompts, streamed answers, tools from `--tools`,
 * Ctrl-C back to the prompt, double Ctrl-C to quit, `/save` and
 * `--resume`, and errors that leave the session usable.
 */
import type http from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sseFrame } from "../../packages/stdlib/test/llm/wire";
import { cleanEnv, format, harn, modelServer, type Reply, type SeenRequest, type Workspace, workspace } from "./llm-harness";

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace("harn-chat-");
  ws.file(
    "tools.harn",
    `tool add(a: int, b: int) -> int {
  description "Add two integers"
  return a + b
}
pipeline main() { println("the tools file's pipeline does not run") }
`,
  );
});
afterAll(() => ws.dispose());

const local = format("local");
type Msg = { role: string; content?: string | null; tool_calls?: unknown[]; tool_call_id?: string };
const messagesOf = (req: SeenRequest) => (req.body as { messages: Msg[] }).messages;
const lastUser = (req: SeenRequest) => [...messagesOf(req)].reverse().find((m) => m.role === "user")?.content ?? "";
const text = (...pieces: string[]): Reply => ({ model: "m", text: pieces, usage: { input: 5, output: 5 } });

/** Stream `pieces` and then stall (an answer the user will interrupt). */
const stall =
  (...pieces: string[]) =>
  (req: SeenRequest, res: http.ServerResponse) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (const content of pieces) {
      res.write(sseFrame({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content }, finish_reason: null }] }));
    }
  };

/** The scripted model: answers by the last user message. */
function model(req: SeenRequest): Reply {
  const msgs = messagesOf(req);
  const last = msgs[msgs.length - 1]!;
  if (last.role === "tool") return text("It is ", last.content ?? "", ".");
  const prompt = lastUser(req);
  if (prompt.startsWith("Hi, I'm")) return text("Hello ", prompt.slice(8), "!");
  if (prompt.includes("2 + 3")) return { model: "m", calls: [{ id: "call_add", name: "add", fragments: ['{"a": 2,', ' "b": 3}'] }], usage: { input: 5, output: 5 } };
  if (prompt === "What is my name?") {
    const intro = msgs.find((m) => m.role === "user" && m.content?.startsWith("Hi, I'm"));
    return text(intro ? `You are ${intro.content!.slice(8)}.` : "I don't know.");
  }
  if (prompt === "Tell me a long story") return stall("Once upon ", "a time");
  if (prompt === "fail") return { status: 400, body: { error: { message: "bad request", type: "invalid_request_error" } } };
  return text(`(${msgs.filter((m) => m.role === "user").length} user messages so far)`);
}

describe("harn chat", () => {
  it("keeps one conversation, streams answers and runs tools from --tools", async () => {
    const server = await modelServer(local, (req) => model(req));
    try {
      const c = harn(ws, ["chat", "--tools", "tools.harn", "--model", "m", "--system", "Be brief."], cleanEnv(local.env(server.url)));
      await c.until((o) => o.stderr.includes("> "), "the prompt");
      c.write("Hi, I'm Ada\n");
      await c.until((o) => o.stdout.includes("Hello Ada!\n"), "the greeting");
      c.write("What is 2 + 3?\n");
      await c.until((o) => o.stdout.includes("It is 5.\n"), "the sum");
      c.write("What is my name?\n");
      await c.until((o) => o.stdout.includes("You are Ada.\n"), "the name");
      c.child.stdin!.end();
      const { code } = await c.exited;
      expect(code).toBe(0);
      expect(c.stdout()).toBe("Hello Ada!\nIt is 5.\nYou are Ada.\n");
      expect(c.stderr()).toBe('> > ⚙ add({"a":2,"b":3})\n→ 5\n> > ');
      // the last request carries the whole conversation, tool round-trip included
      const last = server.requests[server.requests.length - 1]!;
      expect(messagesOf(last).map((m) => m.role)).toEqual(["system", "user", "assistant", "user", "assistant", "tool", "assistant", "user"]);
      expect(messagesOf(last)[0]!.content).toBe("Be brief.");
      expect((last.body as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name)).toEqual(["add"]);
    } finally {
      await server.close();
    }
  });

  it("/save writes the conversation and --resume continues it in a new process", async () => {
    const server = await modelServer(local, (req) => model(req));
    try {
      const env = cleanEnv(local.env(server.url));
      const first = harn(ws, ["chat", "--model", "m"], env);
      first.write("Hi, I'm Grace\n");
      await first.until((o) => o.stdout.includes("Hello Grace!"), "the greeting");
      first.write("/save saved.json\n");
      await first.until((o) => o.stderr.includes("saved 2 messages to saved.json"), "the save");
      first.child.stdin!.end();
      expect((await first.exited).code).toBe(0);
      const saved = JSON.parse(readFileSync(join(ws.dir, "saved.json"), "utf8"));
      expect(saved._type).toBe("transcript");
      expect(saved.messages).toEqual([
        { role: "user", content: "Hi, I'm Grace" },
        { role: "assistant", content: "Hello Grace!" },
      ]);

      const second = harn(ws, ["chat", "--model", "m", "--resume", "saved.json"], env);
      await second.until((o) => o.stderr.includes("resumed 2 messages from saved.json"), "the resume notice");
      second.write("What is my name?\n");
      await second.until((o) => o.stdout.includes("You are Grace."), "the remembered name");
      second.child.stdin!.end();
      expect((await second.exited).code).toBe(0);
      expect(messagesOf(server.requests[server.requests.length - 1]!).map((m) => m.content)).toEqual(["Hi, I'm Grace", "Hello Grace!", "What is my name?"]);
    } finally {
      await server.close();
    }
  });

  it("Ctrl-C stops an answer and returns to the prompt; twice at the prompt exits", async () => {
    const server = await modelServer(local, (req) => model(req));
    try {
      const c = harn(ws, ["chat", "--model", "m"], cleanEnv(local.env(server.url)));
      c.write("Tell me a long story\n");
      await c.until((o) => o.stdout.includes("a time"), "the partial story");
      c.child.kill("SIGINT");
      await c.until((o) => o.stdout === "Once upon a time [interrupted]\n" && o.stderr === "> > ", "the marker and the prompt again");
      await server.requests[0]!.socketClosed;
      c.write("And then?\n");
      await c.until((o) => o.stdout.includes("(2 user messages so far)") && o.stderr === "> > > ", "the next answer and prompt");
      // the interrupted answer stayed in the conversation, marked
      expect(messagesOf(server.requests[1]!).map((m) => m.content)).toEqual(["Tell me a long story", "Once upon a time [interrupted]", "And then?"]);
      c.child.kill("SIGINT");
      await c.until((o) => o.stderr.includes("(to exit, press Ctrl-C again or type /exit)"), "the hint");
      c.child.kill("SIGINT");
      const { code } = await c.exited;
      expect(code).toBe(0);
      expect(c.stdout()).toBe("Once upon a time [interrupted]\n(2 user messages so far)\n");
    } finally {
      await server.close();
    }
  });

  it("one Ctrl-C at the prompt does not exit; a provider error leaves the session usable", async () => {
    const server = await modelServer(local, (req) => model(req));
    try {
      const c = harn(ws, ["chat", "--model", "m"], cleanEnv(local.env(server.url)));
      await c.until((o) => o.stderr.includes("> "), "the prompt");
      c.child.kill("SIGINT");
      await c.until((o) => o.stderr.includes("(to exit, press Ctrl-C again or type /exit)\n> "), "the hint");
      await new Promise((r) => setTimeout(r, 1600));
      c.child.kill("SIGINT");
      await c.until((o) => o.stderr.split("(to exit").length === 3, "the second hint");
      c.write("fail\n");
      await c.until((o) => o.stderr.includes("error: Error [generic]: local HTTP 400 [invalid_request]"), "the error");
      c.write("still there?\n");
      // the failed prompt did not join the conversation
      await c.until((o) => o.stdout.includes("(1 user messages so far)"), "an answer after the error");
      c.write("/exit\n");
      expect((await c.exited).code).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("reports unusable --resume and --tools files", async () => {
    const env = cleanEnv({ LOCAL_LLM_BASE_URL: "http://127.0.0.1:9" });
    ws.file("broken.harn", "tool add(a: int {\n");
    ws.file("notools.harn", "let x = 1\n");
    ws.file("bad.json", '{"messages": 3}');
    const cases: [string[], RegExp][] = [
      [["chat", "--resume", "missing.json"], /^error: --resume missing.json: No such file or directory \(os error 2\)\n$/],
      [["chat", "--resume", "bad.json"], /^error: --resume bad.json: not a saved conversation/],
      [["chat", "--tools", "missing.harn"], /^error: --tools missing.harn: No such file or directory \(os error 2\)\n$/],
      [["chat", "--tools", "broken.harn"], /broken.harn:1:/],
      [["chat", "--tools", "notools.harn"], /^error: --tools notools.harn: declares no tools/],
    ];
    for (const [args, expected] of cases) {
      const c = harn(ws, args, env);
      c.child.stdin!.end();
      expect((await c.exited).code, args.join(" ")).toBe(1);
      expect(c.stderr(), args.join(" ")).toMatch(expected);
    }
  });

  it("never shows or saves the API key", async () => {
    const KEY = "sk-proj-SENTINEL-chat-0a1b2c3d4e5f60718293";
    const openai = format("openai");
    const server = await modelServer(openai, (req, i) =>
      i === 0 ? text("Hi.") : { status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}`, code: "invalid_api_key" } } },
    );
    try {
      const c = harn(ws, ["chat", "--provider", "openai", "--model", "gpt-x"], cleanEnv({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${server.url}/v1` }));
      c.write("hello\n");
      await c.until((o) => o.stdout.includes("Hi."), "the answer");
      c.write("again\n");
      await c.until((o) => o.stderr.includes("error:"), "the auth error");
      c.write("/save key.json\n");
      await c.until((o) => o.stderr.includes("saved"), "the save");
      c.child.stdin!.end();
      await c.exited;
      expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(c.stderr()).toContain("Incorrect API key provided: [redacted]");
      for (const out of [c.stdout(), c.stderr(), readFileSync(join(ws.dir, "key.json"), "utf8")]) expect(out).not.toContain("SENTINEL");
    } finally {
      await server.close();
    }
  });
});

