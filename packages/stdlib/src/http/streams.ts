/**
 * Server-sent events and WebSocket clients with their mocks (spec/stdlib.md
 * §19.3). Handles are string ids (`sse-1`, `ws-1`); receiving pulls from a
 * per-handle queue, waiting up to `timeout_ms` (a `{type: "timeout"}`
 * answer) and answering nil once the stream is closed and drained. SSE
 * frames are parsed with eventsource-parser; WebSockets use undici's client.
 * Every handle is closed when the runtime shuts down. `max_message_bytes`
 * (core-gaps.md §7.8) bounds each message both ways.
 */
import { createParser } from "eventsource-parser";
import { display, HarnError, HBytes, HDict, realClock, RuntimeSlot, type CallContext, type Clock, type Runtime, type Value } from "@harn/vm";
import { strArg } from "../core/args";
import { urlMatches } from "./form";
import { buildRequest, msValue, optionsArg, timeoutOption } from "./request";
import { open, TransportError, undici } from "./transport";
import { checkEgress } from "./egress";
import { extraCaConnectOptions } from "../tls/extra-ca";
import type { Socket } from "node:net";
import { builtinModule } from "../registry/define";

type Message = HDict;
/** What a receive takes off the queue: a message, or the error that ended
 * the stream (a message over `max_message_bytes`). */
type Item = Message | HarnError;
type Undici = Awaited<ReturnType<typeof undici>>;

/** A queue of messages with waiters, closed once the source ends. */
class Inbox {
  private items: Item[] = [];
  private waiters: ((m: Item | null) => void)[] = [];
  closed = false;
  /** Ended by an error: once it has been raised, receives answer nil. */
  failed = false;

  push(m: Item): void {
    if (this.failed) return;
    const w = this.waiters.shift();
    if (w) w(m);
    else this.items.push(m);
  }

  /** Queues `e` after what is already waiting and ends the stream there:
   * the receive that reaches it raises it, later ones answer nil. */
  fail(e: HarnError): void {
    if (this.failed) return;
    this.push(e);
    this.failed = true;
    this.close();
  }

  close(): void {
    this.closed = true;
    for (const w of this.waiters) w(null);
    this.waiters = [];
  }

  /** The next message, `{type: "timeout"}` after `timeoutMs` on `clock`, or
   * nil once closed and drained. */
  take(timeoutMs: number, signal: AbortSignal, clock: Clock): Value | Promise<Value> {
    const m = this.items.shift();
    if (m) return this.deliver(m);
    if (this.closed) return null;
    if (timeoutMs <= 0) return HDict.of({ type: "timeout" });
    return new Promise<Value>((resolve, reject) => {
      const done = (v: Item | null) => {
        cancelTimer();
        signal.removeEventListener("abort", onAbort);
        // a waiter only exists while the queue is empty: nothing to drop
        if (v instanceof HarnError) reject(v);
        else resolve(v);
      };
      const onAbort = () => {
        this.waiters = this.waiters.filter((w) => w !== done);
        cancelTimer();
        reject(signal.reason);
      };
      const cancelTimer = clock.timer(timeoutMs, () => {
        this.waiters = this.waiters.filter((w) => w !== done);
        signal.removeEventListener("abort", onAbort);
        resolve(HDict.of({ type: "timeout" }));
      });
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(done);
    });
  }

  /** A message as receive answers it; an error drops whatever was queued
   * behind it (the stream ended there) and is thrown. */
  private deliver(m: Item): Message {
    if (!(m instanceof HarnError)) return m;
    this.items = [];
    throw m;
  }
}

interface Handle {
  kind: "sse" | "websocket";
  url: string;
  inbox: Inbox;
  mocked: boolean;
  /** websocket mocks with `echo: true` */
  echo: boolean;
  /** `max_message_bytes`: longer messages end the stream (receive) or are
   * refused (send) */
  maxBytes: number;
  send: ((data: string | Uint8Array) => void) | null;
  close: () => void;
}

interface SseMock {
  pattern: string;
  events: Value[];
}

interface WsMock {
  pattern: string;
  messages: Value[];
  echo: boolean;
}

interface TransportState {
  handles: Map<string, Handle>;
  sseMocks: SseMock[];
  wsMocks: WsMock[];
  calls: HDict[];
  next: number;
}

