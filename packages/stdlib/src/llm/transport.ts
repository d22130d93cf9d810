/**
 * One HTTP exchange with a provider: POST a JSON body with Node's `fetch`,
 * turn failures into classified `LlmError`s, and read the body as decoded
 * text chunks, SSE messages or NDJSON lines.
 *
 * Cancellation: the exchange owns an AbortController combining the
 * caller's signal and the timeout; `close()` aborts whatever is still open,
 * so an iterator that is abandoned early (or errors) never leaves a socket
 * behind. When the *caller* aborted, the caller's `signal.reason` is thrown
 * unchanged: deciding what an interruption means is the client's job.
 */

import { createParser, type EventSourceMessage } from "eventsource-parser";
import { parseJsonKeepingFloats, stringifyJsonKeepingFloats } from "../core/json";
import { apiError, httpError, streamError, type ErrorTarget } from "./classify";
import type { LlmError } from "./errors";

export const DEFAULT_TIMEOUT_MS = 120_000;
/** How long to keep reading after a format's end marker for the end of the
 * body (which lets the connection be reused). */
const DRAIN_GRACE_MS = 250;

export interface ExchangeInit {
  target: ErrorTarget;
  url: string;
  headers: Record<string, string>;
  /** Values that must never appear in an error text (API keys). */
  secrets: readonly string[];
  /** Added to a 404's text: why the base URL may be wrong. */
  endpointHint?: string;
  signal: AbortSignal;
  timeoutMs: number;
  /** Streaming bodies reset the timeout on every chunk (an idle timeout);
   * plain bodies must finish within it. */
  idleTimeout: boolean;
  now: () => number;
  fetch: typeof fetch;
}

export class HttpExchange {
  private readonly ac = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timedOut = false;
  private phase: "head" | "body" = "head";
  private finished = false;
  private draining = false;
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  private readonly onCallerAbort = () => this.ac.abort(this.init.signal.reason);

  constructor(private readonly init: ExchangeInit) {}

