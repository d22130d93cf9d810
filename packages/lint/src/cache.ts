/**
 * `harn lint --cache`: the findings of each file, keyed by a hash of its
 * content (as ESLint's `--cache-strategy content`), of the configuration
 * that applies to it, of the run's settings, and of the content of every
 * module it imports (transitively). An unchanged file is not parsed or
 * linted again; what it imports by name is kept too, since other files'
 * `unused-function` findings depend on it. A cache that cannot be read or
 * was written by another version is ignored; one that cannot be written is
 * not fatal.
 */
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as crypto from "node:crypto";
import type { Diagnostic } from "@harn/parser";

/** The cache file's layout version (bump when the entry shape changes). */
const FORMAT = 1;

export interface CacheEntry {
  /** Hash of the file's bytes. */
  hash: string;
  /** Hash of the configuration that applied to it. */
  config: string;
  /** Every module it imports, transitively, with the hash of its bytes. */
  deps: [string, string][];
  /** Names it (and its imports) import by name. */
  contrib: string[];
  diagnostics: Diagnostic[];
  fatal: boolean;
}

/** An entry as stored: empty parts left out (most files have no
 * findings and no imports), so the file of a large project stays small
 * and quick to parse. */
interface Packed {
  h: string;
  c: string;
  /** Size and modification time (ms) of the content hashed, when it had
   * settled (see `LintCache.hashOf`). */
  s?: number;
  m?: number;
  d?: [string, string][];
  n?: string[];
  x?: Diagnostic[];
  f?: 1;
}

interface CacheFile {
  format: number;
  /** Hash of the run's settings and the linter's version. */
  settings: string;
  entries: Record<string, Packed>;
}

const NONE: never[] = [];

/** `crypto.hash` (Node 20.12+): one call, no Hash object, which cost
 * more than hashing a small file (a --cache run of 9,000 of them). */
const oneShot = (crypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: "base64") => string }).hash;

export function hashText(text: string): string {
  return oneShot ? oneShot("sha1", text, "base64") : crypto.createHash("sha1").update(text).digest("base64");
}

export function hashBytes(bytes: Uint8Array): string {
  return oneShot ? oneShot("sha1", bytes, "base64") : crypto.createHash("sha1").update(bytes).digest("base64");
}

/** Hashes of files' bytes, memoised for a run by absolute path (the
 * module graph names imported files so, targets may be relative). */
export class FileHasher {
  private readonly memo = new Map<string, string | null>();

  /** Note the bytes of a file already read. */
  remember(path: string, bytes: Uint8Array): void {
    this.memo.set(path, hashBytes(bytes));
  }

  /** Hash of a file's bytes, or null when it cannot be read. */
  hash(path: string): string | null {
    let h = this.memo.get(path);
    if (h === undefined) {
      let bytes: Buffer | null = null;
      try {
        bytes = readFileSync(path);
      } catch {
        // unreadable: no hash, so no cache entry depending on it holds
      }
      h = bytes === null ? null : hashBytes(bytes);
      this.memo.set(path, h);
    }
    return h;
  }
}

/** How long before the run a file must have last changed for its size
 * and modification time to stand for its content (git's "racy" rule: a
 * file changed again within the same clock tick keeps its mtime). */
const SETTLED_MS = 2000;

export class LintCache {
  private readonly started = Date.now();
  private readonly hashes = new FileHasher();
  private dirty = false;

  private constructor(
    private readonly path: string,
    private readonly settings: string,
    private readonly entries: Record<string, Packed>,
  ) {}

  /** The cache at `path` for runs with these settings (empty when absent,
   * unreadable, or from other settings). */
  static load(path: string, settings: string): LintCache {
    try {
      const f = JSON.parse(readFileSync(path, "utf8")) as CacheFile;
      if (f.format === FORMAT && f.settings === settings && f.entries && typeof f.entries === "object") return new LintCache(path, settings, f.entries);
    } catch {
      // absent or damaged: start over
    }
    return new LintCache(path, settings, {});
  }

  /**
   * Hash of the content of `file` (an absolute path), or null when it
   * cannot be read. A file whose size and modification time are those its
   * entry recorded is not read again (git's index does the same); the
   * entry of one that was read and found unchanged learns them.
   */
  private hashOf(file: string): string | null {
    const e = this.entries[file];
    const st = e ? statSync(file, { throwIfNoEntry: false }) : undefined;
    if (e && st && e.s === st.size && e.m === st.mtimeMs) return e.h;
    const h = this.hashes.hash(file);
    if (e && st && h === e.h && this.settled(st.mtimeMs)) {
      e.s = st.size;
      e.m = st.mtimeMs;
      this.dirty = true;
    }
    return h;
  }

  private settled(mtimeMs: number): boolean {
    return mtimeMs < this.started - SETTLED_MS;
  }

  /** The entry of `file` (an absolute path) if it still holds: same
   * content, configuration and imported modules. */
  lookup(file: string, config: string): CacheEntry | null {
    const e = this.entries[file];
    if (!e || e.c !== config || this.hashOf(file) !== e.h) return null;
    for (const [dep, h] of e.d ?? NONE) if (this.hashOf(dep) !== h) return null;
    return { hash: e.h, config: e.c, deps: e.d ?? NONE, contrib: e.n ?? NONE, diagnostics: e.x ?? NONE, fatal: e.f === 1 };
  }

  /** Store the findings of `file` (an absolute path), linted from content
   * whose hash is `entry.hash`. */
  store(file: string, entry: CacheEntry): void {
    const p: Packed = { h: entry.hash, c: entry.config };
    // its size and time stand for that content only if it has not changed
    // since it was read: surely so when it last changed before the run
    const st = statSync(file, { throwIfNoEntry: false });
    if (st && this.settled(st.mtimeMs)) {
      p.s = st.size;
      p.m = st.mtimeMs;
    }
    if (entry.deps.length > 0) p.d = entry.deps;
    if (entry.contrib.length > 0) p.n = entry.contrib;
    if (entry.diagnostics.length > 0) p.x = entry.diagnostics;
    if (entry.fatal) p.f = 1;
    this.entries[file] = p;
    this.dirty = true;
  }

  /** Write the cache (atomically) if anything changed; false when it
   * could not be written. */
  save(): boolean {
    if (!this.dirty) return true;
    const body: CacheFile = { format: FORMAT, settings: this.settings, entries: this.entries };
    const temp = `${this.path}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, JSON.stringify(body));
      renameSync(temp, this.path);
      this.dirty = false;
      return true;
    } catch {
      rmSync(temp, { force: true });
      return false;
    }
  }
}
