/**
 * Running the per-file search over many files without blocking the event
 * loop (agents.md §1.8: "async filesystem APIs or a worker thread").
 *
 * A `FileSearch` is fed files in order while the directory crawl is still
 * running, so searching overlaps crawling. Once a search has seen
 * `workerThreshold` files it starts a few worker threads, which read with
 * plain synchronous calls into a reused buffer: an async
 * `open`/`read`/`close` costs three thread pool round trips per file, which
 * dominates a search over many small files (measured on the 100,000-file
 * bench tree: about 1.6 s async against 0.7 s synchronous, before splitting
 * the work across cores). For a caller that waits anyway (`inSlices`), the
 * files before the threshold are searched on the main thread as the crawl
 * emits them, with synchronous reads (so a search whose matches exceed the
 * cap early stops the crawl early without starting any worker); background
 * work collects them and searches them with async reads after the crawl.
 *
 * Files are handed out in chunks, in order, as the crawl emits them; results
 * are merged back in file order and the search stops — workers terminated,
 * crawl told to stop — as soon as the matches merged so far exceed
 * `maxMatches`, or when the signal aborts. A worker that fails or exits takes
 * its chunks with it: the search then finishes on the main thread from the
 * first chunk not merged yet.
 */
import { monotonicMs } from "@harn/vm";
import * as fs from "node:fs";
import { open } from "node:fs/promises";
import type { Worker } from "node:worker_threads";
import { nodeOs, nodeWorkerThreads } from "../core/node-builtins";
import { makeSearcher, type LineMatch, type MatcherSpec, type Searcher } from "./search_core";

export interface SearchOptions {
  readonly spec: MatcherSpec;
  readonly contextBefore: number;
  readonly contextAfter: number;
  readonly maxMatches: number;
  readonly signal: AbortSignal;
  /**
   * The caller waits for the result anyway (a foreground call): a search
   * that stays on the main thread reads synchronously in slices of a few
   * milliseconds, yielding to the event loop in between, like the crawl's
   * `inSlices`. Otherwise it reads with async calls.
   */
  readonly inSlices?: boolean;
  /** Use worker threads from this many files on (tests lower it). */
  readonly workerThreshold?: number;
  /** Called with each worker as it starts (tests use it to kill one). */
  readonly onWorker?: (worker: Worker) => void;
}

export interface SearchRequest extends SearchOptions {
  readonly files: readonly string[];
}

export interface FileMatches {
  readonly file: string;
  readonly matches: LineMatch[];
}

export interface SearchOutcome {
  /** Files with matches, in file order, holding at most `maxMatches` in total. */
  readonly files: FileMatches[];
  /** More matches existed than `maxMatches`. */
  readonly truncated: boolean;
}

/**
 * Files from which worker threads pay off. A worker costs ~40 ms to start
 * and then runs cold: it compiles Node's own fs and buffer code (the main
 * thread has them from start-up), ~100 ms before it runs at full speed.
 * Async reads on the main thread cost ~90 µs a file (three thread-pool
 * round trips); synchronous reads in slices ~8 µs. Measured with runSearch
 * on copies of parts of the bench tree, a fresh process each, 2 cores
 * (medians of 7-11, whole search including the crawl):
 *
 *   files     async main   sliced main   workers
 *   450            44 ms         13 ms     57 ms
 *   1,000          92 ms         20 ms     66 ms
 *   5,000         320 ms         99 ms    186 ms
 *   10,000             -        147 ms    256 ms
 *   30,000             -        344 ms    350 ms
 *   90,000             -        824 ms    673 ms
 *
 * The sliced threshold sits below the 2-core break-even because more cores
 * mean more workers (up to 4), which break even sooner. Searching those
 * first files as they arrive rather than after the crawl measured the same
 * or faster at every size (5,000 / 10,000 / 30,000 / 100,000 files: medians
 * 109 / 148 / 411 / 1014 ms against 115 / 158 / 427 / 1093), and a search
 * of the bench tree with max_matches 3 dropped from 225 to 14 ms. Starting
 * the workers at 4,096 files instead was slower for 5,000-30,000 files
 * (172 / 281 / 431 ms).
 */
const ASYNC_WORKER_THRESHOLD = 1024;
const SLICED_WORKER_THRESHOLD = 16384;
/** Longest stretch of synchronous reading before yielding to the event loop. */
const SLICE_MS = 8;
const CHUNK_FILES = 256;
const MAIN_THREAD_BATCH = 32;
/** Chunks queued per worker while the crawl runs: the main thread only
 * reads replies between crawl slices, so each worker needs a slice's worth
 * of work queued or it idles. */
const IN_FLIGHT_CRAWLING = 8;
/** Chunks queued per worker after the crawl: one being searched, one ready. */
const IN_FLIGHT = 2;

