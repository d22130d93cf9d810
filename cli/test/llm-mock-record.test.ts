/**
 * `harn run --llm-mock-record <path>` (spec/cli.md §2): a run against a
 * model server on 127.0.0.1 (real OpenAI / Anthropic wire formats,
 * streamed and not) writes its responses as `--llm-mock` fixture lines,
 * and `harn run --llm-mock <path>` with no server prints the same output,
 * byte for byte. Plus the flag conflict and an unwritable path.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, format, modelServer, run, type Script, type Workspace, workspace } from "./llm-harness";

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace("harn-mock-record-");
});
afterAll(() => ws.dispose());

const SCRIPT = `
pipeline main() {
  let p = env("TEST_PROVIDER")
  let stream = env("TEST_STREAM") == "true"
  let a = llm_call("Say hi", nil, {provider: p, model: "test-model", stream: stream})
  println(a.text)
  println([a.model, a.input_tokens, a.output_tokens, a.thinking ?? "no thinking"])
  let reg = tool_define(tool_registry(), "add", "Add two numbers", {
    parameters: {a: "number", b: "number"},
    handler: { args ->
      println(args)
      return to_string(args.a + args.b)
    },
  })
  let r = agent_loop("Add 2 and 3", nil, {provider: p, model: "test-model", tools: reg, tool_format: "native", stream: stream})
  println(r.status)
  println(r.visible_text)
}
`;

const GREETING: Script = { model: "test-model-2025", reasoning: ["The user ", "wants a greeting."], text: ["Hello ", "there!"], usage: { input: 12, output: 4 } };
const CALL: Script = {
  model: "test-model-2025",
  calls: [{ id: "call_add_1", name: "add", fragments: ['{"a": 2.', '0, "b": 3}'] }],
  usage: { input: 40, output: 9 },
};
const ANSWER: Script = { model: "test-model-2025", text: ["The sum ", "is 5.0."], usage: { input: 60, output: 6 } };
const REPLIES = [GREETING, CALL, ANSWER];

describe.each([
  ["anthropic", true],
  ["openai", false],
] as const)("recording a %s run (stream: %s)", (provider, stream) => {
  it("replays offline with the same output", async () => {
    const wire = format(provider);
    // The wire helpers re-serialize argument objects, which would lose the
    // `2.0`: the server puts the model's own text back (as llm-floats does).
    const server = await modelServer(wire, (_req, index) => {
      const reply = REPLIES[index];
      if (!reply) return { status: 500, body: { error: { message: "no more replies" } } };
      return reply;
    });
    const script = ws.file(`record_${provider}.harn`, SCRIPT);
    const fixture = join(ws.dir, `record_${provider}.jsonl`);
    writeFileSync(fixture, "stale content that must go\n");
    let recorded;
    try {
      recorded = await run(ws, ["run", "--llm-mock-record", fixture, script], cleanEnv({ ...wire.env(server.url), TEST_PROVIDER: provider, TEST_STREAM: String(stream) }));
      expect(server.requests.length).toBe(3);
    } finally {
      await server.close();
    }
    expect(recorded.stderr).toBe("");
    expect(recorded.code).toBe(0);
    expect(recorded.stdout).toBe(
      [
        "Hello there!",
        "[test-model-2025, 12, 4, The user wants a greeting.]",
        "{a: 2.0, b: 3}",
        "done",
        "The sum is 5.0.",
        "",
      ].join("\n"),
    );

    const lines = readFileSync(fixture, "utf8").split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.length).toBe(3);
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries.every((e) => !("match" in e))).toBe(true);
    expect(entries[0]).toMatchObject({ text: "Hello there!", thinking: "The user wants a greeting.", model: "test-model-2025", input_tokens: 12, output_tokens: 4 });
    expect(entries[1]).toMatchObject({ text: "", tool_calls: [{ name: "add", arguments: { a: 2, b: 3 } }] });
    // the float stays a float in the fixture text
    expect(lines[1]).toContain('"arguments":{"a":2.0,"b":3}');
    expect(entries[2]).toMatchObject({ text: "The sum is 5.0." });

    // No server, no key: the fixture answers everything.
    const replayed = await run(ws, ["run", "--llm-mock", fixture, script], cleanEnv({ TEST_PROVIDER: provider, TEST_STREAM: String(stream) }));
    expect(replayed.stderr).toBe("");
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toBe(recorded.stdout);
  });
});

describe("--llm-mock-record errors", () => {
  it("cannot be combined with --llm-mock (a usage error)", async () => {
    const script = ws.file("conflict.harn", 'pipeline main() { println("ran") }\n');
    const out = join(ws.dir, "conflict.jsonl");
    const r = await run(ws, ["run", "--llm-mock", "in.jsonl", "--llm-mock-record", out, script], cleanEnv());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: option '--llm-mock <file.jsonl>' cannot be used with option '--llm-mock-record <file.jsonl>'");
    expect(r.stdout).toBe("");
    expect(existsSync(out)).toBe(false);
  });

  it("fails before the script runs when the file cannot be written", async () => {
    const script = ws.file("unwritable.harn", 'pipeline main() { println("ran") }\n');
    const missing = join(ws.dir, "no-such-dir", "out.jsonl");
    let r = await run(ws, ["run", "--llm-mock-record", missing, script], cleanEnv());
    expect(r).toEqual({ code: 1, stdout: "", stderr: `Error writing ${missing}: No such file or directory (os error 2)\n` });

    const dir = join(ws.dir, "a-directory");
    mkdirSync(dir);
    r = await run(ws, ["run", "--llm-mock-record", dir, script], cleanEnv());
    expect(r).toEqual({ code: 1, stdout: "", stderr: `Error writing ${dir}: Is a directory (os error 21)\n` });

    if (process.getuid?.() !== 0) {
      const locked = join(ws.dir, "locked.jsonl");
      writeFileSync(locked, "");
      chmodSync(locked, 0o444);
      r = await run(ws, ["run", "--llm-mock-record", locked, script], cleanEnv());
      expect(r).toEqual({ code: 1, stdout: "", stderr: `Error writing ${locked}: Permission denied (os error 13)\n` });
    }
  });
});
