/**
 * One connection to an MCP server (spec/mcp.md §1.2–§1.8), on the official
 * SDK's `Client` with its stdio and Streamable HTTP transports. What this
 * module adds is where the spec asks for other behaviour than the SDK's
 * defaults (§0.2): the child gets the full environment, results are not
 * validated beyond "a JSON object", requests on one connection run one at a
 * time, every failure becomes the spec's Harn error text, server→client
 * requests get the §1.8 answers, and the HTTP client never opens the
 * optional GET stream and reads SSE bodies as §1.5 says.
 *
 * Only this module and serve-transport.ts import the SDK; both load lazily.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { EventSourceParserStream } from "eventsource-parser/stream";
import * as z from "zod/v4";
import { CANCELLED_TEXT, HarnError, type Runtime } from "@harn/vm";
import { HARN_VERSION } from "@harn/vm/version";
import { isJsonObject as isObject, type JsonObject } from "../core/json";
import { runtimeFetch } from "../http/transport";
import { osErrorText } from "../core/oserror";
import type { McpServerSpec } from "./config";
import { unsupportedMethod } from "./unsupported";

/** §1.7: 60 s per request. */
export const REQUEST_TIMEOUT_MS = 60_000;

/** The SDK's own timeout is off (see guarded()); this is its largest. */
const NO_SDK_TIMEOUT = 2 ** 31 - 1;

/** Any JSON object: results are not validated further (§0.2). */
const ANY_RESULT = z.looseObject({});

export interface ConnectOptions {
  /** Per-request timeout (tests shorten it); default 60 s. */
  timeoutMs?: number;
  /** Cancels the handshake (the calling task's signal). */
  signal?: AbortSignal;
}

/** A failure the HTTP body reader found (§1.7 parse errors). */
class HttpBodyError extends Error {}

export class McpConnection {
  /** The tail of the request chain: requests run one at a time (§1.6). */
  private chain: Promise<unknown> = Promise.resolve();
  /** `close()` was called. */
  private closed = false;
  /** The server went away (child exited, stdout closed). */
  private peerClosed = false;
  private readonly unregister: () => void;
  /** Set by handshake(); a new pair after an HTTP session was lost. */
  private client!: Client;
  private transport!: Transport;

  private constructor(
    private readonly spec: McpServerSpec,
    private readonly timeoutMs: number,
    private readonly rt: Runtime,
  ) {
    // Nothing may outlive the script (§1.12 [TS decision]).
    this.unregister = rt.onShutdown(() => this.close());
  }

  get name(): string {
    return this.spec.name;
  }

  /** Spawn or reach the server and run the handshake (§1.2); any failure
   * closes what was opened and is thrown as the spec's error. */
  static async open(rt: Runtime, spec: McpServerSpec, options: ConnectOptions = {}): Promise<McpConnection> {
    const conn = new McpConnection(spec, options.timeoutMs ?? REQUEST_TIMEOUT_MS, rt);
    try {
      await conn.guarded("initialize", options.signal, (signal) => conn.handshake(signal));
    } catch (e) {
      await conn.close();
      if (isSpawnError(e)) throw HarnError.thrown(`mcp_connect: failed to spawn '${spec.command}': ${osErrorText(e)}`);
      throw e;
    }
    return conn;
  }

  /** A fresh SDK client on a fresh transport, through `initialize`. */
  private handshake(signal: AbortSignal): Promise<void> {
    const client = new Client({ name: "harn", version: HARN_VERSION }, { capabilities: {} });
    // §1.8; registering sampling etc. with setRequestHandler would fail,
    // as the capabilities are not declared.
    client.fallbackRequestHandler = async (request) => {
      throw unsupportedMethod(request.method, "client");
    };
    // Unparsable stdout lines and a refused GET stream are reported here by
    // the SDK; neither is fatal (§1.6, §0.2).
    client.onerror = () => undefined;
    client.onclose = () => {
      if (!this.closed && this.client === client) this.peerClosed = true;
    };
    const transport = this.spec.transport === "http" ? httpTransport(this.rt, this.spec) : stdioTransport(this.rt, this.spec);
    adjustOutgoing(transport, this.spec);
    this.client = client;
    this.transport = transport;
    return client.connect(transport, { signal, timeout: NO_SDK_TIMEOUT });
  }

  get connected(): boolean {
    return !this.closed;
  }

