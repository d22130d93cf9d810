/**
 * Surviving real providers, end to end through `harn run` against model
 * servers on 127.0.0.1 (extensions.md §3.4–§3.5, agents.md §5.3–§5.5):
 * 429 with Retry-After (seconds, HTTP date, retry-after-ms), 503 then
 * success, 400 never retried, a stream that dies midway (not retried, the
 * error surfaces), request timeouts, fallback to a second server with its
 * own model, the 20 % / 100 % chaos loops, and API keys that never reach
 * output or transcripts.
 */
import type http from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sseFrame } from "../../packages/stdlib/test/llm/wire";
import { cleanEnv, format, modelServer, run, seeded, type Reply, type SeenRequest, type Workspace, workspace } from "./llm-harness";

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace("harn-llm-reliability-");
});
afterAll(() => ws.dispose());

const local = format("local");
const answer = (text: string): Reply => ({ model: "m", text: [text], usage: { input: 3, output: 2 } });

/** One llm_call through `harn run --stream`, printing the text or the
 * caught error dict. */
function callScript(options: string): string {
  return `pipeline main() {
  try {
    let r = llm_call("hi", nil, {provider: "local", model: "m", ${options}})
    println("text: " + r.text)
  } catch (e) {
    println("error: " + e.category + " " + e.kind + " " + e.reason)
    println("message: " + e.message)
  }
}
`;
}

async function withServer<T>(reply: (req: SeenRequest, i: number) => Reply, body: (url: string, requests: SeenRequest[]) => Promise<T>): Promise<T> {
  const server = await modelServer(local, reply);
  try {
    return await body(server.url, server.requests);
  } finally {
    await server.close();
  }
}

describe("retries", () => {
  it("429 with Retry-After in seconds waits what the server asked, then succeeds", async () => {
    await withServer(
      (req, i) =>
        i === 0 ? { status: 429, body: { error: { message: "Rate limit reached", type: "requests" } }, headers: { "retry-after": "1" } } : answer("after the wait"),
      async (url, requests) => {
        // a huge base backoff: only the server's hint can make this finish
        const script = ws.file("r429.harn", callScript("llm_retries: 2, llm_backoff_ms: 600000"));
        const r = await run(ws, ["run", "--stream", script], cleanEnv(local.env(url)));
        expect(r.stdout).toBe("after the wait\ntext: after the wait\n");
        // one line per retry: the delay, then the error cut to fit
        expect(r.stderr).toMatch(/^↻ local: retry 1 in 1s: local HTTP 429 \[rate_limited\]: \{"error":\{"message":"Rate limit reached",[^\n]*…\n$/);
        expect(requests.length).toBe(2);
      },
    );
  });

  it("429 with an HTTP-date Retry-After, and with retry-after-ms", async () => {
    const date = () => new Date(Date.now() + 2000).toUTCString();
    await withServer(
      (req, i) =>
        i === 0
          ? { status: 429, body: "slow down", headers: { "retry-after": date() } }
          : i === 1
            ? { status: 429, body: "slow down", headers: { "retry-after-ms": "40" } }
            : answer("ok"),
      async (url, requests) => {
        const script = ws.file("r429b.harn", callScript("llm_retries: 2, llm_backoff_ms: 600000"));
        const r = await run(ws, ["run", "--stream", script], cleanEnv(local.env(url)));
        expect(r.stdout).toBe("ok\ntext: ok\n");
        const lines = r.stderr.trimEnd().split("\n");
        // An HTTP date has whole seconds: "now + 2 s" truncated, read a few
        // milliseconds later, is a wait just under 1 s up to 2 s.
        expect(lines[0]).toMatch(/^↻ local: retry 1 in (0\.9\d*|1(\.\d+)?|2)s: local HTTP 429 \[rate_limited\]: slow down \(retry-after: \w{3}, /);
        expect(lines[1]).toBe("↻ local: retry 2 in 0.04s: local HTTP 429 [rate_limited]: slow down (retry-after: 0.04)");
        expect(requests.length).toBe(3);
      },
    );
  });

  it("503 then success", async () => {
    await withServer(
      (req, i) => (i === 0 ? { status: 503, body: { error: { message: "Service Unavailable" } } } : answer("recovered")),
      async (url, requests) => {
        const script = ws.file("r503.harn", callScript("llm_retries: 2, llm_backoff_ms: 10"));
        const r = await run(ws, ["run", script], cleanEnv(local.env(url)));
        expect(r.stdout).toBe("text: recovered\n");
        expect(requests.length).toBe(2);
      },
    );
  });

  it("400 is not retried", async () => {
    await withServer(
      () => ({ status: 400, body: { error: { message: "Invalid value for 'temperature'", type: "invalid_request_error" } } }),
      async (url, requests) => {
        const script = ws.file("r400.harn", callScript("llm_retries: 3, llm_backoff_ms: 10"));
        const r = await run(ws, ["run", script], cleanEnv(local.env(url)));
        expect(r.stdout).toBe(
          "error: generic terminal invalid_request\n" +
            'message: local HTTP 400 [invalid_request]: {"error":{"message":"Invalid value for \'temperature\'","type":"invalid_request_error"}}\n',
        );
        expect(requests.length).toBe(1);
      },
    );
  });

  it("a stream that dies midway is not retried; the error surfaces from agent_loop", async () => {
    const die = (req: SeenRequest, res: http.ServerResponse) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (content: string) => ({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content }, finish_reason: null }] });
      res.write(sseFrame(chunk("Half an ")));
      res.write(sseFrame(chunk("answer")));
      setTimeout(() => res.socket?.destroy(), 50);
    };
    await withServer(
      () => die,
      async (url, requests) => {
        const script = ws.file(
          "die.harn",
          `pipeline main() {
  try {
    agent_loop("go", nil, {provider: "local", model: "m", llm_retries: 3, llm_backoff_ms: 10})
  } catch (e) {
    println("caught: " + to_string(e))
  }
}
`,
        );
        const r = await run(ws, ["run", "--stream", script], cleanEnv(local.env(url)));
        expect(r.stdout).toMatch(/^Half an answer\ncaught: Error \[transient_network\]: local stream error \(body\): connection closed before the response was complete/);
        expect(requests.length).toBe(1);
      },
    );
  });

  it("a request that exceeds `timeout` fails as a transient timeout", async () => {
    await withServer(
      () => () => undefined, // never answers
      async (url, requests) => {
        // 2 s, not less: on a loaded machine the server may not have read a
        // request a shorter timeout already abandoned
        const script = ws.file("timeout.harn", callScript("timeout: 2"));
        const r = await run(ws, ["run", script], cleanEnv(local.env(url)));
        expect(r.stdout).toBe("error: timeout transient timeout\nmessage: local stream error (timeout): request timed out after 2s\n");
        expect(requests.length).toBe(1);
        // a duration literal works too
        const literal = ws.file("timeout_literal.harn", callScript("timeout: 250ms"));
        const r2 = await run(ws, ["run", literal], cleanEnv(local.env(url)));
        expect(r2.stdout).toContain("request timed out after 0.25s");
      },
    );
  });
});

