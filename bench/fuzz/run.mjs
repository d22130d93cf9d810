// The fuzz supervisor: runs fuzz.mjs (niced, one process at a time) in
// bursts of COUNT inputs from consecutive seeds, and saves the input of a
// worker that stops reporting progress (a hang) or dies (a crash, an
// out-of-memory) to OUT/bugs/. Usage:
//   node bench/fuzz/build.mjs && node bench/fuzz/run.mjs [--bursts N] [--count N] [--seed N] [--stages parse,check,viz,lint,fmt,run]
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    bursts: { type: "string", default: "5" },
    count: { type: "string", default: "300" },
    seed: { type: "string", default: String(Date.now() % 1e6) },
    out: { type: "string", default: join(here, "out") },
    stages: { type: "string", default: "parse,check,viz,lint,fmt,run" },
  },
});
const bursts = Number(args.bursts);
const { count, out, stages } = args;
let seed = Number(args.seed);
/** No progress line for this long means the worker hangs. */
const HANG_MS = 20_000;
mkdirSync(join(out, "bugs"), { recursive: true });

const classes = new Map();
const totals = {};
for (let b = 0; b < bursts; b++, seed++) {
  const started = Date.now();
  const child = spawn("nice", ["-n", "10", process.execPath, "--max-old-space-size=1024", join(here, "fuzz.mjs"), "--seed", String(seed), "--count", count, "--out", out, "--stages", stages], { stdio: ["ignore", "pipe", "pipe"] });
  let last = Date.now();
  let buf = "";
  let stderr = "";
  child.stderr.on("data", (d) => void (stderr = (stderr + d).slice(-4000)));
  child.stdout.on("data", (d) => {
    last = Date.now();
    buf += d;
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.startsWith("TALLY ")) {
        for (const [stage, t] of Object.entries(JSON.parse(line.slice(6)))) {
          const tt = (totals[stage] ??= { ok: 0, clean: 0, bug: 0 });
          for (const k of Object.keys(tt)) tt[k] += t[k];
        }
      } else if (line.startsWith("CLASS ")) {
        const m = /^CLASS (\d+) (.*)$/.exec(line);
        classes.set(m[2], (classes.get(m[2]) ?? 0) + Number(m[1]));
      } else if (line.startsWith("BUG unhandled")) console.log(`seed ${seed}: ${line}`);
    }
  });
  let hung = false;
  const watch = setInterval(() => {
    if (Date.now() - last > HANG_MS) {
      hung = true;
      child.kill("SIGKILL");
    }
  }, 1000);
  const code = await new Promise((res) => child.on("close", (c, sig) => res(c ?? sig)));
  clearInterval(watch);
  if (hung || code !== 0) {
    const stage = existsSync(join(out, "current.stage")) ? readFileSync(join(out, "current.stage"), "utf8") : "?";
    const name = `${hung ? "hang" : "crash"}-${stage}-seed${seed}`;
    copyFileSync(join(out, "current.harn"), join(out, "bugs", `${name}.harn`));
    writeFileSync(join(out, "bugs", `${name}.txt`), `${readFileSync(join(out, "current.info"), "utf8")}\nexit ${code}\n${stderr}`);
    console.log(`seed ${seed}: ${hung ? "HANG" : `CRASH (${code})`} in ${stage} -> bugs/${name}.harn`);
    const key = `${stage}: ${hung ? "hang" : "crash"}`;
    classes.set(key, (classes.get(key) ?? 0) + 1);
  }
  console.log(`burst seed ${seed}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
console.log("inputs per stage:", JSON.stringify(totals));
for (const [k, n] of [...classes].sort((a, b) => b[1] - a[1])) console.log(`${String(n).padStart(5)}  ${k}`);