  /** Send one request and return its result object. */
  request(method: string, params: JsonObject, signal?: AbortSignal): Promise<JsonObject> {
    const run = () => this.guarded(method, signal, (s) => this.send(method, params, s));
    const p = this.chain.then(run, run);
    this.chain = p.catch(() => undefined);
    return p as Promise<JsonObject>;
  }

  /**
   * One request. An HTTP server that no longer knows our session answers
   * 404: the session is dropped, the handshake run again on a new one, and
   * the request retried once (§1.5).
   */
  private async send(method: string, params: JsonObject, signal: AbortSignal): Promise<JsonObject> {
    const attempt = () => this.client.request({ method, params }, ANY_RESULT, { signal, timeout: NO_SDK_TIMEOUT }) as Promise<JsonObject>;
    try {
      return await attempt();
    } catch (e) {
      const held = this.transport instanceof StreamableHTTPClientTransport && this.transport.sessionId !== undefined;
      if (!(e instanceof StreamableHTTPError && e.code === 404 && held)) throw e;
      await this.client.close().catch(() => undefined);
      await this.handshake(signal);
      return attempt();
    }
  }

  /**
   * Disconnect (§1.12): http forgets the session; stdio ends the child,
   * as the SDK does it: its stdin is closed, and a child still running
   * 2 s later gets SIGTERM, and SIGKILL 2 s after that. Idempotent.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unregister();
    await this.client.close().catch(() => undefined);
  }

  /**
   * Run `op` under the request timeout and the caller's cancellation,
   * turning every failure into the Harn error of §1.7. The SDK's own
   * timeout is disabled: its error looks like a server's `-32001` reply.
   */
  private async guarded<T>(method: string, caller: AbortSignal | undefined, op: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.closed) throw HarnError.runtime("MCP client is disconnected");
    if (this.peerClosed) throw HarnError.runtime("MCP: server closed connection");
    if (caller?.aborted) throw cancelled(caller);
    const ac = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ac.abort();
    }, this.timeoutMs);
    const onAbort = () => ac.abort();
    caller?.addEventListener("abort", onAbort, { once: true });
    try {
      return await op(ac.signal);
    } catch (e) {
      if (timedOut) throw HarnError.runtime(`MCP: server did not respond to '${method}' within ${formatSeconds(this.timeoutMs)}`);
      if (caller?.aborted) throw cancelled(caller);
      if (this.closed) throw HarnError.runtime("MCP client is disconnected");
      throw this.failure(e);
    } finally {
      clearTimeout(timer);
      caller?.removeEventListener("abort", onAbort);
    }
  }

  private failure(e: unknown): unknown {
    if (e instanceof HarnError || isSpawnError(e)) return e;
    if (e instanceof HttpBodyError) return HarnError.runtime(e.message);
    if (e instanceof StreamableHTTPError) return httpStatusError(e);
    if (e instanceof TypeError && this.transport instanceof StreamableHTTPClientTransport) {
      const cause = (e as { cause?: unknown }).cause;
      return HarnError.runtime(`MCP HTTP request error: ${cause instanceof Error ? cause.message : e.message}`);
    }
    if (isWriteError(e)) return HarnError.runtime(`MCP write error: ${(e as Error).message}`);
    // The SDK's own "connection closed" (pending requests when the child
    // exits) has the shape of a server's -32000 reply.
    const sdkClosed = e instanceof McpError && e.code === ErrorCode.ConnectionClosed && this.peerClosed;
    if (sdkClosed || (e instanceof Error && e.message === "Not connected")) return HarnError.runtime("MCP: server closed connection");
    if (e instanceof McpError) {
      const prefix = `MCP error ${e.code}: `;
      const message = e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
      return HarnError.thrown(`MCP error (${e.code}): ${message === "" ? "Unknown MCP error" : message}`);
    }
    if (e instanceof z.ZodError) return HarnError.runtime("MCP: the server's result is not a JSON object");
    return HarnError.runtime(`MCP: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function cancelled(signal: AbortSignal): unknown {
  return signal.reason instanceof HarnError ? signal.reason : HarnError.thrown(CANCELLED_TEXT);
}

function formatSeconds(ms: number): string {
  return `${Number.isInteger(ms / 1000) ? ms / 1000 : (ms / 1000).toFixed(1)}s`;
}

function isSpawnError(e: unknown): boolean {
  const syscall = (e as { syscall?: unknown } | null)?.syscall;
  return typeof syscall === "string" && syscall.startsWith("spawn");
}

function isWriteError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === "EPIPE" || code === "ERR_STREAM_DESTROYED" || code === "ERR_STREAM_WRITE_AFTER_END";
}

/** An HTTP error status (§1.5, §1.7): 401 is the auth error; a JSON-RPC
 * error in the body is the server's error; anything else a request error. */
function httpStatusError(e: StreamableHTTPError): HarnError {
  if (e.code === 401) return HarnError.thrown("MCP authorization required");
  const body = e.message.replace(/^Streamable HTTP error: /, "").replace(/^Error POSTing to endpoint: /, "");
  try {
    const parsed: unknown = JSON.parse(body);
    const err = isObject(parsed) ? parsed.error : undefined;
    if (isObject(err)) {
      const code = typeof err.code === "number" ? err.code : -1;
      const message = typeof err.message === "string" ? err.message : "Unknown MCP error";
      return HarnError.thrown(`MCP error (${code}): ${message}`);
    }
  } catch {
    // not JSON
  }
  return HarnError.runtime(`MCP HTTP request error: HTTP ${e.code}${body === "" ? "" : `: ${body}`}`);
}

function stdioTransport(rt: Runtime, spec: McpServerSpec): StdioClientTransport {
  // The full environment (the SDK passes only a few "safe" variables).
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(rt.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, spec.env);
  return new StdioClientTransport({
    command: spec.command,
    args: spec.args,
    env,
    stderr: "inherit",
    ...(spec.cwd !== null ? { cwd: spec.cwd } : { cwd: rt.cwd }),
  });
}

function httpTransport(rt: Runtime, spec: McpServerSpec): StreamableHTTPClientTransport {
  let url: URL;
  try {
    url = new URL(spec.url);
  } catch {
    throw HarnError.runtime(`Invalid MCP server config: \`url\` '${spec.url}' of '${spec.name}' is not a URL`);
  }
  const headers: Record<string, string> = { ...spec.headers, "mcp-protocol-version": spec.protocolVersion };
  if (spec.authToken !== null) headers.authorization = `Bearer ${spec.authToken}`;
  const base = runtimeFetch(rt) ?? fetch;
  return new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch: (input, init) => postOnly(base, input, init) });
}

