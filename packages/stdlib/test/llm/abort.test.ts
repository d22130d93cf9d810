/**
 * Cancellation and timeouts: an aborted call closes its HTTP stream (the
 * server sees the socket go), hands back the partial text, and a stalled
 * server becomes a transient timeout error.
 */

import { afterEach, describe, expect, it } from "vitest";
import { LlmError, LlmInterrupted, type LlmEvent } from "../../src/llm";
import { client, FakeClock, FORMATS, request } from "./helpers";
import { sendStream, startServer, type TestServer } from "./server";
import type { Script } from "./wire";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const PARTIAL: Script = { model: "served", text: ["Hello, ", "wor"], usage: { input: 1, output: 1 } };

/** Send the head of an answer, then stall with the connection open. */
async function stallingServer(format: (typeof FORMATS)[number]) {
  server = await startServer((_req, res) => {
    res.writeHead(200, { "content-type": format.stream(PARTIAL).contentType });
    res.write(format.stream(PARTIAL, { dieAfterText: true }).body);
  });
  return server;
}

describe.each(FORMATS)("$provider cancellation", (format) => {
  it("abort mid-stream returns the partial text and closes the socket", async () => {
    const srv = await stallingServer(format);
    const ac = new AbortController();
    let text = "";
    const onEvent = (e: LlmEvent) => {
      if (e.kind !== "text_delta") return;
      text += e.text;
      if (text === "Hello, wor") ac.abort();
    };
    const err = await client(format.env(srv.url))
      .completeWithRetries(request(format.provider), { signal: ac.signal, onEvent, retries: 3 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmInterrupted);
    expect((err as LlmInterrupted).partial.text).toBe("Hello, wor");
    expect((err as LlmInterrupted).partial.provider).toBe(format.provider);
    await srv.requests[0]!.socketClosed;
    expect(srv.requests).toHaveLength(1);
  });
});

describe("cancellation", () => {
  const anthropic = FORMATS[0]!;

  it("abort before the response head closes the socket too", async () => {
    server = await startServer(() => {}); // never answers
    const ac = new AbortController();
    const pending = client(anthropic.env(server.url)).completeWithRetries(request("anthropic"), { signal: ac.signal });
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmInterrupted);
    expect((err as LlmInterrupted).partial.text).toBe("");
    await server.requests[0]!.socketClosed;
  });

  it("an already aborted signal makes no request", async () => {
    server = await startServer(() => {});
    const ac = new AbortController();
    ac.abort();
    const err = await client(anthropic.env(server.url))
      .completeWithRetries(request("anthropic"), { signal: ac.signal })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmInterrupted);
    expect(server.requests).toHaveLength(0);
  });

  it("an on_event callback that throws stops the stream; its error propagates unchanged", async () => {
    const srv = await stallingServer(anthropic);
    const boom = new Error("callback failed");
    const err = await client(anthropic.env(srv.url))
      .completeWithRetries(request("anthropic"), {
        retries: 2,
        onEvent: (e) => {
          if (e.kind === "text_delta") throw boom;
        },
      })
      .catch((e: unknown) => e);
    expect(err).toBe(boom);
    await srv.requests[0]!.socketClosed;
    expect(srv.requests).toHaveLength(1);
  });

  it("awaits an asynchronous on_event before reading on", async () => {
    server = await startServer((_req, res) => sendStream(res, anthropic.stream({ ...PARTIAL, text: ["a", "b", "c"] })));
    const seen: string[] = [];
    const res = await client(anthropic.env(server.url)).completeWithRetries(request("anthropic"), {
      onEvent: async (e) => {
        if (e.kind !== "text_delta") return;
        await new Promise((r) => setTimeout(r, 5));
        seen.push(e.text);
      },
    });
    expect(seen).toEqual(["a", "b", "c"]);
    expect(res.text).toBe("abc");
  });
});

describe("timeouts", () => {
  const anthropic = FORMATS[0]!;

  it("no response head within the timeout: a transient timeout error, retried", async () => {
    server = await startServer(async (_req, res, n) => {
      if (n === 0) return; // stall the first request
      await sendStream(res, anthropic.stream({ ...PARTIAL, text: ["ok"] }));
    });
    const clock = new FakeClock();
    // The timeout also bounds the good answer, so it is generous enough
    // for a loaded machine; the retries absorb a slow start.
    const res = await client(anthropic.env(server.url), clock).completeWithRetries(
      request("anthropic", { timeout_ms: 500 }),
      { retries: 3 },
    );
    expect(res.text).toBe("ok");
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
    expect(clock.sleeps).toHaveLength(server.requests.length - 1);
  });

  it("a stream that stops sending: timeout error with the idle wording, socket closed", async () => {
    const srv = await stallingServer(anthropic);
    const err = (await client(anthropic.env(srv.url))
      .completeWithRetries(request("anthropic", { timeout_ms: 100 }), { retries: 2 })
      .catch((e: unknown) => e)) as LlmError;
    expect(err).toBeInstanceOf(LlmError);
    expect(err.message).toBe("anthropic stream error (timeout): request timed out after 0.1s without data");
    expect([err.kind, err.reason, err.category]).toEqual(["transient", "timeout", "timeout"]);
    // Text had been passed on, so the failure is not retried.
    expect(srv.requests).toHaveLength(1);
    await srv.requests[0]!.socketClosed;
  });

  it("a non-streaming request must finish within the timeout", async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"id": "msg_1", ');
    });
    const err = (await client(anthropic.env(server.url))
      .completeWithRetries(request("anthropic", { timeout_ms: 100, stream: false }))
      .catch((e: unknown) => e)) as LlmError;
    expect(err.message).toBe("anthropic stream error (timeout): request timed out after 0.1s");
  });
});
