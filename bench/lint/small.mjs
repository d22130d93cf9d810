/**
 * bench/lint --shape small: `harn lint` on many small files, the cached
 * re-run, and ESLint 9 on the same code in JavaScript in the same run
 * (see run.mjs for how to run it).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { small, smallJs } from "./units.mjs";

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Writes both projects; returns the line count of each. */
function generate(dir, files) {
  mkdirSync(join(dir, "harn"), { recursive: true });
  mkdirSync(join(dir, "js"), { recursive: true });
  let harnLines = 0;
  let jsLines = 0;
  for (let f = 0; f < files; f++) {
    const h = small(f);
    const j = smallJs(f);
    harnLines += h.split("\n").length - 1;
    jsLines += j.split("\n").length - 1;
    writeFileSync(join(dir, "harn", `step_${f}.harn`), h);
    writeFileSync(join(dir, "js", `step_${f}.js`), j);
  }
  return { harnLines, jsLines };
}

/** Runs a command once: wall ms and, with GNU time, CPU ms (user + sys). */
function timeOnce(cmd, args, { cwd, env, ok = [0] }) {
  const gnuTime = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;
  const t0 = performance.now();
  const r = spawnSync(gnuTime ?? cmd, gnuTime ? ["-f", "%U %S", cmd, ...args] : args, { cwd, env, encoding: "utf8", maxBuffer: 256 << 20 });
  const ms = performance.now() - t0;
  if (!ok.includes(r.status)) {
    console.error(r.stderr.slice(0, 2000));
    throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}`);
  }
  let cpuMs = NaN;
  if (gnuTime) {
    const [user, sys] = r.stderr.trimEnd().split("\n").pop().split(" ").map(Number);
    cpuMs = (user + sys) * 1000;
  }
  return { ms, cpuMs };
}

/** Median wall and CPU of `runs` runs after `prepare` (untimed) each. */
function timeRuns(runs, run, prepare = () => {}) {
  const xs = [];
  for (let i = 0; i < runs; i++) {
    prepare();
    xs.push(run());
  }
  return { ms: median(xs.map((x) => x.ms)), cpuMs: median(xs.map((x) => x.cpuMs)) };
}

/** Median wall and CPU of `runs` runs of each command, taken in turn
 * (a, b, c, a, b, c, ...) so that all see the same load. */
function timeInTurn(runs, commands) {
  const xs = commands.map(() => []);
  for (let i = 0; i < runs; i++) commands.forEach((run, k) => xs[k].push(run()));
  return xs.map((x) => ({ ms: median(x.map((y) => y.ms)), cpuMs: median(x.map((y) => y.cpuMs)) }));
}

export async function runSmall({ harnBin, files, runs, eslint, out, baseline = null }) {
  const work = out ?? mkdtempSync(join(tmpdir(), "harn-bench-lint-small-"));
  try {
    const { harnLines, jsLines } = generate(work, files);
    console.log(`bench/lint --shape small: ${files} files, ${harnLines} lines of Harn (${jsLines} of JavaScript) in ${work}`);
    if (out) return;
    const harnDir = join(work, "harn");
    const cacheFile = join(work, "harn-lint-cache");
    const env = (threads) => {
      const e = { ...process.env };
      if (threads) e.HARN_LINT_THREADS = String(threads);
      else delete e.HARN_LINT_THREADS;
      return e;
    };
    const harn = (args, threads) => () => timeOnce(harnBin, ["lint", ...args, harnDir], { cwd: work, env: env(threads) });
    const dropCache = () => rmSync(cacheFile, { force: true });
    const rows = [];
    const row = (label, t, lines) => rows.push({ label, ...t, lines });

    harn([])(); // warm-up: the OS file cache
    // rows compared with each other are timed in turn: timed one after the
    // other, the first row measured up to 15% slower than the same command
    // in the next row (7-19% in two runs)
    if (baseline) {
      // before/after in one run: the baseline build and this one, one
      // thread each, in turn
      const base = () => timeOnce(baseline, ["lint", harnDir], { cwd: work, env: env(1) });
      const [all, now, before] = timeInTurn(runs, [harn([]), harn([], 1), base]);
      row("`harn lint DIR`", all, harnLines);
      row("`HARN_LINT_THREADS=1 harn lint DIR`", now, harnLines);
      row(`the same with the baseline (${baseline})`, before, harnLines);
    } else {
      const [all, one] = timeInTurn(runs, [harn([]), harn([], 1)]);
      row("`harn lint DIR`", all, harnLines);
      row("`HARN_LINT_THREADS=1 harn lint DIR`", one, harnLines);
    }
    const cached = ["--cache", "--cache-location", cacheFile];
    row("`harn lint --cache DIR`, no cache yet", timeRuns(runs, harn(cached), dropCache), harnLines);
    harn(cached)();
    row("`harn lint --cache DIR`, unchanged re-run", timeRuns(runs, harn(cached)), harnLines);

    if (eslint) {
      const bin = join(eslint, "node_modules", "eslint", "bin", "eslint.js");
      const js = join(eslint, "node_modules", "@eslint", "js", "src", "index.js");
      if (!existsSync(bin) || !existsSync(js)) throw new Error(`bench/lint: no eslint and @eslint/js under ${eslint}/node_modules`);
      const jsDir = join(work, "js");
      writeFileSync(
        join(jsDir, "eslint.config.mjs"),
        `import js from ${JSON.stringify(pathToFileURL(js).href)};\nexport default [js.configs.recommended, { languageOptions: { globals: { console: "readonly" } } }];\n`,
      );
      const esCache = join(work, "eslintcache");
      const es = (args) => () => timeOnce(process.execPath, [bin, ...args, "."], { cwd: jsDir, env: process.env, ok: [0, 1] });
      es([])();
      row("ESLint 9 (recommended rules) on the same code in JavaScript", timeRuns(runs, es([])), jsLines);
      const esCached = ["--cache", "--cache-location", esCache, "--cache-strategy", "content"];
      es(esCached)();
      row("ESLint 9 `--cache --cache-strategy content`, unchanged re-run", timeRuns(runs, es(esCached)), jsLines);
    }

    const rate = (lines, t) => (Number.isNaN(t) ? "-" : Math.round(lines / (t / 1000)).toLocaleString("en-US"));
    console.log("");
    console.log(`| measure (median of ${runs}) | wall ms | lines/s (wall) | CPU ms | lines/s (CPU) |`);
    console.log("|---|---:|---:|---:|---:|");
    for (const r of rows) {
      console.log(`| ${r.label} | ${r.ms.toFixed(0)} | ${rate(r.lines, r.ms)} | ${Number.isNaN(r.cpuMs) ? "-" : r.cpuMs.toFixed(0)} | ${rate(r.lines, r.cpuMs)} |`);
    }
  } finally {
    if (!out) rmSync(work, { recursive: true, force: true });
  }
}
