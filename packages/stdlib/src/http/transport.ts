/**
 * Real HTTP exchanges through undici's `request` (not its `fetch`, see
 * `requestHeaders`), loaded on first use so scripts that never leave the
 * mocks never pay for it. The npm package gives us connect/read timeouts
 * and proxies (`ProxyAgent`). One connection pool per
 * runtime, closed at shutdown so idle keep-alive sockets never hold the
 * process open.
 */
import type { Socket } from "node:net";
import { pipeline, type Readable, type Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { HDict, RuntimeSlot, type CallContext, type Runtime, type Value } from "@harn/vm";
import type { Dispatcher } from "undici";
import { extraCaConnectOptions } from "../tls/extra-ca";
import type { RequestSpec } from "./request";

export interface RawResponse {
  status: number;
  headers: HDict;
  body: Uint8Array;
}

/** A transport failure; `retryable` for connect errors and timeouts. */
export class TransportError {
  constructor(
    readonly detail: string,
    readonly retryable: boolean,
  ) {}
}

type Undici = typeof import("undici");

interface Pools {
  undici: Promise<Undici> | null;
  agents: Map<string, Dispatcher>;
  /** Every socket the pools opened and that is not closed yet. */
  sockets: Set<Socket>;
}

const poolSlot = new RuntimeSlot<Pools>("http.pools", (rt) => {
  const pools: Pools = { undici: null, agents: new Map(), sockets: new Set() };
  rt.onShutdown(async () => {
    const all = [...pools.agents.values()];
    pools.agents.clear();
    await Promise.all(all.map((a) => a.destroy().catch(() => undefined)));
    // undici's destroy() can miss a socket whose connection completed
    // while the request on it was being aborted (Ctrl-C during http_get,
    // about one run in five on a loaded machine): it stayed open, and
    // harn with it, until the peer hung up.
    for (const socket of pools.sockets) socket.destroy();
    pools.sockets.clear();
  });
  return pools;
});

/** undici's `connect` option: its own connector, remembering each socket
 * it opens until the socket closes, so shutdown can end them all. */
function trackedConnect(u: Undici, rt: Runtime, options: object | undefined): ReturnType<Undici["buildConnector"]> {
  const sockets = rt.slot(poolSlot).sockets;
  const connector = u.buildConnector({ ...options });
  return (opts, callback) => {
    // the type says void, but the connector returns the socket it made
    const socket = (connector as (...a: Parameters<typeof connector>) => Socket | undefined)(opts, callback);
    if (socket) {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
    }
    return socket;
  };
}

/** The undici package, loaded once per runtime. */
export function undici(rt: Runtime): Promise<Undici> {
  const pools = rt.slot(poolSlot);
  // undici is CommonJS: Node's `import()` gives its exports as named
  // exports, but in the CLI's split bundle (cli/build.mjs) the chunk holding
  // it exports them only as `default`.
  if (!pools.undici) pools.undici = import("undici").then((m) => ("Agent" in m ? m : (m as unknown as { default: Undici }).default));
  return pools.undici;
}

/**
 * A connection pool trusting the deferred CA bundle (tls/extra-ca.ts), for
 * the clients that otherwise use Node's default one (WebSockets, the LLM
 * providers' `fetch`); undefined when nothing was deferred, and then those
 * clients change nothing. Closed at shutdown with the runtime's other pools.
 */
export async function extraCaDispatcher(rt: Runtime): Promise<Dispatcher | undefined> {
  const tls = extraCaConnectOptions(rt);
  if (!tls) return undefined;
  const u = await undici(rt);
  const pools = rt.slot(poolSlot);
  let d = pools.agents.get("extra-ca");
  if (!d) pools.agents.set("extra-ca", (d = new u.Agent({ connect: trackedConnect(u, rt, tls) })));
  return d;
}

/**
 * Node's `fetch` as the runtime's clients (LLM providers, MCP over HTTP)
 * must use it: trusting the deferred CA bundle, and bracketed as real work
 * on a virtual clock. Undefined when plain `fetch` does both.
 */
export function runtimeFetch(rt: Runtime): typeof fetch | undefined {
  return bracketedForVirtualClock(rt, fetchTrustingExtraCa(rt));
}

/** On a virtual clock (`harn test --deterministic`), a request is real work
 * until its response headers arrive: the clock must not jump past a
 * timeout meanwhile (vm clock.ts). On the real clock: `f` unchanged. */
function bracketedForVirtualClock(rt: Runtime, f: typeof fetch | undefined): typeof fetch | undefined {
  if (!rt.clock.virtual) return f;
  const inner = f ?? fetch;
  return (input, init) => {
    const end = rt.clock.beginReal();
    return inner(input, init).finally(end);
  };
}

/**
 * Node's `fetch`, with https requests going through a pool that trusts the
 * CA bundle harn deferred (tls/extra-ca.ts); undefined (plain `fetch`)
 * when nothing was deferred.
 */
function fetchTrustingExtraCa(rt: Runtime): typeof fetch | undefined {
  if (rt.extraCaCertsFile === null) return undefined;
  return async (input, init) => {
    const url = input instanceof URL ? input : new URL(typeof input === "string" ? input : input.url);
    const dispatcher = url.protocol === "https:" ? await extraCaDispatcher(rt) : undefined;
    // `dispatcher` is undici's extension of RequestInit, which Node's fetch honours.
    return fetch(input, dispatcher ? ({ ...init, dispatcher } as RequestInit) : init);
  };
}

async function dispatcherFor(rt: Runtime, spec: RequestSpec, target: URL): Promise<Dispatcher> {
  const u = await undici(rt);
  const pools = rt.slot(poolSlot);
  const proxy = spec.proxy && !bypassProxy(target, spec.proxy.noProxy) ? spec.proxy : null;
  const key = `${target.protocol}|${proxy ? proxy.url + "|" + (proxy.auth ? proxy.auth.user + ":" + proxy.auth.pass : "") : "direct"}|${spec.connectTimeoutMs ?? ""}|${spec.readTimeoutMs ?? ""}`;
  let d = pools.agents.get(key);
  if (!d) {
    const connect = spec.connectTimeoutMs !== null ? { timeout: spec.connectTimeoutMs } : undefined;
    const timeouts =
      spec.readTimeoutMs !== null ? { headersTimeout: spec.readTimeoutMs, bodyTimeout: spec.readTimeoutMs } : { headersTimeout: 0, bodyTimeout: 0 };
    // The deferred CA bundle, for whichever hop speaks TLS (undefined, and
    // no context built, when nothing was deferred or nothing is TLS).
    const tlsFor = (url: string | URL) => (new URL(url).protocol === "https:" ? extraCaConnectOptions(rt) : undefined);
    if (proxy && target.protocol === "http:") {
      d = forwardingProxy(u, proxy.url, proxyToken(proxy), trackedConnect(u, rt, withTls(connect, tlsFor(proxy.url))), timeouts);
    } else if (proxy) {
      const requestTls = tlsFor(target);
      const proxyTls = tlsFor(proxy.url);
      d = new u.ProxyAgent({ uri: proxy.url, token: proxyToken(proxy), connect, ...timeouts, ...(requestTls && { requestTls }), ...(proxyTls && { proxyTls }) });
    } else {
      d = new u.Agent({ connect: trackedConnect(u, rt, withTls(connect, tlsFor(target))), ...timeouts });
    }
    pools.agents.set(key, d);
  }
  return d;
}

function withTls(connect: { timeout: number } | undefined, tls: object | undefined): object | undefined {
  return tls ? { ...connect, ...tls } : connect;
}

function proxyToken(proxy: NonNullable<RequestSpec["proxy"]>): string | undefined {
  return proxy.auth ? "Basic " + Buffer.from(`${proxy.auth.user}:${proxy.auth.pass}`).toString("base64") : undefined;
}

/**
 * Plain-HTTP targets go through a proxy the way curl and reqwest send them:
 * the request itself, in absolute form (`GET http://host/path`), to the
 * proxy — simple forwarding proxies do not all speak CONNECT. HTTPS targets
 * tunnel through CONNECT (`ProxyAgent`).
 */
function forwardingProxy(u: Undici, proxyUrl: string, token: string | undefined, connect: object | undefined, timeouts: object): Dispatcher {
  const origin = new URL(proxyUrl).origin;
  const agent = new u.Agent({ connect, ...timeouts });
  class Forwarding extends u.Dispatcher {
    override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandlers): boolean {
      const target = new URL(opts.path, String(opts.origin));
      const extra: [string, string][] = [["host", target.host]];
      if (token) extra.push(["proxy-authorization", token]);
      let headers = opts.headers;
      if (Array.isArray(headers)) headers = [...headers, ...extra.flat()];
      else headers = { ...(headers as Record<string, string>), ...Object.fromEntries(extra) };
      return agent.dispatch({ ...opts, origin, path: target.href, headers }, handler);
    }
    override close(): Promise<void> {
      return agent.close();
    }
    override destroy(): Promise<void> {
      return agent.destroy();
    }
  }
  return new Forwarding();
}

