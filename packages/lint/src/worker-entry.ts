/**
 * Entry point of a lint worker thread, bundled on its own as
 * `cli/dist/lint-worker.mjs` (worker-pool.ts starts it).
 */
import { parentPort, workerData } from "node:worker_threads";
import type { FileJob, RunSettings } from "./batch";
import { runWorkerJobs } from "./worker-pool";

const { settings, jobs } = workerData as { settings: RunSettings; jobs: FileJob[] };
parentPort!.postMessage(runWorkerJobs(settings, jobs));
