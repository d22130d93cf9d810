/**
 * What streaming and agent turns cost end to end: the built `harn`
 * (cli/dist, run `pnpm build` first) as a child process against a model
 * server on 127.0.0.1 in this process.
 *
 *   pnpm build && pnpm exec esbuild cli/test/llm-bench.ts --bundle --platform=node \
 *     --format=esm --outfile=/tmp/harn-llm-bench.mjs --log-level=warning && node /tmp/harn-llm-bench.mjs
 *
 * Run from the repository root. Not a test: nothing here asserts a time.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FORMATS } from "../../packages/stdlib/test/llm/helpers";
import { sendJson, sendStream, startServer } from "../../packages/stdlib/test/llm/server";
import type { Script } from "../../packages/stdlib/test/llm/wire";

const DELTAS = 20_000;
const TURNS = 50;
const bin = join(process.cwd(), "cli/bin/harn.cjs");
const local = FORMATS.find((f) => f.provider === "local")!;

function timeRun(dir: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; code: number | null; bytes: number }> {
  const t = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
    let bytes = 0;
    child.stdout.on("data", (d: Buffer) => (bytes += d.length));
    child.stderr.on("data", (d: Buffer) => (bytes += d.length));
    child.on("close", (code) => resolve({ ms: performance.now() - t, code, bytes }));
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "harn-llm-bench-"));
  const big: Script = { model: "m", text: Array.from({ length: DELTAS }, (_, i) => `tok${i} `), usage: { input: 1, output: DELTAS } };
  const bigBody = local.stream(big);
  const server = await startServer((req, res) => {
    const body = req.body as { model: string; messages: { role: string }[] };
    if (body.model === "big") return sendStream(res, bigBody);
    const done = body.messages.filter((m) => m.role === "tool").length;
    const script: Script =
      done >= TURNS
        ? { model: "m", text: ["done"], usage: { input: 1, output: 1 } }
        : { model: "m", calls: [{ id: `c${done}`, name: "step", fragments: [`{"n": ${done}}`] }], usage: { input: 1, output: 1 } };
    return sendJson(res, 200, local.body(script));
  });
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", LOCAL_LLM_BASE_URL: server.url };
  delete env.FORCE_COLOR;
  writeFileSync(join(dir, "noop.harn"), 'pipeline main() { println("x") }\n');
  writeFileSync(join(dir, "plain.harn"), 'pipeline main() { println(len(llm_call("go", nil, {provider: "local", model: "big"}).text)) }\n');
  writeFileSync(
    join(dir, "events.harn"),
    'pipeline main() {\n  let ch = channel("n", 1000000)\n  let r = llm_call("go", nil, {provider: "local", model: "big", on_event: { ev -> send(ch, 1) }})\n  println(len(r.text))\n}\n',
  );
  writeFileSync(
    join(dir, "turns.harn"),
    `tool step(n: int) -> int {\n  description "step"\n  return n\n}\npipeline main() {\n  let r = agent_loop("go", nil, {provider: "local", model: "m", tools: step, tool_format: "native", max_iterations: ${TURNS + 5}, stream: false})\n  println(r.status + " " + to_string(r.llm.iterations))\n}\n`,
  );
  const rows: [string, string[]][] = [
    ["harn run, no model call (start-up)", ["run", "noop.harn"]],
    [`llm_call, ${DELTAS} streamed deltas`, ["run", "plain.harn"]],
    [`llm_call, ${DELTAS} deltas, on_event closure per event`, ["run", "events.harn"]],
    [`harn run --stream, ${DELTAS} deltas to stdout`, ["run", "--stream", "plain.harn"]],
    [`agent_loop, ${TURNS + 1} turns with a tool call each`, ["run", "turns.harn"]],
  ];
  for (const [what, args] of rows) {
    await timeRun(dir, args, env); // warm the file cache
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await timeRun(dir, args, env));
    if (runs.some((r) => r.code !== 0)) throw new Error(`${what}: harn failed`);
    const best = Math.min(...runs.map((r) => r.ms));
    console.log(`${what.padEnd(56)} best of 3: ${best.toFixed(0).padStart(5)} ms`);
  }
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
