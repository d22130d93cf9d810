/**
 * Harn as an MCP client (spec/mcp.md §1–§3) through the built `harn`:
 * servers started by the script (the SDK-based helper of the conformance
 * suite) never outlive what started them — the agent loop on every exit
 * path (normal end, a throw, Ctrl-C, SIGTERM), a forgotten `mcp_connect`
 * at the end of the script — checked with `ps`; `harn.toml` `[[mcp]]`
 * servers; and the Streamable HTTP client against real servers on
 * 127.0.0.1 (one built with the SDK, one hand-written to misbehave).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "./cli-harness";
import { alive, buildCli, eventually, harn, runToEnd, workDir } from "./hang-harness";

const HELPER = join(repoRoot, "conformance/helpers/mcp_echo_server.mjs");
let work: ReturnType<typeof workDir>;
let n = 0;

beforeAll(() => {
  buildCli();
  work = workDir("harn-mcp-client-");
});

afterAll(() => work.dispose());

/** A fresh pid file path; the helper writes its pid there once started. */
function pidFile(): string {
  return join(work.dir, `server${++n}.pid`);
}

/** A project folder in the work dir holding `harn.toml`. */
function projectWith(name: string, toml: string): string {
  const project = join(work.dir, name);
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, "harn.toml"), toml);
  return project;
}

function pidIn(file: string): number {
  return Number(readFileSync(file, "utf8"));
}

const server = (name: string, pid: string, ...extra: string[]) => `{name: "${name}", command: ["node", ${JSON.stringify(HELPER)}, "--pid-file", ${JSON.stringify(pid)}${extra.map((e) => `, ${JSON.stringify(e)}`).join("")}]}`;

describe("no MCP server outlives the agent loop that started it", () => {
  it("normal end: the servers are gone once the loop returns, while the script goes on", async () => {
    const a = pidFile();
    const b = pidFile();
    const run = harn(
      work.dir,
      `llm_mock({text: "adding", tool_calls: [{id: "c1", name: "a__add", arguments: {a: 1, b: 2}}]})
llm_mock({text: "done"})
let r = agent_loop("Add", nil, {provider: "mock", tool_format: "native", mcp_servers: [${server("a", a)}, ${server("b", b)}]})
println(r.tools.successful)
println("loop returned")
sleep(1h)
`,
    );
    await eventually(() => run.stdout().includes("loop returned"), "the loop to return");
    expect(run.stdout()).toBe("[a__add]\nloop returned\n");
    await eventually(() => !alive(pidIn(a)) && !alive(pidIn(b)), "both servers to exit");
    expect(run.child.exitCode).toBe(null);
    run.child.kill("SIGTERM");
    await run.exit;
  });

  it("a throw: a failing bootstrap closes the servers it had opened; a failing model call closes them too", async () => {
    const a = pidFile();
    const r1 = await runToEnd(
      work.dir,
      `agent_loop("x", nil, {provider: "mock", mcp_servers: [${server("a", a)}, {name: "b", command: "definitely-not-a-binary-7q"}]})\n`,
    );
    expect(r1.code).toBe(1);
    expect(r1.stderr).toContain("error: Thrown: mcp_connect: failed to spawn 'definitely-not-a-binary-7q': No such file or directory (os error 2)");
    expect(alive(pidIn(a))).toBe(false);

    const b = pidFile();
    const r2 = await runToEnd(
      work.dir,
      `llm_mock({error: {category: "auth", message: "bad key"}})
agent_loop("x", nil, {provider: "mock", llm_retries: 0, mcp_servers: [${server("a", b)}]})
`,
    );
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain("bad key");
    expect(alive(pidIn(b))).toBe(false);
  });

  it("Ctrl-C during an MCP tool call interrupts the turn, the loop closes its servers, and a second Ctrl-C ends harn", async () => {
    const a = pidFile();
    const log = join(work.dir, `log${n}.jsonl`);
    const run = harn(
      work.dir,
      `llm_mock({text: "waiting", tool_calls: [{id: "c1", name: "a__hang", arguments: {}}]})
llm_mock({text: "done"})
let r = agent_loop("Wait", nil, {provider: "mock", tool_format: "native", mcp_servers: [${server("a", a, "--log", log)}]})
println(r.status)
sleep(1h)
`,
    );
    await eventually(() => existsSync(log) && readFileSync(log, "utf8").includes('"tools/call"'), "the tool call to reach the server");
    const pid = pidIn(a);
    run.child.kill("SIGINT");
    await eventually(() => run.stdout().includes("interrupted"), "the loop to return interrupted");
    await eventually(() => !alive(pid), "the server to exit");
    run.child.kill("SIGINT");
    expect((await run.exit).code).toBe(130);
  });

  it("SIGTERM during an MCP tool call ends harn and the server", async () => {
    const a = pidFile();
    const log = join(work.dir, `log${n}.jsonl`);
    const run = harn(
      work.dir,
      `llm_mock({text: "waiting", tool_calls: [{id: "c1", name: "a__hang", arguments: {}}]})
agent_loop("Wait", nil, {provider: "mock", tool_format: "native", mcp_servers: [${server("a", a, "--log", log)}]})
`,
    );
    await eventually(() => existsSync(log) && readFileSync(log, "utf8").includes('"tools/call"'), "the tool call to reach the server");
    const pid = pidIn(a);
    run.child.kill("SIGTERM");
    expect((await run.exit).code).toBe(124);
    expect(alive(pid)).toBe(false);
  });

  it("a client the script never disconnected is closed when the script ends", async () => {
    const a = pidFile();
    const r = await runToEnd(work.dir, `let c = mcp_connect("node", [${JSON.stringify(HELPER)}, "--pid-file", ${JSON.stringify(a)}])\nprintln(mcp_call(c, "echo", {text: "bye"}))\n`);
    expect(r).toEqual({ code: 0, stdout: "bye\n", stderr: "" });
    expect(alive(pidIn(a))).toBe(false);
  });
});

