/**
 * Crash-safe files for daemon state (spec/agents.md §4.2, §4.4, §8;
 * design.md "Daemon state is written atomically").
 *
 * A write never touches the live file: the new text goes to `<file>.tmp`
 * in the same directory, is fsynced, renamed over the live file, and the
 * directory is fsynced so the rename itself survives a power loss. A
 * SIGKILL or a crash at any point therefore leaves either the old or the
 * new version of every file, never a torn one (a stale `.tmp` is simply
 * overwritten by the next write).
 *
 * `DirectoryWriter` adds group commit: writes of a file requested while
 * one of its commits runs are folded into the next, which writes the
 * newest content once, and concurrent commits share directory fsyncs.
 * Every caller's promise still resolves only after a commit that started
 * after its request (so includes its change) is durable.
 */
import { constants, promises as fsp } from "node:fs";
import { basename, dirname, join } from "node:path";
import { HarnError } from "@harn/vm";
import { osErrorText } from "../../core/oserror";
import { makeDirs } from "../../core/make-dirs";

/** Owner-only permissions for everything a daemon creates. */
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/** What the error texts call a file (`daemon meta write error: …`). */
export type FileLabel = "snapshot" | "meta" | "journal";

/** `daemon <label> <stage> error: <detail>` (§6.4). */
export function fileError(label: FileLabel, stage: "read" | "parse" | "write" | "mkdir" | "encode" | "finalize", detail: string): HarnError {
  return HarnError.runtime(`daemon ${label} ${stage} error: ${detail}`);
}

/** `<path>: <Rust-style OS text>`, so every failure names its file. */
export function ioDetail(path: string, e: unknown): string {
  return `${path}: ${osErrorText(e)}`;
}

/** The temp name of the reference (`daemon.json` → `daemon.json.tmp`). */
export function tempPath(path: string): string {
  return join(dirname(path), `${basename(path)}.tmp`);
}

async function fsyncDirectory(dir: string): Promise<void> {
  const h = await fsp.open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

/** Write `text` to a fresh `tmp` (mode 0600: a stale temp file, whatever
 * its permissions, is removed first) and make it durable. */
async function writeTemp(tmp: string, text: string): Promise<void> {
  let h: fsp.FileHandle;
  try {
    h = await fsp.open(tmp, CREATE, FILE_MODE);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    await fsp.unlink(tmp);
    h = await fsp.open(tmp, CREATE, FILE_MODE);
  }
  try {
    await h.write(Buffer.from(text, "utf8"));
    await h.sync();
  } finally {
    await h.close();
  }
}

interface Waiter {
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** Runs `task` so that every `request()` is answered by a run that
 * started after the request; requests made during a run share the next. */
class Coalescer {
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;

  constructor(private readonly task: () => Promise<void>) {}

  request(): Promise<void> {
    if (this.running === null) return this.start();
    if (this.next === null) {
      const after = () => {
        this.next = null;
        return this.start();
      };
      this.next = this.running.then(after, after);
    }
    return this.next;
  }

  private start(): Promise<void> {
    const run = this.task();
    this.running = run;
    const clear = () => {
      if (this.running === run) this.running = null;
    };
    run.then(clear, clear);
    return run;
  }
}

/** The serialised group commits of one file. */
class FileChain {
  label: FileLabel = "meta";
  produce: (() => string) | null = null;
  waiters: Waiter[] = [];
  running: Promise<void> | null = null;
}

/**
 * Atomic, durable writes of the files of one directory, with group commit.
 * Each file has its own chain of commits (a write requested while one is
 * running joins the next, which writes the newest content once); commits
 * of different files run side by side, so a trigger's metadata commit
 * does not queue behind the loop's snapshot commit. The directory fsync
 * that makes renames durable is shared the same way: every commit waits
 * for one that started after its rename.
 *
 * Ordering across files is causal: a write requested after another one
 * resolved lands after it (reconciliation writes the metadata only after
 * the snapshot is durable).
 */
export class DirectoryWriter {
  private readonly chains = new Map<string, FileChain>();
  private readonly dirSync: Coalescer;
  private dirReady: Promise<void> | null = null;
  /** Commits made (the bench and tests read it: what group commit saved). */
  commits = 0;

  constructor(readonly dir: string) {
    this.dirSync = new Coalescer(() => fsyncDirectory(dir));
  }

  /** Durably replace `dir/name` with what `produce()` returns when the
   * commit starts. Resolves once that commit is durable; rejects with the
   * §6.4 error of the step that failed. */
  write(name: string, label: FileLabel, produce: () => string): Promise<void> {
    let chain = this.chains.get(name);
    if (!chain) this.chains.set(name, (chain = new FileChain()));
    chain.label = label;
    chain.produce = produce;
    const p = new Promise<void>((resolve, reject) => chain.waiters.push({ resolve, reject }));
    if (chain.running === null) chain.running = this.drain(name, chain);
    return p;
  }

  /** Resolves when every requested write has been committed (or failed). */
  async settled(): Promise<void> {
    for (;;) {
      const running = [...this.chains.values()].map((c) => c.running).filter((r): r is Promise<void> => r !== null);
      if (running.length === 0) return;
      await Promise.all(running);
    }
  }

  private async drain(name: string, chain: FileChain): Promise<void> {
    try {
      while (chain.produce !== null) {
        const produce = chain.produce;
        const waiters = chain.waiters;
        chain.produce = null;
        chain.waiters = [];
        let failure: HarnError | null = null;
        try {
          await this.commit(name, chain.label, produce);
        } catch (e) {
          failure = e instanceof HarnError ? e : fileError(chain.label, "write", String((e as Error)?.message ?? e));
        }
        for (const w of waiters) {
          if (failure) w.reject(failure);
          else w.resolve();
        }
      }
    } finally {
      chain.running = null;
    }
  }

  private ensureDir(label: FileLabel): Promise<void> {
    if (this.dirReady === null) {
      this.dirReady = makeDirs(this.dir, DIR_MODE).then(
        () => undefined,
        (e: unknown) => {
          this.dirReady = null;
          throw fileError(label, "mkdir", ioDetail(this.dir, e));
        },
      );
    }
    return this.dirReady;
  }

  /** One commit: temp + fsync, rename over, then a directory fsync. */
  private async commit(name: string, label: FileLabel, produce: () => string): Promise<void> {
    this.commits++;
    await this.ensureDir(label);
    let text: string;
    try {
      text = produce();
    } catch (e) {
      throw fileError(label, "encode", e instanceof HarnError ? e.message : String((e as Error)?.message ?? e));
    }
    const path = join(this.dir, name);
    const tmp = tempPath(path);
    try {
      await writeTemp(tmp, text);
    } catch (e) {
      throw fileError(label, "write", ioDetail(tmp, e));
    }
    try {
      await fsp.rename(tmp, path);
    } catch (e) {
      throw fileError(label, "finalize", ioDetail(path, e));
    }
    try {
      await this.dirSync.request();
    } catch (e) {
      throw fileError(label, "finalize", ioDetail(this.dir, e));
    }
  }
}

/** Read a state file; `null` when it does not exist. Other failures are
 * the §6.4 read error naming the file. */
export async function readStateFile(path: string, label: FileLabel): Promise<string | null> {
  try {
    return await fsp.readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw fileError(label, "read", ioDetail(path, e));
  }
}
