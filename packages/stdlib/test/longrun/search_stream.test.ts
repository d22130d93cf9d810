/**
 * The search fed while the crawl runs (`FileSearch`, `runSearch`): worker
 * threads get chunks as files arrive, results merge in file order, and
 * truncation, cancellation and a worker dying all end cleanly, with every
 * worker exited.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Worker } from "node:worker_threads";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runSearch, type SearchParams } from "../../src/longrun/find_text";
import { FileSearch, type SearchOptions, type SearchOutcome } from "../../src/longrun/search_pool";
import { tempDir } from "./helpers";

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.remove());

const literal = { kind: "literal", text: "needle" } as const;

/** `perDir` files in each of `dirs` directories; every `every`-th file holds matches. */
function makeTree(dirs: number, perDir: number, every: number): string[] {
  const files: string[] = [];
  for (let d = 0; d < dirs; d++) {
    const sub = join(dir.path, `d${String(d).padStart(3, "0")}`);
    mkdirSync(sub);
    for (let f = 0; f < perDir; f++) {
      const path = join(sub, `f${String(f).padStart(3, "0")}.txt`);
      const n = files.length;
      writeFileSync(path, n % every === 0 ? `head ${n}\nneedle ${n}\nand needle ${n} again\n` : `nothing in ${n}\n`);
      files.push(path);
    }
  }
  return files;
}

/** Records the workers a search starts; `exited` resolves once all of them have. */
function workerLog() {
  const workers: Worker[] = [];
  const exits: Promise<unknown>[] = [];
  return {
    workers,
    onWorker(w: Worker) {
      workers.push(w);
      exits.push(new Promise((resolve) => w.once("exit", resolve)));
    },
    exited: () => Promise.all(exits),
  };
}

/**
 * Feeds files like a slow crawl: a few at a time with a turn of the event
 * loop in between, so worker replies are merged while files keep coming.
 * With `forever`, cycles through the files until the search wants no more.
 * Returns how many files were added.
 */
