/**
 * `harn test conformance [SELECTION]` (spec/cli.md §5.2) and
 * `harn test PATH...`: golden-file tests (`NAME.harn` + `NAME.expected`
 * or `NAME.error`), each run in a fresh Runtime in this process with its
 * output captured in memory. A per-test timeout cancels the program; CPU-
 * bound loops yield to the event loop every few milliseconds (the
 * interpreter's back-edge check), so even `while true {}` times out cleanly.
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { type Node, parse, renderDiagnostic } from "@harn/parser";
import { type Command, Option } from "commander";
import { exploreCrashPoints } from "../crash-points";
import type { Clock } from "@harn/vm";
import { colorsFor } from "../color";
import { collectHarnFiles } from "../targets";
import { errorMatches, lineDiff, normalizeOutput } from "./test-compare";
import { writeJunit } from "./test-junit";
import { type Determinism, determinismFrom, replayLines, shellWord, virtualNote } from "../deterministic";
import { loadEngine } from "../engine";
import { onInterrupt, watchHarnChanges } from "../harn-changes";
import { cancelOnSignal } from "../signal-exit";
import { readSourceText } from "../source-file";
import type { SetExitCode } from "./index";

interface TestCase {
  /** Path relative to the suite root (conformance) or to the cwd. */
  rel: string;
  file: string;
  expected: string | null;
  errorSpec: string | null;
}

interface Result {
  rel: string;
  passed: boolean;
  ms: number;
  /** Failure message (first line is indented in the report). */
  message: string | null;
  /** Duration is shown in verbose mode (not for timeouts). */
  timed: boolean;
}

interface Options {
  filter?: string;
  timeout: string;
  verbose?: boolean;
  timing?: boolean;
  junit?: string;
  jobs?: string;
  parallel?: boolean;
  watch?: boolean;
  deterministic?: boolean;
  seed?: string;
  explore?: string;
  crashPoints?: boolean;
  /** Internal (crash-points children): crash at this boundary. */
  crashAt?: string;
  /** Internal (crash-points children): append the daemon journal here. */
  journal?: string;
}

/** Where a test's output goes. */
interface OutputSink {
  write(text: string): unknown;
}

/**
 * The environment tests run in: real model calls are refused
 * (`HARN_LLM_CALLS_DISABLED`, agents.md §5.1), and the provider is pinned
 * to the mock, whatever key or `HARN_LLM_PROVIDER` the shell has, so a
 * call that names no provider gets the same answer on every machine. A
 * test names a provider explicitly to see the refusal or a missing key.
 */
function testEnv(stateRoot: string): Record<string, string | undefined> {
  return {
    ...process.env,
    HARN_LLM_CALLS_DISABLED: "1",
    HARN_LLM_PROVIDER: "mock",
    HARN_STATE_DIR: stateRoot,
    HARN_WORKER_STATE_DIR: join(stateRoot, "workers"),
    // workflow_execute's default run files (workflows.md §1.5)
    HARN_RUN_DIR: join(stateRoot, "runs"),
  };
}

/**
 * Run `body` with a state root of its own (checkpoints, the store, worker
 * snapshots, workflow runs), removed afterwards: tests run side by side and must not see
 * each other's state (agents-surface.md §7 [TS decision]).
 */
