/**
 * Cancel latency of a running background walk, measured in process (the
 * runner bundles this file with esbuild and runs it with node):
 *
 * - cancel: wall time of the `cancel_handle` call itself;
 * - stop: from the cancel until the walk has no filesystem request left in
 *   flight (`process.getActiveResourcesInfo()` lists libuv's pending
 *   `FSReqCallback`s), i.e. until it really stopped touching the disk.
 *
 * Usage: node probe.mjs ROOT RUNS — prints one JSON line.
 */
import { HDict, isPromise, Runtime, type CallContext, type Value } from "@harn/vm";
import { installStdlib } from "@harn/stdlib";

const [root, runsText] = process.argv.slice(2);
const runs = Number(runsText ?? "7");

const rt = new Runtime({ stdout: { write() {} }, stderr: { write() {} }, cwd: process.cwd(), env: process.env });
installStdlib(rt);
const ctx: CallContext = {
  runtime: rt,
  call: () => null,
  prepare: () => ({ one: () => null, two: () => null }),
  out() {},
  err() {},
  signal: new AbortController().signal,
  span: null,
  task: null,
};

async function call(name: string, args: Value[]): Promise<Value> {
  const r = rt.builtins.get(name)!(args, ctx);
  return isPromise<Value>(r) ? await r : r;
}

const fsRequestsInFlight = () => process.getActiveResourcesInfo().filter((r) => r === "FSReqCallback").length;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nextTurn = () => new Promise((r) => setImmediate(r));

const cancelMs: number[] = [];
const stopMs: number[] = [];
const inFlightAtCancel: number[] = [];
for (let i = 0; i < runs; i++) {
  const env = await call("walk_dir", [root!, HDict.of({ long_running: true })]);
  await sleep(40); // well inside the walk, which takes a few hundred ms
  inFlightAtCancel.push(fsRequestsInFlight());
  const t0 = performance.now();
  const r = (await call("cancel_handle", [env])) as HDict;
  const t1 = performance.now();
  if (r.get("cancelled") !== true) throw new Error("the walk had already finished: use a bigger tree");
  while (fsRequestsInFlight() > 0) await nextTurn();
  const t2 = performance.now();
  cancelMs.push(t1 - t0);
  stopMs.push(t2 - t0);
  await sleep(20);
}
await rt.shutdown();
console.log(JSON.stringify({ cancelMs, stopMs, inFlightAtCancel }));
