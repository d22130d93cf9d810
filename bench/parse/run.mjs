// `node bench/parse/run.mjs` (or `pnpm bench:parse`): parse speed and
// `harn check` start-up. Reports:
//  - lines/s for lexing and for lex+parse of a generated 20,000-line script
//    (median of several runs after warm-up; goal >= 200,000 lines/s), by
//    wall clock and by process CPU time (steadier on a shared machine), and
//    the chevrotain reference lexer for comparison (with its construction
//    cost, which the production scanner does not have);
//  - `harn check` on a one-line file against `node -e 0`, both measured in
//    this run, median of several (goal: within 1.5x);
//  - the share of that start-up spent loading and building the lexer/parser.
// Builds the parser bundle and the CLI with esbuild first (like production).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { generate } from "./generate.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const work = mkdtempSync(join(tmpdir(), "harn-bench-parse-"));
const LINES = 20_000;
const RUNS = Number(process.env.RUNS ?? 9);
const SPAWNS = Number(process.env.SPAWNS ?? 15);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (n) => Math.round(n).toLocaleString("en-US");

try {
  // 1. Bundle the parser the way the CLI bundles it.
  const bundle = join(work, "parser.mjs");
  await build({
    stdin: { contents: 'export * from "@harn/parser"; export { tokenize } from "@harn/lexer";', resolveDir: join(root, "bench"), loader: "ts" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: bundle,
    logLevel: "warning",
  });
  const p = await import(pathToFileURL(bundle).href);

  // 2. Throughput.
  const source = generate(LINES);
  const check = p.parse(source);
  if (check.errors.length > 0) throw new Error(`generated script does not parse: ${check.errors[0].message}`);
  for (let i = 0; i < 3; i++) p.parse(source);
  const measure = (f) => {
    const wall = [];
    const cpu = [];
    for (let i = 0; i < RUNS; i++) {
      const c = process.cpuUsage();
      const t = performance.now();
      f();
      wall.push(performance.now() - t);
      const d = process.cpuUsage(c);
      cpu.push(d.user / 1000); // user time of this process (GC threads included)
    }
    return { wall: median(wall), cpu: median(cpu) };
  };
  const rate = (ms) => fmt((LINES / ms) * 1000);
  const line = (label, m, goal = "") =>
    console.log(`  ${label.padEnd(22)} wall ${m.wall.toFixed(1).padStart(6)} ms ${rate(m.wall).padStart(9)} lines/s | cpu ${m.cpu.toFixed(1).padStart(6)} ms ${rate(m.cpu).padStart(9)} lines/s${goal}`);
  console.log(`parse: ${fmt(LINES)} lines, ${fmt(source.length)} chars, ${check.program.items.length} top-level items, median of ${RUNS}`);
  line("lex (scanner)", measure(() => p.tokenize(source)));
  line("lex + parse", measure(() => p.parse(source)), "   (goal >= 200,000)");

  // The chevrotain reference lexer over the same input, for comparison.
  const ref = join(work, "chevrotain.mjs");
  await build({
    stdin: {
      contents: 'export { tokenizeWithChevrotain } from "./packages/lexer/src/chevrotain-tokenize"; export { createLexer } from "./packages/lexer/src/vocabulary";',
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: ref,
    logLevel: "warning",
  });
  const c = await import(pathToFileURL(ref).href);
  for (let i = 0; i < 3; i++) c.tokenizeWithChevrotain(source);
  line("lex (chevrotain ref.)", measure(() => c.tokenizeWithChevrotain(source)));
  const lexerProbe = join(work, "lexer-probe.mjs");
  writeFileSync(
    lexerProbe,
    `const { createLexer } = await import(${JSON.stringify(pathToFileURL(ref).href)});
const t = performance.now(); createLexer(); console.log(performance.now() - t);`,
  );
  const constructions = [];
  for (let i = 0; i < 7; i++) constructions.push(Number(spawnSync(process.execPath, [lexerProbe], { encoding: "utf8" }).stdout));
  console.log(`  chevrotain lexer construction in a fresh process: ${median(constructions).toFixed(1)} ms (not paid at run time)`);

  // 3. Start-up: `harn check` on a one-line file vs `node -e 0`.
  const built = spawnSync(process.execPath, [join(root, "cli/build.mjs")], { encoding: "utf8" });
  if (built.status !== 0) throw new Error(`CLI build failed: ${built.stderr}`);
  const oneLine = join(work, "one.harn");
  writeFileSync(oneLine, 'log("hello")\n');
  const harn = join(root, "cli/bin/harn.cjs");
  // Programs as users run them: `node -e 0`, and the installed `harn`
  // through its shebang (which defers NODE_EXTRA_CA_CERTS, cli/bin/harn.cjs).
  const time = (args) => {
    const t = performance.now();
    const r = spawnSync(args[0], args.slice(1), { encoding: "utf8" });
    const ms = performance.now() - t;
    if (r.status !== 0) throw new Error(`${args.join(" ")} failed: ${r.stderr}`);
    return ms;
  };
  time([process.execPath, "-e", "0"]);
  time([harn, "check", oneLine]);
  const nodeMs = [];
  const checkMs = [];
  for (let i = 0; i < SPAWNS; i++) {
    nodeMs.push(time([process.execPath, "-e", "0"]));
    checkMs.push(time([harn, "check", oneLine]));
  }
  const nodeMed = median(nodeMs);
  const checkMed = median(checkMs);
  console.log(`start-up (median of ${SPAWNS}):`);
  console.log(`  node -e 0              ${nodeMed.toFixed(1)} ms`);
  console.log(`  harn check one-liner   ${checkMed.toFixed(1)} ms   = ${(checkMed / nodeMed).toFixed(2)}x   (goal <= 1.5x)`);

  // 4. What part of that is the lexer/parser: loading the bundle and the
  // first parse in a fresh process (nothing is constructed up front).
  const probe = join(work, "probe.mjs");
  writeFileSync(
    probe,
    `const t0 = performance.now();
const p = await import(${JSON.stringify(pathToFileURL(bundle).href)});
const t1 = performance.now();
p.parse('log("hello")\\n');
const t2 = performance.now();
console.log(JSON.stringify({ load: t1 - t0, firstParse: t2 - t1 }));`,
  );
  const probes = [];
  for (let i = 0; i < SPAWNS; i++) probes.push(JSON.parse(spawnSync(process.execPath, [probe], { encoding: "utf8" }).stdout));
  const load = median(probes.map((x) => x.load));
  const first = median(probes.map((x) => x.firstParse));
  const total = load + first;
  console.log(`lexer/parser share of harn check start-up (fresh process, median of ${SPAWNS}):`);
  console.log(`  load parser bundle ${load.toFixed(1)} ms + first parse ${first.toFixed(1)} ms (no lexer/parser construction)`);
  console.log(`  = ${total.toFixed(1)} ms, ${((total / checkMed) * 100).toFixed(0)}% of harn check`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
