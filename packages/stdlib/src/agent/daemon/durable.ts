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
 * `DirectoryWriter` adds group commit: writes requested while a commit is
 * running are folded into the next one, which writes the newest content of
 * each file once and shares one directory fsync. Every caller's promise
 * still resolves only after a commit that started after its request (so
 * includes its change) is durable.
 */
import { constants, promises as fsp } from "node:fs";
import { basename, dirname, join } from "node:path";
import { HarnError } from "@harn/vm";
import { osErrorText } from "../../core/oserror";

/** Owner-only permissions for everything a daemon creates. */
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/** What the error texts call a file (`daemon meta write error: …`). */
export type FileLabel = "snapshot" | "meta";

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

/** Write `text` to `tmp` and make it durable (mode 0600 even if a stale
 * temp file with other permissions was left behind). */
async function writeTemp(tmp: string, text: string): Promise<void> {
  const h = await fsp.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, FILE_MODE);
  try {
    await h.chmod(FILE_MODE);
    await h.writeFile(text, "utf8");
    await h.sync();
  } finally {
    await h.close();
  }
}

interface Request {
  label: FileLabel;
  /** Called when the commit starts, so the newest state is written. */
  produce: () => string;
}

interface Waiter {
  resolve: () => void;
  reject: (e: unknown) => void;
  name: string;
}

/**
 * Serialised, batched atomic writes of the files of one directory. A
 * commit writes the pending files' temps in parallel, renames them in
 * request order (so a snapshot requested before the metadata lands first:
 * a crash between the two renames can only cause a replay, never a loss),
 * then fsyncs the directory once.
 */
export class DirectoryWriter {
  private pending = new Map<string, Request>();
  private waiters: Waiter[] = [];
  private running: Promise<void> | null = null;
  private dirReady = false;
  /** Commits made (for tests and the bench: how much group commit saved). */
  commits = 0;

  constructor(readonly dir: string) {}

  /** Durably replace `dir/name` with what `produce()` returns when the
   * commit starts. Resolves once that commit is durable; rejects with the
   * §6.4 error of the step that failed. */
  write(name: string, label: FileLabel, produce: () => string): Promise<void> {
    // Re-inserting moves the file to the end: renames follow request order.
    this.pending.delete(name);
    this.pending.set(name, { label, produce });
    const p = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject, name }));
    if (!this.running) this.running = this.drain();
    return p;
  }

  /** Resolves when every requested write has been committed (or failed). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.size > 0) {
        const batch = this.pending;
        const waiters = this.waiters;
        this.pending = new Map();
        this.waiters = [];
        const failures = await this.commit(batch);
        for (const w of waiters) {
          const failed = failures.get(w.name) ?? failures.get("");
          if (failed) w.reject(failed);
          else w.resolve();
        }
      }
    } finally {
      this.running = null;
    }
  }

  /** One commit; returns the error of each failed file (`""`: all of them). */
  private async commit(batch: Map<string, Request>): Promise<Map<string, HarnError>> {
    this.commits++;
    const failures = new Map<string, HarnError>();
    const labelOf = [...batch.values()][0]!.label;
    if (!this.dirReady) {
      try {
        await fsp.mkdir(this.dir, { recursive: true, mode: DIR_MODE });
        this.dirReady = true;
      } catch (e) {
        failures.set("", fileError(labelOf, "mkdir", ioDetail(this.dir, e)));
        return failures;
      }
    }
    const written: string[] = [];
    await Promise.all(
      [...batch].map(async ([name, req]) => {
        let text: string;
        try {
          text = req.produce();
        } catch (e) {
          failures.set(name, fileError(req.label, "encode", e instanceof HarnError ? e.message : String((e as Error)?.message ?? e)));
          return;
        }
        const tmp = tempPath(join(this.dir, name));
        try {
          await writeTemp(tmp, text);
          written.push(name);
        } catch (e) {
          failures.set(name, fileError(req.label, "write", ioDetail(tmp, e)));
        }
      }),
    );
    let renamed = 0;
    for (const [name, req] of batch) {
      if (!written.includes(name)) continue;
      const path = join(this.dir, name);
      try {
        await fsp.rename(tempPath(path), path);
        renamed++;
      } catch (e) {
        failures.set(name, fileError(req.label, "finalize", ioDetail(path, e)));
      }
    }
    if (renamed > 0) {
      try {
        await fsyncDirectory(this.dir);
      } catch (e) {
        for (const [name, req] of batch) if (!failures.has(name)) failures.set(name, fileError(req.label, "finalize", ioDetail(this.dir, e)));
      }
    }
    return failures;
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