/** Searches `files` in order; null when the signal aborted. */
export function searchFiles(req: SearchRequest): Promise<SearchOutcome | null> {
  const search = new FileSearch(req);
  for (const f of req.files) if (!search.add(f)) break;
  return search.end();
}

/** Accumulates per-file results in order and knows when to stop. */
class Merger {
  readonly files: FileMatches[] = [];
  private count = 0;
  truncated = false;

  constructor(private readonly max: number) {}

  /** Adds one file's matches; returns true once the cap was exceeded. */
  add(file: string, matches: LineMatch[] | null): boolean {
    if (!matches || matches.length === 0 || this.truncated) return this.truncated;
    const room = this.max - this.count;
    if (matches.length > room) {
      this.truncated = true;
      if (room > 0) this.files.push({ file, matches: matches.slice(0, room) });
      this.count = this.max;
      return true;
    }
    this.files.push({ file, matches });
    this.count += matches.length;
    return false;
  }
}

interface ChunkReply {
  chunk: number;
  /** Each file with matches, in chunk order. */
  results: [string, LineMatch[]][];
}

interface PoolWorker {
  readonly worker: Worker;
  /** Chunks posted to it and not answered yet. */
  inFlight: number;
  /** Terminated by the search, or lost: its events no longer count. */
  retired: boolean;
}

/**
 * One search, fed files in order with `add` and closed with `end`. Below
 * the worker threshold it only collects files (searched on the main thread
 * at `end`); from the threshold on, chunks go to worker threads as they
 * fill. Every path — finished, truncated, aborted, failed — terminates the
 * workers it started.
 */
export class FileSearch {
  /** Sealed chunks as their paths joined with NUL (which no path holds):
   * one flat string per chunk is what gets posted, and holding the paths
   * only in that form keeps the crawl's many short-lived path strings out of
   * the old generation (GC was ~150 ms of the main thread's 1.4 s in a
   * profiled 100k-file search). */
  private readonly chunks: string[] = [];
  private current: string[] = [];
  private total = 0;
  private readonly threshold: number;
  private readonly limit: number;
  private readonly merger: Merger;
  /** "collect": below the threshold, or workers unavailable (main thread at `end`). */
  private mode: "collect" | "workers" = "collect";
  private workersFailed = false;
  /** A waiting caller's files below the threshold are searched as they
   * arrive (the crawl stops at once when they exceed the cap); chunks only
   * start after them, so merge order is file order. */
  private inline: boolean;
  private inlineSearch: { search: Searcher; read: (path: string) => Buffer | null } | null = null;
  private pool: PoolWorker[] = [];
  private readonly replies = new Map<number, ChunkReply["results"]>();
  private nextDispatch = 0;
  private nextMerge = 0;
  private ended = false;
  private settled = false;
  private readonly done: Promise<SearchOutcome | null>;
  private resolveDone!: (v: SearchOutcome | null) => void;
  private readonly onAbort = () => this.settle(null);

  constructor(private readonly opts: SearchOptions) {
    // a "line" matcher is a function, which a worker cannot receive
    this.threshold =
      opts.spec.kind === "line" ? Infinity : (opts.workerThreshold ?? (opts.inSlices ? SLICED_WORKER_THRESHOLD : ASYNC_WORKER_THRESHOLD));
    this.limit = opts.maxMatches + 1;
    this.inline = !!opts.inSlices;
    this.merger = new Merger(opts.maxMatches);
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    if (opts.signal.aborted) this.settle(null);
    else opts.signal.addEventListener("abort", this.onAbort, { once: true });
  }

  /** Adds the next file in order; false once no more files are wanted
   * (the matches already exceed the cap, the search was aborted or failed). */
  add(file: string): boolean {
    if (this.settled) return false;
    this.total++;
    if (this.inline) {
      if (this.total < this.threshold) return this.searchInline(file);
      this.inline = false; // from here on, files go to the workers in chunks
    }
    this.current.push(file);
    if (this.current.length >= CHUNK_FILES) this.seal();
    if (this.mode === "collect" && !this.workersFailed && this.total >= this.threshold) this.startWorkers();
    return !this.settled;
  }

  /** No more files: resolves to the outcome, or null when aborted. */
  end(): Promise<SearchOutcome | null> {
    if (!this.ended && !this.settled) {
      this.ended = true;
      if (this.current.length > 0) this.seal();
      if (this.mode === "collect") void this.searchOnMainThread();
      else this.maybeFinished();
    }
    return this.done;
  }

  /** Stops the search (e.g. the crawl failed); `end` then resolves to null. */
  cancel(): void {
    this.settle(null);
  }

  private seal(): void {
    this.chunks.push(this.current.join("\0"));
    this.current = [];
    if (this.mode === "workers") this.pump();
  }

