/**
 * A model's tool call `{"a": 2.0, "b": 2, "c": 1e3, …}` reaches a harn tool
 * handler with floats where the JSON text had floats (`2.0`, `1000.0`) and
 * ints where it had ints, as the reference (serde_json) gives them: through
 * `harn run` against a model server on 127.0.0.1 in every wire format,
 * streamed (argument text in pieces that split the float literals) and not.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendJson, sendStream } from "../../packages/stdlib/test/llm/server";
import { cleanEnv, FORMATS, modelServer, run, streamed, type Script, type Workspace, workspace } from "./llm-harness";

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace("harn-llm-floats-");
});
afterAll(() => ws.dispose());

/** The arguments as the model writes them. */
const RAW = '{"a": 2.0, "b": 2, "c": 1e3, "d": 2.5, "e": [1.0, 1]}';
/** What the wire helpers write for formats that carry arguments as a JSON
 * object (they go through `JSON.parse`/`JSON.stringify`); the server puts
 * the model's own text back in its place. */
const LOSSY = JSON.stringify(JSON.parse(RAW));

const SCRIPT = `
pipeline main() {
  let reg = tool_define(tool_registry(), "probe", "Probe the arguments", {
    parameters: {a: "number", b: "number", c: "number", d: "number", e: "list"},
    handler: { args ->
      println(args)
      println([type_of(args.a), type_of(args.b), type_of(args.c), type_of(args.d), type_of(args.e[0]), type_of(args.e[1])])
      return "ok"
    },
  })
  let r = agent_loop("probe", nil, {
    provider: env("TEST_PROVIDER"), model: "test-model", tools: reg, tool_format: "native", stream: env("TEST_STREAM") == "true",
  })
  println(r.status)
}
`;

const CALL: Script = {
  model: "test-model",
  calls: [{ id: "call_probe", name: "probe", fragments: ['{"a": 2.', '0, "b": 2, "c": 1e', '3, "d": 2.5, "e": [1.', "0, 1]}"] }],
  usage: { input: 50, output: 20 },
};
const ANSWER: Script = { model: "test-model", text: ["done"], usage: { input: 80, output: 5 } };

describe.each(FORMATS.map((f) => [f.provider, f] as const))("tool-call floats from a %s server", (provider, wire) => {
  it.each([true, false])("stream: %s", async (stream) => {
    const server = await modelServer(wire, (_req, index) => {
      if (index > 0) return ANSWER;
      return (req, res) => {
        const text = (streamed(req) ? wire.stream(CALL).body : JSON.stringify(wire.body(CALL))).replaceAll(LOSSY, RAW);
        if (streamed(req)) return sendStream(res, { contentType: wire.stream(CALL).contentType, body: text }, { pieceBytes: 16 });
        return sendJson(res, 200, text);
      };
    });
    try {
      const script = ws.file(`floats_${provider}.harn`, SCRIPT);
      const r = await run(ws, ["run", script], cleanEnv({ ...wire.env(server.url), TEST_PROVIDER: provider, TEST_STREAM: String(stream) }));
      expect(r.stderr).toBe("");
      expect(r.stdout).toBe("{a: 2.0, b: 2, c: 1000.0, d: 2.5, e: [1.0, 1]}\n[float, int, float, float, float, int]\ndone\n");
      expect(r.code).toBe(0);
      expect(server.requests.length).toBe(2);
      expect(server.requests.map(streamed)).toEqual([stream, stream]);
      // the call goes back to the model in the transcript with its floats
      expect(server.requests[1]!.text).toMatch(/2\.0\b.*\b1000\.0\b.*\[1\.0, ?1\]/);
    } finally {
      await server.close();
    }
  });
});