/**
 * The HTTP exchange under the SDK's transport. A GET (the optional stream
 * for server-initiated messages) is answered 405 without asking the
 * server, which the SDK takes as "no stream" (§0.1). A successful POST
 * body is read whole: an SSE body yields its last JSON-RPC message (§1.5),
 * and a body that is neither is the parse error of §1.7.
 */
async function postOnly(base: typeof fetch, input: string | URL | Request, init?: RequestInit): Promise<Response> {
  if ((init?.method ?? "GET").toUpperCase() === "GET") return new Response(null, { status: 405 });
  const res = await base(input, init);
  if (!res.ok || res.status === 202 || res.body === null) return res;
  const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  headers.delete("content-encoding");
  headers.set("content-type", "application/json");
  if (type === "text/event-stream") {
    const message = await lastSseMessage(res.body);
    if (message === null) throw new HttpBodyError("MCP HTTP response parse error: no JSON-RPC payload found in SSE stream");
    return new Response(message, { status: res.status, headers });
  }
  const text = await res.text();
  if (text.trim() === "") return new Response(null, { status: 202, headers: res.headers });
  try {
    JSON.parse(text);
  } catch (e) {
    throw new HttpBodyError(`MCP HTTP response parse error (status ${res.status}): ${(e as Error).message}`);
  }
  return new Response(text, { status: res.status, headers });
}

/** The data of the last SSE event that is a JSON-RPC message. */
async function lastSseMessage(body: ReadableStream<Uint8Array>): Promise<string | null> {
  const reader = body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  let last: string | null = null;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return last;
    try {
      const m: unknown = JSON.parse(value.data);
      if (isObject(m) && ("result" in m || "error" in m || "method" in m)) last = value.data;
    } catch {
      // not a JSON-RPC event
    }
  }
}

/**
 * What the SDK sends, adjusted: `notifications/initialized` carries params
 * `{}` (§1.2), and with `proxy_server_name` every body names the server.
 */
function adjustOutgoing(transport: Transport, spec: McpServerSpec): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    let m: JSONRPCMessage = message;
    if ("method" in m && m.method === "notifications/initialized" && m.params === undefined) m = { ...m, params: {} };
    if (spec.proxyServerName !== null) m = { ...m, serverName: spec.proxyServerName } as unknown as JSONRPCMessage;
    return send(m, options);
  };
}
