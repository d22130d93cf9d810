import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { display, HBytes, HDict, type Value } from "@harn/vm";
import { raised, rig, settle } from "../core/harness";

function setup(cwd?: string) {
  const r = rig(cwd ? { cwd } : {});
  return r;
}

const d = (o: Record<string, Value>) => HDict.of(o);
const show = (v: Value) => display(v);

async function thrownText(fn: () => Value | Promise<Value>): Promise<string> {
  const e = await raised(fn);
  expect(e.kind).toBe("thrown");
  return e.caughtValue() as string;
}

describe("http mocks", () => {
  it("answers matching requests synchronously and records them", () => {
    const r = setup();
    r.call("http_mock", "GET", "https://svc.test/v1/*", d({ status: 404, body: "nope" }));
    const res = r.call("http_get", "https://svc.test/v1/thing", d({ query: d({ q: "x y", skip: null, a: "&=/" }) }));
    expect(show(res)).toBe("{body: nope, headers: {}, ok: false, status: 404}");
    const calls = r.call("http_mock_calls") as Value[];
    expect(show(calls)).toBe("[{body: nil, headers: {}, method: GET, url: https://svc.test/v1/thing?a=%26%3D%2F&q=x+y}]");
  });
  it("defaults a mock to 200 with an empty body, and `*` methods and patterns match anything", () => {
    const r = setup();
    r.call("http_mock", "*", "*", d({}));
    expect(show(r.call("http_request", "patch", "https://a.test/x", d({ body: 42 })))).toBe("{body: , headers: {}, ok: true, status: 200}");
    expect(show((r.call("http_mock_calls") as Value[])[0])).toBe("{body: 42, headers: {}, method: PATCH, url: https://a.test/x}");
  });
  it("globs: prefix, ordered middle pieces, suffix", () => {
    const r = setup();
    r.call("http_mock", "GET", "https://*.test/*/items/*.json", d({ body: "hit" }));
    r.call("http_mock", "GET", "*", d({ body: "fallback" }));
    const body = (url: string) => (r.call("http_get", url) as HDict).get("body");
    expect(body("https://api.test/v2/items/7.json")).toBe("hit");
    expect(body("https://api.test/v2/things/7.json")).toBe("fallback");
    expect(body("https://api.test/v2/items/7.xml")).toBe("fallback");
  });
  it("earliest registered match wins; re-registering replaces and moves to the end", () => {
    const r = setup();
    r.call("http_mock", "GET", "https://x.test/*", d({ body: "first" }));
    r.call("http_mock", "get", "https://x.test/a", d({ body: "second" }));
    expect((r.call("http_get", "https://x.test/a") as HDict).get("body")).toBe("first");
    r.call("http_mock", "GET", "https://x.test/*", d({ body: "again" }));
    expect((r.call("http_get", "https://x.test/a") as HDict).get("body")).toBe("second");
    expect((r.call("http_get", "https://x.test/b") as HDict).get("body")).toBe("again");
  });
  it("scripts successive responses, the last one repeating", () => {
    const r = setup();
    r.call("http_mock", "GET", "https://s.test", d({ responses: [d({ status: 500 }), d({ status: 201, body: "ok", headers: d({ "X-Id": "7" }) })] }));
    const statuses = [1, 2, 3].map(() => (r.call("http_get", "https://s.test") as HDict).get("status"));
    expect(statuses).toEqual([500, 201, 201]);
    expect(show((r.call("http_get", "https://s.test") as HDict).get("headers"))).toBe("{X-Id: 7}");
  });
  it("posts bodies; a lone dict is the options", () => {
    const r = setup();
    r.call("http_mock", "POST", "*", d({ body: "created", status: 201 }));
    r.call("http_post", "https://p.test/a", d({ x: 1 }), d({ headers: d({ "Content-Type": "application/json" }) }));
    r.call("http_post", "https://p.test/b", d({ headers: d({ "X-A": "1" }) }));
    const calls = r.call("http_mock_calls") as HDict[];
    expect(show(calls[0]!)).toBe("{body: {x: 1}, headers: {content-type: application/json}, method: POST, url: https://p.test/a}");
    expect(show(calls[1]!)).toBe("{body: nil, headers: {x-a: 1}, method: POST, url: https://p.test/b}");
  });
  it("redacts sensitive headers and query parameters unless asked not to", () => {
    const r = setup();
    r.call("http_mock", "GET", "*", d({}));
    r.call("http_get", "https://r.test/p?page=2&api_key=abc&refresh_token=x", d({ auth: d({ bearer: "tok" }), headers: d({ "X-Api-Key": "k", Accept: "a" }) }));
    r.call("http_get", "https://r.test/q?page=2");
    const [a, b] = r.call("http_mock_calls") as HDict[];
    expect(show(a!)).toBe(
      "{body: nil, headers: {accept: a, authorization: [redacted], x-api-key: [redacted]}, method: GET, url: https://r.test/p?page=2&api_key=%5Bredacted%5D&refresh_token=%5Bredacted%5D}",
    );
    expect((b as HDict).get("url")).toBe("https://r.test/q?page=2");
    const raw = r.call("http_mock_calls", d({ redact_sensitive: false })) as HDict[];
    expect(show((raw[0] as HDict).get("headers"))).toBe("{accept: a, authorization: Bearer tok, x-api-key: k}");
    expect((raw[0] as HDict).get("url")).toBe("https://r.test/p?page=2&api_key=abc&refresh_token=x");
  });
  it("builds basic auth and verbatim auth headers", () => {
    const r = setup();
    r.call("http_mock", "GET", "*", d({}));
    r.call("http_get", "https://a.test", d({ auth: d({ basic: d({ user: "u", password: "p" }) }) }));
    r.call("http_get", "https://a.test", d({ auth: "Token xyz" }));
    const calls = r.call("http_mock_calls", d({ include_sensitive: true })) as HDict[];
    expect(show((calls[0]!.get("headers") as HDict).get("authorization"))).toBe("Basic dTpw");
    expect(show((calls[1]!.get("headers") as HDict).get("authorization"))).toBe("Token xyz");
  });
  it("retries retryable statuses on mocks, each attempt consuming a response", async () => {
    const r = setup();
    r.call("http_mock", "GET", "https://retry.test", d({ responses: [d({ status: 503 }), d({ status: 503 }), d({ status: 200, body: "up" })] }));
    const res = (await settle(r.callP("http_get", "https://retry.test", d({ retry: d({ max: 2, backoff_ms: 0 }) })))) as HDict;
    expect(res.get("status")).toBe(200);
    expect((r.call("http_mock_calls") as Value[]).length).toBe(3);
  });
  it("returns the last response after the final attempt, and never retries POST by default", async () => {
    const r = setup();
    r.call("http_mock", "*", "https://down.test", d({ status: 503 }));
    const res = (await settle(r.callP("http_get", "https://down.test", d({ retry: d({ max: 2, backoff_ms: 0 }) })))) as HDict;
    expect(res.get("status")).toBe(503);
    expect((r.call("http_mock_calls") as Value[]).length).toBe(3);
    r.call("http_mock_clear");
    r.call("http_mock", "*", "https://down.test", d({ status: 503 }));
    await settle(r.callP("http_post", "https://down.test", "x", d({ retry: d({ max: 1, backoff_ms: 0 }) })));
    expect((r.call("http_mock_calls") as Value[]).length).toBe(1);
    await settle(r.callP("http_post", "https://down.test", "x", d({ retry: d({ max: 1, backoff_ms: 0 }), retry_methods: ["post"] })));
    expect((r.call("http_mock_calls") as Value[]).length).toBe(3);
  });
  it("clear removes mocks and calls", () => {
    const r = setup();
    r.call("http_mock", "GET", "*", d({}));
    r.call("http_get", "https://a.test");
    r.call("http_mock_clear");
    expect(r.call("http_mock_calls")).toEqual([]);
  });
});