describe("requests", () => {
  it("a server that exits mid-call, cwd and env of the child, args display-converted", async () => {
    const r = await runToEnd(
      work.dir,
      `let c = mcp_connect("node", [${JSON.stringify(HELPER)}, "--exit-after", 1])
println(mcp_call(c, "echo", {text: "one"}))
println(try { mcp_call(c, "echo", {text: "two"}) })
println(try { mcp_call(c, "echo", {text: "three"}) })
let d = mcp_connect({name: "d", command: "node", args: [${JSON.stringify(HELPER)}], cwd: "/", env: {HARN_MCP_TEST: "set"}})
println(d)
println(mcp_call(d, "cwd"))
println(mcp_call(d, "env", {name: "HARN_MCP_TEST"}))
println(try { mcp_connect({name: "e", args: "x"}) })
`,
    );
    expect(r.stdout).toBe(
      "one\nResult.Err(Runtime error: MCP: server closed connection)\nResult.Err(Runtime error: MCP: server closed connection)\n<mcp_client:d>\n/\nset\nResult.Err(Runtime error: Invalid MCP server config: `args` must be a list of strings)\n",
    );
    expect(r.code).toBe(0);
  });
});

describe("[[mcp]] in harn.toml", () => {
  it("connects eager servers before the script, defers lazy ones to mcp_ensure_active, and warns about failures", async () => {
    const lazyPid = pidFile();
    const project = projectWith(
      "project",
      `[[mcp]]
name = "notes"
command = "node"
args = [${JSON.stringify(HELPER)}]

[[mcp]]
name = "later"
command = "node"
args = [${JSON.stringify(HELPER)}, "--pid-file", ${JSON.stringify(lazyPid)}]
lazy = true
card = "./later-card.json"

[[mcp]]
name = "broken"
command = "definitely-not-a-binary-7q"
`,
    );
    const run = harn(
      project,
      `println(mcp.notes)
println(mcp_call(mcp.notes, "echo", {text: "eager"}))
println(mcp_registry_status())
let c = mcp_ensure_active("later")
println(mcp_call(c, "echo", {text: "lazy"}))
let again = mcp_ensure_active("later")
println(mcp_registry_status().filter({ s -> s.name == "later" })[0])
mcp_release("later")
mcp_release("later")
println(mcp_registry_status().filter({ s -> s.name == "later" })[0])
println(try { mcp_call(c, "echo", {text: "gone"}) })
println(try { mcp_server_card("later") })
var reg = tool_registry()
reg = tool_define(reg, "echo", "Echo through the declared server", {parameters: {text: "string"}, executor: "mcp_server", mcp_server: "notes"})
llm_mock({text: "calling", tool_calls: [{id: "c1", name: "echo", arguments: {text: "via registry"}}]})
llm_mock({text: "done"})
let r = agent_loop("go", nil, {provider: "mock", tool_format: "native", tools: reg})
println(r.transcript.messages.filter({ m -> m.role == "tool" })[0].content)
`,
    );
    const { code } = await run.exit;
    expect(run.stderr()).toBe(
      "[harn] mcp: connected to 'notes'\n[harn] mcp: deferred 'later' (lazy, boots on first use)\n" +
        "warning: mcp: failed to connect to 'broken': Thrown: mcp_connect: failed to spawn 'definitely-not-a-binary-7q': No such file or directory (os error 2)\n",
    );
    expect(run.stdout()).toBe(
      [
        "<mcp_client:notes>",
        "eager",
        "[{active: false, lazy: false, name: broken, ref_count: 0}, {active: false, card: ./later-card.json, lazy: true, name: later, ref_count: 0}, {active: true, lazy: false, name: notes, ref_count: 1}]",
        "lazy",
        "{active: true, card: ./later-card.json, lazy: true, name: later, ref_count: 2}",
        "{active: false, card: ./later-card.json, lazy: true, name: later, ref_count: 0}",
        "Result.Err(Runtime error: MCP client is disconnected)",
        "Result.Err(mcp_server_card: io: read ./later-card.json: No such file or directory (os error 2))",
        "via registry",
        "",
      ].join("\n"),
    );
    expect(code).toBe(0);
    await eventually(() => !alive(pidIn(lazyPid)), "the released lazy server to exit");
  });
});

