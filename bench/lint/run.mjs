#!/usr/bin/env node
/**
 * bench/lint — `harn lint` throughput on a generated project.
 *
 * Generates (once per run of this script, in a temp dir) a project of
 * FILES files with about 100,000 lines of ordinary Harn in total —
 * documented pub fns with loops and branches, background walks with their
 * cleanup, closures, dict/list literals, match, pipelines — then times the
 * whole `harn lint DIR` process (parse included, start-up included) RUNS
 * times after one untimed warm-up, and reports the median and lines/s —
 * as it runs by default (worker threads for large runs) and pinned to one
 * thread (HARN_LINT_THREADS=1).
 * Further rows time the same work in process (no start-up), split into
 * parsing and linting, to show where the time goes.
 *
 *   pnpm build && node bench/lint/run.mjs [--runs N] [--files N] [--lines N]
 *   node bench/lint/run.mjs --out DIR     (only generate the project)
 *
 * `--shape small` is the many-small-files project instead (issue 18 item
 * 8): FILES (default 9,000) files of about 11 lines, every tenth importing
 * the one before. It times `harn lint DIR`, one thread, a `--cache` run
 * that fills the cache, and the unchanged re-run that uses it; with
 * `--eslint DIR` (a directory where `npm i --prefix DIR eslint@9
 * @eslint/js@9` installed ESLint) the same code in JavaScript goes through
 * ESLint 9 with its recommended rules, without and with `--cache`, in the
 * same run:
 *
 *   node bench/lint/run.mjs --shape small [--eslint DIR] [--runs N] [--baseline HARN]
 *
 * `--baseline HARN` times another build's `harn` (a copy of an older
 * cli/bin and cli/dist) in turn with this one, one thread each: before
 * and after in one run.
 *
 * The goals: at least 100,000 lines/s for the whole process (issue 9);
 * 150,000 lines/s on the small shape and a cached re-run under 0.3 s
 * (issue 18).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { runSmall } from "./small.mjs";
import { unit } from "./units.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const OPTIONS = {
  runs: { type: "string", default: "5" },
  files: { type: "string" },
  shape: { type: "string", default: "large" },
  eslint: { type: "string" },
  lines: { type: "string", default: "100000" },
  /** Only generate the project into this directory (for profiling). */
  out: { type: "string" },
  /** --shape small: another build's `harn` (e.g. a copy of an older
   * cli/bin + cli/dist) timed in turn with this one. */
  baseline: { type: "string" },
};
let values;
try {
  ({ values } = parseArgs({ options: OPTIONS }));
} catch (e) {
  console.error(`bench/lint: ${e.message}\nusage: node bench/lint/run.mjs [--shape large|small] [--runs N] [--files N] [--lines N] [--out DIR] [--eslint DIR] [--baseline HARN]`);
  process.exit(2);
}
const runs = Math.max(1, Number(values.runs));
const small = values.shape === "small";
if (!small && values.shape !== "large") {
  console.error("bench/lint: --shape is large or small");
  process.exit(2);
}
const fileCount = Math.max(1, Number(values.files ?? (small ? 9000 : 200)));
const targetLines = Math.max(100, Number(values.lines));

const harnBin = join(repo, "cli", "bin", "harn.cjs");
if (!existsSync(join(repo, "cli", "dist", "harn.cjs"))) {
  console.error("bench/lint: cli/dist/harn.cjs is missing; run `pnpm build` first");
  process.exit(2);
}

function generate(dir) {
  const unitLines = unit(0, 0).split("\n").length - 1;
  const unitsPerFile = Math.max(1, Math.round(targetLines / fileCount / unitLines));
  let lines = 0;
  for (let f = 0; f < fileCount; f++) {
    let text = "";
    for (let i = 0; i < unitsPerFile; i++) text += unit(f, i);
    text += `pipeline main() {\n  let out = collect_${f}_0("src")\n  log(out)\n}\n`;
    lines += text.split("\n").length - 1;
    writeFileSync(join(dir, `module_${String(f).padStart(4, "0")}.harn`), text);
  }
  return lines;
}

if (small) {
  await runSmall({ harnBin, files: fileCount, runs, eslint: values.eslint ?? null, out: values.out ?? null, baseline: values.baseline ? resolve(values.baseline) : null });
  process.exit(0);
}