  private settle(v: SearchOutcome | null): void {
    if (this.settled) return;
    this.settled = true;
    this.opts.signal.removeEventListener("abort", this.onAbort);
    this.stopWorkers();
    this.resolveDone(v);
  }

  private stopWorkers(): void {
    const pool = this.pool;
    this.pool = [];
    for (const p of pool) {
      // its events from now on (the exit this causes included) are ignored
      p.retired = true;
      void p.worker.terminate();
    }
  }

  // --- worker threads ---------------------------------------------------------

  private startWorkers(): void {
    const size = Math.max(1, Math.min(nodeOs().availableParallelism(), 4));
    try {
      for (let i = 0; i < size; i++) {
        // settled meanwhile (`onWorker` may abort): start no more
        if (this.settled) return;
        const worker = new (nodeWorkerThreads().Worker)(workerSource(), {
          eval: true,
          workerData: { spec: this.opts.spec, contextBefore: this.opts.contextBefore, contextAfter: this.opts.contextAfter },
        });
        const p: PoolWorker = { worker, inFlight: 0, retired: false };
        this.pool.push(p);
        worker.on("message", (reply: ChunkReply) => {
          if (!p.retired) this.onReply(p, reply);
        });
        // an error is followed by an exit; either means its chunks are lost
        worker.on("error", () => {
          if (!p.retired) this.workersLost();
        });
        worker.on("exit", () => {
          if (!p.retired) this.workersLost();
        });
        this.opts.onWorker?.(worker);
      }
    } catch {
      this.workersLost();
      return;
    }
    if (this.settled) return;
    this.mode = "workers";
    this.pump();
  }

  /** Posts queued chunks to the least busy workers, up to the in-flight cap. */
  private pump(): void {
    const cap = this.ended ? IN_FLIGHT : IN_FLIGHT_CRAWLING;
    while (this.nextDispatch < this.chunks.length) {
      let best: PoolWorker | null = null;
      for (const p of this.pool) if (p.inFlight < cap && (!best || p.inFlight < best.inFlight)) best = p;
      if (!best) return;
      const chunk = this.nextDispatch++;
      best.inFlight++;
      // one string, not an array of them: cloning 256 strings costs both
      // threads far more than one flat copy
      best.worker.postMessage({ chunk, files: this.chunks[chunk], limit: this.limit });
    }
  }

  private onReply(p: PoolWorker, reply: ChunkReply): void {
    p.inFlight--;
    this.replies.set(reply.chunk, reply.results);
    // merge every chunk that is now contiguous with what was merged before
    while (this.replies.has(this.nextMerge)) {
      for (const [file, matches] of this.replies.get(this.nextMerge)!) {
        if (this.merger.add(file, matches)) return this.settle({ files: this.merger.files, truncated: true });
      }
      // merged chunks are not needed again: drop them, so a long crawl holds
      // only the paths still in flight
      this.chunks[this.nextMerge] = "";
      this.replies.delete(this.nextMerge);
      this.nextMerge++;
    }
    if (!this.maybeFinished()) this.pump();
  }

  private maybeFinished(): boolean {
    if (!this.ended || this.nextMerge < this.chunks.length) return false;
    this.settle({ files: this.merger.files, truncated: false });
    return true;
  }

  /** A worker failed or exited on its own: the chunks from the first one not
   * merged yet are searched on the main thread instead. */
  private workersLost(): void {
    if (this.settled) return;
    this.workersFailed = true;
    this.stopWorkers();
    this.replies.clear();
    this.nextDispatch = this.nextMerge;
    const wasWorkers = this.mode === "workers";
    this.mode = "collect";
    if (wasWorkers && this.ended) void this.searchOnMainThread();
  }

  // --- main thread ------------------------------------------------------------

  /** Searches one file on the main thread now; false once the cap is exceeded. */
  private searchInline(file: string): boolean {
    this.inlineSearch ??= {
      search: makeSearcher(this.opts.spec, this.opts.contextBefore, this.opts.contextAfter),
      read: makeSyncReader(fs, PROBE_BYTES, BINARY_PROBE),
    };
    let matches: LineMatch[] | null = null;
    try {
      const bytes = this.inlineSearch.read(file);
      matches = bytes && this.inlineSearch.search(bytes, this.limit);
    } catch {
      matches = null; // unreadable: skipped
    }
    if (!this.merger.add(file, matches)) return true;
    this.settle({ files: this.merger.files, truncated: true });
    return false;
  }

  /** Searches the chunks not merged yet on the main thread (sliced for a
   * waiting caller whose workers failed), then settles. */
  private searchOnMainThread(): Promise<void> {
    const files = this.chunks.slice(this.nextMerge).flatMap((c) => c.split("\0"));
    return this.opts.inSlices ? this.searchInSlices(files) : this.searchAsync(files);
  }

