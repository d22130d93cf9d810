/**
 * The fixture file of `harn run --llm-mock-record <path>` (spec/cli.md §2):
 * truncated when the run starts, then one line per real model response,
 * appended as each response arrives, written straight to the file
 * descriptor (no buffering in the process), so a run that dies half way
 * leaves every response it got on disk. `harn run --llm-mock <path>`
 * replays them in order.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { osErrorText } from "@harn/stdlib/oserror";

export class FixtureRecorder {
  private fd: number | null;
  /** The first write that failed; later responses are not written (a
   * fixture with a hole would replay the wrong answers). */
  private failure: string | null = null;

  /** Throws `Error writing <path>: <reason>` when the file cannot be
   * created or truncated. */
  constructor(readonly path: string) {
    try {
      this.fd = openSync(path, "w");
    } catch (e) {
      throw new Error(`Error writing ${path}: ${osErrorText(e)}`);
    }
  }

  /** Append one fixture line (`line` has no newline). */
  write(line: string): void {
    if (this.fd === null || this.failure !== null) return;
    const bytes = Buffer.from(line + "\n", "utf8");
    try {
      for (let off = 0; off < bytes.length; ) off += writeSync(this.fd, bytes, off);
    } catch (e) {
      this.failure = `Error writing ${this.path}: ${osErrorText(e)}`;
    }
  }

  /** Close the file; the message of a failed write, if one failed. */
  close(): string | null {
    if (this.fd !== null) {
      try {
        closeSync(this.fd);
      } catch (e) {
        this.failure ??= `Error writing ${this.path}: ${osErrorText(e)}`;
      }
      this.fd = null;
    }
    return this.failure;
  }
}
