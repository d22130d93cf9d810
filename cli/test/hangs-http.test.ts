/**
 * HTTP peers that misbehave must not hang `harn` (spec/stdlib.md §19): a
 * server that accepts and never answers, one that sends headers and stalls
 * the body, one that drops the connection mid-body, a proxy that never
 * answers CONNECT, an event stream that goes quiet. For each: the script
 * gets the documented result or a catchable `http: request failed: …`,
 * harn exits once the script ends, and Ctrl-C during the wait ends it with
 * 130 (extensions.md §3.3) and no internal error. Run through the built
 * CLI: the bundle is what users run (a broken undici import once passed
 * every source-level test).
 *
 * Before the fixes in http/transport.ts, `http_stream_read` on a stalled
 * body waited forever despite `timeout_ms`, a body dropped mid-way was an
 * uncatchable "internal error: terminated", Ctrl-C during a read printed
 * "internal error: This operation was aborted", and `sse_connect` to a
 * server that never answered had no timeout at all, nor did the opening
 * handshake of `websocket_connect` (it now takes `timeout_ms`, default 30 s
 * like HTTP requests: http/streams.ts handshakeTimeout).
 */
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli, eventually, harn, interrupt, runToEnd, workDir } from "./hang-harness";
import { onUpgradeRequest } from "../../packages/stdlib/test/http/websocket-peer";

type Peer = (socket: Socket) => void;

/** Accepts, reads the request, never answers. */
const silent: Peer = (s) => s.on("data", () => undefined);
/** Promises 100 bytes, sends 3, then stalls. */
const stallBody: Peer = (s) => s.once("data", () => s.write("HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nabc"));
/** Promises 100 bytes, sends 3, then drops the connection. */
const dropBody: Peer = (s) =>
  s.once("data", () => {
    s.write("HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nabc");
    setTimeout(() => s.destroy(), 50);
  });
/** An event stream: one event, then silence with the connection open. */
const quietEvents: Peer = (s) =>
  s.once("data", () => s.write("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\nd\r\ndata: hello\n\n\r\n"));

/** Completes the WebSocket opening handshake, then never says a word. */
const mute: Peer = (s) => onUpgradeRequest(s, () => s.on("data", () => undefined));

/** Promises 3 bytes and sends them when the test says so (`release`). */
const held: Socket[] = [];
const lateBody: Peer = (s) =>
  s.once("data", () => {
    s.write("HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\n");
    held.push(s);
  });

const servers: Server[] = [];
const sockets = new Set<Socket>();
const urls: Record<string, string> = {};
let work: ReturnType<typeof workDir>;

beforeAll(async () => {
  buildCli();
  work = workDir("harn-hangs-http-");
  for (const [name, peer] of Object.entries({ silent, stallBody, dropBody, quietEvents, mute, lateBody })) {
    const server = createServer((s) => {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => undefined);
      peer(s);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    servers.push(server);
    urls[name] = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  }
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(servers.map((server) => new Promise<void>((r) => server.close(() => r()))));
  work.dispose();
});

const timedOut = (url: string, what = "error sending request") => `http: request failed: ${what} for url (${url}): operation timed out`;

describe("a server that never answers", () => {
  it("http_get fails with the timeout", async () => {
    const r = await runToEnd(work.dir, `println(try { http_get("${urls.silent}", {timeout_ms: 300}) })\nprintln("end")\n`);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`Result.Err(${timedOut(urls.silent!)})\nend\n`);
    expect(r.code).toBe(0);
  });

  it("a proxy that never answers CONNECT fails with the timeout", async () => {
    const r = await runToEnd(work.dir, `println(try { http_get("https://example.invalid/x", {timeout_ms: 300, proxy: "${urls.silent}"}) })\n`);
    expect(r.stdout).toBe(`Result.Err(${timedOut("https://example.invalid/x")})\n`);
    expect(r.code).toBe(0);
  });

  it("sse_connect fails with the timeout instead of waiting forever", async () => {
    const r = await runToEnd(work.dir, `println(try { sse_connect("GET", "${urls.silent}", {timeout_ms: 300}) })\n`);
    expect(r.stdout).toBe(`Result.Err(${timedOut(urls.silent!)})\n`);
    expect(r.code).toBe(0);
  });

  it("Ctrl-C during http_get (default 30 s timeout) ends harn with 130", async () => {
    const run = harn(work.dir, `defer { println("defer ran") }\nprintln("waiting")\nhttp_get("${urls.silent}")\nprintln("not reached")\n`);
    const { code } = await interrupt(run, () => run.stdout().includes("waiting"), "the request");
    expect(code).toBe(130);
    expect(run.stdout()).toBe("waiting\ndefer ran\n");
    expect(run.stderr()).not.toContain("internal error");
  });
});