async function withStateRoot<T>(body: (stateRoot: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "harn-test-state-"));
  try {
    return await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const paint = {
  red: (s: string) => colorsFor(process.stdout).red(s),
  green: (s: string) => colorsFor(process.stdout).green(s),
};

export function register(program: Command, setExitCode: SetExitCode): void {
  program
    .command("test")
    .description("Run tests: `harn test conformance [SELECTION]`, or the tests under PATH (default ./tests/)")
    .argument("[targets...]", "`conformance` [SELECTION], or one file or directory")
    .option("--filter <pattern>", "select tests (substring, `a|b`, glob `*`/`?`, or `re:REGEX`)")
    .option("--timeout <ms>", "per-test timeout in milliseconds", "30000")
    .option("-v, --verbose", "per-test timing; full expected/actual on mismatch")
    .option("--timing", "per-test timing and statistics")
    .option("--junit <path>", "write a JUnit XML report")
    .option("--jobs <n>", "run up to N tests at once", "1")
    .option("--parallel", "user tests: run the files concurrently")
    .option("--watch", "user tests: run again whenever a .harn file under PATH changes")
    .option("--deterministic", "run each test on a virtual clock with a deterministic scheduler")
    .option("--seed <n>", "seed the scheduler's order of concurrent tasks and timers (implies --deterministic)")
    .option("--explore <k>", "run each test with K scheduler seeds; a failure prints its seed (implies --deterministic)")
    .option("--crash-points", "user tests: crash each test at every await and daemon-queue boundary in turn, restart it, and check the daemon queue (implies --deterministic)")
    .addOption(new Option("--crash-at <k>").hideHelp())
    .addOption(new Option("--journal <path>").hideHelp())
    .action(async (targets: string[], opts: Options, cmd: Command) => {
      const timeout = Number(opts.timeout);
      if (!Number.isFinite(timeout) || timeout <= 0) cmd.error(`error: invalid --timeout value '${opts.timeout}'`, { exitCode: 2 });
      const det = determinismFrom({ ...opts, deterministic: opts.deterministic || opts.crashPoints || opts.crashAt !== undefined || opts.journal !== undefined });
      if (det !== null && "error" in det) cmd.error(det.error, { exitCode: 2 });
      const determinism = det as Determinism | null;
      // A virtual clock reads idleness off the process's event loop, which
      // concurrent tests would share: deterministic runs go one at a time.
      const jobs = determinism !== null ? 1 : Math.max(1, Math.floor(Number(opts.jobs ?? "1")) || 1);
      if (determinism !== null) opts.parallel = false;
      if (targets[0] === "conformance" && opts.crashPoints) cmd.error("error: --crash-points runs user tests (`harn test PATH`), not the conformance suite", { exitCode: 2 });
      // what an earlier harn could not clean up (it was SIGKILLed) goes first
      (await loadEngine()).reapDeadRuns((line) => void process.stderr.write(line));
      if (targets[0] === "conformance") {
        if (targets.length > 2) cmd.error(`error: unexpected argument '${targets[2]}'`, { exitCode: 2 });
        setExitCode(await conformance(targets[1], opts, timeout, jobs, determinism));
        return;
      }
      // cli.md §5: SELECTION (a second positional) belongs to conformance only.
      if (targets.length > 1) cmd.error("error: only `harn test conformance` accepts a second positional target", { exitCode: 2 });
      if (targets.length === 0) {
        if (!existsSync("tests")) cmd.error("error: no path specified and no tests/ directory found", { exitCode: 2 });
        targets = ["tests"];
      }
      if (opts.watch) {
        await watchTests(targets[0]!, () => goldenPaths(targets, opts, timeout, jobs, determinism));
        return;
      }
      setExitCode(await goldenPaths(targets, opts, timeout, jobs, determinism));
    });
}

/**
 * `--watch` (cli.md §5.0): run, then run again whenever a `.harn` file
 * under the target (a file target: its directory) is created, changed or
 * deleted, until SIGINT/SIGTERM (exit 0). Changes during a run start one
 * more run after it.
 */
async function watchTests(target: string, run: () => Promise<number>): Promise<void> {
  const dir = existsSync(target) && statSync(target).isDirectory() ? target : dirname(resolve(target));
  let running: Promise<unknown> = run();
  await new Promise<void>((done) => {
    const unwatch = watchHarnChanges(dir, () => {
      running = running.then(() => {
        process.stdout.write(`\n[watch] change detected, running the tests again\n\n`);
        return run();
      });
    });
    onInterrupt(() => {
      unwatch();
      void running.then(() => done());
    });
  });
}

// ---------------------------------------------------------------------------
// Discovery: the `.harn` files of a directory are collected by targets.ts
// (cli.md §0.4, `X.conformance-skip` honoured), as check, lint and fmt do;
// a file with a `.expected` or `.error` beside it is a golden test.

function caseFor(file: string, rel: string): TestCase | null {
  const base = file.slice(0, -5);
  if (existsSync(base + ".expected")) return { rel, file, expected: base + ".expected", errorSpec: null };
  if (existsSync(base + ".error")) return { rel, file, expected: null, errorSpec: base + ".error" };
  return null;
}

export function filterMatches(pattern: string, rel: string): boolean {
  if (pattern.startsWith("re:")) {
    try {
      return new RegExp(pattern.slice(3)).test(rel);
    } catch {
      return false;
    }
  }
  if (pattern.includes("|")) return pattern.split("|").some((p) => p.trim() !== "" && rel.includes(p.trim()));
  if (pattern.includes("*") || pattern.includes("?")) {
    const re = pattern.replace(/[.+^${}()[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
    return new RegExp(re).test(rel);
  }
  return rel.includes(pattern);
}

// ---------------------------------------------------------------------------
// Running one test

interface ExecResult {
  output: string;
  /** The one-line error string of a failed program, or null. */
  error: string | null;
  timedOut: boolean;
}

export function execute(file: string, timeoutMs: number, clock?: Clock): Promise<ExecResult> {
  return withStateRoot((stateRoot) => executeIn(stateRoot, file, timeoutMs, clock));
}

async function executeIn(stateRoot: string, file: string, timeoutMs: number, clock?: Clock): Promise<ExecResult> {
  const { CANCELLED_TEXT, createRuntime, HarnError, loadMockFixtures, runSource } = await loadEngine();
  let source: string;
  source = readSourceText(file);
  const out: string[] = [];
  const rt = createRuntime({
    // captured, so not a terminal even when harn test runs in one (stdlib.md §3)
    stdout: { write: (t) => void out.push(t), isTTY: false },
    stderr: { write: () => undefined, isTTY: false },
    cwd: process.cwd(),
    env: testEnv(stateRoot),
    argv: [],
    ...(clock ? { clock } : {}),
  });
  // cli.md §5.2.1 step 1: a `NAME.llm-mock.jsonl` sidecar replays LLM calls.
  const fixture = file.replace(/\.harn$/, ".llm-mock.jsonl");
  if (existsSync(fixture)) {
    try {
      await loadMockFixtures(rt, readFileSync(fixture, "utf8"));
    } catch (e) {
      return { output: "", error: `llm mock setup error: ${(e as Error).message}`, timedOut: false };
    }
  }
  const handle = runSource(rt, source, file);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    handle.cancel(HarnError.thrown("timed out"));
  }, timeoutMs);
  const signals = cancelOnSignal(handle, () => HarnError.thrown(CANCELLED_TEXT));
  try {
    const o = await handle.outcome;
    signals.exitIfSignalled();
    if (timedOut) return { output: out.join(""), error: null, timedOut };
    switch (o.kind) {
      case "ok":
        return { output: out.join(""), error: null, timedOut };
      case "syntax":
        return { output: "", error: o.errors[0]!.message, timedOut };
      case "compile":
        return { output: "", error: o.message, timedOut };
      case "error":
        return { output: "", error: o.error.description(), timedOut };
      case "exit":
        return o.code === 0 ? { output: out.join(""), error: null, timedOut } : { output: "", error: `exit code ${o.code}`, timedOut };
    }
  } finally {
    clearTimeout(timer);
    signals.dispose();
  }
}

/** `runCase` once per seed of `det` (once on the real clock without it),
 * stopping at the first failure, whose message then names its seed and how
 * to replay it. */
async function runCaseSeeded(tc: TestCase, timeoutMs: number, verbose: boolean, det: Determinism | null, replayTarget: string): Promise<Result> {
  if (det === null) return runCase(tc, timeoutMs, verbose);
  const { VirtualClock } = await loadEngine();
  let total = 0;
  let last: Result | null = null;
  for (const seed of det.seeds) {
    const clock = new VirtualClock({ seed });
    try {
      last = await runCase(tc, timeoutMs, verbose, clock);
    } finally {
      clock.dispose();
    }
    total += last.ms;
    if (!last.passed) {
      const lines = replayLines(seed, replayTarget).map((l) => `\n  ${l}`).join("");
      return { ...last, ms: total, message: `${last.message ?? ""}${lines}` };
    }
  }
  return { ...last!, ms: total };
}

async function runCase(tc: TestCase, timeoutMs: number, verbose: boolean, clock?: Clock): Promise<Result> {
  const t0 = performance.now();
  let expected: string | null = null;
  let spec: string | null = null;
  try {
    readSourceText(tc.file);
  } catch (e) {
    return { rel: tc.rel, passed: false, ms: 0, message: `${tc.rel}: IO error reading source: ${(e as Error).message}`, timed: false };
  }
  try {
    if (tc.expected) expected = readFileSync(tc.expected, "utf8");
  } catch (e) {
    return { rel: tc.rel, passed: false, ms: 0, message: `${tc.rel}: IO error reading expected: ${(e as Error).message}`, timed: false };
  }
  try {
    if (tc.errorSpec) spec = readFileSync(tc.errorSpec, "utf8");
  } catch (e) {
    return { rel: tc.rel, passed: false, ms: 0, message: `${tc.rel}: IO error reading expected error: ${(e as Error).message}`, timed: false };
  }
  const r = await execute(tc.file, timeoutMs, clock);
  const ms = Math.round(performance.now() - t0);
  if (r.timedOut) return { rel: tc.rel, passed: false, ms, message: `${tc.rel}: timed out after ${timeoutMs}ms`, timed: false };
  if (expected !== null) {
    if (r.error !== null) return { rel: tc.rel, passed: false, ms, message: `${tc.rel}: runtime error: ${r.error}`, timed: true };
    const want = normalizeOutput(expected);
    const got = normalizeOutput(r.output);
    if (want === got) return { rel: tc.rel, passed: true, ms, message: null, timed: true };
    let msg = `${tc.rel}:\n`;
    if (verbose) {
      msg += "  expected:\n" + want.split("\n").map((l) => "    " + l).join("\n") + "\n";
      msg += "  actual:\n" + got.split("\n").map((l) => "    " + l).join("\n") + "\n  diff:\n";
    }
    msg += lineDiff(want, got, colorsFor(process.stdout));
    return { rel: tc.rel, passed: false, ms, message: msg, timed: true };
  }
  const s = spec!;
  if (r.error === null) return { rel: tc.rel, passed: false, ms, message: `${tc.rel}: expected error containing '${s.trim()}', but succeeded`, timed: false };
  const { ok, warnings } = errorMatches(s, r.error);
  // Warnings are diagnostics: stderr (cli.md §0.3), not the report.
  for (const w of warnings) process.stderr.write(w + "\n");
  if (ok) return { rel: tc.rel, passed: true, ms, message: null, timed: true };
  return {
    rel: tc.rel,
    passed: false,
    ms,
    message: `${tc.rel}:\n  expected error containing: ${s.trim()}\n  actual error: ${r.error}`,
    timed: true,
  };
}

/** Run cases with up to `jobs` at once; report in discovery order. */
async function runAll(
  cases: TestCase[],
  timeoutMs: number,
  jobs: number,
  showMs: boolean,
  verbose: boolean,
  det: Determinism | null,
  replayTarget: (tc: TestCase) => string,
): Promise<Result[]> {
  const results: (Result | undefined)[] = new Array(cases.length);
  let next = 0;
  let printed = 0;
  const flush = () => {
    while (printed < cases.length && results[printed]) {
      const r = results[printed]!;
      const tag = r.passed ? paint.green("PASS") : paint.red("FAIL");
      process.stdout.write(`  ${tag}  ${r.rel}${showMs && r.timed ? ` (${r.ms} ms)` : ""}\n`);
      printed++;
    }
  };
  const worker = async () => {
    while (next < cases.length) {
      const i = next++;
      results[i] = await runCaseSeeded(cases[i]!, timeoutMs, verbose, det, replayTarget(cases[i]!));
      flush();
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, Math.max(1, cases.length)) }, worker));
  flush();
  return results as Result[];
}