async function feed(search: FileSearch, files: string[], forever = false): Promise<number> {
  let added = 0;
  for (let i = 0; forever || i < files.length; i++) {
    if (!search.add(files[i % files.length]!)) return added;
    added++;
    if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return added;
}

function paths(o: SearchOutcome | null): [string, number[]][] {
  return o!.files.map((f) => [f.file, f.matches.map((m) => m.line)]);
}

const options = (extra: Partial<SearchOptions>): SearchOptions => ({
  spec: literal,
  contextBefore: 0,
  contextAfter: 0,
  maxMatches: 100_000,
  signal: new AbortController().signal,
  ...extra,
});

describe("a search fed while the crawl runs", () => {
  it("merges worker results across many chunks in file order", async () => {
    const files = makeTree(10, 200, 7); // 2,000 files: 8 chunks
    const log = workerLog();
    const search = new FileSearch(options({ workerThreshold: 100, onWorker: log.onWorker }));
    expect(await feed(search, files)).toBe(files.length);
    const got = await search.end();
    const expected = files.filter((_, i) => i % 7 === 0).map((f) => [f, [2, 3]]);
    expect(paths(got)).toEqual(expected);
    expect(got!.truncated).toBe(false);
    expect(log.workers.length).toBeGreaterThan(0);
    await log.exited();
  });

  it("stops taking files once the matches exceed the cap, and says truncated", async () => {
    const files = makeTree(2, 100, 10);
    const log = workerLog();
    const search = new FileSearch(options({ maxMatches: 7, workerThreshold: 10, onWorker: log.onWorker }));
    // an endless crawl: only the search saying "no more" ends it
    await feed(search, files, true);
    const got = await search.end();
    expect(got!.truncated).toBe(true);
    // 7 matches: three files of two, then one of the fourth, in order
    expect(paths(got)).toEqual([
      [files[0], [2, 3]],
      [files[10], [2, 3]],
      [files[20], [2, 3]],
      [files[30], [2]],
    ]);
    await log.exited();
  });

  it("stops taking files and resolves to null when aborted mid-crawl", async () => {
    const files = makeTree(2, 100, 10);
    const log = workerLog();
    const ac = new AbortController();
    const search = new FileSearch(
      options({
        signal: ac.signal,
        workerThreshold: 10,
        onWorker: (w) => {
          log.onWorker(w);
          // abort once the search is under way in the workers
          w.once("message", () => ac.abort());
        },
      }),
    );
    await feed(search, files, true);
    expect(await search.end()).toBeNull();
    await log.exited();
  });

  it("finishes on the main thread, with the same results, when a worker dies mid-search", async () => {
    const files = makeTree(10, 200, 7);
    const mainOnly = new FileSearch(options({ workerThreshold: Infinity }));
    await feed(mainOnly, files);
    const reference = await mainOnly.end();

    // (a waiting caller's search finishes in slices, after 99 files inline)
    for (const [whileCrawling, inSlices] of [[true, false], [false, false], [true, true], [false, true]]) {
      const log = workerLog();
      const search = new FileSearch(
        options({
          inSlices,
          workerThreshold: 100,
          onWorker: (w) => {
            log.onWorker(w);
            // the first worker dies after its first reply, holding chunks
            if (log.workers.length === 1) w.once("message", () => void w.terminate());
          },
        }),
      );
      if (whileCrawling) await feed(search, files);
      else for (const f of files) search.add(f);
      const got = await search.end();
      expect(paths(got)).toEqual(paths(reference));
      await log.exited();
    }
    expect(reference!.files.length).toBe(Math.ceil(files.length / 7));
  });

  it("skips short binary files in the workers as on the main thread", async () => {
    const bin = join(dir.path, "short.bin");
    writeFileSync(bin, "needle\n\u0000needle\n");
    const text = join(dir.path, "short.txt");
    writeFileSync(text, "a needle\n");
    for (const workerThreshold of [0, Infinity]) {
      const log = workerLog();
      const search = new FileSearch(options({ workerThreshold, onWorker: log.onWorker }));
      await feed(search, [bin, text]);
      expect(paths(await search.end())).toEqual([[text, [1]]]);
      expect(log.workers.length > 0).toBe(workerThreshold === 0);
      await log.exited();
    }
  });

  it("gives the same results on the main thread in slices as in the workers and with async reads", async () => {
    const files = makeTree(4, 100, 9);
    const long = join(dir.path, "long.txt");
    writeFileSync(long, "x".repeat(100_000) + "\nneedle at the end\n");
    const longBin = join(dir.path, "long.bin");
    writeFileSync(longBin, Buffer.concat([Buffer.from([0]), Buffer.alloc(100_000, 0x61), Buffer.from("\nneedle\n")]));
    const shortBin = join(dir.path, "short.bin");
    writeFileSync(shortBin, "needle\n\u0000needle\n");
    const all = [long, longBin, shortBin, join(dir.path, "missing.txt"), ...files];
    for (const maxMatches of [100_000, 11]) {
      const outcomes = [];
      for (const tuning of [{ inSlices: true, workerThreshold: Infinity }, { inSlices: false, workerThreshold: Infinity }, { workerThreshold: 0 }]) {
        const search = new FileSearch(options({ maxMatches, ...tuning }));
        await feed(search, all);
        outcomes.push(await search.end());
      }
      expect(outcomes[1]).toEqual(outcomes[0]);
      expect(outcomes[2]).toEqual(outcomes[0]);
      expect(outcomes[0]!.truncated).toBe(maxMatches === 11);
      expect(outcomes[0]!.files[0]).toEqual({ file: long, matches: [{ line: 2, column: 1, text: "needle at the end" }] });
    }
  });

  it("for a waiting caller, searches files below the threshold as they arrive and stops at once past the cap", async () => {
    const files = makeTree(1, 40, 4); // matches in files 0, 4, 8, ...: two lines each
    const log = workerLog();
    const search = new FileSearch(options({ inSlices: true, maxMatches: 5, workerThreshold: 30, onWorker: log.onWorker }));
    const taken = files.map((f) => search.add(f));
    // files 0, 4 hold four matches; file 8 holds the fifth and a sixth
    expect(taken.indexOf(false)).toBe(8);
    const got = await search.end();
    expect(got!.truncated).toBe(true);
    expect(paths(got)).toEqual([
      [files[0], [2, 3]],
      [files[4], [2, 3]],
      [files[8], [2]],
    ]);
    expect(log.workers).toEqual([]);
  });

  it("searches below the threshold on the main thread, starting no worker", async () => {
    const files = makeTree(1, 20, 3);
    const log = workerLog();
    for (const inSlices of [true, false]) {
      const search = new FileSearch(options({ workerThreshold: 21, inSlices, onWorker: log.onWorker }));
      await feed(search, files);
      const got = await search.end();
      expect(paths(got)).toEqual(files.filter((_, i) => i % 3 === 0).map((f) => [f, [2, 3]]));
    }
    expect(log.workers).toEqual([]);
  });
});

describe("runSearch", () => {
  const params = (maxMatches: number): SearchParams => ({
    root: dir.path,
    spec: literal,
    fileFilter: null,
    includeHidden: false,
    maxMatches,
    contextBefore: 1,
    contextAfter: 0,
  });

  it("gives the crawl's order and the same results with workers as without, both crawl strategies", async () => {
    makeTree(30, 40, 5); // 1,200 files in 30 directories
    for (const maxMatches of [100_000, 9]) {
      for (const inSlices of [true, false]) {
        const signal = new AbortController().signal;
        const main = await runSearch(params(maxMatches), signal, inSlices, { workerThreshold: Infinity });
        const log = workerLog();
        const workers = await runSearch(params(maxMatches), signal, inSlices, { workerThreshold: 50, onWorker: log.onWorker });
        expect(workers).toEqual(main);
        expect(main!.truncated).toBe(maxMatches === 9);
        // a waiting caller's search exceeds 9 matches inline, before the threshold
        expect(log.workers.length > 0).toBe(maxMatches === 100_000 || !inSlices);
        await log.exited();
      }
    }
  });

  /** A search over a fresh tree that `abortWhen` aborts once a worker exists:
   * it must resolve to null and leave no worker running. */
  async function expectAbortedSearch(abortWhen: (w: Worker, abort: () => void) => void): Promise<void> {
    makeTree(30, 40, 5);
    const ac = new AbortController();
    const log = workerLog();
    const p = runSearch(params(100_000), ac.signal, true, {
      workerThreshold: 50,
      onWorker: (w) => {
        log.onWorker(w);
        abortWhen(w, () => ac.abort());
      },
    });
    expect(await p).toBeNull();
    await log.exited();
  }

  it("resolves to null when aborted while the workers search, leaving no worker running", async () => {
    await expectAbortedSearch((w, abort) => w.once("message", abort));
  });

  it("resolves to null when aborted during the crawl, leaving no worker running", async () => {
    await expectAbortedSearch((_w, abort) => abort());
  });
});
