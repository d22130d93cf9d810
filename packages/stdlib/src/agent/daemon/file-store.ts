/**
 * The file store of a daemon root (the default; design.md "Daemon state").
 *
 * While a daemon runs, its state is `daemon.journal`: JSON lines, appended
 * and made durable one group at a time (appendlog.ts). The first line is a
 * checkpoint (the whole state: §4.4 metadata and §4.2 snapshot); then
 *   {"op":"trigger","seq":N,"enqueued_at":…,"payload":…}   an event queued
 *   {"op":"idle","ack":N|null,"delta":{…}}                   an idle boundary:
 *       the snapshot's delta (delta.ts) and the event it handled, in one
 *       line, so after a crash both are there or neither is.
 * So a trigger costs one small durable append however deep the queue, and
 * a boundary one append of the turn's new messages however long the
 * transcript. When the journal has grown past twice its checkpoint (and at
 * least COMPACT_MIN_BYTES), it is rewritten as one new checkpoint (temp
 * file, rename).
 *
 * `daemon.json` and `daemon.meta.json` (§4.2, §4.4) are the state at rest:
 * written when the daemon ends cleanly, after which the journal is
 * removed. A root with a journal is read from the journal (a crash left
 * it, or the daemon is running); one without from the two files, as the
 * reference writes them. While a daemon runs, the two files are not
 * current: `daemon_snapshot` reads the state.
 */
import { readFileSync } from "node:fs";
import { promises as fsp } from "node:fs";
import { join } from "node:path";
import { HarnError } from "@harn/vm";
import { isJsonObject, type Json, JsonError, type JsonObject, parseJsonKeepingFloats, stringifyJsonKeepingFloats } from "../../core/json";
import { AppendLog, splitLog } from "./appendlog";
import { applyDelta, frozenSnapshot } from "./delta";
import { DirectoryWriter, fileError, ioDetail } from "./durable";
import {
  Corrupt,
  defaultSnapshot,
  encodeState,
  META_FILE,
  metaFromObject,
  nowRfc3339,
  parseEvent,
  parseMeta,
  parseSnapshot,
  snapshotFromObject,
  SNAPSHOT_FILE,
  type Meta,
  type MetaHeader,
  type QueuedEvent,
  type Snapshot,
} from "./files";
import type { DaemonRecord, DaemonStore, StoreListener } from "./store";

export const JOURNAL_FILE = "daemon.journal";
/** A journal smaller than this is never compacted. */
export const COMPACT_MIN_BYTES = 1 << 20;

function encodeLine(v: JsonObject): string {
  return stringifyJsonKeepingFloats(v);
}

export class FileStore implements DaemonStore {
  private log!: AppendLog;
  /** The state the journal holds once every requested line is written. */
  private base: Snapshot | null;
  private readonly queue = new Map<number, QueuedEvent>();
  private nextSeq: number;
  private readonly header: MetaHeader;
  private checkpointBytes = 0;
  private readonly views: DirectoryWriter;
  private listener: StoreListener | null = null;

  private constructor(
    readonly root: string,
    record: DaemonRecord,
  ) {
    const { next_event_seq, pending_events, inflight_event, ...header } = record.meta;
    this.header = header;
    this.nextSeq = next_event_seq;
    for (const e of inflight_event ? [inflight_event, ...pending_events] : pending_events) this.queue.set(e.seq, e);
    this.base = record.snapshot;
    this.views = new DirectoryWriter(root);
  }

  get journalPath(): string {
    return join(this.root, JOURNAL_FILE);
  }

  /** Journal group writes and bytes so far (bench, tests). */
  get stats(): { writes: number; bytes: number } {
    return { writes: this.log.writes, bytes: this.log.bytes };
  }

  /** Start the journal of a daemon about to run from `record` (spawn,
   * resume); `fresh`: a new daemon, whose root may hold an older
   * daemon's files. */
  static async open(root: string, record: DaemonRecord, fresh: boolean): Promise<FileStore> {
    const store = new FileStore(root, record);
    const text = store.checkpoint();
    try {
      store.log = await AppendLog.create(store.journalPath, text, () => store.maybeCompact());
    } catch (e) {
      throw fileError("journal", "write", ioDetail(store.journalPath, e));
    }
    store.checkpointBytes = store.log.bytes;
    if (fresh) {
      // At rest a root is its two files: the metadata says who lives here
      // (file_exists checks, the reference), an older snapshot must go.
      await store.views.write(META_FILE, "meta", () => encodeState(store.meta()));
      try {
        await fsp.unlink(join(root, SNAPSHOT_FILE));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw fileError("snapshot", "write", ioDetail(join(root, SNAPSHOT_FILE), e));
      }
    }
    return store;
  }