const transportSlot = new RuntimeSlot<TransportState>("http.transports", (rt) => {
  const s: TransportState = { handles: new Map(), sseMocks: [], wsMocks: [], calls: [], next: 1 };
  rt.onShutdown(() => {
    for (const h of s.handles.values()) h.close();
    s.handles.clear();
  });
  return s;
});

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * How long a closing WebSocket waits for the server's close frame before
 * its socket is dropped. The client sends its close frame and the server
 * should answer at once; one that never does would otherwise hold the
 * socket open, and with it the process, forever (after `websocket_close`
 * or at the end of the script). RFC 6455 §7.1.1 lets the client drop the
 * connection after a reasonable wait.
 */
const WS_CLOSE_GRACE_MS = 1_000;

/** The error undici's WebSocket reports for a frame over `maxPayloadSize`. */
const UNDICI_PAYLOAD_TOO_BIG = "Payload size exceeds maximum allowed size";

/** The default `max_message_bytes` (core-gaps.md §7.8). */
const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;

/** `max_message_bytes` of a connect's options: an int, at least 1. */
function maxMessageBytes(options: HDict | null): number {
  const v = options?.get("max_message_bytes");
  if (typeof v === "bigint") return v > 0n ? Number.MAX_SAFE_INTEGER : 1;
  return typeof v === "number" ? Math.max(1, v) : DEFAULT_MAX_MESSAGE_BYTES;
}

function exceeded(fn: string, limit: number): HarnError {
  return HarnError.runtime(`${fn}: message exceeded max_message_bytes (${limit})`);
}

/** A received message's size: the bytes of its text or binary data. */
function messageBytes(m: HDict): number {
  const b64 = m.get("data_base64");
  if (typeof b64 === "string") return Buffer.from(b64, "base64").length;
  const data = m.get("data");
  return typeof data === "string" ? Buffer.byteLength(data) : 0;
}

/** Queues `m`, or the receive error in its place when it is over `limit`. */
function pushLimited(inbox: Inbox, m: HDict, limit: number, fn: string): void {
  if (messageBytes(m) > limit) inbox.fail(exceeded(fn, limit));
  else inbox.push(m);
}

/**
 * Bounds the line an event-stream parser is holding: a line longer than the
 * limit plus the longest field prefix (`data: `) is longer than any message
 * the limit allows, so the stream can stop before it is read to its end.
 */
class LineGuard {
  private length = 0;
  constructor(private readonly limit: number) {}

  /** Whether the lines `chunk` ends or continues still fit. */
  fits(chunk: Uint8Array): boolean {
    const lf = Math.max(chunk.lastIndexOf(0x0a), chunk.lastIndexOf(0x0d));
    this.length = lf < 0 ? this.length + chunk.length : chunk.length - lf - 1;
    return this.length <= this.limit + "data: ".length;
  }
}

function str(v: Value): string {
  return typeof v === "string" ? v : display(v);
}

/** `timeout_ms`: an int, or a duration as the HTTP options take one (a
 * `30ms` here used to mean "no timeout given" and waited 30 s). */
function timeoutArg(v: Value | undefined): number {
  const ms = v === undefined ? null : msValue(v);
  return ms === null ? DEFAULT_TIMEOUT_MS : Math.max(0, ms);
}

/** What a receive timeout runs on: the runtime's clock for a mock (virtual
 * under `harn test --deterministic`), real time for a real peer (an idle
 * socket is not work a virtual clock could wait for: it would time out at
 * once). */
function receiveClock(rt: Runtime, h: Handle): Clock {
  return h.mocked ? rt.clock : realClock;
}

function handle(rt: Runtime, fn: string, args: Value[]): Handle {
  const id = strArg(args, 0);
  const h = rt.slot(transportSlot).handles.get(id);
  if (!h) throw HarnError.thrown(`${fn}: unknown handle '${id}'`);
  return h;
}

function record(s: TransportState, entry: Record<string, Value>): void {
  s.calls.push(HDict.of(entry));
}

function sseMessage(e: { event?: string | undefined; data: string; id?: string | undefined }, retry: number | null): HDict {
  return HDict.of({ type: "event", event: e.event ?? "message", data: e.data, id: e.id ?? null, retry_ms: retry });
}

function mockedSseEvent(v: Value): HDict {
  if (v instanceof HDict) {
    const retry = v.get("retry") ?? v.get("retry_ms");
    return HDict.of({
      type: "event",
      event: v.get("event") === null ? "message" : str(v.get("event")),
      data: str(v.get("data") ?? ""),
      id: v.get("id") === null ? null : str(v.get("id")),
      retry_ms: typeof retry === "number" ? retry : null,
    });
  }
  return HDict.of({ type: "event", event: "message", data: str(v), id: null, retry_ms: null });
}

