/**
 * Serving a script's registrations over MCP (spec/mcp.md §4.2, §4.6) with
 * the SDK's low-level `Server`: the SDK does the JSON-RPC framing and the
 * stdio and Streamable HTTP transports (sessions included); every request
 * goes to the script server (serve.ts), which answers `initialize` with
 * revision 2025-11-25 whatever the client asked and uses Harn's texts for
 * unknown and unsupported methods. `@harn/stdlib/mcp-serve`, loaded by
 * `harn serve mcp` only.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { PassThrough } from "node:stream";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { HARN_VERSION } from "@harn/vm/version";
import type { JsonObject } from "../core/json";
import type { RequestExtra, Served } from "./serve";
import { taskAugmentation } from "./unsupported";

export { scriptServer, ScriptServer, ServeSetupError, matchTemplate } from "./serve";
export { exportServer, exportedFns } from "./export";

/** The SDK server of one session, with every request routed to `served`. */
class HarnServer extends Server {
  constructor(served: Served) {
    super({ name: served.name, version: HARN_VERSION }, { capabilities: {} });
    // The SDK's own `initialize` negotiates versions and `ping` is ours too.
    this.removeRequestHandler("initialize");
    this.removeRequestHandler("ping");
    const handle = served.session();
    this.fallbackRequestHandler = (request, extra) => handle(request.method, (request.params ?? {}) as JsonObject, extra as unknown as RequestExtra);
    this.onerror = () => undefined;
  }

  /** A task-augmented `tools/call` gets the §4.5 error (the SDK checks
   * task support before any handler runs). */
  protected override assertTaskHandlerCapability(method: string): void {
    if (method === "tools/call") throw taskAugmentation();
  }
}

/** Serve on this process's stdin/stdout until stdin ends (answering what
 * was already asked) or `stop` aborts. */
export async function serveStdio(script: Served, stop: AbortSignal): Promise<void> {
  const server = new HarnServer(script);
  await server.connect(new StdioServerTransport(script.answersParseErrors ? answeringParseErrors() : process.stdin));
  await new Promise<void>((resolve) => {
    if (stop.aborted) return resolve();
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
    stop.addEventListener("abort", () => resolve(), { once: true });
  });
  if (!stop.aborted) await script.idle();
  await server.close();
}

/**
 * Stdin as the SDK's transport should see it in export mode (§4.7): a line
 * that is not JSON is answered with a -32700 error here, and blank lines
 * are skipped; every other line goes on to the SDK, which frames, checks
 * and routes it. (The SDK itself drops what it cannot parse, which is
 * script mode's behaviour.)
 */
function answeringParseErrors(): PassThrough {
  const lines = new PassThrough();
  let pending = "";
  const take = (line: string) => {
    const text = line.replace(/\r$/, "");
    if (text.trim() === "") return;
    try {
      JSON.parse(text);
    } catch (e) {
      const error = { code: -32700, message: `Parse error: ${(e as Error).message}` };
      process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: null, error })}\n`);
      return;
    }
    lines.write(`${text}\n`);
  };
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk: string) => {
    const parts = (pending + chunk).split("\n");
    pending = parts.pop()!;
    for (const line of parts) take(line);
  });
  process.stdin.once("end", () => {
    take(pending);
    lines.end();
  });
  return lines;
}

export interface HttpOptions {
  /** `host:port` (port 0: any free port). */
  bind: string;
  path: string;
  /** Accepted API keys; empty: no authentication. */
  apiKeys: string[];
  /** Told the address actually listened on. */
  ready: (url: string) => void;
}

/** Streamable HTTP (§4.6): one SDK transport and server per session,
 * until `stop` aborts. */
export async function serveHttp(script: Served, options: HttpOptions, stop: AbortSignal): Promise<void> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((req, res) => {
    route(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== options.path) return reply(res, 404, null);
    if (options.apiKeys.length > 0 && !authorized(req, options.apiKeys)) {
      return reply(res, 401, { jsonrpc: "2.0", error: { code: -32001, message: "unauthorized: missing or invalid API key" }, id: null });
    }
    const sid = req.headers["mcp-session-id"];
    if (typeof sid === "string") {
      const known = sessions.get(sid);
      if (!known) return reply(res, 404, { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null });
      return known.handleRequest(req, res);
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await new HarnServer(script).connect(transport);
    await transport.handleRequest(req, res);
  };
  const { host, port } = parseBind(options.bind);
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, host, () => resolve());
  });
  const address = http.address();
  const actual = typeof address === "object" && address !== null ? address.port : port;
  options.ready(`http://${host.includes(":") ? `[${host}]` : host}:${actual}${options.path}`);
  await new Promise<void>((resolve) => {
    if (stop.aborted) return resolve();
    stop.addEventListener("abort", () => resolve(), { once: true });
  });
  await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
}

function reply(res: ServerResponse, status: number, body: JsonObject | null): void {
  if (body === null) {
    res.writeHead(status).end();
    return;
  }
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** `Authorization: Bearer K` or `X-API-Key: K` with an accepted key. */
function authorized(req: IncomingMessage, keys: string[]): boolean {
  const auth = req.headers.authorization;
  const bearer = typeof auth === "string" && /^Bearer\s+/i.test(auth) ? auth.replace(/^Bearer\s+/i, "").trim() : null;
  const header = req.headers["x-api-key"];
  const key = typeof header === "string" ? header.trim() : null;
  return keys.some((k) => k === bearer || k === key);
}

/** `host:port`, `[v6]:port` or a bare port. */
export function parseBind(bind: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(bind) ?? /^()()(\d+)$/.exec(bind);
  if (!m) throw new Error(`invalid --bind address '${bind}' (expected HOST:PORT)`);
  const host = m[1] ?? (m[2] === "" || m[2] === undefined ? "127.0.0.1" : m[2]);
  return { host, port: Number(m[3]) };
}
