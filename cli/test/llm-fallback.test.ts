/**
 * Fallback as a user meets it, through `harn run` and `harn chat` against
 * real servers on 127.0.0.1: configured in `[llm]` of harn.toml or with
 * `harn chat --fallback`, announced once on stderr, and sticky for the
 * rest of the loop (or chat session), so a dead primary costs its retries
 * once rather than on every turn.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, format, modelServer, run, type SeenRequest, type TestServer, type Workspace, workspace } from "./llm-harness";

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace("harn-llm-fallback-");
});
afterAll(() => ws.dispose());

const anthropic = format("anthropic");
const openai = format("openai");

/** A project directory of the workspace with this harn.toml. */
function project(name: string, toml: string): string {
  const dir = join(ws.dir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "harn.toml"), toml);
  return dir;
}

const overloaded = () => modelServer(anthropic, () => ({ status: 503, body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } }));

/** Turn 1 calls `lookup`, turn 2 answers; says which model it was asked for. */
const fallbackServer = () =>
  modelServer(openai, (req: SeenRequest, index) => {
    const model = (req.body as { model: string }).model;
    if (index % 2 === 0) return { model, calls: [{ id: `call_${index}`, name: "lookup", fragments: ['{"city": "Oslo"}'] }], usage: { input: 1, output: 1 } };
    return { model, text: [`Sunny (${model}).`], usage: { input: 1, output: 1 } };
  });

const LOOP = (options: string) => `
tool lookup(city: string) -> string {
  description "Weather"
  return city + ": sunny"
}
pipeline main() {
  let r = agent_loop("Weather in Oslo?", nil, {provider: "anthropic", model: "claude-sonnet-4-20250514", tools: lookup, tool_format: "native"${options}})
  println(r.status + " after " + to_string(r.llm.iterations) + " turns: " + r.visible_text)
}
`;

async function closedUrl(): Promise<string> {
  const s = await modelServer(anthropic, () => ({ status: 500, body: "" }));
  const url = s.url;
  await s.close();
  return url;
}

describe("fallback from [llm] in harn.toml", () => {
  it("a 2-turn loop with an overloaded primary: the primary's retries are paid once, one note, the fallback answers both turns", async () => {
    const [primary, fallback] = [await overloaded(), await fallbackServer()];
    try {
      const dir = project("configured", '[llm]\nfallback = ["openai"]\nfallback_models = { openai = "gpt-4o-mini" }\nretries = 1\n');
      writeFileSync(join(dir, "loop.harn"), LOOP(", llm_backoff_ms: 1"));
      const env = cleanEnv({ ...anthropic.env(primary.url), ...openai.env(fallback.url) });
      const r = await run(ws, ["run", join(dir, "loop.harn")], env);
      expect(r.stdout).toBe("done after 2 turns: Sunny (gpt-4o-mini).\n");
      expect(r.stderr).toBe("note: anthropic failed (HTTP 503 overloaded) — falling back to openai/gpt-4o-mini\n");
      expect(r.code).toBe(0);
      // turn 1: the first attempt and one retry ([llm] retries = 1); turn 2: none
      expect(primary.requests).toHaveLength(2);
      expect(fallback.requests.map((q) => (q.body as { model: string }).model)).toEqual(["gpt-4o-mini", "gpt-4o-mini"]);
    } finally {
      await Promise.all([primary.close(), fallback.close()]);
    }
  });

  it("a primary that refuses connections is not retried or waited for: no retry lines, one note", async () => {
    const fallback = await fallbackServer();
    const dead = await closedUrl();
    try {
      const dir = project("refused", '[llm]\nfallback = "openai"\n');
      writeFileSync(join(dir, "loop.harn"), LOOP(""));
      const env = cleanEnv({ ...anthropic.env(dead), ...openai.env(fallback.url) });
      const started = Date.now();
      const r = await run(ws, ["run", "--stream", join(dir, "loop.harn")], env);
      const elapsed = Date.now() - started;
      expect(r.stdout).toBe("Sunny (gpt-4o).\ndone after 2 turns: Sunny (gpt-4o).\n");
      expect(r.stderr).toBe(
        `note: anthropic failed (connection refused by 127.0.0.1:${new URL(dead).port}) — falling back to openai/gpt-4o\n` +
          '⚙ lookup({"city":"Oslo"})\n→ Oslo: sunny\n',
      );
      // Reported, not asserted: the agent loop's default backoff (2 retries, 2 s base)
      // would have cost 12 s or more per turn before the fallback was asked.
      console.log(`refused primary, 2-turn loop through the fallback: ${elapsed} ms wall (harn start-up included)`);
    } finally {
      await fallback.close();
    }
  });

  it("a malformed [llm] table fails the model call with the file, the key and the script's line", async () => {
    const dir = project("broken", "[llm]\nretries = -1\n");
    writeFileSync(join(dir, "call.harn"), 'pipeline main() {\n  println("before")\n  llm_call("hi", nil, {provider: "mock"})\n}\n');
    const r = await run(ws, ["run", join(dir, "call.harn")], cleanEnv());
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("before\n");
    expect(r.stderr).toContain(`${join(dir, "harn.toml")}: [llm].retries must be an integer of at least 0`);
    expect(r.stderr).toContain("call.harn:3:");
  });
});

describe("harn chat --fallback", () => {
  let primary: TestServer;
  let fallback: TestServer;
  beforeAll(async () => {
    primary = await overloaded();
    fallback = await modelServer(openai, (req) => ({ model: "m", text: [`(${(req.body as { model: string }).model})`], usage: { input: 1, output: 1 } }));
  });
  afterAll(async () => {
    await Promise.all([primary.close(), fallback.close()]);
  });

  it("sticks for the whole session: the dead primary is asked once across two prompts", async () => {
    const dir = project("chat", "[llm]\nretries = 0\n");
    const env = cleanEnv({ ...anthropic.env(primary.url), ...openai.env(fallback.url) });
    const r = await run(ws, ["chat", "--provider", "anthropic", "--fallback", "openai:gpt-4o-mini"], env, 50_000, { input: "one\ntwo\n", cwd: dir });
    expect(r.stdout).toBe("(gpt-4o-mini)\n(gpt-4o-mini)\n");
    expect(r.stderr).toBe("> note: anthropic failed (HTTP 503 overloaded) — falling back to openai/gpt-4o-mini\n> > ");
    expect(r.code).toBe(0);
    expect(primary.requests).toHaveLength(1);
    expect(fallback.requests).toHaveLength(2);
  });
});