function wsMessage(v: Value): HDict {
  if (v instanceof HDict && typeof v.get("type") === "string") return v;
  if (v instanceof HBytes) return HDict.of({ type: "binary", data_base64: Buffer.from(v.data).toString("base64") });
  return HDict.of({ type: "text", data: str(v) });
}

/** An SSE frame (`event:`, `id:`, `retry:`, one `data:` per line, blank line). */
export function sseFrame(event: Value, options: Value): string {
  const o = event instanceof HDict ? event : options instanceof HDict ? options : HDict.empty();
  const name = event instanceof HDict ? o.get("event") : event;
  let out = "";
  if (name !== null && name !== undefined) out += `event: ${str(name)}\n`;
  if (o.get("id") !== null) out += `id: ${str(o.get("id"))}\n`;
  const retry = o.get("retry") ?? o.get("retry_ms");
  if (retry !== null) out += `retry: ${str(retry)}\n`;
  const data = o.get("data");
  const text = data === null ? "" : typeof data === "string" ? data : display(data);
  for (const line of text.split("\n")) out += `data: ${line}\n`;
  return out + "\n";
}

function connectSse(ctx: CallContext, s: TransportState, id: string, method: string, url: string, options: HDict | null): Value | Promise<Value> {
  const maxBytes = maxMessageBytes(options);
  const mock = s.sseMocks.find((m) => urlMatches(m.pattern, url));
  if (mock) {
    const inbox = new Inbox();
    inbox.push(HDict.of({ type: "open" }));
    for (const e of mock.events) pushLimited(inbox, mockedSseEvent(e), maxBytes, "sse_receive");
    inbox.close();
    s.handles.set(id, { kind: "sse", url, inbox, mocked: true, echo: false, maxBytes, send: null, close: () => inbox.close() });
    record(s, { transport: "sse", action: "connect", method, url });
    return id;
  }
  const spec = buildRequest("sse_connect", method, url, null, options);
  const hasAccept = spec.headers.some(([k]) => k.toLowerCase() === "accept");
  if (!hasAccept) spec.headers.push(["Accept", "text/event-stream"]);
  // The timeout bounds the wait for the response headers only: an event
  // stream is meant to stay open, and `sse_receive` has its own timeout.
  return open(ctx, spec, false, "headers").then(
    (o) => {
      const inbox = new Inbox();
      inbox.push(HDict.of({ type: "open", status: o.status }));
      let retry: number | null = null;
      const parser = createParser({
        onEvent: (e) => pushLimited(inbox, sseMessage(e, retry), maxBytes, "sse_receive"),
        onRetry: (ms) => {
          retry = ms;
        },
      });
      const reader = o.body instanceof Uint8Array ? null : o.body;
      const decoder = new TextDecoder();
      const lines = new LineGuard(maxBytes);
      const feed = (chunk: Uint8Array, stream: boolean): boolean => {
        // the parser holds a line until it ends: one that cannot fit in a
        // message stops the stream instead of growing without bound
        if (!lines.fits(chunk)) {
          inbox.fail(exceeded("sse_receive", maxBytes));
          return false;
        }
        parser.feed(decoder.decode(chunk, { stream }));
        return !inbox.failed;
      };
      const pump = async () => {
        if (!reader) {
          feed(o.body as Uint8Array, false);
          return;
        }
        for (;;) {
          const value = await reader.read();
          if (value === null || !feed(value, true)) break;
        }
      };
      const end = () => {
        if (inbox.failed) o.close();
        inbox.close();
      };
      pump().then(end, end);
      s.handles.set(id, { kind: "sse", url, inbox, mocked: false, echo: false, maxBytes, send: null, close: () => (o.close(), inbox.close()) });
      return id;
    },
    (e) => {
      if (e instanceof TransportError) throw HarnError.thrown(`http: request failed: ${e.detail}`);
      throw e;
    },
  );
}

