#!/usr/bin/env node
// The evaluator benchmark: each workload in workloads/ has a Harn script, a
// CPython 3 twin and a plain-JS twin. Every program runs as a fresh process.
// Each round runs every runtime's empty program and then its workload; a
// runtime's net time is the median over rounds of (workload - empty) in the
// same round. Pairing within a round means a burst of someone else's load
// hits start-up and workload alike; the median (rather than best workload
// minus best empty) keeps one lucky or unlucky start-up from deciding the
// result, which matters for Node's twins: their net times (5-20 ms) are
// smaller than the ~10 ms spread of Node's own start-up. Prints per-workload
// net times, the ratios harn/CPython and harn/Node, and their geometric means.
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
const runs = Number(opt("--runs", "5"));
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

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Per runtime: the median of per-round (workload - empty) times, and the workload's output. */
function measure(base) {
  const r = {};
  for (const name of Object.keys(runtimes)) r[name] = { diffs: [], out: "" };
  for (let i = 0; i < runs; i++) {
    for (const [name, mk] of Object.entries(runtimes)) {
      const e = once(...mk(join(dir, "empty")));
      const w = once(...mk(base));
      r[name].diffs.push(w.ms - e.ms);
      r[name].out = w.out;
    }
  }
  for (const name of Object.keys(r)) r[name].net = median(r[name].diffs);
  return r;
}

const names = [...new Set(readdirSync(dir).filter((f) => f.endsWith(".harn") && f !== "empty.harn").map((f) => f.slice(0, -5)))]
  .filter((n) => n.includes(filter))
  .sort();

const pad = (s, n) => String(s).padEnd(n);
const num = (x) => x.toFixed(1).padStart(8);
const ratio = (x) => x.toFixed(2).padStart(7);
console.log(`${wall ? "wall" : "cpu (user+sys)"} time, median over ${runs} rounds of (workload - empty program) in the same round`);
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
  const h = Math.max(0.5, r.harn.net);
  const p = Math.max(0.5, r.python.net);
  const j = Math.max(0.5, r.node.net);
  rp.push(h / p);
  rn.push(h / j);
  console.log(`${pad(n, 20)} ${num(h)} ${num(p)} ${num(j)} ${ratio(h / p)} ${ratio(h / j)}`);
}
const geo = (xs) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
if (rp.length > 0) console.log(`${pad("geometric mean", 20)} ${"".padStart(8)} ${"".padStart(8)} ${"".padStart(8)} ${ratio(geo(rp))} ${ratio(geo(rn))}`);