describe("skill-scoped MCP binding (mcp.md §2.4)", () => {
  it("binds a skill's declared servers while it is active and releases them when it is not; a server that cannot bind is a warning", async () => {
    const pid = pidFile();
    const project = projectWith(
      "skills-project",
      `[[mcp]]
name = "notes"
command = "node"
args = [${JSON.stringify(HELPER)}, "--pid-file", ${JSON.stringify(pid)}]
lazy = true
`,
    );
    const run = harn(
      project,
      `var skills = skill_registry()
skills = skill_define(skills, "notes", {description: "Keep notes", requires_mcp: ["notes"], mcp: ["nowhere"]})
var reg = tool_registry()
reg = tool_define(reg, "echo", "Echo a note", {parameters: {text: "string"}, executor: "mcp_server", mcp_server: "notes"})
llm_mock({text: "calling", tool_calls: [{id: "c1", name: "echo", arguments: {text: "bound"}}]})
llm_mock({text: "done"})
println(mcp_registry_status()[0])
// Not sticky: the second turn matches on the tool result's feedback
// message (text tool format), which no skill matches, so it deactivates.
let r = agent_loop("take notes", nil, {provider: "mock", tools: reg, skills: skills, skill_match: {sticky: false}})
for e in transcript_events(r.transcript) {
  if starts_with(e.kind, "skill_mcp") { println(e.kind + " " + json_stringify(e.metadata)) }
}
println(r.tools.successful)
println(mcp_registry_status()[0])
`,
    );
    const { code } = await run.exit;
    expect(run.stderr()).toBe(
      "[harn] mcp: deferred 'notes' (lazy, boots on first use)\n" +
        "warning: skill 'notes' could not bind MCP server 'nowhere': mcp: no server named 'nowhere' is registered (check harn.toml)\n",
    );
    expect(run.stdout()).toBe(
      [
        "{active: false, lazy: true, name: notes, ref_count: 0}",
        'skill_mcp_bound {"server":"notes","skill":"notes"}',
        'skill_mcp_bind_failed {"error":"mcp: no server named \'nowhere\' is registered (check harn.toml)","server":"nowhere","skill":"notes"}',
        'skill_mcp_unbound {"server":"notes","skill":"notes"}',
        "[echo]",
        "{active: false, lazy: true, name: notes, ref_count: 0}",
        "",
      ].join("\n"),
    );
    expect(code).toBe(0);
    await eventually(() => !alive(pidIn(pid)), "the released server to exit");
  });
});