async function connectWebSocket(ctx: CallContext, s: TransportState, id: string, url: string, options: HDict | null, maxBytes: number): Promise<Value> {
  const { Agent, buildConnector, WebSocket } = await undici(ctx.runtime);
  const headers: Record<string, string> = {};
  const h = options?.get("headers");
  if (h instanceof HDict) for (const k of h.keys()) headers[k] = str(h.get(k));
  const inbox = new Inbox();
  // A connection pool of its own, which keeps the socket it opens: undici's
  // WebSocket does not expose it, and a close the server never answers is
  // ended by destroying it (closeWebSocket).
  const sockets = new Set<Socket>();
  const connector = buildConnector({ ...(/^wss:/i.test(url) && extraCaConnectOptions(ctx.runtime)) });
  const dispatcher = new Agent({
    // undici stops reading a frame as soon as its header says it is over
    // the limit, failing the connection with the error below
    webSocket: { maxPayloadSize: maxBytes },
    connect: (opts, cb) =>
      connector(opts, (err, socket) => {
        if (socket) {
          sockets.add(socket);
          socket.once("close", () => sockets.delete(socket));
        }
        (cb as (e: Error | null, s: Socket | null) => void)(err, socket);
      }),
  });
  const ws = new WebSocket(url, { headers, dispatcher } as unknown as string[]);
  ws.binaryType = "arraybuffer";
  const handshakeMs = handshakeTimeout(options);
  await new Promise<void>((resolve, reject) => {
    const settle = () => {
      ctx.signal.removeEventListener("abort", onAbort);
      if (timer) clearTimeout(timer);
    };
    const onAbort = () => {
      settle();
      closeWebSocket(ws, sockets, dispatcher);
      reject(ctx.signal.reason);
    };
    // A server that accepts the connection but never answers the opening
    // handshake would otherwise hold the call (and harn) forever.
    const timer =
      handshakeMs > 0
        ? setTimeout(() => {
            settle();
            for (const socket of sockets) socket.destroy();
            void dispatcher.destroy().catch(() => undefined);
            reject(HarnError.thrown(`websocket_connect: failed to connect to ${url}: operation timed out`));
          }, handshakeMs)
        : null;
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    ws.addEventListener("open", () => {
      settle();
      resolve();
    });
    ws.addEventListener("error", () => {
      settle();
      void dispatcher.destroy().catch(() => undefined);
      reject(HarnError.thrown(`websocket_connect: failed to connect to ${url}`));
    });
  });
  ws.addEventListener("message", (ev) => {
    const d = ev.data as unknown;
    const m =
      typeof d === "string" ? HDict.of({ type: "text", data: d }) : HDict.of({ type: "binary", data_base64: Buffer.from(d as ArrayBuffer).toString("base64") });
    pushLimited(inbox, m, maxBytes, "websocket_receive");
    if (inbox.failed) closeWebSocket(ws, sockets, dispatcher);
  });
  ws.addEventListener("error", (ev) => {
    if ((ev as { message?: string }).message === UNDICI_PAYLOAD_TOO_BIG) inbox.fail(exceeded("websocket_receive", maxBytes));
  });
  ws.addEventListener("close", (ev) => {
    inbox.push(HDict.of({ type: "close", code: ev.code, reason: ev.reason }));
    inbox.close();
  });
  s.handles.set(id, {
    kind: "websocket",
    url,
    inbox,
    mocked: false,
    echo: false,
    maxBytes,
    send: (data) => ws.send(data),
    close: () => closeWebSocket(ws, sockets, dispatcher),
  });
  return id;
}

/**
 * How long `websocket_connect` waits for the opening handshake: the
 * options' `timeout_ms` / `timeout` (ms or a duration; 0 = no limit),
 * else the HTTP default of 30 s (spec/stdlib.md §19.1, which is silent on
 * WebSockets).
 */
function handshakeTimeout(options: HDict | null): number {
  return Math.max(0, timeoutOption(options));
}

/** Starts the closing handshake and drops the connection if the server has
 * not finished it within WS_CLOSE_GRACE_MS. */
function closeWebSocket(ws: InstanceType<Undici["WebSocket"]>, sockets: Set<Socket>, dispatcher: { destroy(): Promise<void> }): void {
  if (ws.readyState === ws.CLOSED) {
    void dispatcher.destroy().catch(() => undefined);
    return;
  }
  ws.close();
  const drop = setTimeout(() => {
    for (const socket of sockets) socket.destroy();
  }, WS_CLOSE_GRACE_MS);
  drop.unref(); // the open socket keeps the process alive until then anyway
  ws.addEventListener("close", () => {
    clearTimeout(drop);
    void dispatcher.destroy().catch(() => undefined);
  });
}

