/**
 * Command output artifacts (agents.md §1.10, §1.12 "live log"):
 * `<run scratch dir>/harn-command-<command_id>/{stdout,stderr,combined}.txt`
 * in a 0700 directory (the run's scratch directory, core/run_scope.ts, is
 * removed when the run ends; the reference leaves one directory per
 * command in /tmp forever), written as bytes arrive so
 * `read_command_output` can tail a running command.
 *
 * `combined.txt` is the live log: both streams in arrival order, never
 * rewritten, so an offset a reader saved while tailing stays valid after
 * the command ended. [TS decision] The reference writes it at exit as
 * stdout followed by stderr; `output_sha256`, `byte_count` and
 * `line_count` still describe those bytes (stdout, then stderr), which
 * `stdout.txt` and `stderr.txt` hold.
 *
 * Writes are synchronous `write(2)` calls of at most one pipe chunk each:
 * they keep the files in order without a queue, and a local temp file
 * absorbs them in microseconds.
 */
import type { Hash } from "node:crypto";
import { closeSync, createReadStream, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { nodeCrypto } from "../../core/node-builtins";
import { makeDirsSync } from "../../core/make-dirs";

export interface ArtifactPaths {
  readonly dir: string;
  readonly combined: string;
  readonly stdout: string;
  readonly stderr: string;
}

export function artifactPaths(tmpRoot: string, commandId: string): ArtifactPaths {
  const dir = join(tmpRoot, `harn-command-${commandId}`);
  return { dir, combined: join(dir, "combined.txt"), stdout: join(dir, "stdout.txt"), stderr: join(dir, "stderr.txt") };
}

export interface StreamCapture {
  /** Inline text: at most `maxInlineBytes`, cut on a UTF-8 boundary. */
  readonly text: string;
  readonly bytes: number;
  /** The last bytes (up to 64 KiB) when the stream was longer than the
   * inline text, for reading summaries at the end of long output. */
  readonly tail: string;
}

export interface ArtifactSummary {
  readonly stdout: StreamCapture;
  readonly stderr: StreamCapture;
  readonly lineCount: number;
  readonly byteCount: number;
  /** `sha256:<hex>` of stdout followed by stderr. */
  readonly sha256: string;
}

const TAIL_BYTES = 64 * 1024;

class StreamState {
  bytes = 0;
  newlines = 0;
  lastByte = -1;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tailChunks: Buffer[] = [];
  private tailBytes = 0;

  constructor(private readonly maxInline: number) {}

  add(chunk: Buffer): void {
    this.bytes += chunk.length;
    let nl = 0;
    let i = chunk.indexOf(10);
    while (i >= 0) {
      nl++;
      i = chunk.indexOf(10, i + 1);
    }
    this.newlines += nl;
    if (chunk.length > 0) this.lastByte = chunk[chunk.length - 1]!;
    // keep one byte more than the cap, to see whether the cut splits a character
    if (this.headBytes <= this.maxInline) {
      const take = chunk.subarray(0, this.maxInline + 1 - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
    }
    this.tailChunks.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes - this.tailChunks[0]!.length >= TAIL_BYTES) this.tailBytes -= this.tailChunks.shift()!.length;
  }

  inline(enabled: boolean): StreamCapture {
    const tail = this.bytes > this.maxInline ? Buffer.concat(this.tailChunks).subarray(-TAIL_BYTES).toString("utf8") : "";
    if (!enabled) return { text: "", bytes: this.bytes, tail };
    const buf = Buffer.concat(this.head);
    let cut = Math.min(buf.length, this.maxInline);
    // never split a UTF-8 sequence: back off to the start of the cut character
    if (cut < buf.length) while (cut > 0 && (buf[cut]! & 0xc0) === 0x80) cut--;
    return { text: buf.toString("utf8", 0, cut), bytes: this.bytes, tail };
  }
}

export class ArtifactWriter {
  private readonly fds: { stdout: number; stderr: number; combined: number };
  private readonly out: StreamState;
  private readonly err: StreamState;
  private readonly hash: Hash = nodeCrypto().createHash("sha256");
  private closed = false;
  /** First write failure; the command's payload then reports `failed`. */
  failure: string | null = null;

  /** Creates the directory (0700) and the three files; throws on failure. */
  constructor(
    readonly paths: ArtifactPaths,
    maxInlineBytes: number,
  ) {
    makeDirsSync(paths.dir, 0o700);
    const open = (p: string) => openSync(p, "w", 0o600);
    this.fds = { stdout: open(paths.stdout), stderr: open(paths.stderr), combined: open(paths.combined) };
    this.out = new StreamState(maxInlineBytes);
    this.err = new StreamState(maxInlineBytes);
  }

  write(stream: "stdout" | "stderr", chunk: Buffer): void {
    if (this.closed || this.failure !== null) return;
    const state = stream === "stdout" ? this.out : this.err;
    if (stream === "stdout") this.hash.update(chunk);
    state.add(chunk);
    try {
      writeAll(this.fds[stream], chunk);
      writeAll(this.fds.combined, chunk);
    } catch (e) {
      this.failure = `could not write command artifacts in ${this.paths.dir}: ${(e as Error).message}`;
    }
  }

  /** Closes the files and computes the summary (after the process exited). */
  async finish(inline: { stdout: boolean; stderr: boolean }): Promise<ArtifactSummary> {
    this.close();
    if (this.failure === null) {
      try {
        if (this.err.bytes > 0) await hashFile(this.hash, this.paths.stderr);
      } catch (e) {
        this.failure = `could not finalize command artifacts in ${this.paths.dir}: ${(e as Error).message}`;
      }
    }
    const last = this.err.bytes > 0 ? this.err.lastByte : this.out.lastByte;
    const byteCount = this.out.bytes + this.err.bytes;
    return {
      stdout: this.out.inline(inline.stdout),
      stderr: this.err.inline(inline.stderr),
      byteCount,
      lineCount: this.out.newlines + this.err.newlines + (byteCount > 0 && last !== 10 ? 1 : 0),
      sha256: "sha256:" + this.hash.digest("hex"),
    };
  }

  /** Releases the files without a summary (cancelled command). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const fd of [this.fds.stdout, this.fds.stderr, this.fds.combined]) {
      try {
        closeSync(fd);
      } catch {
        // already gone
      }
    }
  }
}

function writeAll(fd: number, chunk: Buffer): void {
  let off = 0;
  while (off < chunk.length) off += writeSync(fd, chunk, off, chunk.length - off);
}

async function hashFile(hash: Hash, path: string): Promise<void> {
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
}