function report(results: Result[], opts: Options, totalMs: number, plain: boolean): number {
  const failed = results.filter((r) => !r.passed);
  const passed = results.length - failed.length;
  const stats = opts.verbose || opts.timing;
  if (plain) {
    // `harn test PATH`: failures first, then the closing count line.
    if (failed.length > 0) {
      process.stdout.write("\nFailures:\n");
      for (const f of failed) process.stdout.write(`  ${f.message}\n`);
    }
    const line = `${passed} passed, ${failed.length} failed`;
    process.stdout.write(`\n${failed.length > 0 ? paint.red(line) : paint.green(line)}\n`);
  } else {
    const line = `${passed} passed, ${failed.length} failed, ${results.length} total`;
    process.stdout.write(`\n${failed.length > 0 ? paint.red(line) : paint.green(line)}\n`);
  }
  if (stats && results.length > 0) {
    const ds = results.map((r) => r.ms).sort((a, b) => a - b);
    const n = ds.length;
    const pct = (p: number) => ds[Math.min(n - 1, Math.floor((n * p) / 100))]!;
    process.stdout.write(`\nTotal time: ${Math.round(totalMs)} ms\n`);
    process.stdout.write(`Per-test: avg=${Math.floor(ds.reduce((a, b) => a + b, 0) / n)} ms  p50=${pct(50)} ms  p95=${pct(95)} ms  p99=${pct(99)} ms\n\n`);
    const slow = [...results].sort((a, b) => b.ms - a.ms).slice(0, Math.min(10, n));
    process.stdout.write(`Slowest ${slow.length} tests:\n`);
    for (const r of slow) process.stdout.write(`  ${String(r.ms).padStart(6)} ms  ${r.rel}\n`);
  }
  if (opts.junit) writeJunit(opts.junit, results, totalMs);
  if (!plain && failed.length > 0) {
    process.stdout.write("\nFailures:\n");
    for (const f of failed) process.stdout.write(`  ${f.message}\n`);
  }
  return failed.length > 0 ? 1 : 0;
}