export const STREAMS_BUILTINS = builtinModule("http/streams", (def) => {
  def("sse_mock", (args, ctx) => {
    const s = ctx.runtime.slot(transportSlot);
    const pattern = strArg(args, 0);
    const events = Array.isArray(args[1]) ? args[1] : [];
    s.sseMocks = s.sseMocks.filter((m) => m.pattern !== pattern);
    s.sseMocks.push({ pattern, events });
    return null;
  });
  def("sse_event", (args) => sseFrame(args[0] ?? null, args[1] ?? null));
  def("sse_connect", (args, ctx) => {
    const s = ctx.runtime.slot(transportSlot);
    const method = args.length > 1 ? strArg(args, 0) : "GET";
    const url = args.length > 1 ? strArg(args, 1) : strArg(args, 0);
    if (url === "") throw HarnError.thrown("sse_connect: URL is required");
    checkEgress(ctx.runtime, "sse_connect", url);
    const id = `sse-${s.next++}`;
    return connectSse(ctx, s, id, method.toUpperCase(), url, optionsArg(args[2]));
  });
  def("sse_receive", (args, ctx) => {
    const h = handle(ctx.runtime, "sse_receive", args);
    return h.inbox.take(timeoutArg(args[1]), ctx.signal, receiveClock(ctx.runtime, h));
  });
  def("sse_close", (args, ctx) => closeHandle(ctx.runtime, args));

  def("websocket_mock", (args, ctx) => {
    const s = ctx.runtime.slot(transportSlot);
    const pattern = strArg(args, 0);
    const cfg = args[1] ?? null;
    const messages = Array.isArray(cfg) ? cfg : cfg instanceof HDict && Array.isArray(cfg.get("messages")) ? (cfg.get("messages") as Value[]) : [];
    const echo = cfg instanceof HDict && cfg.get("echo") === true;
    s.wsMocks = s.wsMocks.filter((m) => m.pattern !== pattern);
    s.wsMocks.push({ pattern, messages, echo });
    return null;
  });
  def("websocket_connect", (args, ctx) => {
    const s = ctx.runtime.slot(transportSlot);
    const url = strArg(args, 0);
    if (!/^wss?:\/\//.test(url)) throw HarnError.thrown(`websocket_connect: URL must start with ws:// or wss://, got '${url}'`);
    checkEgress(ctx.runtime, "websocket_connect", url);
    const id = `ws-${s.next++}`;
    const options = optionsArg(args[1]);
    const maxBytes = maxMessageBytes(options);
    const mock = s.wsMocks.find((m) => urlMatches(m.pattern, url));
    if (mock) {
      const inbox = new Inbox();
      for (const m of mock.messages) pushLimited(inbox, wsMessage(m), maxBytes, "websocket_receive");
      const h: Handle = { kind: "websocket", url, inbox, mocked: true, echo: mock.echo, maxBytes, send: null, close: () => inbox.close() };
      if (mock.echo) h.send = (data) => inbox.push(typeof data === "string" ? HDict.of({ type: "text", data }) : wsMessage(new HBytes(data)));
      else if (mock.messages.length > 0) inbox.close();
      s.handles.set(id, h);
      record(s, { transport: "websocket", action: "connect", url });
      return id;
    }
    return connectWebSocket(ctx, s, id, url, options, maxBytes);
  });
  def("websocket_send", (args, ctx) => {
    const s = ctx.runtime.slot(transportSlot);
    const h = handle(ctx.runtime, "websocket_send", args);
    const v = args[1] ?? null;
    const data = v instanceof HBytes ? v.data : str(v);
    if ((typeof data === "string" ? Buffer.byteLength(data) : data.length) > h.maxBytes) throw exceeded("websocket_send", h.maxBytes);
    if (h.mocked) record(s, { transport: "websocket", action: "send", url: h.url, data: v instanceof HBytes ? v : (data as string) });
    if (h.inbox.closed && !h.echo) throw HarnError.thrown("websocket_send: connection is closed");
    h.send?.(data);
    return true;
  });
  def("websocket_receive", (args, ctx) => {
    const h = handle(ctx.runtime, "websocket_receive", args);
    const r = h.inbox.take(timeoutArg(args[1]), ctx.signal, receiveClock(ctx.runtime, h));
    // a mock that has played all its messages closes normally; one closed
    // by an oversized message answers nil, as a closed socket does
    if (r === null && h.mocked && !h.inbox.failed) return HDict.of({ type: "close", code: 1000, reason: "" });
    return r;
  });
  def("websocket_close", (args, ctx) => closeHandle(ctx.runtime, args));

  def("transport_mock_calls", (_args, ctx) => ctx.runtime.slot(transportSlot).calls.slice());
  def("transport_mock_clear", (_args, ctx) => {
    const s = ctx.runtime.slot(transportSlot);
    s.sseMocks = [];
    s.wsMocks = [];
    s.calls = [];
    return null;
  });
});

function closeHandle(rt: Runtime, args: Value[]): boolean {
  const s = rt.slot(transportSlot);
  const id = strArg(args, 0);
  const h = s.handles.get(id);
  if (!h) return false;
  if (h.mocked) record(s, { transport: h.kind, action: "close", url: h.url });
  h.close();
  s.handles.delete(id);
  return true;
}