function bypassProxy(target: URL, noProxy: string[]): boolean {
  const host = target.hostname.toLowerCase();
  return noProxy.some((entry) => {
    const e = entry.toLowerCase().replace(/^\*?\./, "");
    return e === "*" || host === e || host.endsWith("." + e);
  });
}

/**
 * One exchange (following redirects as configured), body read in full.
 * Rejects with `TransportError`, or with the task's abort reason when it is
 * cancelled.
 */
export async function send(ctx: CallContext, spec: RequestSpec): Promise<RawResponse> {
  const opened = await open(ctx, spec, true);
  return { status: opened.status, headers: opened.headers, body: opened.body as Uint8Array };
}

export interface OpenResponse {
  status: number;
  headers: HDict;
  /** The whole body (`readAll`) or a reader over it. */
  body: Uint8Array | BodyReader;
  /** Abort the exchange (streams). */
  close(): void;
}

/**
 * The body of a streamed exchange, chunk by chunk; null once it ended.
 * Failures reject with a `TransportError` (a peer that closed mid-body, the
 * timeout), or with the task's abort reason when the task that opened the
 * exchange was cancelled: never with undici's own errors, which would reach
 * the user as an internal error.
 */
export interface BodyReader {
  read(): Promise<Uint8Array | null>;
}

