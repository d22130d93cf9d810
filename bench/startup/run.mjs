#!/usr/bin/env node
/**
 * bench/startup — what a `harn` process costs before it does any work,
 * against `node -e 0` measured in the same run:
 *
 *   harn --version, harn check ONE-LINE, harn run EMPTY, harn run HELLO
 *
 * Each command runs once untimed, then RUNS times interleaved with the
 * others (so a burst of load from other users hits every row alike); the
 * table shows medians of CPU time (all threads: `perf stat`'s task-clock
 * when perf works here, else user+sys from /usr/bin/time with its 10 ms
 * granularity) and of wall time. CPU time is the steadier figure on a
 * shared machine.
 *
 *   pnpm build && node bench/startup/run.mjs [--runs N]
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
// The installed command, exec'd through its shebang as users run it (its sh
// part defers NODE_EXTRA_CA_CERTS, cli/bin/harn.cjs); it loads the bundle.
const harn = join(here, "..", "..", "cli", "bin", "harn.cjs");
if (!existsSync(join(here, "..", "..", "cli", "dist", "harn.cjs"))) {
  console.error("bench/startup: cli/dist/harn.cjs is missing; run `pnpm build` first");
  process.exit(2);
}
const { values } = parseArgs({ options: { runs: { type: "string", default: "15" } } });
const runs = Math.max(1, Number(values.runs));

const work = mkdtempSync(join(tmpdir(), "harn-bench-startup-"));
const file = (name, text) => {
  const p = join(work, name);
  writeFileSync(p, text);
  return p;
};
const oneLine = file("one.harn", 'log("hello")\n');
const empty = file("empty.harn", "");
const hello = file("hello.harn", 'println("hello")\n');

const rows = [
  { name: "node -e 0", args: [process.execPath, "-e", "0"] },
  { name: "harn --version", args: [harn, "--version"] },
  { name: "harn check one-liner", args: [harn, "check", oneLine] },
  { name: "harn run empty", args: [harn, "run", empty] },
  { name: "harn run println", args: [harn, "run", hello] },
];

const perfWorks = spawnSync("perf", ["stat", "-x,", "-e", "task-clock", process.execPath, "-e", "0"], { encoding: "utf8" }).status === 0;

/** One run of the program `args[0]`: { cpu, wall } in ms. */
function measure(args) {
  const t = performance.now();
  const r = perfWorks
    ? spawnSync("perf", ["stat", "-x,", "-e", "task-clock", ...args], { encoding: "utf8" })
    : spawnSync("/usr/bin/time", ["-f", "%U %S", ...args], { encoding: "utf8" });
  const wall = performance.now() - t;
  if (r.status !== 0) throw new Error(`${args.join(" ")} failed (${r.status}): ${r.stderr}`);
  const last = r.stderr.trim().split("\n").at(-1);
  const cpu = perfWorks ? Number(last.split(",")[0]) : last.split(" ").reduce((s, x) => s + Number(x) * 1000, 0);
  return { cpu, wall };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

try {
  for (const row of rows) {
    measure(row.args);
    row.cpu = [];
    row.wall = [];
  }
  const load = loadavg()[0];
  for (let i = 0; i < runs; i++) {
    for (const row of rows) {
      const m = measure(row.args);
      row.cpu.push(m.cpu);
      row.wall.push(m.wall);
    }
  }
  const base = rows[0];
  const baseCpu = median(base.cpu);
  const baseWall = median(base.wall);
  console.log(`start-up, median of ${runs} (cpu = ${perfWorks ? "perf task-clock" : "user+sys"}); load average ${load.toFixed(1)} -> ${loadavg()[0].toFixed(1)}`);
  console.log(`${"command".padEnd(22)} ${"cpu ms".padStart(8)} ${"x node".padStart(7)} ${"wall ms".padStart(8)} ${"x node".padStart(7)}`);
  for (const row of rows) {
    const c = median(row.cpu);
    const w = median(row.wall);
    console.log(`${row.name.padEnd(22)} ${c.toFixed(1).padStart(8)} ${(c / baseCpu).toFixed(2).padStart(7)} ${w.toFixed(1).padStart(8)} ${(w / baseWall).toFixed(2).padStart(7)}`);
  }
  if (process.env.NODE_EXTRA_CA_CERTS) {
    // Node parses it at start-up (~50 ms of CPU here) in `node -e 0`; harn
    // defers it to its first TLS connection, which none of these rows make.
    console.log(`NODE_EXTRA_CA_CERTS is set: the node -e 0 row includes parsing ${process.env.NODE_EXTRA_CA_CERTS}, the harn rows do not (harn defers it to its first TLS connection); \`env -u NODE_EXTRA_CA_CERTS pnpm bench:startup\` measures node without it`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
