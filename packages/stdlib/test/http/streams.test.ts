import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { display, HDict, HDuration, type Value } from "@harn/vm";
import { raised, rig, settle } from "../core/harness";
import { acceptHandshake, frame } from "./websocket-peer";

function setup() {
  const r = rig();
  return r;
}
const d = (o: Record<string, Value>) => HDict.of(o);
const show = (v: Value) => display(v);

describe("sse mocks", () => {
  it("replays open, events, then nil", async () => {
    const r = setup();
    r.call("sse_mock", "https://events.test/*", ["hello", d({ event: "update", data: "x", id: "7", retry: 500 })]);
    const h = (await settle(r.callP("sse_connect", "GET", "https://events.test/stream"))) as string;
    expect(h).toBe("sse-1");
    expect(show(await settle(r.callP("sse_receive", h)))).toBe("{type: open}");
    expect(show(await settle(r.callP("sse_receive", h)))).toBe("{data: hello, event: message, id: nil, retry_ms: nil, type: event}");
    expect(show(await settle(r.callP("sse_receive", h)))).toBe("{data: x, event: update, id: 7, retry_ms: 500, type: event}");
    expect(await settle(r.callP("sse_receive", h))).toBeNull();
    expect(r.call("sse_close", h)).toBe(true);
    expect(show(r.call("transport_mock_calls"))).toBe(
      "[{action: connect, method: GET, transport: sse, url: https://events.test/stream}, {action: close, transport: sse, url: https://events.test/stream}]",
    );
    r.call("transport_mock_clear");
    expect(r.call("transport_mock_calls")).toEqual([]);
  });
  it("formats frames", () => {
    const r = setup();
    expect(r.call("sse_event", "update", d({ data: "a\nb", id: 3 }))).toBe("event: update\nid: 3\ndata: a\ndata: b\n\n");
    expect(r.call("sse_event", d({ data: "x" }))).toBe("data: x\n\n");
  });
});

describe("websocket mocks", () => {
  it("plays scripted messages then closes", async () => {
    const r = setup();
    r.call("websocket_mock", "wss://ws.test/*", ["hi", d({ type: "text", data: "there" })]);
    const h = (await settle(r.callP("websocket_connect", "wss://ws.test/chat"))) as string;
    expect(show(await settle(r.callP("websocket_receive", h)))).toBe("{data: hi, type: text}");
    expect(show(await settle(r.callP("websocket_receive", h)))).toBe("{data: there, type: text}");
    expect(show(await settle(r.callP("websocket_receive", h)))).toBe("{code: 1000, reason: , type: close}");
  });
  it("echoes sends and times out when idle", async () => {
    const r = setup();
    r.call("websocket_mock", "wss://echo.test", d({ echo: true }));
    const h = (await settle(r.callP("websocket_connect", "wss://echo.test"))) as string;
    expect(r.call("websocket_send", h, "ping")).toBe(true);
    expect(show(await settle(r.callP("websocket_receive", h, 10)))).toBe("{data: ping, type: text}");
    expect(show(await settle(r.callP("websocket_receive", h, 10)))).toBe("{type: timeout}");
    // a duration is a timeout too (it used to fall back to the 30 s default,
    // past this test's time limit)
    expect(show(await settle(r.callP("websocket_receive", h, new HDuration(10))))).toBe("{type: timeout}");
    expect(show(r.call("transport_mock_calls"))).toContain("{action: send, data: ping, transport: websocket, url: wss://echo.test}");
    expect(r.call("websocket_close", h)).toBe(true);
  });
  it("rejects non-ws URLs and unknown handles", async () => {
    const r = setup();
    expect((await raised(() => r.callP("websocket_connect", "https://x"))).caughtValue()).toBe(
      "websocket_connect: URL must start with ws:// or wss://, got 'https://x'",
    );
    expect((await raised(() => r.callP("websocket_receive", "ws-99"))).caughtValue()).toBe("websocket_receive: unknown handle 'ws-99'");
  });
});

/** The smallest WebSocket server that can echo short text frames; on
 * `/big` it then sends a 200-byte one. */