describe("fallback", () => {
  it("falls back to a second server with its own model after the primary's retries", async () => {
    const primary = await modelServer(format("anthropic"), () => ({ status: 529, body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } }));
    const second = await modelServer(format("openai"), () => ({ model: "gpt-small", text: ["from the fallback"], usage: { input: 1, output: 1 } }));
    try {
      const script = ws.file(
        "fallback.harn",
        `pipeline main() {
  let r = llm_call("hi", nil, {provider: "anthropic", model: "claude-x", llm_retries: 1, llm_backoff_ms: 5,
    fallback_chain: ["openai"], fallback_models: {openai: "gpt-small"}})
  println(r.provider + " " + r.model + ": " + r.text)
  let a = agent_loop("hi", nil, {provider: "anthropic", model: "claude-x", llm_retries: 0, fallback_chain: "openai", fallback_models: {openai: "gpt-small"}})
  println(a.status + ": " + a.visible_text)
}
`,
      );
      const env = cleanEnv({ ...format("anthropic").env(primary.url), ...format("openai").env(second.url) });
      const r = await run(ws, ["run", script], env);
      // said once, though both calls fell back
      expect(r.stderr).toBe("note: anthropic failed (HTTP 529 overloaded) — falling back to openai/gpt-small\n");
      expect(r.stdout).toBe("openai gpt-small: from the fallback\ndone: from the fallback\n");
      expect(primary.requests.length).toBe(3);
      expect(second.requests.map((q) => (q.body as { model: string }).model)).toEqual(["gpt-small", "gpt-small"]);
    } finally {
      await primary.close();
      await second.close();
    }
  });

  it("reports the primary's error when every provider fails", async () => {
    const primary = await modelServer(format("anthropic"), () => ({ status: 503, body: "primary down" }));
    const second = await modelServer(format("openai"), () => ({ status: 503, body: "second down" }));
    try {
      const script = ws.file("fallback_fail.harn", callScript("").replace('provider: "local", model: "m", ', 'provider: "anthropic", model: "claude-x", fallback_chain: ["openai"]'));
      const env = cleanEnv({ ...format("anthropic").env(primary.url), ...format("openai").env(second.url) });
      const r = await run(ws, ["run", script], env);
      expect(r.stdout).toBe("error: overloaded transient server_error\nmessage: anthropic HTTP 503 [http_error]: primary down\n");
      expect(second.requests.length).toBe(1);
    } finally {
      await primary.close();
      await second.close();
    }
  });
});

/** A loop of 20 tool turns and a final answer: the model calls `step(n)`
 * until the transcript holds 20 results. */
