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
import { closeSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
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

export function hashText(text: string): string {
  return createHash("sha1").update(text).digest("base64");
}

export function hashBytes(bytes: Uint8Array): string {
  return createHash("sha1").update(bytes).digest("base64");
}

/** Reads files into one reused buffer: a cached run hashes every file, and
 * `readFileSync` costs a stat and a fresh buffer each. */
export class FileHasher {
  private buf = Buffer.alloc(64 * 1024);
  private readonly memo = new Map<string, string | null>();

  /** The file's bytes (a view into the shared buffer: copy to keep), or
   * null when it cannot be read. */
  read(path: string): Buffer | null {
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch {
      return null;
    }
    try {
      let n = 0;
      for (;;) {
        if (n === this.buf.length) {
          const bigger = Buffer.alloc(this.buf.length * 2);
          this.buf.copy(bigger);
          this.buf = bigger;
        }
        const k = readSync(fd, this.buf, n, this.buf.length - n, null);
        if (k === 0) break;
        n += k;
      }
      return this.buf.subarray(0, n);
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
  }

  /** Note the bytes of a file already read. */
  remember(path: string, bytes: Buffer): void {
    this.memo.set(path, hashBytes(bytes));
  }

  /** Hash of a file's bytes (memoised for the run), or null. */
  hash(path: string): string | null {
    let h = this.memo.get(path);
    if (h === undefined) {
      // not through the shared buffer: a caller may still hold a view of it
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

export class LintCache {
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

  /** The entry of `file` (an absolute path) if it still holds: same
   * content, configuration and imported modules. */
  lookup(file: string, hash: string, config: string, hasher: FileHasher): CacheEntry | null {
    const e = this.entries[file];
    if (!e || e.h !== hash || e.c !== config) return null;
    for (const [dep, h] of e.d ?? NONE) if (hasher.hash(dep) !== h) return null;
    return { hash: e.h, config: e.c, deps: e.d ?? NONE, contrib: e.n ?? NONE, diagnostics: e.x ?? NONE, fatal: e.f === 1 };
  }

  store(file: string, entry: CacheEntry): void {
    const p: Packed = { h: entry.hash, c: entry.config };
    if (entry.deps.length > 0) p.d = entry.deps;
    if (entry.contrib.length > 0) p.n = entry.contrib;
    if (entry.diagnostics.length > 0) p.x = entry.diagnostics;
    if (entry.fatal) p.f = 1;
    this.entries[file] = p;
  }

  /** Write the cache (atomically); false when it could not be written. */
  save(): boolean {
    const body: CacheFile = { format: FORMAT, settings: this.settings, entries: this.entries };
    const temp = `${this.path}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, JSON.stringify(body));
      renameSync(temp, this.path);
      return true;
    } catch {
      rmSync(temp, { force: true });
      return false;
    }
  }
}