describe("http validation", () => {
  const r = setup();
  it("uses the reference's messages", async () => {
    expect(await thrownText(() => r.call("http_get", ""))).toBe("http_get: URL is required");
    expect(await thrownText(() => r.call("http_request", "GET", ""))).toBe("http_request: URL is required");
    expect(await thrownText(() => r.call("http_request", "", "https://a.test"))).toBe("http_request: method is required");
    expect(await thrownText(() => r.call("http_get", "ftp://a.test"))).toBe("http: URL must start with http:// or https://, got 'ftp://a.test'");
    expect(await thrownText(() => r.call("http_get", "http://a.test:99999/", d({ query: d({ a: 1 }) })))).toBe(
      "http: invalid URL 'http://a.test:99999/': invalid port number",
    );
    expect(await thrownText(() => r.call("http_request", "BAD METHOD", "https://a.test"))).toBe("http: invalid method 'BAD METHOD': invalid HTTP method");
    expect(await thrownText(() => r.call("http_get", "https://a.test", d({ headers: d({ "Bad Name": "v" }) })))).toContain("http: invalid header name 'Bad Name'");
    expect(await thrownText(() => r.call("http_get", "https://a.test", d({ headers: d({ X: "a\nb" }) })))).toContain("http: invalid header value for 'X'");
  });
});