// ---------------------------------------------------------------------------
// Modes

async function conformance(selection: string | undefined, opts: Options, timeoutMs: number, jobs: number, det: Determinism | null): Promise<number> {
  const root = resolve("conformance");
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    process.stderr.write("Directory not found: conformance\n");
    return 1;
  }
  let start = root;
  if (selection !== undefined) {
    const candidates = [resolve(selection), resolve(root, selection)];
    const found = candidates.find((c) => existsSync(c));
    if (!found) {
      process.stderr.write(`Conformance target not found: ${selection}. Expected a file or directory under ${root}\n`);
      return 1;
    }
    if (found !== root && !found.startsWith(root + sep)) {
      process.stderr.write(`Conformance target must be inside ${root}: ${found}\n`);
      return 1;
    }
    if (statSync(found).isFile() && !found.endsWith(".harn")) {
      process.stderr.write(`Conformance target must be a .harn file or directory: ${found}\n`);
      return 1;
    }
    start = found;
  }
  const files: string[] = [];
  if (statSync(start).isFile()) files.push(start);
  else files.push(...collectHarnFiles([start]));
  if (selection !== undefined && files.length === 0) {
    process.stderr.write(`No .harn conformance tests found under ${selection}\n`);
    return 1;
  }
  const cases: TestCase[] = [];
  for (const f of files) {
    const rel = relative(root, f).split(sep).join("/");
    if (opts.filter !== undefined && !filterMatches(opts.filter, rel)) continue;
    const tc = caseFor(f, rel);
    if (tc) cases.push(tc);
  }
  const t0 = performance.now();
  const results = await runAll(cases, timeoutMs, jobs, Boolean(opts.verbose || opts.timing), Boolean(opts.verbose), det, (tc) => `conformance ${shellWord(tc.rel)}`);
  return report(results, opts, performance.now() - t0, false);
}