describe("a server that sends headers and stalls the body", () => {
  it("http_get fails with the timeout", async () => {
    const r = await runToEnd(work.dir, `println(try { http_get("${urls.stallBody}", {timeout_ms: 300}) })\n`);
    expect(r.stdout).toBe(`Result.Err(${timedOut(urls.stallBody!)})\n`);
    expect(r.code).toBe(0);
  });

  it("http_download fails with the timeout", async () => {
    const r = await runToEnd(work.dir, `println(try { http_download("${urls.stallBody}", "dl.bin", {timeout_ms: 300}) })\n`);
    expect(r.stdout).toBe(`Result.Err(${timedOut(urls.stallBody!)})\n`);
    expect(r.code).toBe(0);
  });

  it("http_stream_read gets what arrived, then the timeout (it covers the body)", async () => {
    const r = await runToEnd(
      work.dir,
      `let h = http_stream_open("${urls.stallBody}", {timeout_ms: 500})\nprintln(http_stream_read(h))\nprintln(try { http_stream_read(h) })\nprintln("end")\n`,
    );
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`b"616263"\nResult.Err(${timedOut(urls.stallBody!, "error decoding response body")})\nend\n`);
    expect(r.code).toBe(0);
  });

  it("Ctrl-C during http_stream_read ends harn with 130 and no internal error", async () => {
    const run = harn(
      work.dir,
      `let h = http_stream_open("${urls.stallBody}")\nprintln(http_stream_read(h))\ndefer { println("defer ran") }\nhttp_stream_read(h)\nprintln("not reached")\n`,
    );
    const { code } = await interrupt(run, () => run.stdout().includes("616263"), "the first read");
    expect(code).toBe(130);
    expect(run.stdout()).toBe(`b"616263"\ndefer ran\n`);
    expect(run.stderr()).toBe("[harn] signal received, flushing state...\n");
  });

  it("a script that ends with the stream open exits", async () => {
    const r = await runToEnd(work.dir, `let h = http_stream_open("${urls.stallBody}")\nprintln(http_stream_read(h))\n`);
    expect(r.stdout).toBe(`b"616263"\n`);
    expect(r.code).toBe(0);
  });
});

describe("a read whose task was cancelled", () => {
  it("does not swallow the chunk: the next read gets it", async () => {
    const run = harn(
      work.dir,
      `let h = http_stream_open("${urls.lateBody}")
let t = spawn { http_stream_read(h) }
sleep(50)
cancel(t)
println("cancelled")
println(http_stream_read(h))
println(http_stream_read(h))
`,
    );
    await eventually(() => run.stdout().includes("cancelled"), "the cancel");
    held.shift()!.write("abc");
    expect(await run.exit).toEqual({ code: 0, signal: null });
    expect(run.stdout()).toBe(`cancelled\nb"616263"\nnil\n`);
  });
});

describe("a server that drops the connection mid-body", () => {
  it("http_stream_read fails with a catchable error", async () => {
    const r = await runToEnd(
      work.dir,
      `let h = http_stream_open("${urls.dropBody}")\nprintln(http_stream_read(h))\nprintln(try { http_stream_read(h) })\nprintln("end")\n`,
    );
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      `b"616263"\nResult.Err(http: request failed: error decoding response body for url (${urls.dropBody}): connection closed before message completed)\nend\n`,
    );
    expect(r.code).toBe(0);
  });

  it("http_get fails with a catchable error", async () => {
    const r = await runToEnd(work.dir, `println(try { http_get("${urls.dropBody}") })\n`);
    expect(r.stdout).toMatch(/^Result\.Err\(http: request failed: .*\)\n$/);
    expect(r.code).toBe(0);
  });
});

describe("an event stream that goes quiet", () => {
  it("sse_receive returns the timeout, and harn exits with the stream open", async () => {
    const r = await runToEnd(
      work.dir,
      `let h = sse_connect("GET", "${urls.quietEvents}")\nprintln(sse_receive(h, 2000))\nprintln(sse_receive(h, 2000).data)\nprintln(sse_receive(h, 100))\n`,
    );
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("{status: 200, type: open}\nhello\n{type: timeout}\n");
    expect(r.code).toBe(0);
  });

  it("Ctrl-C during sse_receive without a timeout ends harn with 130", async () => {
    const run = harn(work.dir, `let h = sse_connect("GET", "${urls.quietEvents}")\nprintln(sse_receive(h).type)\nprintln(sse_receive(h).data)\nsse_receive(h)\nprintln("not reached")\n`);
    const { code } = await interrupt(run, () => run.stdout().includes("hello"), "the first event");
    expect(code).toBe(130);
    expect(run.stdout()).toBe("open\nhello\n");
    expect(run.stderr()).toBe("[harn] signal received, flushing state...\n");
  });
});

describe("a WebSocket server that never answers", () => {
  const ws = (url: string) => url.replace(/^http/, "ws");

  it("websocket_connect fails with the timeout when the handshake is never answered", async () => {
    const r = await runToEnd(work.dir, `println(try { websocket_connect("${ws(urls.silent!)}", {timeout_ms: 300}) })\nprintln("end")\n`);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`Result.Err(websocket_connect: failed to connect to ${ws(urls.silent!)}: operation timed out)\nend\n`);
    expect(r.code).toBe(0);
  });

  it("Ctrl-C during websocket_connect ends harn with 130", async () => {
    const run = harn(work.dir, `println("waiting")\nwebsocket_connect("${ws(urls.silent!)}")\nprintln("not reached")\n`);
    const { code } = await interrupt(run, () => run.stdout().includes("waiting"), "the connect");
    expect(code).toBe(130);
    expect(run.stderr()).toBe("[harn] signal received, flushing state...\n");
  });

  it("websocket_receive returns the timeout from a mute server; Ctrl-C during a wait without one ends harn", async () => {
    const r = await runToEnd(work.dir, `let h = websocket_connect("${ws(urls.mute!)}")\nprintln(websocket_receive(h, 100))\n`);
    expect(r.stdout).toBe("{type: timeout}\n");
    expect(r.code).toBe(0);
    const run = harn(work.dir, `let h = websocket_connect("${ws(urls.mute!)}")\nprintln("connected")\nwebsocket_receive(h, 600000)\nprintln("not reached")\n`);
    const { code } = await interrupt(run, () => run.stdout().includes("connected"), "the connection");
    expect(code).toBe(130);
    expect(run.stdout()).toBe("connected\n");
  });
});