describe("http against a real server", () => {
  let server: Server;
  let base: string;
  let hits = 0;
  let tmp: string;
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => {
      body += c;
      chunks.push(c);
    });
    req.on("end", () => {
      const url = new URL(req.url!, "http://x");
      if (url.pathname === "/form") {
        res.end(JSON.stringify({ type: req.headers["content-type"], body: Buffer.concat(chunks).toString("base64") }));
      } else if (url.pathname === "/echo") {
        res.setHeader("Content-Type", "application/json");
        res.setHeader("X-Multi", ["a", "b"]);
        res.end(JSON.stringify({ method: req.method, path: req.url, body, auth: req.headers.authorization ?? null, custom: req.headers["x-custom"] ?? null }));
      } else if (url.pathname === "/status") {
        res.statusCode = Number(url.searchParams.get("code"));
        res.end("status body");
      } else if (url.pathname === "/flaky") {
        hits++;
        if (hits < 3) {
          res.statusCode = 503;
          res.setHeader("Retry-After", "0");
          res.end("busy");
        } else res.end("recovered");
      } else if (url.pathname === "/redirect") {
        res.statusCode = 302;
        res.setHeader("Location", "/echo");
        res.end();
      } else if (url.pathname === "/loop") {
        res.statusCode = 302;
        res.setHeader("Location", "/loop");
        res.end();
      } else if (url.pathname === "/slow") {
        setTimeout(() => res.end("late"), 2000);
      } else if (url.pathname === "/bytes") {
        res.end(Buffer.from("0123456789abcdef"));
      } else {
        res.statusCode = 404;
        res.end("missing");
      }
    });
  };

  beforeAll(async () => {
    server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const addr = server.address();
    if (addr === null || typeof addr === "string") throw new Error("no port");
    base = `http://127.0.0.1:${addr.port}`;
    tmp = mkdtempSync(join(tmpdir(), "harn-http-"));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(tmp, { recursive: true, force: true });
  });

  it("GETs and POSTs with headers, auth and query", async () => {
    const r = setup();
    const res = (await settle(r.callP("http_post", `${base}/echo`, "payload", d({ headers: d({ "X-Custom": "yes" }), auth: d({ bearer: "t" }), query: d({ q: "a b" }) })))) as HDict;
    expect(res.get("status")).toBe(200);
    expect(res.get("ok")).toBe(true);
    expect(JSON.parse(res.get("body") as string)).toEqual({ method: "POST", path: "/echo?q=a+b", body: "payload", auth: "Bearer t", custom: "yes" });
    const headers = res.get("headers") as HDict;
    expect(headers.get("content-type")).toBe("application/json");
    expect(headers.get("x-multi")).toBe("a, b");
    expect(r.call("http_mock_calls")).toEqual([]);
    await r.rt.shutdown();
  });
  it("sends a multipart body byte for byte, binary parts too", async () => {
    const r = setup();
    const file = new HBytes(new Uint8Array([0xff, 0x00, 0x0d, 0x0a, 0x2d]));
    const res = (await settle(r.callP("http_post", `${base}/form`, d({ multipart: [d({ name: "bin", value: file, filename: "b.dat" }), d({ name: "t", value: "é" })] })))) as HDict;
    const got = JSON.parse(res.get("body") as string) as { type: string; body: string };
    expect(got.type).toBe("multipart/form-data; boundary=harn-boundary");
    const parsed = r.call("multipart_parse", new HBytes(new Uint8Array(Buffer.from(got.body, "base64"))), got.type) as HDict;
    const [bin, t] = parsed.get("fields") as HDict[];
    expect([...(bin!.get("bytes") as HBytes).data]).toEqual([0xff, 0x00, 0x0d, 0x0a, 0x2d]);
    expect(bin!.get("filename")).toBe("b.dat");
    expect(t!.get("text")).toBe("é");
    await r.rt.shutdown();
  });
  it("does not throw on non-2xx statuses", async () => {
    const r = setup();
    const res = (await settle(r.callP("http_get", `${base}/status?code=418`))) as HDict;
    expect(show(res.get("status"))).toBe("418");
    expect(res.get("ok")).toBe(false);
    expect(res.get("body")).toBe("status body");
    await r.rt.shutdown();
  });
  it("retries 503 with Retry-After: 0 and backoff 0", async () => {
    const r = setup();
    hits = 0;
    const res = (await settle(r.callP("http_get", `${base}/flaky`, d({ retry: d({ max: 3, backoff_ms: 0 }) })))) as HDict;
    expect(res.get("body")).toBe("recovered");
    expect(hits).toBe(3);
    await r.rt.shutdown();
  });
  it("follows redirects unless told not to, and caps them", async () => {
    const r = setup();
    const followed = (await settle(r.callP("http_get", `${base}/redirect`))) as HDict;
    expect(JSON.parse(followed.get("body") as string).path).toBe("/echo");
    const raw = (await settle(r.callP("http_get", `${base}/redirect`, d({ follow_redirects: false })))) as HDict;
    expect(raw.get("status")).toBe(302);
    expect(await thrownText(() => r.callP("http_get", `${base}/loop`, d({ max_redirects: 3 })))).toContain("http: request failed: error following redirect");
    await r.rt.shutdown();
  });
  it("fails clearly on a closed port and on timeouts", async () => {
    const r = setup();
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await thrownText(() => r.callP("http_get", `http://127.0.0.1:${port}/`))).toBe(
      `http: request failed: error sending request for url (http://127.0.0.1:${port}/): error trying to connect: tcp connect error: Connection refused (os error 111)`,
    );
    expect(await thrownText(() => r.callP("http_get", `${base}/slow`, d({ timeout_ms: 100 })))).toBe(
      `http: request failed: error sending request for url (${base}/slow): operation timed out`,
    );
    await r.rt.shutdown();
  });
  it("is cancelled by the task's signal", async () => {
    const r = setup();
    const p = r.callP("http_get", `${base}/slow`);
    setTimeout(() => r.abort.abort("cancelled"), 50);
    await expect(settle(p)).rejects.toBe("cancelled");
    await r.rt.shutdown();
  });
  it("downloads to a file under the execution root", async () => {
    const r = setup(tmp);
    const res = (await settle(r.callP("http_download", `${base}/bytes`, "out.bin"))) as HDict;
    expect(show(res.get("bytes_written"))).toBe("16");
    expect(readFileSync(join(tmp, "out.bin"), "utf8")).toBe("0123456789abcdef");
    await r.rt.shutdown();
  });
  it("streams a body in chunks", async () => {
    const r = setup();
    const h = (await settle(r.callP("http_stream_open", `${base}/bytes`))) as string;
    expect(h).toBe("http-stream-1");
    expect(show(r.call("http_stream_info", h))).toContain("ok: true, status: 200");
    let text = "";
    for (;;) {
      const chunk = await settle(r.callP("http_stream_read", h, 5));
      if (chunk === null) break;
      expect((chunk as HBytes).data.length).toBeLessThanOrEqual(5);
      text += Buffer.from((chunk as HBytes).data).toString();
    }
    expect(text).toBe("0123456789abcdef");
    expect(r.call("http_stream_close", h)).toBe(true);
    expect(r.call("http_stream_close", h)).toBe(false);
    await r.rt.shutdown();
  });
  it("streams a mocked body and reuses session defaults", async () => {
    const r = setup();
    r.call("http_mock", "GET", "https://m.test/s", d({ body: "abcdef" }));
    const h = r.call("http_stream_open", "https://m.test/s") as string;
    expect(Buffer.from((r.call("http_stream_read", h, 4) as HBytes).data).toString()).toBe("abcd");
    expect(Buffer.from((r.call("http_stream_read", h) as HBytes).data).toString()).toBe("ef");
    expect(r.call("http_stream_read", h)).toBeNull();
    const s = r.call("http_session", d({ headers: d({ "X-Custom": "from-session" }) })) as string;
    const res = (await settle(r.callP("http_session_request", s, "get", `${base}/echo`))) as HDict;
    expect(JSON.parse(res.get("body") as string).custom).toBe("from-session");
    expect(r.call("http_session_close", s)).toBe(true);
    await r.rt.shutdown();
  });
});