async function goldenPaths(targets: string[], opts: Options, timeoutMs: number, jobs: number, det: Determinism | null): Promise<number> {
  const cases: TestCase[] = [];
  for (const t of targets) {
    const p = resolve(t);
    if (!existsSync(p)) {
      process.stderr.write(`Path not found: ${t}\n`);
      return 1;
    }
    const files: string[] = [];
    if (statSync(p).isFile()) files.push(p);
    else files.push(...collectHarnFiles([p]));
    for (const f of files) {
      const tc = caseFor(f, relative(process.cwd(), f).split(sep).join("/"));
      if (tc) cases.push(tc);
    }
  }
  // Without golden files, the paths hold user test pipelines (cli.md §5.1).
  // (Decided before --filter: a filter that selects no golden test must not
  // switch modes.)
  if (cases.length === 0) return userTests(targets, opts, timeoutMs, det);
  const selected = opts.filter === undefined ? cases : cases.filter((tc) => filterMatches(opts.filter!, tc.rel));
  const t0 = performance.now();
  const results = await runAll(selected, timeoutMs, jobs, Boolean(opts.verbose || opts.timing), Boolean(opts.verbose), det, (tc) => shellWord(tc.rel));
  return report(results, opts, performance.now() - t0, true);
}

// ---------------------------------------------------------------------------
// User test pipelines (cli.md §5.1)

