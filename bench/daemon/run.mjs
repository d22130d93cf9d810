#!/usr/bin/env node
/**
 * bench/daemon — daemon trigger throughput with full durability and
 * trigger-to-handling latency (mock provider), against the machine's fsync
 * rate measured in the same run.
 *
 *   pnpm build && node bench/daemon/run.mjs [--events N] [--producers P] [--samples S] [--dir DIR]
 *
 * fsync-bound rate: a loop of write + fsync + rename of a file the size of
 * the daemon's metadata (the mean of its size at the start and the end of
 * the trigger burst), in the same directory the daemon writes to. It is
 * measured before and after the harn workload and averaged, since the
 * shared disk's speed drifts.
 *
 * The workload (workload.harn) measures, in one `harn` process:
 *   1. sequential triggers from one task into a daemon whose loop is busy
 *      (so the cost is the durable enqueue: temp write + fsync + rename +
 *      directory fsync per trigger);
 *   2. the same number of triggers from P concurrent tasks (group commit:
 *      triggers that arrive during a commit share the next one);
 *   3. trigger-to-handling latency: one event at a time into an idle
 *      daemon, until the model's tool call for it runs (includes making the
 *      event durable, delivery, one mock turn, the tool);
 *   4. sustained: one producer while the daemon handles every event (the
 *      loop's snapshot commits share the disk).
 * The goal is triggers/s ≥ 50% of the fsync-bound rate.
 */
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, fsyncSync, mkdtempSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const { values } = parseArgs({
  options: {
    events: { type: "string", default: "300" },
    producers: { type: "string", default: "8" },
    samples: { type: "string", default: "50" },
    dir: { type: "string" },
  },
});
const events = Number(values.events);
const producers = Number(values.producers);
const samples = Number(values.samples);

const harn = join(repo, "cli", "dist", "harn.mjs");
if (!existsSync(harn)) {
  console.error(`bench/daemon: ${harn} is missing; run \`pnpm build\` first`);
  process.exit(2);
}

const base = mkdtempSync(join(values.dir ?? tmpdir(), "harn-bench-daemon-"));

/** write + fsync + rename of a `size`-byte file, `n` times; ops/s. */
function fsyncRate(size, n = 200) {
  const dir = join(base, "fsync");
  spawnSync("mkdir", ["-p", dir]);
  const buf = Buffer.alloc(size, 0x61);
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

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor((s.length - 1) / 2)];
}
function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

try {
  // A first estimate of the metadata size for the warm-up measurement.
  const before = fsyncRate(4096);
  const r = spawnSync(process.execPath, [harn, "run", join(here, "workload.harn"), "--", base, String(events), String(producers), String(samples)], {
    encoding: "utf8",
  });
  if (r.status !== 0) {
    console.error(`bench/daemon: the workload failed (exit ${r.status}):\n${r.stderr}${r.stdout}`);
    process.exit(1);
  }
  const w = JSON.parse(r.stdout.trim().split("\n").at(-1));
  const size = Math.round((w.meta_bytes_start + w.meta_bytes_end) / 2);
  const after = fsyncRate(size);
  const again = fsyncRate(size);
  const fsyncBound = (after + again) / 2;

  const seq = (events / w.sequential_ms) * 1000;
  const conc = (w.concurrent_events / w.concurrent_ms) * 1000;
  const sustained = (events / w.sustained_trigger_ms) * 1000;
  const handled = (events / w.sustained_handled_ms) * 1000;
  const row = (label, value, ratio) => console.log(`${label.padEnd(44)} ${value.padStart(12)}${ratio === undefined ? "" : `   ${(ratio * 100).toFixed(0).padStart(4)}% of fsync-bound`}`);

  console.log(`bench/daemon: ${events} events, ${producers} producers, ${samples} latency samples, metadata ~${size} bytes, in ${base}`);
  row("fsync-bound rate (write+fsync+rename)", `${fsyncBound.toFixed(0)} /s`);
  row("  (first estimate, 4 KiB, before the run)", `${before.toFixed(0)} /s`);
  row("triggers, 1 producer (durable each)", `${seq.toFixed(0)} /s`, seq / fsyncBound);
  row(`triggers, ${producers} producers (group commit)`, `${conc.toFixed(0)} /s`, conc / fsyncBound);
  row("triggers, 1 producer while handling", `${sustained.toFixed(0)} /s`, sustained / fsyncBound);
  row("events handled while triggering", `${handled.toFixed(0)} /s`);
  row("trigger returns (durable), median / p95", `${median(w.durable_ms)} / ${pct(w.durable_ms, 95)} ms`);
  row("trigger-to-handling latency, median / p95", `${median(w.latency_ms)} / ${pct(w.latency_ms, 95)} ms`);
} finally {
  rmSync(base, { recursive: true, force: true });
}
