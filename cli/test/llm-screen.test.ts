/**
 * What the screen shows of a model's answer (issue 17 item 6), through
 * `harn run --stream` and `harn chat` against real servers on 127.0.0.1:
 * reasoning (thinking) deltas dimmed on stderr unless `--hide-reasoning`,
 * and tool failures sent back to Anthropic marked `is_error: true`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, format, modelServer, run, type SeenRequest, type TestServer, type Workspace, workspace } from "./llm-harness";

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace("harn-llm-screen-");
});
afterAll(() => ws.dispose());

const anthropic = format("anthropic");
const local = format("local");
const DIM = (s: string) => `\x1b[2m${s}\x1b[22m`;

describe("reasoning deltas", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await modelServer(anthropic, () => ({ model: "claude-test", reasoning: ["The capital ", "of France."], text: ["Paris."], usage: { input: 3, output: 2, reasoning: 4 } }));
  });
  afterAll(() => server.close());

  const SCRIPT = 'pipeline main() {\n  let r = llm_call("Capital of France?", nil, {provider: "anthropic", model: "claude-test"})\n  println("text: " + r.text)\n}\n';

  it("harn run --stream shows them dimmed on stderr, each piece as it arrives, and the answer on stdout", async () => {
    const script = ws.file("reasoning.harn", SCRIPT);
    const r = await run(ws, ["run", "--stream", script], cleanEnv({ ...anthropic.env(server.url), FORCE_COLOR: "1" }));
    expect(r.stdout).toBe("Paris.\ntext: Paris.\n");
    expect(r.stderr).toBe(`${DIM("The capital ")}${DIM("of France.")}\n`);
    expect(r.code).toBe(0);
  });

  it("without colour they are plain text; --hide-reasoning leaves them out", async () => {
    const script = ws.file("reasoning.harn", SCRIPT);
    const env = cleanEnv(anthropic.env(server.url));
    const plain = await run(ws, ["run", "--stream", script], env);
    expect(plain.stderr).toBe("The capital of France.\n");
    const hidden = await run(ws, ["run", "--stream", "--hide-reasoning", script], env);
    expect(hidden.stdout).toBe("Paris.\ntext: Paris.\n");
    expect(hidden.stderr).toBe("");
  });

  it("harn chat shows an OpenAI-compatible server's reasoning_content the same way, and hides it on request", async () => {
    const chatServer = await modelServer(local, () => ({ model: "m", reasoning: ["Greeting; ", "answer briefly."], text: ["Hello!"], usage: { input: 1, output: 1 } }));
    try {
      const env = cleanEnv({ ...local.env(chatServer.url), FORCE_COLOR: "1" });
      const shown = await run(ws, ["chat", "--model", "m"], env, 50_000, { input: "hi\n" });
      expect(shown.stdout).toBe("Hello!\n");
      expect(shown.stderr).toBe(`> ${DIM("Greeting; ")}${DIM("answer briefly.")}\n> `);
      const hidden = await run(ws, ["chat", "--model", "m", "--hide-reasoning"], env, 50_000, { input: "hi\n" });
      expect(hidden.stdout).toBe("Hello!\n");
      expect(hidden.stderr).toBe("> > ");
    } finally {
      await chatServer.close();
    }
  });
});

describe("tool failures go back to Anthropic", () => {
  it("a failed call's tool_result carries is_error: true, a successful one does not", async () => {
    const server = await modelServer(anthropic, (_req: SeenRequest, index) =>
      index === 0
        ? {
            model: "claude-test",
            calls: [
              { id: "toolu_ok", name: "lookup", fragments: ['{"city": "Oslo"}'] },
              { id: "toolu_bad", name: "fail", fragments: ["{}"] },
            ],
            usage: { input: 1, output: 1 },
          }
        : { model: "claude-test", text: ["Done."], usage: { input: 1, output: 1 } },
    );
    try {
      const script = ws.file(
        "is_error.harn",
        `tool lookup(city: string) -> string {
  description "Weather"
  return city + ": sunny"
}
tool fail() -> string {
  description "Always fails"
  throw "no luck"
}
pipeline main() {
  let r = agent_loop("go", nil, {provider: "anthropic", model: "claude-test", tools: lookup.tools + fail.tools, tool_format: "native"})
  println(r.status + ": " + r.visible_text)
}
`,
      );
      const r = await run(ws, ["run", script], cleanEnv(anthropic.env(server.url)));
      expect(r.stdout).toBe("done: Done.\n");
      expect(server.requests).toHaveLength(2);
      const messages = (server.requests[1]!.body as { messages: { role: string; content: unknown }[] }).messages;
      expect(messages[messages.length - 1]).toEqual({
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_ok", content: "Oslo: sunny" },
          { type: "tool_result", tool_use_id: "toolu_bad", content: "Error: Thrown: no luck", is_error: true },
        ],
      });
    } finally {
      await server.close();
    }
  });
});