  /** Send the request; resolves with a successful response or throws. */
  async open(body: unknown): Promise<Response> {
    const { signal } = this.init;
    if (signal.aborted) throw signal.reason;
    signal.addEventListener("abort", this.onCallerAbort, { once: true });
    let url: URL;
    let payload: string;
    try {
      url = new URL(this.init.url);
      // a tool call's 2.0 goes back to the provider as 2.0
      payload = stringifyJsonKeepingFloats(body);
    } catch (e) {
      throw this.fail("request_build", describe(e));
    }
    this.arm();
    let res: Response;
    try {
      res = await this.init.fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...this.init.headers },
        body: payload,
        signal: this.ac.signal,
      });
    } catch (e) {
      throw this.failure(e, "connect");
    }
    this.phase = "body";
    if (!res.ok) {
      let text = "";
      try {
        text = await res.text();
      } catch (e) {
        throw this.failure(e, "body");
      }
      throw httpError(this.init.target, res.status, res.statusText, text, res.headers, this.init.now(), this.init.secrets, {
        url: this.init.url,
        hint: this.init.endpointHint,
      });
    }
    return res;
  }

  /** The decoded body, chunk by chunk (UTF-8 sequences split across
   * network chunks are reassembled by the streaming decoder). */
  async *text(res: Response): AsyncGenerator<string> {
    if (res.body === null) return;
    const reader = (this.reader = res.body.getReader());
    const decoder = new TextDecoder("utf-8");
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (e) {
        // After the end marker the answer is complete, whatever happens to
        // the rest of the body (or to the caller's signal).
        if (this.draining) return;
        throw this.failure(e, "body");
      }
      if (chunk.done) break;
      if (this.init.idleTimeout && !this.draining) this.arm();
      const s = decoder.decode(chunk.value, { stream: true });
      if (s !== "") yield s;
    }
    this.finished = true;
    const tail = decoder.decode();
    if (tail !== "") yield tail;
  }

  /** The whole body parsed as JSON (non-streaming transport); integral
   * floats stay floats (`parseJsonKeepingFloats`: a tool call's `2.0`). */
  async json(res: Response): Promise<unknown> {
    let text = "";
    for await (const s of this.text(res)) text += s;
    try {
      return parseJsonKeepingFloats(text);
    } catch {
      throw this.fail("body", `response is not valid JSON: ${text.slice(0, 200)}`);
    }
  }

  /** Server-sent events of the body. */
  async *sse(res: Response): AsyncGenerator<EventSourceMessage> {
    const pending: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (ev) => pending.push(ev) });
    for await (const s of this.text(res)) {
      parser.feed(s);
      while (pending.length > 0) yield pending.shift()!;
    }
    // A final event not followed by a blank line is still an event.
    parser.feed("\n\n");
    while (pending.length > 0) yield pending.shift()!;
  }

  /** Non-empty lines of a newline-delimited body (NDJSON). */
  async *lines(res: Response): AsyncGenerator<string> {
    let buf = "";
    for await (const s of this.text(res)) {
      buf += s;
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line !== "") yield line;
      }
    }
    if (buf.trim() !== "") yield buf.trim();
  }

  /**
   * The wire format's end marker arrived. The adapter keeps reading to the
   * end of the body so the connection goes back to the pool for the next
   * call (no new TCP/TLS handshake per turn), but only for a short grace: a
   * server that keeps the stream open after its end marker must not turn
   * a complete answer into a timeout.
   */
  endOfMessage(): void {
    this.draining = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.ac.abort(new Error("drain grace over")), DRAIN_GRACE_MS);
  }

  /** A body that ended before the wire format's end marker. */
  truncated(): LlmError {
    return this.fail("body", "connection closed before the response was complete");
  }

  /** An error the provider reported inside its response (`error` event,
   * `error` member): classified by its type, not as a transport failure. */
  apiError(error: unknown): LlmError {
    return apiError(this.init.target, error, this.init.secrets);
  }

  /** A classified failure of this exchange. */
  fail(kind: Parameters<typeof streamError>[1], detail: string, unreachable = false): LlmError {
    return streamError(this.init.target, kind, detail, this.init.secrets, unreachable);
  }

  /** Release everything: timer, caller listener, and the connection if the
   * body was not read to its end. Idempotent. */
  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.init.signal.removeEventListener("abort", this.onCallerAbort);
    if (!this.finished) {
      this.ac.abort(new Error("exchange closed"));
      this.reader?.cancel().catch(() => {});
    }
  }

  private arm(): void {
    if (this.timer !== undefined) {
      this.timer.refresh();
      return;
    }
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.ac.abort(new Error("timeout"));
    }, this.init.timeoutMs);
  }

  private failure(e: unknown, kind: "connect" | "body"): unknown {
    if (this.init.signal.aborted) return this.init.signal.reason;
    if (this.timedOut) {
      const secs = this.init.timeoutMs / 1000;
      return this.fail(
        "timeout",
        this.phase === "head" || !this.init.idleTimeout
          ? `request timed out after ${secs}s`
          : `request timed out after ${secs}s without data`,
      );
    }
    if (kind === "body") return this.fail("body", `connection closed before the response was complete (${describe(e)})`);
    const why = connectFailure(e, this.init.url);
    return this.fail("connect", why.text, why.unreachable);
  }
}

/** A failed connection, naming where it went: `connection refused by
 * host:port (url)`, `dns error: cannot resolve host (url)`, … */
function connectFailure(e: unknown, url: string): { text: string; unreachable: boolean } {
  let where: string;
  try {
    const u = new URL(url);
    where = `${u.hostname}:${u.port || (u.protocol === "https:" ? "443" : "80")}`;
  } catch {
    return { text: describe(e), unreachable: false };
  }
  const cause = e instanceof Error ? (e as { cause?: unknown }).cause : undefined;
  const code = cause instanceof Error ? (cause as { code?: unknown }).code : undefined;
  switch (code) {
    case "ECONNREFUSED":
      return { text: `connection refused by ${where} (${url}); is the server running?`, unreachable: true };
    case "ECONNRESET":
      return { text: `connection reset by ${where} (${url})`, unreachable: false };
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return { text: `dns error: cannot resolve ${where.slice(0, where.lastIndexOf(":"))} (${url})`, unreachable: true };
    default:
      return { text: `${describe(e)} (${url})`, unreachable: false };
  }
}

/** Text of a fetch/undici failure, including the socket-level cause. */
function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = (e as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === "string" && !cause.message.includes(code) ? `${code}: ${cause.message}` : cause.message;
  }
  return e.message;
}

/** Parse one JSON payload from a stream (integral floats stay floats); a
 * broken frame is a body error. */
export function parseFrame(ex: HttpExchange, data: string): unknown {
  try {
    return parseJsonKeepingFloats(data);
  } catch {
    throw ex.fail("body", `malformed frame: ${data.slice(0, 200)}`);
  }
}
