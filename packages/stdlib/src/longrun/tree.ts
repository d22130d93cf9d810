/**
 * The directory crawlers behind `walk_dir`, `find_text` (agents.md §1.4,
 * §1.8) and `glob` (§1.5). `glob` sorts its result itself, so it uses
 * `listUnordered` at the end of this file, which lists on two cores. The
 * ordered `crawl` has two strategies, one result: every entry, the root
 * first, in pre-order with siblings sorted by name (code-unit order), handed
 * to a visitor as it is emitted (no intermediate entry objects: a 100,000
 * entry walk is dominated by allocation otherwise).
 *
 * - Background work (`long_running`) never blocks the event loop:
 *   directories are listed with callback `fs.readdir` calls, many in flight
 *   at once. Listings are collected first and emitted in order afterwards,
 *   whatever order they arrived in.
 * - A synchronous call (`inSlices`) makes its caller wait anyway, so it
 *   lists with `readdirSync` — no thread-pool round trip per directory,
 *   about twice as fast on the 100,000-file bench tree — in slices of a few
 *   milliseconds, yielding to the event loop in between so timers, other
 *   tasks and Ctrl-C stay responsive.
 *
 * Why the synchronous walk lists with `readdirSync` instead of overlapping
 * listing and emitting, and why big crawls get no second thread: measured,
 * with the designs tried instead, in bench/fs/crawler-notes.md.
 *
 * Cancellation is cooperative: the abort signal is checked whenever a
 * listing arrives (async) or between slices; an aborted crawl resolves to
 * `false` and abandons whatever is still in flight.
 */
import { monotonicMs } from "@harn/vm";
import { readdir, readdirSync, stat, statSync, type Dirent, type Stats } from "node:fs";
import { fastestLister, KIND_DIRECTORY, type DirectoryLister } from "./listing";

export interface CrawlOptions {
  /** Deepest depth to report (root = 0); `Infinity` for no limit. */
  readonly maxDepth: number;
  /** Descend through symlinked directories (with loop detection). */
  readonly followSymlinks: boolean;
  /** Skip entries whose name starts with `.` (the root is never skipped). */
  readonly skipHidden: boolean;
  readonly signal: AbortSignal;
  /** Synchronous listing in time slices (for callers that wait anyway). */
  readonly inSlices?: boolean;
  /** Whether to list a directory (full path); pruned ones are still visited. */
  readonly descendInto?: (path: string) => boolean;
}

/**
 * Called for every entry in order. `isFile` means a regular file (or, when
 * following symlinks, a link to one); an unfollowed symlink is neither.
 * `name` is the last segment of `path` as its directory listed it (a flat
 * string: `path` is a concatenation that most callers never read, and
 * reading it flattens it). Returning `false` ends the crawl early (it
 * still counts as completed).
 */
export type Visitor = (path: string, depth: number, isDir: boolean, isFile: boolean, name: string) => boolean | void;

/** How many directory listings may be in flight at once. Measured on the
 * bench tree: 16–64 are equally fast; beyond that libuv's pool saturates. */
const CONCURRENCY = 32;

/** Longest stretch of synchronous listing before yielding to the event loop. */
const SLICE_MS = 8;

export function joinPath(dir: string, name: string): string {
  return dir.endsWith("/") ? dir + name : dir + "/" + name;
}

function withSlash(dir: string): string {
  return dir.endsWith("/") ? dir : dir + "/";
}

function byName(a: Dirent, b: Dirent): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function fileId(st: Stats): string {
  return `${st.dev}:${st.ino}`;
}

function statAsync(path: string): Promise<Stats | null> {
  return new Promise((resolve) => stat(path, (err, st) => resolve(err ? null : st)));
}

function statSyncOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/**
 * Visits `root` (an absolute, normalised path) and everything below it.
 * Unreadable entries are skipped; a missing root visits nothing, a file root
 * only itself. Resolves to false when the signal aborted, true otherwise.
 */
export async function crawl(root: string, opts: CrawlOptions, visit: Visitor): Promise<boolean> {
  const { signal } = opts;
  if (signal.aborted) return false;
  const rootStat = await statAsync(root);
  if (signal.aborted) return false;
  if (!rootStat) return true;
  const isDir = rootStat.isDirectory();
  if (visit(root, 0, isDir, rootStat.isFile(), root.slice(root.lastIndexOf("/") + 1)) === false) return true;
  if (!isDir || opts.maxDepth < 1) return true;
  return opts.inSlices ? crawlInSlices(root, rootStat, opts, visit) : crawlAsync(root, rootStat, opts, visit);
}

// --- synchronous listing in slices --------------------------------------------