  private meta(): Meta {
    return { ...this.header, next_event_seq: this.nextSeq, pending_events: [...this.queue.values()], inflight_event: null };
  }

  private checkpoint(): string {
    return encodeLine({ op: "checkpoint", meta: this.meta() as unknown as JsonObject, snapshot: this.base as unknown as JsonObject }) + "\n";
  }

  attach(listener: StoreListener): void {
    this.listener = listener;
  }

  mayDeliver(): boolean {
    return true;
  }

  /** Sequence numbers are taken in call order and groups are written in
   * order, so events reach the listener in sequence order. */
  enqueue(payload: Json): Promise<QueuedEvent> {
    const cap = this.header.event_queue_capacity;
    // The queue holds pending, in-flight and still-being-written events.
    if (this.queue.size >= cap) return Promise.reject(HarnError.daemonQueueFull(this.header.id, cap));
    const event: QueuedEvent = { seq: this.nextSeq++, enqueued_at: nowRfc3339(), payload };
    this.queue.set(event.seq, event);
    const line = encodeLine({ op: "trigger", seq: event.seq, enqueued_at: event.enqueued_at, payload });
    return this.append(line).then(
      () => {
        this.listener?.queued([event]);
        return event;
      },
      (e: unknown) => {
        this.queue.delete(event.seq);
        throw e;
      },
    );
  }

  commitIdle(snapshot: Snapshot, delta: JsonObject, ack: number | null): Promise<void> {
    this.base = snapshot;
    if (ack !== null) this.queue.delete(ack);
    return this.append(encodeLine({ op: "idle", ack, delta }));
  }

  private append(line: string): Promise<void> {
    return this.log.append(line).catch((e: unknown) => {
      throw e instanceof HarnError ? e : fileError("journal", "write", ioDetail(this.journalPath, e));
    });
  }

  /** Between groups: rewrite a journal grown past its bound. */
  private async maybeCompact(): Promise<void> {
    if (this.log.bytes <= Math.max(COMPACT_MIN_BYTES, 2 * this.checkpointBytes)) return;
    const text = this.checkpoint();
    await this.log.rewrite(text);
    this.checkpointBytes = this.log.bytes;
  }

  settled(): Promise<void> {
    return this.log.settled();
  }

  /** The state at rest: the two files, then the journal goes. Until the
   * journal is gone, it is what a reader uses, so a crash in between
   * loses nothing. */
  async close(record: DaemonRecord): Promise<void> {
    await this.log.close();
    const meta = { ...record.meta, next_event_seq: this.nextSeq };
    await this.views.write(META_FILE, "meta", () => encodeState(meta));
    const snap = record.snapshot;
    if (snap !== null) await this.views.write(SNAPSHOT_FILE, "snapshot", () => encodeState(snap));
    try {
      await fsp.unlink(this.journalPath);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw fileError("journal", "write", ioDetail(this.journalPath, e));
    }
  }
}

// --- reading a root -----------------------------------------------------------

/** What reading a root found; `journal`: it holds a journal (a running or
 * crashed daemon) rather than only the files at rest. */
export interface RootState extends DaemonRecord {
  journal: boolean;
}

type Reader = (path: string, label: "snapshot" | "meta" | "journal") => string | null;

function readerError(path: string, label: "snapshot" | "meta" | "journal", e: unknown): HarnError {
  return fileError(label, "read", ioDetail(path, e));
}

/** The state of the daemon root `root` (§4.2, §4.4 errors; `builtin`
 * prefixes the not-a-dict metadata error). A root with neither a journal
 * nor a snapshot nor metadata is the snapshot read error (it is not a
 * daemon's root). */
export async function readRoot(root: string, builtin: string): Promise<RootState> {
  const texts = new Map<string, string | null>();
  for (const [file, label] of [
    [JOURNAL_FILE, "journal"],
    [SNAPSHOT_FILE, "snapshot"],
    [META_FILE, "meta"],
  ] as const) {
    const path = join(root, file);
    try {
      texts.set(path, await fsp.readFile(path, "utf8"));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw readerError(path, label, e);
      texts.set(path, null);
    }
    // With a journal, the files at rest are not read.
    if (file === JOURNAL_FILE && texts.get(path) !== null) break;
  }
  return parseRoot(root, builtin, (path) => texts.get(path) ?? null);
}

