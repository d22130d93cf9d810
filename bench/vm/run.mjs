#!/usr/bin/env node
// The evaluator benchmark: each workload in workloads/ has a Harn script, a
// CPython 3 twin and a plain-JS twin. Every program runs as a fresh process;
// a runtime's net time is its best time on the workload minus its best
// time on the empty program, both taken from the same rounds: each round runs
// every runtime's empty program and then its workload, so a burst of someone
// else's load hits start-up and workload alike instead of skewing one
// subtraction for the whole run. Prints per-workload net times, the ratios harn/CPython and
// harn/Node, and their geometric means.
//
//   node bench/vm/run.mjs [--runs N] [--filter SUBSTRING] [--harn PATH]
//
// `--harn PATH` runs another build's harn (a copy of cli/bin and cli/dist
// kept from before a change), for before/after comparisons in one run.
//
// Run `pnpm build` first (harn runs from cli/dist).
//
// Times are CPU time (user + sys, from bash's `time`) by default: on the
// shared 2-core machines wall time swings with other people's load, CPU time
// much less. `--wall` uses wall-clock time instead.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const dir = join(here, "workloads");

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const harn = opt("--harn", join(here, "..", "..", "cli", "bin", "harn.cjs"));
const runs = Number(opt("--runs", "3"));
const wall = args.includes("--wall");
const filter = opt("--filter", "");

const runtimes = {
  // the installed command, through its shebang (cli/bin/harn.cjs)
  harn: (base) => [harn, ["run", base + ".harn"]],
  python: (base) => ["python3", [base + ".py"]],
  node: (base) => [process.execPath, [base + ".js"]],
};

function once(cmd, argv) {
  const r = spawnSync("bash", ["-c", 'TIMEFORMAT="@@%3R %3U %3S"; time "$@"', "bash", cmd, ...argv], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(" ")} failed: ${r.stderr}`);
  const m = /@@([\d.]+) ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr);
  if (!m) throw new Error(`no timing for ${cmd} ${argv.join(" ")}: ${r.stderr}`);
  return { ms: wall ? Number(m[1]) * 1000 : (Number(m[2]) + Number(m[3])) * 1000, out: r.stdout.trim() };
}

/** Best workload and best empty-program time per runtime, over interleaved rounds. */
function measure(base) {
  const r = {};
  for (const name of Object.keys(runtimes)) r[name] = { ms: Infinity, empty: Infinity, out: "" };
  for (let i = 0; i < runs; i++) {
    for (const [name, mk] of Object.entries(runtimes)) {
      const e = once(...mk(join(dir, "empty")));
      const w = once(...mk(base));
      r[name].empty = Math.min(r[name].empty, e.ms);
      r[name].ms = Math.min(r[name].ms, w.ms);
      r[name].out = w.out;
    }
  }
  return r;
}

const names = [...new Set(readdirSync(dir).filter((f) => f.endsWith(".harn") && f !== "empty.harn").map((f) => f.slice(0, -5)))]
  .filter((n) => n.includes(filter))
  .sort();

const pad = (s, n) => String(s).padEnd(n);
const num = (x) => x.toFixed(1).padStart(8);
const ratio = (x) => x.toFixed(2).padStart(7);
console.log(`${wall ? "wall" : "cpu (user+sys)"} time, net of each runtime's empty program in the same rounds; best of ${runs}`);
console.log(`${pad("workload", 20)} ${"harn ms".padStart(8)} ${"py ms".padStart(8)} ${"node ms".padStart(8)} ${"h/py".padStart(7)} ${"h/node".padStart(7)}`);
const rp = [];
const rn = [];
for (const n of names) {
  const base = join(dir, n);
  const r = measure(base);
  if (r.harn.out !== r.python.out || r.harn.out !== r.node.out) {
    console.log(`${pad(n, 20)} OUTPUT MISMATCH: harn=${r.harn.out} python=${r.python.out} node=${r.node.out}`);
    process.exitCode = 1;
    continue;
  }
  // Net times are floored at 0.5 ms so a ratio never divides by ~zero.
  const h = Math.max(0.5, r.harn.ms - r.harn.empty);
  const p = Math.max(0.5, r.python.ms - r.python.empty);
  const j = Math.max(0.5, r.node.ms - r.node.empty);
  rp.push(h / p);
  rn.push(h / j);
  console.log(`${pad(n, 20)} ${num(h)} ${num(p)} ${num(j)} ${ratio(h / p)} ${ratio(h / j)}`);
}
const geo = (xs) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
if (rp.length > 0) console.log(`${pad("geometric mean", 20)} ${"".padStart(8)} ${"".padStart(8)} ${"".padStart(8)} ${ratio(geo(rp))} ${ratio(geo(rn))}`);