interface UserTest {
  name: string;
  file: string;
  source: string;
  /** Set for the `<file error>` pseudo-test of a file that does not parse. */
  parseError: string | null;
}

function testPipelines(items: Node[]): string[] {
  const names: string[] = [];
  for (const item of items) {
    let n = item;
    let tagged = false;
    while (n.kind === "AttributedDecl") {
      if (n.attributes.some((a) => a.name === "test")) tagged = true;
      n = n.inner;
    }
    if (n.kind === "Pipeline" && n.name !== "test" && (tagged || n.name.startsWith("test_"))) names.push(n.name);
  }
  return names;
}

async function userTests(targets: string[], opts: Options, timeoutMs: number, det: Determinism | null): Promise<number> {
  const { readSourceFile, VirtualClock } = await loadEngine();
  const files: string[] = [];
  for (const t of targets) {
    const p = resolve(t);
    if (statSync(p).isFile()) files.push(p);
    else {
      for (const f of collectHarnFiles([p])) {
        const text = readSourceFile(f) ?? "";
        if (text.includes("test_") || text.includes("@test")) files.push(f);
      }
    }
  }
  const tests: UserTest[] = [];
  const usedFiles = new Set<string>();
  for (const f of files) {
    const file = realpathSync(f);
    let source: string;
    try {
      source = readSourceText(file);
    } catch (e) {
      tests.push({ name: "<file error>", file, source: "", parseError: `Error reading ${file}: ${(e as Error).message}` });
      usedFiles.add(file);
      continue;
    }
    const { program, errors } = parse(source, { file });
    if (errors.length > 0) {
      tests.push({ name: "<file error>", file, source, parseError: errors[0]!.message });
      usedFiles.add(file);
      continue;
    }
    for (const name of testPipelines(program.items)) {
      // crash-points children name their test exactly
      const exact = opts.crashAt !== undefined || opts.journal !== undefined;
      if (opts.filter !== undefined && !(exact ? name === opts.filter : name.includes(opts.filter))) continue;
      tests.push({ name, file, source, parseError: null });
      usedFiles.add(file);
    }
  }
  const t0 = performance.now();
  if (tests.length > 0) {
    const s = (n: number, w: string) => `${n} ${w}${n === 1 ? "" : "s"}`;
    process.stdout.write(`Running ${s(tests.length, "test")} from ${s(usedFiles.size, "file")}...\n\n`);
  }
  let passed = 0;
  const report = (t: UserTest, failure: string | null, ms: number, note: string) => {
    if (failure === null) {
      passed++;
      process.stdout.write(`  ${paint.green("PASS")}  ${t.name} [${t.file}] (${ms} ms${note})\n`);
    } else {
      process.stdout.write(`  ${paint.red("FAIL")}  ${t.name} [${t.file}]\n`);
      for (const line of failure.trimEnd().split("\n")) process.stdout.write(`        ${line}\n`);
    }
  };
  const runOne = async (t: UserTest, out: OutputSink, err: OutputSink) => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    if (t.parseError !== null || det === null) {
      const failure = t.parseError ?? (await runUserTest(t, timeoutMs, out, err));
      return { failure, ms: elapsed(), note: "" };
    }
    if (opts.crashPoints) {
      let points = 0;
      const engine = await loadEngine();
      for (const seed of det.seeds) {
        const r = exploreCrashPoints(t.name, t.file, seed, timeoutMs, engine.readDaemonRootSync);
        if (r.failure !== null) return { failure: r.failure, ms: elapsed(), note: "" };
        points = Math.max(points, r.points);
      }
      return { failure: null, ms: elapsed(), note: `; ${points} crash point${points === 1 ? "" : "s"}${det.seeds.length > 1 ? `; ${det.seeds.length} seeds` : ""}` };
    }
    const crashAt = opts.crashAt === undefined ? null : Number(opts.crashAt);
    const journal = opts.journal ?? null;
    const record = journal === null ? undefined : (line: object) => appendFileSync(journal, JSON.stringify(line) + "\n");
    // --deterministic: one run per seed, each on its own virtual clock. With
    // several seeds, only the reported run's output is shown (the first
    // failing one, else the last), not K copies of it.
    let virtualMs = 0;
    let runs = 0;
    for (const seed of det.seeds) {
      const clock = new VirtualClock({
        seed,
        crashAt,
        // A crash: nothing after this point runs (no finally, no shutdown).
        onCrash: (point, label) => {
          writeSync(2, `crash point ${point}: ${label}\n`);
          process.kill(process.pid, "SIGKILL");
        },
      });
      const held = det.seeds.length > 1 ? { out: "", err: "" } : null;
      let failure: string | null;
      try {
        failure = held
          ? await runUserTest(t, timeoutMs, { write: (x) => void (held.out += x) }, { write: (x) => void (held.err += x) }, clock, record)
          : await runUserTest(t, timeoutMs, out, err, clock, record);
      } finally {
        clock.dispose();
      }
      record?.({ op: "end", boundaries: clock.boundaryCount() });
      runs++;
      virtualMs = Math.max(virtualMs, clock.elapsed());
      const lastSeed = runs === det.seeds.length;
      if (held && (failure !== null || lastSeed)) {
        out.write(held.out);
        err.write(held.err);
      }
      if (failure !== null) {
        const replay = replayLines(seed, `--filter ${shellWord(t.name)} ${shellWord(t.file)}`);
        return { failure: `${failure.trimEnd()}\n${replay.join("\n")}`, ms: elapsed(), note: "" };
      }
    }
    return { failure: null, ms: elapsed(), note: virtualNote(virtualMs, runs) };
  };
  if (!opts.parallel) {
    for (const t of tests) {
      const r = await runOne(t, process.stdout, process.stderr);
      report(t, r.failure, r.ms, r.note);
    }
  } else {
    // --parallel (cli.md §5.0): files run concurrently, the tests of one
    // file in order; each test's output is held and shown just before its
    // result, and results are reported in discovery order.
    const byFile = new Map<string, UserTest[]>();
    for (const t of tests) byFile.set(t.file, [...(byFile.get(t.file) ?? []), t]);
    const files = [...byFile.values()].map(async (group) => {
      const done: { t: UserTest; out: string; err: string; failure: string | null; ms: number; note: string }[] = [];
      for (const t of group) {
        let out = "";
        let err = "";
        const r = await runOne(t, { write: (x) => void (out += x) }, { write: (x) => void (err += x) });
        done.push({ t, out, err, ...r });
      }
      return done;
    });
    for (const file of files) {
      for (const r of await file) {
        process.stdout.write(r.out);
        process.stderr.write(r.err);
        report(r.t, r.failure, r.ms, r.note);
      }
    }
  }
  const total = tests.length;
  const failed = total - passed;
  const ms = Math.round(performance.now() - t0);
  if (total === 0) process.stdout.write("No test pipelines found\n");
  else if (failed > 0) process.stdout.write(`\n${paint.red(`${passed} passed, ${failed} failed, ${total} total (${ms} ms)`)}\n`);
  else process.stdout.write(`\n${paint.green(`${passed} passed, ${total} total (${ms} ms)`)}\n`);
  return failed > 0 ? 1 : 0;
}