interface Frame {
  readonly dir: string;
  /** `dir` with a trailing slash: each entry's path is one concatenation. */
  readonly prefix: string;
  /** Depth of this directory's children. */
  readonly depth: number;
  dirents: Dirent[] | null;
  i: number;
  readonly chain: readonly string[] | null;
}

function listSync(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).sort(byName);
  } catch {
    return []; // unreadable: skipped silently
  }
}

/** Depth-first with synchronous listings, emitting in pre-order directly. */
async function crawlInSlices(root: string, rootStat: Stats, opts: CrawlOptions, visit: Visitor): Promise<boolean> {
  const { signal, maxDepth, followSymlinks, skipHidden, descendInto } = opts;
  const stack: Frame[] = [{ dir: root, prefix: withSlash(root), depth: 1, dirents: null, i: 0, chain: followSymlinks ? [fileId(rootStat)] : null }];
  let sliceStart = monotonicMs();
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.dirents === null) {
      top.dirents = listSync(top.dir);
      if (monotonicMs() - sliceStart > SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (signal.aborted) return false;
        sliceStart = monotonicMs();
      }
    }
    if (top.i >= top.dirents.length) {
      stack.pop();
      continue;
    }
    const d = top.dirents[top.i++]!;
    const name = d.name;
    if (skipHidden && name.charCodeAt(0) === 46 /* . */) continue;
    const path = top.prefix + name;
    let isDir = d.isDirectory();
    let isFile = d.isFile();
    let chain = top.chain;
    if (chain && (isDir || d.isSymbolicLink())) {
      const st = statSyncOrNull(path);
      if (d.isSymbolicLink()) {
        // broken link or a loop back into its own ancestry: an unreadable entry
        if (!st || (st.isDirectory() && chain.includes(fileId(st)))) continue;
        isDir = st.isDirectory();
        isFile = st.isFile();
      }
      if (st && isDir) chain = [...chain, fileId(st)];
    }
    if (visit(path, top.depth, isDir, isFile, name) === false) return true;
    if (isDir && top.depth < maxDepth && (!descendInto || descendInto(path))) {
      stack.push({ dir: path, prefix: path + "/", depth: top.depth + 1, dirents: null, i: 0, chain });
    }
  }
  return !signal.aborted;
}

// --- asynchronous listing, many at a time --------------------------------------

interface Child {
  readonly name: string;
  readonly isDir: boolean;
  readonly isFile: boolean;
  /** Listed (and therefore to be emitted with its contents). */
  readonly descend: boolean;
}

interface Pending {
  readonly dir: string;
  readonly depth: number;
  /** `dev:ino` of this directory and its ancestors (follow mode only). */
  readonly chain: readonly string[] | null;
}

async function crawlAsync(root: string, rootStat: Stats, opts: CrawlOptions, visit: Visitor): Promise<boolean> {
  const listings = await listAll(root, rootStat, opts);
  if (!listings) return false;
  // Emission: an explicit stack, so very deep trees cannot overflow the JS stack.
  const stack: { prefix: string; depth: number; children: Child[]; i: number }[] = [];
  const rootChildren = listings.get(root);
  if (rootChildren) stack.push({ prefix: withSlash(root), depth: 1, children: rootChildren, i: 0 });
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.i >= top.children.length) {
      stack.pop();
      continue;
    }
    const c = top.children[top.i++]!;
    const path = top.prefix + c.name;
    if (visit(path, top.depth, c.isDir, c.isFile, c.name) === false) return true;
    if (c.descend) {
      const sub = listings.get(path);
      if (sub && sub.length > 0) stack.push({ prefix: path + "/", depth: top.depth + 1, children: sub, i: 0 });
    }
  }
  return !opts.signal.aborted;
}