/** `readRoot`, synchronously (hosts checking a root after a crash). */
export function readRootSync(root: string, builtin: string): RootState {
  return parseRoot(root, builtin, (path, label) => {
    try {
      return readFileSync(path, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw readerError(path, label, e);
    }
  });
}

function parseRoot(root: string, builtin: string, read: Reader): RootState {
  const journalPath = join(root, JOURNAL_FILE);
  const journal = read(journalPath, "journal");
  if (journal !== null) return { ...parseJournal(journal, journalPath), journal: true };
  const snapshotPath = join(root, SNAPSHOT_FILE);
  const metaPath = join(root, META_FILE);
  const snapText = read(snapshotPath, "snapshot");
  const metaText = read(metaPath, "meta");
  // A daemon whose spawn was cut short before its first snapshot resumes
  // from its task; a root without metadata is not a daemon at all.
  if (snapText === null && metaText === null) throw fileError("snapshot", "read", ioDetail(snapshotPath, { code: "ENOENT" }));
  const snapshot = snapText === null ? null : parseSnapshot(snapText, snapshotPath);
  if (metaText === null) throw fileError("meta", "read", ioDetail(metaPath, { code: "ENOENT" }));
  const meta = parseMeta(metaText, metaPath);
  if (meta === null) throw HarnError.runtime(`${builtin}: metadata at '${metaPath}' is not a dict`);
  return { meta, snapshot, journal: false };
}

/** Replay a journal's text (see the header); errors name the file and
 * the line. */
export function parseJournal(text: string, path: string): DaemonRecord {
  const lines = splitLog(text);
  let n = 0;
  const fail = (detail: string): never => {
    throw fileError("journal", "parse", `${path}: line ${n}: ${detail}`);
  };
  const parseLine = (line: string): JsonObject => {
    let v: unknown;
    try {
      v = parseJsonKeepingFloats(line, { exactInts: true });
    } catch (e) {
      fail(e instanceof JsonError ? e.message : "invalid JSON");
    }
    if (!isJsonObject(v)) fail("expected a JSON object");
    return v as JsonObject;
  };
  try {
    n = 1;
    if (lines.length === 0) fail("the journal has no checkpoint");
    const first = parseLine(lines[0]!);
    if (first.op !== "checkpoint" || !isJsonObject(first.meta)) fail("the first line must be a checkpoint");
    const meta = metaFromObject(first.meta as JsonObject, `${path} (checkpoint)`);
    const snap0 = first.snapshot ?? null;
    if (snap0 !== null && !isJsonObject(snap0)) fail("the checkpoint's snapshot must be an object or null");
    let work: Snapshot | null = snap0 === null ? null : frozenSnapshot(snapshotFromObject(snap0 as JsonObject, `${path} (checkpoint)`));
    const queue = new Map<number, QueuedEvent>();
    for (const e of meta.inflight_event ? [meta.inflight_event, ...meta.pending_events] : meta.pending_events) queue.set(e.seq, e);
    let last = meta.next_event_seq - 1;
    for (n = 2; n <= lines.length; n++) {
      const o = parseLine(lines[n - 1]!);
      if (o.op === "trigger") {
        const event = parseEvent(o, "trigger", last);
        last = event.seq;
        queue.set(event.seq, event);
      } else if (o.op === "idle") {
        if (typeof o.ack === "number") queue.delete(o.ack);
        if (!isJsonObject(o.delta)) fail("an idle line needs a `delta` object");
        work ??= { ...defaultSnapshot(), saved_at: "" };
        applyDelta(work, o.delta as JsonObject);
      } else fail(`unknown op ${JSON.stringify(o.op ?? null)}`);
    }
    n = lines.length;
    const snapshot = work === null ? null : snapshotFromObject(work as unknown as JsonObject, path);
    return { meta: { ...meta, next_event_seq: last + 1, pending_events: [...queue.values()], inflight_event: null }, snapshot };
  } catch (e) {
    if (e instanceof Corrupt) throw fileError("journal", "parse", `${path}: line ${n}: ${e.detail}`);
    throw e;
  }
}