  private async searchAsync(files: string[]): Promise<void> {
    const search = makeSearcher(this.opts.spec, this.opts.contextBefore, this.opts.contextAfter);
    for (let i = 0; i < files.length; i += MAIN_THREAD_BATCH) {
      const batch = files.slice(i, i + MAIN_THREAD_BATCH);
      const contents = await Promise.all(batch.map((f) => readText(f).catch(() => null)));
      if (this.settled) return;
      for (let j = 0; j < batch.length; j++) {
        const buf = contents[j];
        if (buf && this.merger.add(batch[j]!, search(buf, this.limit))) return this.settle({ files: this.merger.files, truncated: true });
      }
    }
    this.settle({ files: this.merger.files, truncated: false });
  }

  private async searchInSlices(files: string[]): Promise<void> {
    const search = makeSearcher(this.opts.spec, this.opts.contextBefore, this.opts.contextAfter);
    const read = makeSyncReader(fs, PROBE_BYTES, BINARY_PROBE);
    let sliceStart = monotonicMs();
    for (let i = 0; i < files.length; i++) {
      if ((i & 15) === 15 && monotonicMs() - sliceStart > SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.settled) return;
        sliceStart = monotonicMs();
      }
      let matches: LineMatch[] | null = null;
      try {
        const bytes = read(files[i]!);
        matches = bytes && search(bytes, this.limit);
      } catch {
        matches = null; // unreadable: skipped, as the async path does
      }
      if (this.merger.add(files[i]!, matches)) return this.settle({ files: this.merger.files, truncated: true });
    }
    this.settle({ files: this.merger.files, truncated: false });
  }
}

/**
 * A synchronous file reader into one reused buffer: a file's bytes (a view
 * of that buffer, valid until the next read, for files shorter than
 * `probeBytes`), or null for a long binary one, skipped without reading the
 * rest of it (the searcher tells short binary files apart itself).
 *
 * Self-contained — no imports, no outer names — because the search workers
 * run its source text, as they do `makeSearcher`'s.
 */
export function makeSyncReader(
  fs: Pick<typeof import("node:fs"), "openSync" | "readSync" | "fstatSync" | "closeSync">,
  probeBytes: number,
  binaryProbe: number,
): (path: string) => Buffer | null {
  const buf = Buffer.allocUnsafe(probeBytes);
  return (path) => {
    const fd = fs.openSync(path, "r");
    try {
      let n = fs.readSync(fd, buf, 0, buf.length, 0);
      if (n < buf.length) return buf.subarray(0, n);
      if (buf.subarray(0, binaryProbe).includes(0)) return null;
      const size = fs.fstatSync(fd).size;
      const big = Buffer.allocUnsafe(Math.max(size, n));
      buf.copy(big, 0, 0, n);
      let m: number;
      while (n < big.length && (m = fs.readSync(fd, big, n, big.length - n, n)) > 0) n += m;
      return big.subarray(0, n);
    } finally {
      fs.closeSync(fd);
    }
  };
}

/** Bytes probed for NUL before a file is read whole: binary files (§1.6)
 * are skipped without reading the rest of them. */
const PROBE_BYTES = 64 * 1024;
const BINARY_PROBE = 8192;

/** A file's bytes, or null for a binary one (a NUL in the first 8 KiB). */
async function readText(path: string): Promise<Buffer | null> {
  const fh = await open(path, "r");
  try {
    const head = Buffer.allocUnsafe(PROBE_BYTES);
    const { bytesRead } = await fh.read(head, 0, PROBE_BYTES, 0);
    if (head.subarray(0, Math.min(bytesRead, BINARY_PROBE)).includes(0)) return null;
    if (bytesRead < PROBE_BYTES) return head.subarray(0, bytesRead);
    // positioned reads leave the file position at 0: this reads it all
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}

/** The code a search worker runs: reads files with the shared
 * `makeSyncReader`, searches them with the shared `makeSearcher`, answers
 * one message per chunk. */
function workerSource(): string {
  return `
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
const makeSearcher = (${makeSearcher.toString()});
const search = makeSearcher(workerData.spec, workerData.contextBefore, workerData.contextAfter);
const readWhole = (${makeSyncReader.toString()})(fs, ${PROBE_BYTES}, ${BINARY_PROBE});
parentPort.on("message", (job) => {
  const results = [];
  const files = job.files.split("\\0");
  for (let i = 0; i < files.length; i++) {
    let matches = null;
    try { const bytes = readWhole(files[i]); matches = bytes && search(bytes, job.limit); } catch { matches = null; }
    if (matches && matches.length > 0) results.push([files[i], matches]);
  }
  parentPort.postMessage({ chunk: job.chunk, results });
});
`;
}
