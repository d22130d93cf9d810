/**
 * Reading a run's files ahead on a helper thread. Opening and reading
 * 9,000 small files is a sixth of a one-thread lint run, all of it system
 * calls: a helper thread makes them on another core while this one parses
 * and lints, and hands the bytes over in batches (one message per batch,
 * the bytes moved, not copied).
 *
 * Files are taken in order by whichever thread gets there first: both
 * claim indexes from a shared counter, the helper a batch at a time, this
 * thread one file at a time. So until the helper has started this thread
 * reads for itself, and it never waits: a file of a batch the helper is
 * still reading (on two cores the helper shares its core with V8's
 * compiler threads, and falls behind at times) is read here too, and the
 * helper's copy dropped when it comes.
 */
import { readBytes } from "./batch";
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";

/** The bytes of a file, or why it could not be read (plain data, as
 * `FileOutcome.readError` carries it). */
export type ReadResult = Buffer | { code: string | null; message: string };

/** Below this many files the thread's start-up costs more than it saves. */
export const MIN_READ_AHEAD_FILES = 256;
/** Files the helper claims at a time. */
const BATCH = 32;
/** How far the helper reads ahead of this thread, in files and in KiB
 * (the bytes it holds that this thread has not taken): bounds the memory
 * held by files not yet linted. */
const AHEAD = 1024;
const AHEAD_KIB = 64 * 1024;
/** A batch is posted in parts of about this size, so large files do not
 * pile up in one message. */
const PART_BYTES = 8 << 20;

// shared counters (Int32Array over a SharedArrayBuffer)
const NEXT = 0; // the first file no thread has claimed
// 1: unused
const DONE = 2; // files this thread has taken (the helper stays AHEAD of it)
const STOP = 3; // set when this thread needs no more
const WAITING = 4; // set by the helper when it waits for this thread to catch up
const HELD = 5; // KiB the helper has read that this thread has not taken

/** The helper thread (CommonJS, started from source: it needs nothing of
 * the bundle). */
const HELPER = `
const { workerData } = require("node:worker_threads");
const { readFileSync } = require("node:fs");
const { files, shared, port, batch, ahead, aheadKib, partBytes } = workerData;
const st = new Int32Array(shared);
function post(start, end, parts, errors, size) {
  const bytes = new ArrayBuffer(size);
  const view = new Uint8Array(bytes);
  const offsets = new Array(end - start + 1);
  let at = 0;
  for (let k = 0; k < parts.length; k++) {
    offsets[k] = at;
    if (parts[k] !== null) {
      view.set(parts[k], at);
      at += parts[k].length;
    }
  }
  offsets[parts.length] = at;
  port.postMessage({ start, end, bytes, offsets, errors }, [bytes]);
}
for (;;) {
  for (;;) {
    if (Atomics.load(st, ${STOP}) !== 0) break;
    const done = Atomics.load(st, ${DONE});
    if (Atomics.load(st, ${NEXT}) - done < ahead && Atomics.load(st, ${HELD}) < aheadKib) break;
    Atomics.store(st, ${WAITING}, 1);
    Atomics.wait(st, ${DONE}, done, 50);
  }
  if (Atomics.load(st, ${STOP}) !== 0) break;
  const start = Atomics.add(st, ${NEXT}, batch);
  if (start >= files.length) break;
  const end = Math.min(files.length, start + batch);
  let from = start;
  let parts = [];
  let errors = [];
  let size = 0;
  for (let i = start; i < end; i++) {
    try {
      const b = readFileSync(files[i]);
      parts.push(b);
      size += b.length;
      Atomics.add(st, ${HELD}, Math.ceil(b.length / 1024));
    } catch (e) {
      parts.push(null);
      errors.push([i, e && typeof e === "object" && "code" in e ? String(e.code) : null, e instanceof Error ? e.message : String(e)]);
    }
    if (size >= partBytes || i === end - 1) {
      post(from, i + 1, parts, errors, size);
      from = i + 1;
      parts = [];
      errors = [];
      size = 0;
    }
  }
}
port.close();
`;

interface Batch {
  start: number;
  end: number;
  bytes: ArrayBuffer;
  offsets: number[];
  errors: [number, string | null, string][];
}

/**
 * Reads `files[i]` for i = 0, 1, 2, … in that order (`read` must be
 * called with each index once, in order); `close` when done.
 */
export class FileReader {
  private readonly st: Int32Array;
  private readonly port: MessagePort;
  private readonly worker: Worker | null;
  /** Results received and not yet taken, by file index. */
  private readonly got: (ReadResult | undefined)[];
  /** Every file before this one has been taken: bytes that come for
   * them later (read here meanwhile) are dropped. */
  private taken = 0;

  /** `ahead`: given each file's bytes when they arrive from the helper,
   * before they are read here (what comes ahead, for the module graph). */
  constructor(
    private readonly files: readonly string[],
    private readonly ahead?: (bytes: Buffer) => void,
  ) {
    const shared = new SharedArrayBuffer(6 * 4);
    this.st = new Int32Array(shared);
    this.got = new Array<ReadResult | undefined>(files.length);
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    try {
      this.worker = new Worker(HELPER, {
        eval: true,
        workerData: { files, shared, port: port2, batch: BATCH, ahead: AHEAD, aheadKib: AHEAD_KIB, partBytes: PART_BYTES },
        transferList: [port2],
      });
    } catch {
      // no thread to be had: this one claims and reads every file
      this.worker = null;
      return;
    }
    // it must never keep the process alive, nor take it down
    this.worker.unref();
    this.worker.on("error", () => {});
  }

  read(i: number): ReadResult {
    const st = this.st;
    // waking the helper costs more than reading a file: it is woken once it
    // has waited and this thread has caught up half the way
    Atomics.store(st, DONE, i);
    if (Atomics.load(st, WAITING) !== 0 && Atomics.load(st, NEXT) - i <= AHEAD / 2 && Atomics.load(st, HELD) <= AHEAD_KIB / 2) {
      Atomics.store(st, WAITING, 0);
      Atomics.notify(st, DONE);
    }
    this.taken = i;
    for (;;) {
      const had = this.got[i];
      if (had !== undefined) {
        this.got[i] = undefined;
        if (Buffer.isBuffer(had)) Atomics.sub(st, HELD, Math.ceil(had.length / 1024));
        return had;
      }
      // every earlier index is taken, so an unclaimed i is the next one;
      // one the helper claimed and has not posted is read here all the same
      Atomics.compareExchange(st, NEXT, i, i + 1);
      if (!this.drain()) return readBytes(this.files[i]!);
    }
  }

  /** Take the batches posted so far; true if there were any. */
  private drain(): boolean {
    let any = false;
    for (let m = receiveMessageOnPort(this.port); m !== undefined; m = receiveMessageOnPort(this.port)) {
      const b = m.message as Batch;
      any = true;
      for (let k = b.start; k < b.end; k++) {
        const at = b.offsets[k - b.start]!;
        const size = b.offsets[k - b.start + 1]! - at;
        if (k < this.taken) {
          Atomics.sub(this.st, HELD, Math.ceil(size / 1024));
          continue;
        }
        const bytes = Buffer.from(b.bytes, at, size);
        this.got[k] = bytes;
        this.ahead?.(bytes);
      }
      for (const [k, code, message] of b.errors) if (k >= this.taken) this.got[k] = { code, message };
    }
    return any;
  }

  close(): void {
    Atomics.store(this.st, STOP, 1);
    Atomics.notify(this.st, DONE);
    this.port.close();
    void this.worker?.terminate();
  }
}