if (values.out) {
  console.log(`bench/lint: ${generate(values.out)} lines in ${values.out}`);
  process.exit(0);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const work = mkdtempSync(join(tmpdir(), "harn-bench-lint-"));
try {
  const lines = generate(work);
  console.log(`bench/lint: ${fileCount} files, ${lines} lines in ${work}`);

  // GNU time, when present, adds the process's CPU time: on a machine
  // shared with other work the wall clock alone says little
  const gnuTime = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;
  const once = (threads) => {
    // the installed command, through its shebang (cli/bin/harn.cjs)
    const cmd = gnuTime ?? harnBin;
    const args = gnuTime ? ["-f", "%U %S", harnBin, "lint", work] : ["lint", work];
    const env = { ...process.env };
    if (threads) env.HARN_LINT_THREADS = String(threads);
    else delete env.HARN_LINT_THREADS;
    const t0 = performance.now();
    const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 64 << 20, env });
    const ms = performance.now() - t0;
    if (r.status !== 0) {
      console.error(r.stderr.slice(0, 2000));
      throw new Error(`harn lint exited ${r.status}`);
    }
    let cpuMs = NaN;
    if (gnuTime) {
      const [user, sys] = r.stderr.trimEnd().split("\n").pop().split(" ").map(Number);
      cpuMs = (user + sys) * 1000;
    }
    return { ms, cpuMs, findings: (r.stderr.match(/^(warning|error|info): /gm) ?? []).length };
  };
  const warm = once();
  console.log(`bench/lint: warm-up run reported ${warm.findings} finding(s)`);
  const samplesOut = Array.from({ length: runs }, () => once());
  const ms = median(samplesOut.map((x) => x.ms));
  const cpuMs = median(samplesOut.map((x) => x.cpuMs));
  const serial = Array.from({ length: runs }, () => once(1));
  const serialMs = median(serial.map((x) => x.ms));
  const serialCpuMs = median(serial.map((x) => x.cpuMs));

  // in process: parse + lint only (the packages are TypeScript source:
  // bundle the two entry points with esbuild first, as the CLI build does)
  const { build } = await import("esbuild");
  const entry = join(work, "..", `${work.split("/").pop()}-entry.mjs`);
  await build({
    stdin: { contents: 'export { parse } from "@harn/parser"; export { lintProgram } from "@harn/lint";', resolveDir: here },
    outfile: entry,
    bundle: true,
    platform: "node",
    format: "esm",
    logLevel: "warning",
  });
  const { parse, lintProgram } = await import(entry);
  rmSync(entry, { force: true });
  const sources = readdirSync(work).map((n) => readFileSync(join(work, n), "utf8"));
  const inProc = () => {
    const t0 = performance.now();
    const parsed = sources.map((s) => parse(s));
    const t1 = performance.now();
    parsed.forEach((r, i) => lintProgram(r.program, { source: sources[i], tokens: r.tokens }));
    const t2 = performance.now();
    return { parse: t1 - t0, lint: t2 - t1 };
  };
  inProc();
  const samples = Array.from({ length: runs }, inProc);
  const parseMs = median(samples.map((x) => x.parse));
  const lintMs = median(samples.map((x) => x.lint));

  const rate = (t) => Math.round(lines / (t / 1000)).toLocaleString("en-US");
  console.log("");
  console.log("| measure | median ms | lines/s |");
  console.log("|---|---:|---:|");
  console.log(`| \`harn lint DIR\` (whole process, ${runs} runs, wall) | ${ms.toFixed(0)} | ${rate(ms)} |`);
  if (gnuTime) console.log(`| \`harn lint DIR\` (whole process, CPU user+sys) | ${cpuMs.toFixed(0)} | ${rate(cpuMs)} |`);
  console.log(`| \`HARN_LINT_THREADS=1 harn lint DIR\` (one thread, wall) | ${serialMs.toFixed(0)} | ${rate(serialMs)} |`);
  if (gnuTime) console.log(`| \`HARN_LINT_THREADS=1 harn lint DIR\` (one thread, CPU) | ${serialCpuMs.toFixed(0)} | ${rate(serialCpuMs)} |`);
  console.log(`| parse + lint in process | ${(parseMs + lintMs).toFixed(0)} | ${rate(parseMs + lintMs)} |`);
  console.log(`| of which parse (lexer + parser) | ${parseMs.toFixed(0)} | ${rate(parseMs)} |`);
  console.log(`| of which lint (all rules, one walk) | ${lintMs.toFixed(0)} | ${rate(lintMs)} |`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
