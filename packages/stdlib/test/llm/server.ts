/**
 * A real HTTP server on 127.0.0.1 (port 0) for provider tests: records
 * every request, counts open sockets (to prove aborted streams are closed)
 * and writes bodies in deliberately small, separately flushed pieces.
 */

import http from "node:http";
import type { Socket } from "node:net";

export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** The body as sent. */
  text: string;
  /** Client port of the connection (same port = reused connection). */
  remotePort: number;
  /** Resolves when the connection that carried this request closes. */
  socketClosed: Promise<void>;
}

export type Handler = (req: SeenRequest, res: http.ServerResponse, index: number) => unknown;

export interface TestServer {
  url: string;
  requests: SeenRequest[];
  /** Sockets currently open. */
  openSockets(): number;
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const closed = new WeakMap<Socket, Promise<void>>();
  const server = http.createServer((req, res) => {
    const socket = req.socket;
    const socketClosed = closed.get(socket) ?? Promise.resolve();
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // keep the text
      }
      const seen = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body,
        text,
        remotePort: socket.remotePort ?? 0,
        socketClosed,
      };
      requests.push(seen);
      Promise.resolve(handler(seen, res, requests.length - 1)).catch((e) => {
        if (!res.headersSent) res.writeHead(599);
        res.end(String(e));
      });
    });
  });
  server.on("connection", (s: Socket) => {
    s.setNoDelay(true);
    sockets.add(s);
    closed.set(s, new Promise<void>((r) => s.once("close", () => r())));
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    openSockets: () => sockets.size,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Write `text` as UTF-8 in pieces of `pieceBytes` bytes (cutting through
 * multi-byte characters and frame boundaries alike), pausing between
 * pieces so they reach the client as separate chunks.
 */
export async function writePieces(res: http.ServerResponse, text: string, pieceBytes: number, gapMs = 1): Promise<void> {
  const bytes = Buffer.from(text, "utf8");
  for (let i = 0; i < bytes.length; i += pieceBytes) {
    if (res.destroyed) return;
    res.write(bytes.subarray(i, i + pieceBytes));
    if (gapMs > 0) await sleep(gapMs);
  }
}

export interface StreamReply {
  contentType: string;
  body: string;
}

/** Send a streaming reply, whole or in pieces, then end it. */
export async function sendStream(
  res: http.ServerResponse,
  reply: StreamReply,
  opts: { pieceBytes?: number; headers?: Record<string, string> } = {},
): Promise<void> {
  res.writeHead(200, { "content-type": reply.contentType, "cache-control": "no-cache", ...opts.headers });
  if (opts.pieceBytes) await writePieces(res, reply.body, opts.pieceBytes);
  else res.write(reply.body);
  res.end();
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}