const CHAOS_LOOP = (options: string) => `
tool step(n: int) -> string {
  description "Do step n"
  return "step " + to_string(n) + " ok"
}
pipeline main() {
  let r = agent_loop("Do 20 steps", nil, {provider: "local", model: "m", tools: step, tool_format: "native", max_iterations: 30, ${options}})
  println(r.status + " after " + to_string(r.llm.iterations) + " turns, " + to_string(len(r.tools.calls)) + " steps")
  println(r.visible_text)
}
`;

function stepReply(req: SeenRequest): Reply {
  const done = ((req.body as { messages: { role: string }[] }).messages ?? []).filter((m) => m.role === "tool").length;
  if (done >= 20) return answer("all 20 steps done");
  return { model: "m", calls: [{ id: `call_${done + 1}`, name: "step", fragments: [JSON.stringify({ n: done + 1 })] }], usage: { input: 10, output: 5 } };
}

/** The ways a flaky provider fails: statuses with and without hints, and
 * connections reset before any response. */
function failure(random: () => number): Reply {
  const pick = Math.floor(random() * 5);
  switch (pick) {
    case 0:
      return { status: 503, body: { error: { message: "Service Unavailable" } } };
    case 1:
      return { status: 429, body: { error: { message: "Rate limit" } }, headers: { "retry-after-ms": "5" } };
    case 2:
      return { status: 500, body: { error: { message: "Internal error" } } };
    case 3:
      return { status: 529, body: { error: { message: "Overloaded" } } };
    default:
      return (req: SeenRequest, res: http.ServerResponse) => res.socket?.destroy();
  }
}

describe("chaos", () => {
  it("a server failing 20% of requests at random still lets a 20-turn loop finish", async () => {
    const random = seeded(20_260_522);
    let failures = 0;
    await withServer(
      (req) => {
        if (random() < 0.2) {
          failures++;
          return failure(random);
        }
        return stepReply(req);
      },
      async (url, requests) => {
        const script = ws.file("chaos20.harn", CHAOS_LOOP("llm_retries: 6, llm_backoff_ms: 5"));
        const r = await run(ws, ["run", script], cleanEnv(local.env(url)));
        expect(r.stderr).toBe("");
        expect(r.stdout).toBe("done after 21 turns, 20 steps\nall 20 steps done\n");
        expect(failures).toBeGreaterThan(0);
        expect(requests.length).toBe(21 + failures);
      },
    );
  });

  it("at 100% the loop stops within its retry budget with a clear error", async () => {
    await withServer(
      () => ({ status: 503, body: { error: { message: "Service Unavailable" } } }),
      async (url, requests) => {
        const script = ws.file("chaos100.harn", CHAOS_LOOP("llm_retries: 1000, llm_backoff_ms: 20, retry_budget_ms: 400"));
        const r = await run(ws, ["run", script], cleanEnv(local.env(url)));
        expect(r.code).toBe(1);
        expect(r.stdout).toBe("");
        expect(r.stderr).toMatch(
          /^error: Error \[overloaded\]: retry budget exhausted \(400 ms, \d+ attempts\); last error: local HTTP 503 \[http_error\]: \{"error":\{"message":"Service Unavailable"\}\}\n/,
        );
        // delays of 40, 80, 160 ms (+ jitter) exhaust 400 ms: a handful of attempts, not 1000
        expect(requests.length).toBeGreaterThanOrEqual(2);
        expect(requests.length).toBeLessThanOrEqual(5);
      },
    );
  });
});

describe("API keys", () => {
  const KEY = "sk-ant-api03-SENTINEL-7f3a9c2e5b1d8046-DO-NOT-PRINT";
  const anthropic = format("anthropic");

  it("are sent to the provider but never appear in output, errors or transcripts", async () => {
    const server = await modelServer(anthropic, (req, i) => {
      if (i === 0) return { model: "claude-x", text: ["Hi there"], usage: { input: 3, output: 2 } };
      // an error body echoing the credential it rejected, as some servers do
      return { status: 401, body: { type: "error", error: { type: "authentication_error", message: `invalid x-api-key: ${KEY}` } } };
    });
    try {
      const script = ws.file(
        "keys.harn",
        `pipeline main() {
  let r = agent_loop("hello", nil, {provider: "anthropic", model: "claude-x"})
  write_file("transcript.json", json_stringify(r.transcript))
  println(json_stringify(r))
  println(json_stringify(llm_call_safe("again", nil, {provider: "anthropic", model: "claude-x"})))
  llm_call("and again", nil, {provider: "anthropic", model: "claude-x"})
}
`,
      );
      const r = await run(ws, ["run", "--stream", script], cleanEnv({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url }));
      expect(server.requests[0]!.headers["x-api-key"]).toBe(KEY);
      expect(r.stdout).toContain("Hi there");
      expect(r.stdout).toContain("[redacted]");
      expect(r.stderr).toContain("invalid x-api-key: [redacted]");
      expect(r.code).toBe(1);
      for (const text of [r.stdout, r.stderr, readFileSync(join(ws.dir, "transcript.json"), "utf8")]) {
        expect(text).not.toContain(KEY);
        expect(text).not.toContain("SENTINEL");
      }
    } finally {
      await server.close();
    }
  });
});


