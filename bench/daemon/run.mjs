#!/usr/bin/env node
/**
 * bench/daemon — the durable daemon queue against the machine's
 * write+fsync rate, measured in the same run: trigger rate with one and
 * with several producers, at queue depth 0 and at a deep queue; handling
 * rate of a fresh daemon and of one with a long history; trigger latency.
 *
 *   pnpm build && node bench/daemon/run.mjs [--per N] [--steps K] [--depth D] [--history H] [--producers P] [--samples S] [--rounds R] [--dir DIR] [--raw]
 *
 * `--raw` prints every step's line as it comes.
 *
 * The write+fsync rate: a loop appending a line the size of a journal
 * trigger line to a file and fdatasync-ing it, in the same file system
 * (what one durable trigger needs at least). The shared disk's rate
 * swings by 10x from one second to the next here, so every comparison is
 * local in time: what is compared runs interleaved in small steps (the
 * deep and the fresh queue, the aged and the fresh daemon, in one process,
 * taking turns), and before and after each step the runner does as many
 * write+fsync operations as the step has events; a step is compared with
 * the mean rate of those two loops. The table shows medians over all
 * steps of all rounds.
 *
 * Phases (workload.harn, one `harn` process per phase and round):
 *   depth       1 producer into busy daemons (the durable enqueue alone):
 *               one with D events queued, one with (nearly) none;
 *   concurrent  P producers at once into a busy daemon (group commit);
 *   history     events into idle daemons until handled (two durable
 *               writes per event: the trigger and the idle commit): one
 *               that has handled H events, one fresh;
 *   latency     one event at a time, from the daemon_trigger call until
 *               the daemon's tool for it runs.
 * Goals (issue 25): depth D >= 70% of depth 0; history >= 70% of fresh;
 * 1 producer >= 50% of write+fsync.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, fdatasyncSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync, constants } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const { values } = parseArgs({
  options: {
    per: { type: "string", default: "300" },
    depth: { type: "string", default: "5000" },
    history: { type: "string", default: "5000" },
    producers: { type: "string", default: "8" },
    samples: { type: "string", default: "40" },
    steps: { type: "string", default: "10" },
    raw: { type: "boolean", default: false },
    rounds: { type: "string", default: "3" },
    dir: { type: "string" },
  },
});
const per = Number(values.per);
const depth = Number(values.depth);
const history = Number(values.history);
const producers = Number(values.producers);
const samples = Number(values.samples);
const rounds = Number(values.rounds);
const steps = Number(values.steps);

const harn = join(repo, "cli", "dist", "harn.cjs");
if (!existsSync(harn)) {
  console.error(`bench/daemon: ${harn} is missing; run \`pnpm build\` first`);
  process.exit(2);
}

const base = mkdtempSync(join(values.dir ?? tmpdir(), "harn-bench-daemon-"));
/** A journal trigger line of the workload (`{"op":"trigger",…,"payload":{"i":N}}`). */
const LINE = Buffer.from(`${JSON.stringify({ op: "trigger", seq: 1234, enqueued_at: new Date().toISOString(), payload: { i: 1234 } })}\n`);

/** `n` appends of a journal-sized line, each followed by fdatasync; ops/s. */
function writeFsyncRate(n) {
  const dir = join(base, "fsync");
  mkdirSync(dir, { recursive: true });
  const fd = openSync(join(dir, "log"), constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_TRUNC, 0o600);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    writeSync(fd, LINE);
    fdatasyncSync(fd);
  }
  const rate = n / ((performance.now() - t0) / 1000);
  closeSync(fd);
  return rate;
}

let runs = 0;

/** Run one phase; stepped phases return their steps' lines, each with
 * `bound` (the local write+fsync rate) added. */
