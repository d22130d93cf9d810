/**
 * Linting a large run on several threads. Files are split into contiguous
 * shares of about equal size; the main thread lints the first share while
 * worker threads lint the others, each with its own module graph. Outcomes
 * come back in file order, together with every name the workers saw
 * imported by name (for `unused-function`, settled by the caller).
 *
 * The worker script is a separate bundle (`lint-worker.mjs` beside the CLI
 * bundle); without it, or for small runs, everything runs on the main
 * thread.
 */
import { existsSync, statSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { FileReader, MIN_READ_AHEAD_FILES } from "./file-reader";
import { MAIN_THREAD_DEPTH, RunContext, type FileJob, type FileOutcome, type RunSettings } from "./batch";

/** Below this much source text, threads cost more than they save. */
const MIN_PARALLEL_BYTES = 512 * 1024;

/** Worker threads' stack: deep enough for any tree the parser lets through
 * (MAX_NESTING plus MAX_CHAIN chain links; the main thread defers deeper
 * trees than MAIN_THREAD_DEPTH to one). Reserved, not committed, until a
 * walk goes that deep. */
const WORKER_STACK_MB = 512;

function startWorker(script: URL, settings: RunSettings, jobs: FileJob[]): Promise<WorkerReply> {
  return new Promise<WorkerReply>((resolve, reject) => {
    const w = new Worker(script, { workerData: { settings, jobs }, resourceLimits: { stackSizeMb: WORKER_STACK_MB } });
    w.once("message", (m: WorkerReply) => resolve(m));
    w.once("error", reject);
    w.once("exit", (code) => {
      if (code !== 0) reject(new Error(`lint worker exited with code ${code}`));
    });
  });
}

/**
 * Lint threads worth starting: one per idle core, less one. The spare core
 * goes to the file read-ahead thread and V8's background compiles, which
 * every lint thread needs again for its own warm-up. Measured on 2 cores
 * (bench/lint, 9,000 small files): 2 lint threads took 1.3 s wall against
 * 1.1 s for one even at a load of 0.6, and 1.8x one thread's wall time at a
 * load of 15.
 */
export function idleCores(): number {
  const cores = availableParallelism();
  return Math.max(1, Math.min(cores - 1, Math.round(cores - loadavg()[0]) - 1));
}

export interface WorkerReply {
  outcomes: FileOutcome[];
  imported: string[];
}

export interface PoolOptions {
  /** `cli/dist/lint-worker.mjs`, or null to stay on the main thread. */
  workerScript: URL | null;
  /** Threads to use (main included); default: the idle cores, and 1 for
   * small runs. */
  threads?: number;
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** Split jobs into `n` contiguous shares of about equal total size. */
export function shares<T>(jobs: T[], sizes: number[], n: number): T[][] {
  const total = sizes.reduce((a, b) => a + b, 0);
  const out: T[][] = Array.from({ length: n }, () => []);
  let acc = 0;
  jobs.forEach((j, i) => {
    const k = Math.min(n - 1, Math.floor((acc / Math.max(1, total)) * n));
    out[k]!.push(j);
    acc += sizes[i]!;
  });
  return out.filter((s) => s.length > 0);
}

export async function lintFiles(
  jobs: FileJob[],
  settings: RunSettings,
  options: PoolOptions,
): Promise<{ outcomes: FileOutcome[]; imported: Set<string> }> {
  const script = options.workerScript && existsSync(fileURLToPath(options.workerScript)) ? options.workerScript : null;
  // a stat per file is ~5% of linting 9,000 small ones: sizes are taken
  // only when more than one thread may run
  let threads = script ? Math.min(options.threads ?? idleCores(), jobs.length) : 1;
  let sizes: number[] = [];
  if (threads > 1) {
    sizes = jobs.map((j) => sizeOf(j.file));
    if (options.threads === undefined && sizes.reduce((a, b) => a + b, 0) < MIN_PARALLEL_BYTES) threads = 1;
  }
  threads = Math.max(1, threads);

  const parts = threads === 1 ? [jobs] : shares(jobs, sizes, threads);
  const [mine, ...theirs] = parts;
  const replies = theirs.map((part) => startWorker(script!, settings, part));
  const own = mine ?? [];
  const readAhead = own.length >= MIN_READ_AHEAD_FILES;
  const ctx = new RunContext(settings, MAIN_THREAD_DEPTH, readAhead);
  const outcomes: FileOutcome[] = [];
  const reader = readAhead ? new FileReader(own.map((j) => j.file), (bytes) => ctx.graph.noteImportsAhead(bytes)) : null;
  try {
    for (let i = 0; i < own.length; i++) outcomes.push(dropCleanSource(ctx.run(own[i]!, reader?.read(i))));
  } finally {
    reader?.close();
  }
  // trees too deep for this thread's stack: on a worker with a deep one,
  // or, without the worker script, here as far as the stack goes
  const deep = new Set((mine ?? []).filter((_j, i) => outcomes[i]!.deferred));
  if (deep.size > 0) {
    const kept = outcomes.filter((o) => !o.deferred);
    outcomes.length = 0;
    outcomes.push(...kept);
    const jobs = [...deep];
    if (script) replies.push(startWorker(script, settings, jobs));
    else {
      const here = new RunContext(settings, Infinity);
      for (const job of jobs) outcomes.push(here.run(job));
      for (const n of here.graph.externallyImported) ctx.graph.externallyImported.add(n);
    }
  }
  const imported = new Set(ctx.graph.externallyImported);
  for (const r of await Promise.all(replies)) {
    outcomes.push(...r.outcomes);
    for (const n of r.imported) imported.add(n);
  }
  outcomes.sort((a, b) => a.index - b.index);
  return { outcomes, imported };
}

/** The text only serves the code frames of findings: a clean file's is
 * not kept until the report (9,000 small files' texts outlived several
 * garbage collections each) nor copied back from a worker. */
function dropCleanSource(o: FileOutcome): FileOutcome {
  if (o.diagnostics.length === 0) o.source = "";
  return o;
}

/** The body of a worker thread (see worker-entry.ts). */
export function runWorkerJobs(settings: RunSettings, jobs: FileJob[]): WorkerReply {
  const ctx = new RunContext(settings, Infinity);
  const outcomes: FileOutcome[] = [];
  for (const job of jobs) outcomes.push(dropCleanSource(ctx.run(job)));
  return { outcomes, imported: [...ctx.graph.externallyImported] };
}
