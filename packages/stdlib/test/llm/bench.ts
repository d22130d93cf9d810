/**
 * How fast the provider layer folds a stream, and what one call costs on
 * top of the network, against a local server in this process.
 *
 *   pnpm exec esbuild packages/stdlib/test/llm/bench.ts --bundle --platform=node \
 *     --format=esm --outfile=/tmp/llm-bench.mjs --log-level=warning && node /tmp/llm-bench.mjs
 *
 * Not a test: nothing here asserts a time.
 */

import { LlmClient } from "../../src/llm";
import { FORMATS, request } from "./helpers";
import { sendStream, startServer } from "./server";
import type { Script } from "./wire";

const DELTAS = 20_000;
const CALLS = 300;

async function main(): Promise<void> {
  const big: Script = {
    model: "bench",
    text: Array.from({ length: DELTAS }, (_, i) => `tok${i} `),
    calls: [{ id: "call_1", name: "write", fragments: Array.from({ length: 2000 }, (_, i) => (i === 0 ? '{"s": "' : i === 1999 ? 'x"}' : "x")) }],
    usage: { input: 1, output: DELTAS },
  };
  const small: Script = { model: "bench", text: ["ok"], usage: { input: 1, output: 1 } };

  for (const format of FORMATS.slice(0, 4)) {
    const bigBody = format.stream(big);
    const smallBody = format.stream(small);
    const server = await startServer((req, res) => sendStream(res, req.path.includes("big") || req.body.model === "big" ? bigBody : smallBody));
    const llm = new LlmClient({ env: format.env(server.url) });

    await llm.completeWithRetries(request(format.provider, { model: "big" })); // warm up
    let t = performance.now();
    let events = 0;
    const res = await llm.completeWithRetries(request(format.provider, { model: "big" }), { onEvent: () => void events++ });
    const bigMs = performance.now() - t;
    if (res.text.length === 0 || res.tool_calls.length !== 1) throw new Error("bench answer incomplete");

    for (let i = 0; i < 20; i++) await llm.completeWithRetries(request(format.provider));
    t = performance.now();
    for (let i = 0; i < CALLS; i++) await llm.completeWithRetries(request(format.provider));
    const perCall = (performance.now() - t) / CALLS;
    const ports = new Set(server.requests.map((r) => r.remotePort)).size;

    console.log(
      `${format.provider.padEnd(17)} ${(bigBody.body.length / 1e6).toFixed(1)} MB stream, ${events} events in ${bigMs.toFixed(0)} ms ` +
        `(${Math.round(events / (bigMs / 1000)).toLocaleString("en")} events/s); small call ${perCall.toFixed(2)} ms; ` +
        `${server.requests.length} requests on ${ports} connections`,
    );
    await server.close();
  }
}

await main();
