/**
 * Named pipes (FIFOs) for the file builtins. Opening a FIFO waits for its
 * other side: a reader until some process opens it for writing, a writer
 * until some process opens it for reading; then a read lasts until the last
 * writer closes. The reference waits the same way. But the file builtins
 * use synchronous calls (right for regular files, which answer at once),
 * and a synchronous open of a FIFO with no peer blocks the whole event
 * loop inside a system call: Ctrl-C, SIGTERM, timers and other tasks all
 * wait, and only SIGKILL ends harn. A thread-pool open is no better: Node's
 * exit joins the pool's threads, so harn could not exit either.
 *
 * So the file builtins open every path non-blocking (`O_NONBLOCK` changes
 * nothing for regular files) and hand FIFOs to these functions, which wait
 * on the event loop: a non-blocking FIFO fd in a `net.Socket` is polled by
 * libuv (epoll reports nothing on a read end before its first writer, so
 * the read waits instead of seeing end of file at once); a write end, which
 * `open(2)` refuses with ENXIO while there is no reader, is retried every
 * few milliseconds. The waits end when the calling task is cancelled and at
 * runtime shutdown, and hold no thread.
 */
import * as fs from "node:fs";
import { Socket } from "node:net";
import type { Runtime } from "@harn/vm";

const { O_NONBLOCK } = fs.constants;

/** How often a writer retries opening a FIFO that has no reader yet. */
const WRITER_RETRY_MS = 20;

/** `flags` plus `O_NONBLOCK`, for every open of the file builtins. */
export function nonBlocking(flags: number): number {
  return flags | O_NONBLOCK;
}

/** Whether `path` names a FIFO (an open that failed with ENXIO). */
export function isFifoPath(path: string): boolean {
  return fs.statSync(path, { throwIfNoEntry: false })?.isFIFO() === true;
}

/**
 * Reads the FIFO open (non-blocking) on `fd` to its end, which comes when
 * the last writer closes; takes over `fd`. Rejects with `signal`'s reason
 * when the calling task is cancelled, and with the socket's error.
 */
export function readFifo(rt: Runtime, fd: number, signal: AbortSignal): Promise<Buffer> {
  const pipe = new Socket({ fd, readable: true, writable: false });
  const chunks: Buffer[] = [];
  return settle(rt, pipe, signal, (done) => {
    pipe.on("data", (chunk: Buffer) => chunks.push(chunk));
    pipe.once("end", () => done(null, Buffer.concat(chunks)));
  });
}

/**
 * Writes `data` to a FIFO and closes it: on `fd` when the open found a
 * reader (non-blocking, taken over), else first opening `path` with
 * `flags` (the builtin's, without `O_NONBLOCK`) once a reader has it open.
 * Rejects with the OS error of an open or a write (a reader that closes
 * early gives EPIPE), or with `signal`'s reason when the calling task is
 * cancelled.
 */
export async function writeFifo(
  rt: Runtime,
  target: { fd: number } | { path: string; flags: number },
  data: string | Uint8Array,
  signal: AbortSignal,
): Promise<void> {
  const fd = "fd" in target ? target.fd : await openWhenRead(rt, target.path, target.flags, signal);
  const pipe = new Socket({ fd, readable: false, writable: true });
  await settle(rt, pipe, signal, (done) => {
    pipe.end(data, (e?: Error | null) => done(e ?? null, undefined));
  });
}

/** Retries a non-blocking open for writing until a reader is there. */
function openWhenRead(rt: Runtime, path: string, flags: number, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const stop = () => {
      if (timer) clearTimeout(timer);
      timer = null;
      signal.removeEventListener("abort", onAbort);
      unregister();
    };
    const onAbort = () => {
      stop();
      reject(signal.reason);
    };
    const attempt = () => {
      timer = null;
      try {
        const fd = fs.openSync(path, nonBlocking(flags));
        stop();
        resolve(fd);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENXIO") {
          stop();
          reject(e);
        } else timer = setTimeout(attempt, WRITER_RETRY_MS);
      }
    };
    const unregister = rt.onShutdown(() => stop());
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    attempt();
  });
}

/**
 * Runs one exchange on `pipe` to its outcome: `start` wires the events and
 * calls `done` once; errors, cancellation and runtime shutdown destroy the
 * pipe (closing its fd) and settle the promise.
 */
function settle<T>(rt: Runtime, pipe: Socket, signal: AbortSignal, start: (done: (e: Error | null, value: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let finished = false;
    const finish = (e: unknown, value?: T) => {
      if (finished) return;
      finished = true;
      signal.removeEventListener("abort", onAbort);
      unregister();
      pipe.destroy();
      if (e) reject(e);
      else resolve(value as T);
    };
    const onAbort = () => finish(signal.reason);
    // at shutdown nobody waits for the outcome any more: only close the pipe
    const unregister = rt.onShutdown(() => {
      finished = true;
      signal.removeEventListener("abort", onAbort);
      pipe.destroy();
    });
    pipe.once("error", (e) => finish(e));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    start((e, value) => finish(e, value));
  });
}