async function phase(name) {
  const id = ++runs;
  const root = join(base, `${name}-${id}`);
  const sync = join(base, `sync-${id}`);
  mkdirSync(sync);
  const args = [harn, "run", join(here, "workload.harn"), "--", name, root, String(per), String(depth), String(history), String(producers), String(samples), sync, String(steps)];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const r = await lines.next();
    if (r.done) {
      const code = await exited;
      console.error(`bench/daemon: phase ${name} ended early (exit ${code}):\n${stderr}`);
      process.exit(1);
    }
    return JSON.parse(r.value);
  };
  let out;
  if (name === "latency") out = await next();
  else {
    out = [];
    const n = name === "concurrent" ? 1 : steps;
    const ops = name === "concurrent" ? per : Math.floor(per / steps);
    for (let s = 1; s <= n; s++) {
      const before = writeFsyncRate(ops);
      writeFileSync(join(sync, `go-${s}`), "");
      const w = await next();
      const after = writeFsyncRate(ops);
      out.push({ ...w, bound: (before + after) / 2 });
    }
  }
  const code = await exited;
  if (code !== 0) {
    console.error(`bench/daemon: phase ${name} failed (exit ${code}):\n${stderr}`);
    process.exit(1);
  }
  return out;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor((s.length - 1) / 2)];
};
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};

try {
  const depthSteps = [];
  const concurrent = [];
  const historySteps = [];
  const durable = [];
  const latency = [];
  for (let round = 0; round < rounds; round++) {
    depthSteps.push(...(await phase("depth")));
    if (values.raw) console.log(JSON.stringify(depthSteps));
    concurrent.push(...(await phase("concurrent")));
    historySteps.push(...(await phase("history")));
    if (values.raw) console.log(JSON.stringify(historySteps));
    const l = await phase("latency");
    durable.push(...l.durable_ms);
    latency.push(...l.latency_ms);
  }
  const rate = (events, ms) => (events / ms) * 1000;
  const bounds = [...depthSteps, ...concurrent, ...historySteps].map((x) => x.bound);
  const row = (label, value, note = "") => console.log(`${label.padEnd(56)} ${value.padStart(12)}${note}`);
  const pctOf = (xs) => `${(median(xs) * 100).toFixed(0).padStart(4)}%`;
  /** Median rate of `steps`, its share of the local write+fsync rate,
   * and (`vs`) its ratio to the other half of the same steps. */
  const show = (label, steps, rateOf, vs) => {
    const rates = steps.map(rateOf);
    const note = `  ${pctOf(steps.map((x, i) => rates[i] / x.bound))} of write+fsync` + (vs ? `, ${pctOf(steps.map((x, i) => rates[i] / vs.rateOf(x)))} of ${vs.label}` : "");
    row(label, `${median(rates).toFixed(0)} /s`, note);
  };
  const shallow = (x) => rate(x.events, x.shallow_ms);
  const deep = (x) => rate(x.events, x.deep_ms);
  const fresh = (x) => rate(x.events, x.fresh_ms);
  const aged = (x) => rate(x.events, x.aged_ms);
  const h = historySteps[0];
  console.log(`bench/daemon: ${per} events per phase in ${steps} steps, depth ${depth}, history ${history}, ${producers} producers, ${samples} latency samples, ${rounds} rounds (medians over steps), in ${base}`);
  row("write+fsync rate (append a journal line + fdatasync)", `${median(bounds).toFixed(0)} /s`);
  row("  range over the run", `${Math.min(...bounds).toFixed(0)}-${Math.max(...bounds).toFixed(0)} /s`);
  show("triggers, 1 producer, fresh queue", depthSteps, shallow);
  show(`triggers, 1 producer, ${median(depthSteps.map((x) => x.deep_depth))} events queued`, depthSteps, deep, { label: "fresh queue", rateOf: shallow });
  show(`triggers, ${producers} producers (group commit)`, concurrent, (x) => rate(x.events, x.ms));
  show("events handled, fresh daemon", historySteps, fresh);
  show(`events handled, after ${h.history} (${h.messages} messages, ${(h.transcript_bytes / 1e6).toFixed(1)} MB)`, historySteps, aged, { label: "fresh daemon", rateOf: fresh });
  row("daemon_trigger returns (durable), median/p95", `${median(durable)} / ${pct(durable, 95)} ms`);
  row("trigger-to-handling latency, median/p95", `${median(latency)} / ${pct(latency, 95)} ms`);
} finally {
  rmSync(base, { recursive: true, force: true });
}