describe("http on the wire", () => {
  let resets = 0;
  /** A server answering with what it received, gzip-encoded on /gz. */
  async function wireServer(port = 0): Promise<{ server: Server; base: string }> {
    const { gzipSync } = await import("node:zlib");
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        const redirect = new URL(req.url!, "http://x").searchParams.get("redirect");
        if (redirect) {
          res.writeHead(302, { Location: redirect });
          return res.end();
        }
        if (req.url === "/reset") {
          resets++;
          return req.socket.destroy();
        }
        if (req.url === "/badgz") {
          res.setHeader("Content-Encoding", "gzip");
          return res.end("not gzip at all");
        }
        if (req.url === "/gzhang") {
          res.setHeader("Content-Encoding", "gzip");
          return res.write(gzipSync("never finished").subarray(0, 12));
        }
        if (req.url === "/gz") {
          res.setHeader("Content-Encoding", "gzip");
          return res.end(gzipSync("unzipped text"));
        }
        res.end(JSON.stringify({ headers: req.headers, body }));
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", resolve);
    });
    return { server, base: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
  }
  const close = async (server: Server) => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };

  it("sends only the request's own headers plus accept and accept-encoding, like reqwest", async () => {
    const { server, base } = await wireServer();
    try {
      const r = setup();
      const res = (await settle(r.callP("http_post", `${base}/`, "text body", d({ headers: d({ "X-Custom": "1" }) })))) as HDict;
      const seen = JSON.parse(res.get("body") as string) as { headers: Record<string, string>; body: string };
      expect(seen.body).toBe("text body");
      const { host: _host, connection: _connection, ...rest } = seen.headers;
      expect(rest).toEqual({ accept: "*/*", "accept-encoding": "gzip, deflate, br", "content-length": "9", "x-custom": "1" });
      const get = (await settle(r.callP("http_request", "GET", `${base}/`, d({ body: "search query" })))) as HDict;
      expect(JSON.parse(get.get("body") as string).body).toBe("search query");
      await r.rt.shutdown();
    } finally {
      await close(server);
    }
  });
  it("decodes compressed bodies unless `decompress: false`", async () => {
    const { server, base } = await wireServer();
    try {
      const r = setup();
      const res = (await settle(r.callP("http_get", `${base}/gz`))) as HDict;
      expect(res.get("body")).toBe("unzipped text");
      expect((res.get("headers") as HDict).has("content-encoding")).toBe(false);
      const raw = (await settle(r.callP("http_get", `${base}/gz`, d({ decompress: false })))) as HDict;
      expect((raw.get("headers") as HDict).get("content-encoding")).toBe("gzip");
      expect(raw.get("body")).not.toBe("unzipped text");
      const echoed = (await settle(r.callP("http_get", `${base}/`, d({ decompress: false })))) as HDict;
      expect(JSON.parse(echoed.get("body") as string).headers["accept-encoding"]).toBeUndefined();
      await r.rt.shutdown();
    } finally {
      await close(server);
    }
  });
  it("reports a corrupt compressed body, and shuts down cleanly with a compressed stream nobody read", async () => {
    const { server, base } = await wireServer();
    try {
      const r = setup();
      expect(await thrownText(() => r.callP("http_get", `${base}/badgz`))).toBe(
        `http: request failed: error decoding response body for url (${base}/badgz): incorrect header check`,
      );
      const h = (await settle(r.callP("http_stream_open", `${base}/gzhang`))) as string;
      expect(r.call("http_stream_info", h)).toBeInstanceOf(HDict);
      // the open exchange is aborted at shutdown, with no reader attached
      await r.rt.shutdown();
    } finally {
      await close(server);
    }
  });
  it("does not retry a connection the server dropped: only connect and timeout errors are retried", async () => {
    const { server, base } = await wireServer();
    try {
      const r = setup();
      resets = 0;
      expect(await thrownText(() => r.callP("http_get", `${base}/reset`, d({ retry: d({ max: 2, backoff_ms: 0 }) })))).toBe(
        `http: request failed: error sending request for url (${base}/reset): connection closed before message completed`,
      );
      expect(resets).toBe(1);
      await r.rt.shutdown();
    } finally {
      await close(server);
    }
  });
  it("drops credentials on a redirect to another host, and body headers when the body goes", async () => {
    const a = await wireServer();
    const b = await wireServer();
    try {
      const r = setup();
      const seen = async (url: string, verb = "http_get", body: Value = null) => {
        const opts = d({ auth: d({ bearer: "secret" }), headers: d({ Cookie: "c=1", "Content-Type": "text/x" }) });
        const res = (await settle(verb === "http_get" ? r.callP(verb, url, opts) : r.callP(verb, url, body, opts))) as HDict;
        return (JSON.parse(res.get("body") as string) as { headers: Record<string, string> }).headers;
      };
      const same = await seen(`${a.base}/?redirect=${encodeURIComponent(`${a.base}/landed`)}`);
      expect([same.authorization, same.cookie]).toEqual(["Bearer secret", "c=1"]);
      const other = await seen(`${a.base}/?redirect=${encodeURIComponent(`${b.base}/landed`)}`);
      expect([other.authorization, other.cookie, other["content-type"]]).toEqual([undefined, undefined, "text/x"]);
      const posted = await seen(`${a.base}/?redirect=/landed`, "http_post", "payload");
      expect([posted.authorization, posted["content-type"], posted["content-length"]]).toEqual(["Bearer secret", undefined, undefined]);
      await r.rt.shutdown();
    } finally {
      await close(a.server);
      await close(b.server);
    }
  });
  it("connects to ports the Fetch standard calls bad (reqwest has no such list)", async () => {
    // the first of these that is free on this machine
    let found: { server: Server; base: string } | null = null;
    for (const port of [6665, 6666, 6667, 6668, 6669, 6000, 10080]) {
      found = await wireServer(port).catch(() => null);
      if (found) break;
    }
    if (!found) return;
    try {
      const r = setup();
      const res = (await settle(r.callP("http_get", `${found.base}/`))) as HDict;
      expect(res.get("status")).toBe(200);
      await r.rt.shutdown();
    } finally {
      await close(found.server);
    }
  });
});