/** An SDK Streamable HTTP server on 127.0.0.1 that wants a bearer token
 * and logs every request's method and headers. */
async function sdkHttpServer(token: string) {
  const log: { method: string; headers: IncomingMessage["headers"]; body: unknown }[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    log.push({ method: req.method!, headers: req.headers, body });
    if (req.headers.authorization !== `Bearer ${token}`) return void res.writeHead(401).end();
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (typeof id === "string" && !transport) {
      res.writeHead(404, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }));
    }
    if (!transport) {
      const t: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (s) => void sessions.set(s, t) });
      const mcp = new McpServer({ name: "remote", version: "1.0.0" });
      mcp.registerTool("shout", { description: "Upper-case", inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text: text.toUpperCase() }] }));
      await mcp.connect(t);
      transport = t;
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`;
  return {
    url,
    log,
    /** Forget every session, as a restarted server would. */
    forget: async () => {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((t) => t.close()));
    },
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

/** A hand-written server: `initialize` answered properly, then each path
 * misbehaves its own way on the next request. */
async function oddHttpServer() {
  const http: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const msg = JSON.parse(Buffer.concat(chunks).toString()) as { id?: number; method: string };
    if (msg.id === undefined) return void res.writeHead(202).end();
    if (msg.method === "initialize") {
      res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" });
      return void res.end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "odd", version: "1" } } }));
    }
    const mode = (req.url ?? "").split("/")[1];
    if (mode === "sse") {
      // a priming event, a notification, then the response as the last message
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("id: 1\ndata:\n\n");
      res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } })}\n\n`);
      return void res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { tools: [{ name: "from-sse", inputSchema: { type: "object" } }] } })}\n\n`);
    }
    if (mode === "empty-sse") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      return void res.end("event: ping\ndata: not json\n\n");
    }
    if (mode === "garbage") {
      res.writeHead(200, { "content-type": "text/plain" });
      return void res.end("<html>oops</html>");
    }
    if (mode === "rpc-error") {
      res.writeHead(400, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: { code: -32602, message: "bad cursor" } }));
    }
    res.writeHead(500).end();
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
  return {
    base,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

describe("Streamable HTTP client", () => {
  it("talks to an SDK server with a bearer token, only POSTs, and reports 401 as an authorization error", async () => {
    const srv = await sdkHttpServer("s3cret");
    try {
      const r = await runToEnd(
        work.dir,
        `let c = mcp_connect({name: "remote", transport: "http", url: "${srv.url}", auth_token: "s3cret", headers: {"x-extra": "yes"}})
println(c)
println(mcp_list_tools(c).map({ t -> t.name + "@" + t._mcp_server }))
println(mcp_call(c, "shout", {text: "hi"}))
mcp_disconnect(c)
println(try { mcp_connect({name: "remote", transport: "http", url: "${srv.url}", auth_token: "wrong"}) })
`,
      );
      expect(r.stdout).toBe("<mcp_client:remote>\n[shout@remote]\nHI\nResult.Err(MCP authorization required)\n");
      expect(r.code).toBe(0);
      expect(srv.log.every((e) => e.method === "POST")).toBe(true);
      const authorized = srv.log.filter((e) => e.headers.authorization === "Bearer s3cret");
      expect(authorized.map((e) => (e.body as { method: string }).method)).toEqual(["initialize", "notifications/initialized", "tools/list", "tools/call"]);
      expect(authorized[0]!.body).toMatchObject({ params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "harn", version: "0.1.0" } } });
      expect(authorized[1]!.body).toEqual({ jsonrpc: "2.0", method: "notifications/initialized", params: {} });
      for (const e of authorized) {
        expect(e.headers["x-extra"]).toBe("yes");
        expect(e.headers["mcp-protocol-version"]).toBe("2025-11-25");
        expect(e.headers.accept).toBe("application/json, text/event-stream");
      }
      expect(authorized[2]!.headers["mcp-session-id"]).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await srv.close();
    }
  });

  it("a server that lost the session (404) gets a new handshake and the request once more", async () => {
    const srv = await sdkHttpServer("k");
    try {
      const run = harn(
        work.dir,
        `let c = mcp_connect({name: "remote", transport: "http", url: "${srv.url}", auth_token: "k"})