/** How long the total timeout runs for a streamed exchange. */
export type StreamTimeout = "body" | "headers";

/**
 * Start an exchange. With `readAll` the total timeout covers the body too.
 * Otherwise the caller reads `body` at its own pace, cancellation still
 * aborting it, and the total timeout runs until the body ended (`"body"`,
 * as reqwest's `timeout` does for `http_stream_*`, so a peer that stalls
 * mid-body cannot block a read forever) or only until the headers arrived
 * (`"headers"`, for event streams that are meant to stay open).
 */
export async function open(ctx: CallContext, spec: RequestSpec, readAll: boolean, streamTimeout: StreamTimeout = "body"): Promise<OpenResponse> {
  const rt = ctx.runtime;
  // Listen before the first await: a cancel that lands while undici loads
  // would otherwise be missed, and the request would run to its timeout.
  const abort = new AbortController();
  let timedOut = false;
  const onCancel = () => abort.abort();
  if (ctx.signal.aborted) throw ctx.signal.reason;
  ctx.signal.addEventListener("abort", onCancel, { once: true });
  const u = await undici(rt).catch((e: unknown) => {
    ctx.signal.removeEventListener("abort", onCancel);
    throw e;
  });
  const timer = spec.totalTimeoutMs > 0 ? setTimeout(() => ((timedOut = true), abort.abort()), spec.totalTimeoutMs) : null;
  // What a failure of the exchange, or of reading its body, reaches the
  // caller as: the task's abort reason, the timeout, or undici's error
  // described (never undici's error itself).
  const failure = (e: unknown, where: string): unknown => {
    if (ctx.signal.aborted) return ctx.signal.reason;
    if (e instanceof TransportError) return e;
    if (timedOut) return new TransportError(`${where}: operation timed out`, true);
    return describe(e, where);
  };
  let url = spec.url;
  let method = spec.method;
  let body = spec.body;
  let sent = spec.headers;
  let streaming = false;
  // The exchange is real work: a virtual clock must not jump past a timeout
  // while the peer is answering (vm clock.ts). Until the headers, and then
  // during each read of a streamed body.
  const endReal = rt.clock.beginReal();
  try {
    for (let redirects = 0; ; redirects++) {
      const target = new URL(url);
      const dispatcher = await dispatcherFor(rt, spec, target);
      // A cancel that landed while undici or the pool was being set up: the
      // task may already have ended and the runtime shut its pools down, so
      // dispatching now would open a connection nothing ever closes (undici
      // connects even for an aborted request, and aborts it only then).
      if (abort.signal.aborted) throw abort.signal.reason;
      const res = await untilAborted(u.request(target, {
        method: method as Dispatcher.HttpMethod,
        headers: requestHeaders(sent, spec.decompress),
        // reqwest sends a body with any method (fetch refused GET/HEAD ones)
        body: body ?? undefined,
        signal: abort.signal,
        dispatcher,
      }), abort.signal);
      const location = headerText(res.headers["location"]);
      if (spec.followRedirects && location !== null && [301, 302, 303, 307, 308].includes(res.statusCode)) {
        await res.body.dump().catch(() => undefined);
        if (redirects >= spec.maxRedirects) throw new TransportError(`error following redirect for url (${target.href})`, false);
        const next = new URL(location, target);
        url = next.href;
        // as reqwest: credentials never follow a redirect to another host
        // or port, and a body's headers go when the body does
        if (next.host !== target.host) sent = sent.filter(([k]) => !CREDENTIAL_HEADERS.has(k.toLowerCase()));
        if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method !== "GET" && method !== "HEAD")) {
          method = "GET";
          body = null;
          sent = sent.filter(([k]) => !BODY_HEADERS.has(k.toLowerCase()));
        }
        continue;
      }
      const headers = new Map<string, Value>();
      for (const [k, v] of Object.entries(res.headers)) {
        const text = k.toLowerCase() === "set-cookie" && Array.isArray(v) ? (v.at(-1) ?? null) : headerText(v);
        if (text !== null) headers.set(k.toLowerCase(), text);
      }
      const stream = decoded(res.body, headers, spec, method, res.statusCode);
      const finish = () => {
        if (timer) clearTimeout(timer);
        ctx.signal.removeEventListener("abort", onCancel);
      };
      const close = () => {
        abort.abort();
        stream.destroy();
        finish();
      };
      const where = `error decoding response body for url (${safeHref(url)})`;
      if (readAll) {
        const chunks: Uint8Array[] = [];
        try {
          for await (const chunk of stream) chunks.push(chunk as Uint8Array);
        } catch (e) {
          // the total timeout reads as the request's, as for a stalled peer
          // before the headers; a corrupt body as a decoding failure
          if (timedOut) throw e;
          throw failure(e, where);
        }
        return { status: res.statusCode, headers: new HDict(headers), body: new Uint8Array(Buffer.concat(chunks)), close };
      }
      streaming = true;
      if (timer && streamTimeout === "headers") clearTimeout(timer);
      const chunks = stream[Symbol.asyncIterator]();
      const read = async (): Promise<Uint8Array | null> => {
        const endRead = rt.clock.beginReal();
        try {
          const chunk = await chunks.next();
          if (chunk.done) finish();
          return chunk.done ? null : new Uint8Array(chunk.value as Buffer);
        } catch (e) {
          finish();
          throw failure(e, where);
        } finally {
          endRead();
        }
      };
      return { status: res.statusCode, headers: new HDict(headers), body: { read }, close };
    }
  } catch (e) {
    throw failure(e, `error sending request for url (${safeHref(url)})`);
  } finally {
    endReal();
    // a streamed body keeps both until it ends or is closed (`finish`)
    if (!streaming) {
      if (timer) clearTimeout(timer);
      ctx.signal.removeEventListener("abort", onCancel);
    }
  }
}