describe("http through a proxy", () => {
  it("sends plain-HTTP requests in absolute form and tunnels HTTPS with CONNECT, with proxy_auth", async () => {
    const { createServer: createHttp, request: httpRequest } = await import("node:http");
    const { connect } = await import("node:net");
    const target = createHttp((req, res) => res.end(`target saw ${req.url} host=${req.headers.host}`));
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    const targetPort = (target.address() as { port: number }).port;
    const seen: string[] = [];
    // a forwarding proxy: absolute-form requests are relayed; CONNECT opens a tunnel
    const proxy = createHttp((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers["proxy-authorization"] ?? "-"}`);
      const u = new URL(String(req.url));
      const fwd = httpRequest({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: req.method, headers: { host: u.host } }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      req.pipe(fwd);
    });
    proxy.on("connect", (req, client, head) => {
      seen.push(`CONNECT ${req.url} ${req.headers["proxy-authorization"] ?? "-"}`);
      const [host, port] = String(req.url).split(":");
      const upstream = connect(Number(port), host, () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const proxyPort = (proxy.address() as { port: number }).port;
    try {
      const r = setup();
      const opts = d({ proxy: `http://127.0.0.1:${proxyPort}`, proxy_auth: d({ user: "u", pass: "p" }) });
      const res = (await settle(r.callP("http_get", `http://127.0.0.1:${targetPort}/via?x=1`, opts))) as HDict;
      expect(res.get("body")).toBe(`target saw /via?x=1 host=127.0.0.1:${targetPort}`);
      expect(seen).toEqual([`GET http://127.0.0.1:${targetPort}/via?x=1 Basic dTpw`]);
      // an https target goes through CONNECT (the tunnel opens even though the TLS handshake then fails here)
      await raised(() => r.callP("http_get", `https://127.0.0.1:${targetPort}/`, d({ proxy: `http://127.0.0.1:${proxyPort}`, timeout_ms: 2000 })));
      expect(seen[1]).toBe(`CONNECT 127.0.0.1:${targetPort} -`);
      await r.rt.shutdown();
    } finally {
      proxy.closeAllConnections();
      target.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
      await new Promise((resolve) => target.close(resolve));
    }
  });
});

describe("multipart option", () => {
  it("builds a form body and its content type", () => {
    const r = setup();
    r.call("http_mock", "POST", "*", d({ status: 201 }));
    r.call("http_post", "https://up.test/files", d({ multipart: [d({ name: "f", filename: "a.txt", content: "hi" })] }));
    const call = (r.call("http_mock_calls") as HDict[])[0]!;
    // the reference's fixed boundary, and no Content-Type line unless given (core-gaps.md §7.6)
    expect(show(call.get("headers"))).toBe("{content-type: multipart/form-data; boundary=harn-boundary}");
    expect(call.get("body")).toBe('--harn-boundary\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\nhi\r\n--harn-boundary--\r\n');
  });
});
