/**
 * libuv's thread pool, sized to the machine. Node's default is 4 threads;
 * on a 2-core machine (a common CI runner) that puts five busy threads on
 * two cores whenever harn lists directories in parallel (stdlib
 * `longrun/tree.ts` `listUnordered`, behind `glob`), and the main thread,
 * which turns every listing into entries, waits for a core. Measured on the
 * bench/fs tree, 2 cores, medians of 15 interleaved runs: a plain-Node
 * unordered crawl took 114 ms with 2 pool threads, 121 ms with 4 and
 * 167 ms with 1; `harn run` of `glob("**\/*.md")` 157 against 177 ms.
 *
 * libuv reads UV_THREADPOOL_SIZE once, when the first request starts the
 * pool. So this module, evaluated before anything else can start it, sets
 * the variable, starts the pool with a cheap request, and removes the
 * variable again at once: scripts (`env(...)`) and child processes see the
 * user's environment unchanged. A value the user set is left alone.
 */
import { access } from "node:fs";
import { availableParallelism } from "node:os";

const VARIABLE = "UV_THREADPOOL_SIZE";

/** One thread per core, at least 2 (a slow DNS lookup must not stall file
 * work alone) and at most Node's own default of 4. */
function poolSize(): number {
  return Math.min(4, Math.max(2, availableParallelism()));
}

function sizeThreadPool(env: NodeJS.ProcessEnv): void {
  if (env[VARIABLE] !== undefined) return;
  env[VARIABLE] = String(poolSize());
  access(".", () => undefined); // starts the pool, which reads the variable now
  delete env[VARIABLE];
}

sizeThreadPool(process.env);