/**
 * The request's headers as reqwest sends them: the caller's, plus an
 * `accept` header taking any type and, while `decompress` is on, the encodings we decode,
 * each only when the caller did not set it. (undici's `request` rather than
 * its `fetch`: fetch adds browser headers such as `sec-fetch-mode` and a
 * `text/plain` content type, and refuses the "bad ports" of the Fetch
 * standard, e.g. 6000, which reqwest connects to like any other.)
 */
function requestHeaders(headers: [string, string][], decompress: boolean): string[] {
  const flat: string[] = [];
  const has = (name: string) => headers.some(([k]) => k.toLowerCase() === name);
  for (const [k, v] of headers) flat.push(k, v);
  if (!has("accept")) flat.push("accept", "*/*");
  if (decompress && !has("accept-encoding") && !has("range")) flat.push("accept-encoding", "gzip, deflate, br");
  return flat;
}

const CREDENTIAL_HEADERS = new Set(["authorization", "cookie", "cookie2", "proxy-authorization", "www-authenticate"]);
const BODY_HEADERS = new Set(["content-type", "content-length", "content-encoding", "transfer-encoding"]);

function headerText(v: string | string[] | undefined): string | null {
  if (v === undefined) return null;
  return Array.isArray(v) ? v.join(", ") : v;
}