function acceptWebSocket(socket: Socket, key: string, path: string): void {
  acceptHandshake(socket, key);
  socket.write(frame(1, Buffer.from("welcome")));
  if (path === "/big") socket.write(frame(1, Buffer.alloc(200, "x")));
  socket.on("data", (buf: Buffer) => {
    const opcode = buf[0]! & 0x0f;
    const len = buf[1]! & 0x7f;
    const mask = buf.subarray(2, 6);
    const payload = Buffer.from(buf.subarray(6, 6 + len).map((b, i) => b ^ mask[i % 4]!));
    if (opcode === 8) {
      socket.end(frame(8, payload));
      return;
    }
    socket.write(frame(1, Buffer.from("echo:" + payload.toString())));
  });
}

describe("against real servers", () => {
  let server: Server;
  let port = 0;
  const wsSockets: Socket[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      if (req.url === "/big") {
        res.end(`data: small\n\ndata: ${"x".repeat(150)}\ndata: ${"y".repeat(150)}\n\ndata: after\n\n`);
        return;
      }
      if (req.url === "/endless") {
        // one line that never ends: the client must stop without it
        res.write("data: ");
        const more = () => {
          if (!res.destroyed && res.write("z".repeat(1024))) setImmediate(more);
        };
        more();
        return;
      }
      res.write("retry: 250\n\n");
      res.write("event: greet\ndata: hello\nid: 1\n\n");
      setTimeout(() => res.end("data: bye\n\n"), 30);
    });
    server.on("upgrade", (req, socket) => {
      wsSockets.push(socket as Socket);
      acceptWebSocket(socket as Socket, String(req.headers["sec-websocket-key"]), req.url ?? "/");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("reads server-sent events until the stream ends", async () => {
    const r = setup();
    const h = (await settle(r.callP("sse_connect", "GET", `http://127.0.0.1:${port}/events`))) as string;
    const seen: string[] = [];
    for (;;) {
      const m = await settle(r.callP("sse_receive", h, 2000));
      if (m === null) break;
      seen.push(show(m));
    }
    expect(seen).toEqual([
      "{status: 200, type: open}",
      "{data: hello, event: greet, id: 1, retry_ms: 250, type: event}",
      "{data: bye, event: message, id: nil, retry_ms: 250, type: event}",
    ]);
    await r.rt.shutdown();
  });

  it("talks to a WebSocket server", async () => {
    const r = setup();
    const h = (await settle(r.callP("websocket_connect", `ws://127.0.0.1:${port}/`))) as string;
    expect(show(await settle(r.callP("websocket_receive", h, 2000)))).toBe("{data: welcome, type: text}");
    r.call("websocket_send", h, "ping");
    expect(show(await settle(r.callP("websocket_receive", h, 2000)))).toBe("{data: echo:ping, type: text}");
    expect(r.call("websocket_close", h)).toBe(true);
    await r.rt.shutdown();
  });

  it("ends a WebSocket at a message over max_message_bytes", async () => {
    const r = setup();
    const h = (await settle(r.callP("websocket_connect", `ws://127.0.0.1:${port}/big`, d({ max_message_bytes: 100 })))) as string;
    const socket = wsSockets.at(-1)!;
    const closed = new Promise((resolve) => socket.once("close", resolve));
    expect(show(await settle(r.callP("websocket_receive", h, 2000)))).toBe("{data: welcome, type: text}");
    const e = await raised(() => r.callP("websocket_receive", h, 2000));
    expect([e.kind, e.message]).toEqual(["runtime", "websocket_receive: message exceeded max_message_bytes (100)"]);
    expect(await settle(r.callP("websocket_receive", h, 2000))).toBeNull();
    await closed; // the connection is gone, not just ignored
    expect((await raised(() => r.callP("websocket_send", h, "x".repeat(101)))).message).toBe("websocket_send: message exceeded max_message_bytes (100)");
    await r.rt.shutdown();
  });

  it("ends an event stream at an event over max_message_bytes", async () => {
    const r = setup();
    const h = (await settle(r.callP("sse_connect", "GET", `http://127.0.0.1:${port}/big`, d({ max_message_bytes: 200 })))) as string;
    expect(show(await settle(r.callP("sse_receive", h, 2000)))).toBe("{status: 200, type: open}");
    expect(show(await settle(r.callP("sse_receive", h, 2000)))).toBe("{data: small, event: message, id: nil, retry_ms: nil, type: event}");
    const e = await raised(() => r.callP("sse_receive", h, 2000));
    expect([e.kind, e.message]).toEqual(["runtime", "sse_receive: message exceeded max_message_bytes (200)"]);
    expect(await settle(r.callP("sse_receive", h, 2000))).toBeNull();
    await r.rt.shutdown();
  });

  it("stops reading an event line that outgrows max_message_bytes", async () => {
    const r = setup();
    const h = (await settle(r.callP("sse_connect", "GET", `http://127.0.0.1:${port}/endless`, d({ max_message_bytes: 4096 })))) as string;
    expect(show(await settle(r.callP("sse_receive", h, 2000)))).toBe("{status: 200, type: open}");
    const e = await raised(() => r.callP("sse_receive", h, 5000));
    expect(e.message).toBe("sse_receive: message exceeded max_message_bytes (4096)");
    expect(await settle(r.callP("sse_receive", h, 2000))).toBeNull();
    await r.rt.shutdown();
  });
});

describe("max_message_bytes on mocks", () => {
  it("raises at the oversized message, closes, then answers nil", async () => {
    const r = setup();
    r.call("websocket_mock", "wss://ws.test/*", ["short", "x".repeat(11), "never"]);
    const h = (await settle(r.callP("websocket_connect", "wss://ws.test/a", d({ max_message_bytes: 10 })))) as string;
    expect(show(await settle(r.callP("websocket_receive", h)))).toBe("{data: short, type: text}");
    const e = await raised(() => r.callP("websocket_receive", h));
    expect([e.kind, e.message]).toEqual(["runtime", "websocket_receive: message exceeded max_message_bytes (10)"]);
    expect(await settle(r.callP("websocket_receive", h))).toBeNull();
    // a message of exactly the limit passes; bytes count, not characters
    r.call("websocket_mock", "wss://ws.test/*", ["x".repeat(10)]);
    const h3 = (await settle(r.callP("websocket_connect", "wss://ws.test/c", d({ max_message_bytes: 10 })))) as string;
    expect(show(await settle(r.callP("websocket_receive", h3)))).toBe("{data: xxxxxxxxxx, type: text}");
    r.call("websocket_mock", "wss://ws.test/*", ["ééééé!"]);
    const h4 = (await settle(r.callP("websocket_connect", "wss://ws.test/d", d({ max_message_bytes: 10 })))) as string;
    expect((await raised(() => r.callP("websocket_receive", h4))).message).toBe("websocket_receive: message exceeded max_message_bytes (10)");
  });

  it("refuses oversized sends; the default is 1 MiB and the minimum 1", async () => {
    const r = setup();
    r.call("websocket_mock", "wss://echo.test", d({ echo: true }));
    const small = (await settle(r.callP("websocket_connect", "wss://echo.test", d({ max_message_bytes: 4 })))) as string;
    expect((await raised(() => r.call("websocket_send", small, "hello"))).message).toBe("websocket_send: message exceeded max_message_bytes (4)");
    expect(r.call("websocket_send", small, "hell")).toBe(true);
    const dflt = (await settle(r.callP("websocket_connect", "wss://echo.test"))) as string;
    expect(r.call("websocket_send", dflt, "x".repeat(1024 * 1024))).toBe(true);
    expect((await raised(() => r.call("websocket_send", dflt, "x".repeat(1024 * 1024 + 1)))).message).toBe(
      "websocket_send: message exceeded max_message_bytes (1048576)",
    );
    const one = (await settle(r.callP("websocket_connect", "wss://echo.test", d({ max_message_bytes: 0 })))) as string;
    expect((await raised(() => r.call("websocket_send", one, "ab"))).message).toBe("websocket_send: message exceeded max_message_bytes (1)");
    // refused sends are not recorded
    const sends = (r.call("transport_mock_calls") as Value[]).filter((c) => (c as HDict).get("action") === "send");
    expect(sends.map((c) => ((c as HDict).get("data") as string).length)).toEqual([4, 1024 * 1024]);
  });

  it("applies to mocked events", async () => {
    const r = setup();
    r.call("sse_mock", "https://events.test/*", ["ok", d({ data: "x".repeat(9) }), "never"]);
    const h = (await settle(r.callP("sse_connect", "GET", "https://events.test/s", d({ max_message_bytes: 8 })))) as string;
    expect(show(await settle(r.callP("sse_receive", h)))).toBe("{type: open}");
    expect(show(await settle(r.callP("sse_receive", h)))).toBe("{data: ok, event: message, id: nil, retry_ms: nil, type: event}");
    expect((await raised(() => r.callP("sse_receive", h))).message).toBe("sse_receive: message exceeded max_message_bytes (8)");
    expect(await settle(r.callP("sse_receive", h))).toBeNull();
  });
});
