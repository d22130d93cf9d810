/**
 * An append-only file of JSON lines, durable line by line, with group
 * commit: lines requested while a write runs go out together in the next
 * write, and every caller's promise resolves once its line is on disk.
 *
 * The file is opened `O_APPEND | O_DSYNC`, so one `write` is also the
 * flush (one thread-pool round trip per group instead of a write and an
 * fsync). A file always appears whole: it is first written as a temp file
 * with its first line, then renamed into place and the directory fsynced
 * (`create`, and `rewrite` for compaction). A crash can only cut the last
 * group short, which leaves a last line without its newline: readers drop
 * it (`splitLog`), and nothing was promised for it.
 */
import { close, constants, fdatasync, ftruncate, open, promises as fsp, write } from "node:fs";
import { join } from "node:path";
import { DIR_MODE, FILE_MODE, tempPath } from "./durable";
import { makeDirs } from "../../core/make-dirs";

const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_TRUNC | constants.O_DSYNC;

function openFd(path: string): Promise<number> {
  return new Promise((resolve, reject) => open(path, APPEND, FILE_MODE, (e, fd) => (e ? reject(e) : resolve(fd))));
}

function writeAll(fd: number, buf: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const step = (off: number) =>
      write(fd, buf, off, buf.length - off, null, (e, n) => {
        if (e) reject(e);
        else if (off + n < buf.length) step(off + n);
        else resolve();
      });
    step(0);
  });
}

function closeFd(fd: number): Promise<void> {
  return new Promise((resolve) => close(fd, () => resolve()));
}

async function fsyncDir(dir: string): Promise<void> {
  const h = await fsp.open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}

/** Open a fresh file at `path` holding `text` (whole lines): written as a
 * temp file, made durable, renamed over `path`, directory fsynced. */
async function replaceWith(path: string, text: string): Promise<number> {
  const tmp = tempPath(path);
  await makeDirs(join(path, ".."), DIR_MODE);
  // A stale temp file keeps its mode through O_TRUNC: start from none.
  await fsp.unlink(tmp).catch(() => undefined);
  const fd = await openFd(tmp);
  try {
    await writeAll(fd, Buffer.from(text, "utf8"));
    // O_DSYNC covers the data; an explicit fdatasync is cheap insurance
    // for file systems that ignore the flag.
    await new Promise<void>((resolve, reject) => fdatasync(fd, (e) => (e ? reject(e) : resolve())));
    await fsp.rename(tmp, path);
    await fsyncDir(join(path, ".."));
  } catch (e) {
    await closeFd(fd);
    throw e;
  }
  return fd;
}

interface Pending {
  text: string;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class AppendLog {
  /** Bytes in the file (what has been written). */
  bytes: number;
  /** Group writes made (the bench reads it). */
  writes = 0;
  private queue: Pending[] = [];
  private running: Promise<void> | null = null;
  private closed = false;
  /** A failed write whose partial line could not be cut off again: later
   * lines would be glued to it, so the log takes no more (until a rewrite). */
  private broken: unknown = null;

  private constructor(
    readonly path: string,
    private fd: number,
    bytes: number,
    /** Called when no group is waiting, after each group: the moment
     * where a rewrite (compaction) sees exactly what is on disk. */
    private readonly onQuiet: (() => Promise<void> | void) | null,
  ) {
    this.bytes = bytes;
  }

  /** Create (or replace) the file at `path` with `firstLines`. */
  static async create(path: string, firstLines: string, onQuiet: (() => Promise<void> | void) | null = null): Promise<AppendLog> {
    const fd = await replaceWith(path, firstLines);
    return new AppendLog(path, fd, Buffer.byteLength(firstLines), onQuiet);
  }

  /** Append `line` (no newline); resolves once it is durable. */
  append(line: string): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`${this.path}: the log is closed`));
    if (this.broken !== null) return Promise.reject(this.broken);
    const p = new Promise<void>((resolve, reject) => this.queue.push({ text: line + "\n", resolve, reject }));
    this.running ??= this.drain();
    return p;
  }

  /** Replace the file's content by `lines` (compaction). Only call it from
   * `onQuiet`, or when nothing is being appended: lines appended meanwhile
   * wait and go to the new file. */
  async rewrite(lines: string): Promise<void> {
    const fd = await replaceWith(this.path, lines);
    const old = this.fd;
    this.fd = fd;
    this.bytes = Buffer.byteLength(lines);
    this.broken = null;
    await closeFd(old);
  }

  /** Resolves when every requested line is written (or failed). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Wait for pending writes, then close the file. */
  async close(): Promise<void> {
    await this.settled();
    if (this.closed) return;
    this.closed = true;
    await closeFd(this.fd);
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const group = this.queue;
        this.queue = [];
        const buf = Buffer.from(group.length === 1 ? group[0]!.text : group.map((p) => p.text).join(""), "utf8");
        let failure: unknown = null;
        try {
          this.writes++;
          await writeAll(this.fd, buf);
          this.bytes += buf.length;
        } catch (e) {
          failure = e;
          // Cut off whatever part of the group reached the file.
          const fd = this.fd;
          const size = this.bytes;
          await new Promise<void>((resolve) => ftruncate(fd, size, (e2) => ((this.broken = e2 ? e : null), resolve())));
        }
        for (const p of group) {
          if (failure === null) p.resolve();
          else p.reject(failure);
        }
        if (this.queue.length === 0 && failure === null && this.onQuiet) {
          try {
            await this.onQuiet();
          } catch {
            // a failed compaction leaves the old file in place: nothing lost
          }
        }
      }
    } finally {
      this.running = null;
    }
  }
}

/** The complete lines of a log's text; a last line without its newline
 * (a write cut short by a crash) is dropped. */
export function splitLog(text: string): string[] {
  const end = text.lastIndexOf("\n");
  if (end < 0) return [];
  return text.slice(0, end).split("\n");
}