/** Run one test pipeline in a fresh runtime; null when it passed. */
function runUserTest(
  t: UserTest,
  timeoutMs: number,
  stdout: OutputSink,
  stderr: OutputSink,
  clock?: Clock,
  journal?: (line: object) => void,
): Promise<string | null> {
  return withStateRoot((stateRoot) => runUserTestIn(stateRoot, t, timeoutMs, stdout, stderr, clock, journal));
}

async function runUserTestIn(
  stateRoot: string,
  t: UserTest,
  timeoutMs: number,
  stdout: OutputSink,
  stderr: OutputSink,
  clock?: Clock,
  journal?: (line: object) => void,
): Promise<string | null> {
  const { CANCELLED_TEXT, createRuntime, HarnError, readSourceFile, renderRuntimeError, runSource, setDaemonJournal } = await loadEngine();
  const rt = createRuntime({
    stdout: { write: (x) => void stdout.write(x) },
    stderr: { write: (x) => void stderr.write(x) },
    cwd: dirname(t.file),
    env: testEnv(stateRoot),
    argv: [],
    ...(clock ? { clock } : {}),
  });
  if (journal) setDaemonJournal(rt, journal);
  const handle = runSource(rt, t.source, t.file, t.name, { checkOnlyEntry: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    handle.cancel(HarnError.thrown("timed out"));
  }, timeoutMs);
  const signals = cancelOnSignal(handle, () => HarnError.thrown(CANCELLED_TEXT));
  try {
    const o = await handle.outcome;
    signals.exitIfSignalled();
    if (timedOut) return `timed out after ${timeoutMs}ms`;
    switch (o.kind) {
      case "ok":
        return null;
      case "exit":
        return o.code === 0 ? null : `exit code ${o.code}`;
      case "syntax":
        return o.errors[0]!.message;
      case "compile":
        // static-check errors render as `harn run` shows them (cli.md §2.2), with their location
        if (o.checked) return o.checked.map((d) => renderDiagnostic(d, t.file, t.source)).join("");
        return `Compile error: ${o.message}`;
      case "error":
        return renderRuntimeError(o.error, t.file, (f) => (f === t.file ? t.source : readSourceFile(f)));
    }
  } finally {
    clearTimeout(timer);
    signals.dispose();
  }
}