println(mcp_call(c, "shout", {text: "one"}))
println(read_line())
println(mcp_call(c, "shout", {text: "two"}))
mcp_disconnect(c)
`,
        undefined,
        {},
        "pipe",
      );
      await eventually(() => run.stdout() === "ONE\n", "the first call");
      await srv.forget();
      run.child.stdin!.end("restarted\n");
      expect((await run.exit).code).toBe(0);
      expect(run.stderr()).toBe("");
      expect(run.stdout()).toBe("ONE\nrestarted\nTWO\n");
      const calls = srv.log.map((e) => `${(e.body as { method: string }).method}${e.headers["mcp-session-id"] === undefined ? "" : "+sid"}`);
      expect(calls).toEqual(["initialize", "notifications/initialized+sid", "tools/call+sid", "tools/call+sid", "initialize", "notifications/initialized+sid", "tools/call+sid"]);
      const sids = srv.log.map((e) => e.headers["mcp-session-id"]);
      expect(sids[6]).not.toBe(sids[3]);
    } finally {
      await srv.close();
    }
  });

  it("reads SSE bodies to their last JSON-RPC message; bodies that are neither are parse errors", async () => {
    const srv = await oddHttpServer();
    try {
      const connect = (mode: string) => `mcp_connect({name: "${mode}", transport: "http", url: "${srv.base}/${mode}"})`;
      const r = await runToEnd(
        work.dir,
        `println(mcp_list_tools(${connect("sse")}).map({ t -> t.name }))
println(try { mcp_list_tools(${connect("empty-sse")}) })
println(try { mcp_list_tools(${connect("garbage")}) })
println(try { mcp_list_tools(${connect("rpc-error")}) })
`,
      );
      expect(r.stdout).toBe(
        [
          "[from-sse]",
          "Result.Err(Runtime error: MCP HTTP response parse error: no JSON-RPC payload found in SSE stream)",
          "Result.Err(Runtime error: MCP HTTP response parse error (status 200): Unexpected token '<', \"<html>oops</html>\" is not valid JSON)",
          "Result.Err(MCP error (-32602): bad cursor)",
          "",
        ].join("\n"),
      );
    } finally {
      await srv.close();
    }
  });
});

describe("Server Cards over HTTP", () => {
  it("fetches a card, retries at /.well-known/mcp-card, caches by source, and names the failure", async () => {
    const gets: string[] = [];
    const http = createServer((req, res) => {
      gets.push(req.url ?? "");
      if (req.url === "/cards/notes.json" || req.url === "/base/.well-known/mcp-card") {
        res.writeHead(200, { "content-type": "application/json" });
        return void res.end(JSON.stringify({ name: req.url.startsWith("/base") ? "from-well-known" : "notes", version: "1.0" }));
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
    try {
      const r = await runToEnd(
        work.dir,
        `println(mcp_server_card("${base}/cards/notes.json").name)
println(mcp_server_card("${base}/cards/notes.json").name)
println(mcp_server_card("${base}/base/").name)
println(try { mcp_server_card("${base}/.well-known/missing") })
`,
      );
      expect(r.stdout).toBe(`notes\nnotes\nfrom-well-known\nResult.Err(mcp_server_card: http: GET ${base}/.well-known/missing returned HTTP 404)\n`);
      expect(gets).toEqual(["/cards/notes.json", "/base/", "/base/.well-known/mcp-card", "/.well-known/missing"]);
    } finally {
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    }
  });
});