/**
 * The body, decompressed when `decompress` is on and the server used an
 * encoding we asked for; like reqwest, the decoded response then no longer
 * reports `content-encoding` and `content-length`.
 */
function decoded(body: Readable, headers: Map<string, Value>, spec: RequestSpec, method: string, status: number): Readable {
  const encoding = String(headers.get("content-encoding") ?? "").trim().toLowerCase();
  const make = DECODERS[encoding];
  if (!spec.decompress || !make || method === "HEAD" || status === 204 || status === 304) return body;
  headers.delete("content-encoding");
  headers.delete("content-length");
  // pipeline: an error on either side (an abort while nobody reads, a
  // corrupt body) destroys both and reaches the reader through the
  // decoder, never as an unhandled 'error' event
  return pipeline(body, make(), () => undefined);
}

const DECODERS: Record<string, () => Transform> = {
  gzip: () => createGunzip(),
  "x-gzip": () => createGunzip(),
  deflate: () => createInflate(),
  br: () => createBrotliDecompress(),
};

/**
 * `request`'s promise, rejected with the abort reason as soon as `signal`
 * aborts. undici only aborts a request once it has a connection, so a
 * proxy that never answers CONNECT would otherwise outlive the timeout;
 * the connection attempt itself ends with the pool at shutdown.
 */
function untilAborted<T extends { body: Readable }>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (res) => {
        signal.removeEventListener("abort", onAbort);
        if (signal.aborted) res.body.destroy();
        else resolve(res);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

function safeHref(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

/** Rust-flavoured detail for a Node network error. */
function describe(e: unknown, where: string): TransportError {
  let cause: unknown = e;
  let code: string | undefined;
  for (let i = 0; i < 4 && cause && typeof cause === "object"; i++) {
    const c = (cause as { code?: unknown }).code;
    if (typeof c === "string") {
      code = c;
      break;
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  switch (code) {
    case "ECONNREFUSED":
      return new TransportError(`${where}: error trying to connect: tcp connect error: Connection refused (os error 111)`, true);
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new TransportError(`${where}: error trying to connect: dns error: failed to lookup address information: Name or service not known`, true);
    case "ETIMEDOUT":
    case "UND_ERR_CONNECT_TIMEOUT":
      return new TransportError(`${where}: error trying to connect: operation timed out`, true);
    case "UND_ERR_HEADERS_TIMEOUT":
    case "UND_ERR_BODY_TIMEOUT":
      return new TransportError(`${where}: operation timed out`, true);
    case "ECONNRESET":
    case "UND_ERR_SOCKET":
      // the peer went away after the connection was made: not a connect
      // or timeout error, so not retried (spec/stdlib.md §19.1)
      return new TransportError(`${where}: connection closed before message completed`, false);
    case "EHOSTUNREACH":
      return new TransportError(`${where}: error trying to connect: tcp connect error: No route to host (os error 113)`, true);
  }
  const msg = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
  return new TransportError(`${where}: ${msg}`, false);
}
