#!/usr/bin/env node
/**
 * bench/daemon — daemon trigger throughput with full durability and
 * trigger-to-handling latency (mock provider), against the machine's fsync
 * rate measured in the same run.
 *
 *   pnpm build && node bench/daemon/run.mjs [--events N] [--bursts B] [--producers P] [--samples S] [--rounds R] [--dir DIR]
 *
 * fsync-bound rate: a loop of write + fsync + rename of a file the size of
 * the daemon's metadata at that moment, in the same file system. The
 * shared disk's fsync rate swings by 10x from one second to the next here,
 * so the comparison is local in time: the triggers go in bursts, and
 * before and after each burst the runner performs as many write + fsync +
 * rename operations as the burst has triggers; each burst is compared
 * with the mean rate of the two loops around it, and the table shows the
 * median over all bursts of all rounds.
 *
 * Phases (workload.harn, one `harn` process per phase and round; start-up
 * and the waits between bursts are not timed):
 *   sequential  one task triggers into a daemon whose loop is busy, so the
 *               cost is the durable enqueue alone (temp write + fsync +
 *               rename + directory fsync: two journal commits per trigger
 *               where the baseline loop needs one, so about 50% is the
 *               ceiling for a lone producer);
 *   concurrent  P tasks trigger at once (group commit: triggers arriving
 *               during a commit share the next one);
 *   sustained   one task triggers while the daemon handles each event (the
 *               loop's snapshot commits share the disk); a burst ends when
 *               its events are handled;
 *   latency     one event at a time into an idle daemon, from the
 *               daemon_trigger call until the model's tool call for it
 *               runs (durable enqueue + delivery + one mock turn + the tool).
 * Goal: triggers/s at least 50% of the fsync-bound rate.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, fsyncSync, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const { values } = parseArgs({
  options: {
    events: { type: "string", default: "240" },
    bursts: { type: "string", default: "8" },
    producers: { type: "string", default: "8" },
    samples: { type: "string", default: "40" },
    rounds: { type: "string", default: "3" },
    dir: { type: "string" },
  },
});
const events = Number(values.events);
const bursts = Number(values.bursts);
const producers = Number(values.producers);
const samples = Number(values.samples);
const rounds = Number(values.rounds);

const harn = join(repo, "cli", "dist", "harn.cjs");
if (!existsSync(harn)) {
  console.error(`bench/daemon: ${harn} is missing; run \`pnpm build\` first`);
  process.exit(2);
}

const base = mkdtempSync(join(values.dir ?? tmpdir(), "harn-bench-daemon-"));

/** `n` times write + fsync + rename of a `size`-byte file; ops/s. */
function fsyncRate(size, n) {
  const dir = join(base, "fsync");
  mkdirSync(dir, { recursive: true });
  const buf = Buffer.alloc(Math.max(1, Math.round(size)), 0x61);
  const tmp = join(dir, "state.json.tmp");
  const live = join(dir, "state.json");
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const fd = openSync(tmp, "w", 0o600);
    writeSync(fd, buf);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, live);
  }
  return n / ((performance.now() - t0) / 1000);
}

let runs = 0;

/** Run one phase; for bursty phases, returns [{rate, bound, handledRate}]. */
async function phase(name) {
  const id = ++runs;
  const root = join(base, `${name}-${id}`);
  const sync = join(base, `sync-${id}`);
  mkdirSync(sync);
  const n = name === "latency" ? samples : events;
  const child = spawn(process.execPath, [harn, "run", join(here, "workload.harn"), "--", name, root, String(n), String(bursts), String(producers), sync], {
    stdio: ["ignore", "pipe", "pipe"],
  });
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
    let size = 1024;
    const per = Math.floor(events / bursts);
    for (let b = 1; b <= bursts; b++) {
      const before = fsyncRate(size, per);
      writeFileSync(join(sync, `go-${b}`), "");
      const w = await next();
      size = w.meta_bytes;
      const after = fsyncRate(size, per);
      out.push({ rate: (w.events / w.ms) * 1000, bound: (before + after) / 2, handledRate: (w.events / w.handled_ms) * 1000 });
    }
  }
  const code = await exited;
  if (code !== 0) {
    console.error(`bench/daemon: phase ${name} failed (exit ${code}):\n${stderr}`);
    process.exit(1);
  }
  rmSync(root, { recursive: true, force: true });
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
  const results = { sequential: [], concurrent: [], sustained: [] };
  const durable = [];
  const latency = [];
  for (let round = 0; round < rounds; round++) {
    for (const name of ["sequential", "concurrent", "sustained"]) results[name].push(...(await phase(name)));
    const l = await phase("latency");
    durable.push(...l.durable_ms);
    latency.push(...l.latency_ms);
  }
  const bounds = Object.values(results).flat().map((r) => r.bound);
  const row = (label, value, ratio) =>
    console.log(`${label.padEnd(46)} ${value.padStart(14)}${ratio === undefined ? "" : `   ${(ratio * 100).toFixed(0).padStart(4)}% of fsync-bound`}`);
  console.log(
    `bench/daemon: ${events} events in ${bursts} bursts per phase, ${producers} producers, ${samples} latency samples, ${rounds} rounds (medians over bursts), in ${base}`,
  );
  row("fsync-bound rate (write+fsync+rename)", `${median(bounds).toFixed(0)} /s`);
  row("  range over the run", `${Math.min(...bounds).toFixed(0)}-${Math.max(...bounds).toFixed(0)} /s`);
  const show = (label, xs) => row(label, `${median(xs.map((x) => x.rate)).toFixed(0)} /s`, median(xs.map((x) => x.rate / x.bound)));
  show("triggers, 1 producer (each durable)", results.sequential);
  show(`triggers, ${producers} producers (group commit)`, results.concurrent);
  show("triggers, 1 producer while handling", results.sustained);
  row("  events handled in those bursts", `${median(results.sustained.map((x) => x.handledRate)).toFixed(0)} /s`);
  row("daemon_trigger returns (durable), median/p95", `${median(durable)} / ${pct(durable, 95)} ms`);
  row("trigger-to-handling latency, median/p95", `${median(latency)} / ${pct(latency, 95)} ms`);
} finally {
  rmSync(base, { recursive: true, force: true });
}