/** Lists every directory to be visited, many at a time. */
function listAll(root: string, rootStat: Stats, opts: CrawlOptions): Promise<Map<string, Child[]> | null> {
  const { signal, maxDepth, followSymlinks, skipHidden, descendInto } = opts;
  const listings = new Map<string, Child[]>();
  const queue: Pending[] = [{ dir: root, depth: 0, chain: followSymlinks ? [fileId(rootStat)] : null }];
  let active = 0;

  return new Promise((resolve) => {
    let finished = false;
    const finish = (v: Map<string, Child[]> | null) => {
      if (finished) return;
      finished = true;
      signal.removeEventListener("abort", onAbort);
      resolve(v);
    };
    const onAbort = () => finish(null);
    signal.addEventListener("abort", onAbort, { once: true });

    const pump = () => {
      if (finished) return;
      while (active < CONCURRENCY && queue.length > 0) {
        const job = queue.pop()!;
        active++;
        readdir(job.dir, { withFileTypes: true }, (err, dirents) => {
          if (finished) return;
          if (err) {
            done();
            return;
          }
          dirents.sort(byName);
          if (followSymlinks) {
            void resolveLinks(job, dirents).then(done);
          } else {
            accept(job, dirents, null);
            done();
          }
        });
      }
      if (active === 0 && queue.length === 0) finish(listings);
    };
    const done = () => {
      active--;
      if (signal.aborted) finish(null);
      else pump();
    };

    /** Records one listing and queues its subdirectories. */
    const accept = (job: Pending, dirents: Dirent[], stats: Map<string, Stats | null> | null) => {
      const children: Child[] = [];
      const childDepth = job.depth + 1;
      const listChildren = childDepth < maxDepth;
      for (const d of dirents) {
        const name = d.name;
        if (skipHidden && name.charCodeAt(0) === 46 /* . */) continue;
        let isDir = d.isDirectory();
        let isFile = d.isFile();
        let chain = job.chain;
        if (stats) {
          const st = stats.get(name);
          if (d.isSymbolicLink()) {
            if (!st) continue; // broken link or loop: an unreadable entry
            isDir = st.isDirectory();
            isFile = st.isFile();
          }
          if (st && isDir && chain) chain = [...chain, fileId(st)];
        }
        const path = joinPath(job.dir, name);
        const descend = isDir && listChildren && (!descendInto || descendInto(path));
        children.push({ name, isDir, isFile, descend });
        if (descend) queue.push({ dir: path, depth: childDepth, chain });
      }
      listings.set(job.dir, children);
    };

    /** Follow mode: stat symlinks (and directories, for loop detection). */
    const resolveLinks = async (job: Pending, dirents: Dirent[]) => {
      const stats = new Map<string, Stats | null>();
      await Promise.all(
        dirents.map(async (d) => {
          if (!d.isSymbolicLink() && !d.isDirectory()) return;
          const st = await statAsync(joinPath(job.dir, d.name));
          // a link back into its own ancestry is a loop: report it as unreadable
          if (st && d.isSymbolicLink() && st.isDirectory() && job.chain?.includes(fileId(st))) stats.set(d.name, null);
          else stats.set(d.name, st);
        }),
      );
      if (!finished) accept(job, dirents, stats);
    };

    pump();
  });
}

// --- unordered listing, for callers that sort their own output ----------------

/** Called for every entry below the root, in no particular order. */
export type UnorderedVisitor = (path: string, name: string, isDir: boolean) => void;

/** How many listings `listUnordered` keeps in flight: enough that libuv's
 * pool threads never wait for the main thread between two of them. */
const UNORDERED_CONCURRENCY = 256;

/**
 * Visits every entry below `root` (not `root` itself) in no particular
 * order, without following symlinks; unreadable directories are skipped, a
 * missing or non-directory root visits nothing. Resolves to false when the
 * signal aborted (whatever is in flight is abandoned), true otherwise.
 *
 * Why a second crawler: when order does not matter, nothing has to wait for
 * the next directory in pre-order, so the listings can all be in flight at
 * once. libuv's pool threads then do the kernel side (openat, getdents64,
 * close) on the second core while the main thread only turns finished
 * listings into entries. On the 2-core bench machine (bench/fs tree, in
 * process, plain Node, other work niced, 7 interleaved runs) that took a
 * median of 97 ms against 121 ms for a `readdirSync` crawl; the main thread
 * spent ~75 ms instead of ~140. Ordered crawls cannot profit the same way:
 * emitting in pre-order means holding every listing until its turn, which
 * measured slower than listing synchronously (see the header). Listings
 * come as names and kinds, without a `Dirent` per entry (listing.ts).
 */
export function listUnordered(
  root: string,
  signal: AbortSignal,
  visit: UnorderedVisitor,
  /** How directories are listed (listing.ts); tests pass the public one. */
  list: DirectoryLister = fastestLister(),
): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const queue: string[] = [withSlash(root)];
    let active = 0;
    let finished = false;
    const finish = (completed: boolean) => {
      if (finished) return;
      finished = true;
      signal.removeEventListener("abort", onAbort);
      resolve(completed);
    };
    const onAbort = () => finish(false);
    signal.addEventListener("abort", onAbort, { once: true });

    const listed = (prefix: string, err: Error | null, names: readonly string[], kinds: readonly number[]) => {
      active--;
      if (finished) return;
      if (!err) {
        for (let i = 0; i < names.length; i++) {
          const name = names[i]!;
          const path = prefix + name;
          const isDir = kinds[i] === KIND_DIRECTORY;
          visit(path, name, isDir);
          if (isDir) queue.push(path + "/");
        }
      }
      pump();
    };
    const pump = () => {
      while (active < UNORDERED_CONCURRENCY && queue.length > 0) {
        const prefix = queue.pop()!;
        active++;
        list(prefix, (err, names, kinds) => listed(prefix, err, names, kinds));
      }
      if (active === 0 && queue.length === 0) finish(true);
    };
    pump();
  });
}
