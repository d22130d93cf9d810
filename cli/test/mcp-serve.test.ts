/**
 * `harn serve mcp` (spec/mcp.md §4) through the built `harn`, driven by the
 * official SDK's client as an editor or agent would: over stdio, and over
 * Streamable HTTP on 127.0.0.1 with API keys. The server process must end
 * when its client goes away (stdin EOF) or on SIGTERM, leaving nothing.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alive, buildCli, eventually, harnBin, workDir } from "./hang-harness";
import { cleanEnv } from "./llm-harness";

let work: ReturnType<typeof workDir>;
let script = "";

const SCRIPT = `tool double(n: int) -> int {
  description "Double a number"
  n * 2
}

pipeline main(task) {
  println("set up on stderr")
  var reg = tool_registry()
  reg = tool_define(reg, "double", "Double a number", tool_find(double, "double"))
  reg = tool_define(reg, "quota", "Always over quota", {parameters: {}, handler: { a -> throw "quota exceeded" }})
  reg = tool_define(reg, "stats", "Counts", {parameters: {}, returns: {type: "object", properties: {count: {type: "integer"}}}, handler: { a -> {count: 2} }})
  reg = tool_define(reg, "shout", "Prints, then answers", {parameters: {text: "string"}, handler: { a ->
    println("handler output")
    uppercase(a.text)
  }})
  mcp_resource({uri: "memo://today", name: "today", text: "buy milk", mime_type: "text/plain"})
  mcp_resource_template({uri_template: "notes://{id}", name: "note", handler: { v -> "note " + v.id }})
  mcp_prompt({name: "review", arguments: [{name: "file", required: true}], handler: { a -> "review " + a.file }})
  mcp_serve(reg)
}
`;

beforeAll(() => {
  buildCli();
  work = workDir("harn-mcp-serve-");
  script = join(work.dir, "notes.harn");
  writeFileSync(script, SCRIPT);
});

afterAll(() => work.dispose());

const ANY = z.object({}).passthrough();

/** The SDK's client on `harn serve mcp FILE` over stdio; `stderr()` is what harn wrote there so far. */
async function stdioClient(file: string) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [harnBin, "serve", "mcp", file], cwd: work.dir, env: cleanEnv() as Record<string, string>, stderr: "pipe" });
  let err = "";
  transport.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport);
  return { client, pid: transport.pid!, stderr: () => err };
}

describe("harn serve mcp over stdio", () => {
  it("serves the script's tools, resources and prompts to the SDK's client, and ends with its stdin", async () => {
    const { client, pid, stderr } = await stdioClient(script);
    try {
      expect(client.getServerVersion()).toEqual({ name: "notes", version: "0.1.0" });
      expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true }, logging: {} });
      // The SDK validates the listing (an outputSchema must be an object
      // schema: `double`'s `int` return type is left out).
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["double", "quota", "stats", "shout"]);
      expect(tools[0]).toEqual({ name: "double", description: "Double a number", inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } });
      expect(tools[2]!.outputSchema).toEqual({ type: "object", properties: { count: { type: "integer" } } });
      expect(await client.callTool({ name: "double", arguments: { n: 21 } })).toEqual({ content: [{ type: "text", text: "42" }], isError: false });
      expect(await client.callTool({ name: "quota", arguments: {} })).toEqual({ content: [{ type: "text", text: "Thrown: quota exceeded" }], isError: true });
      expect(await client.callTool({ name: "stats", arguments: {} })).toEqual({ content: [{ type: "text", text: "{count: 2}" }], isError: false, structuredContent: { count: 2 } });
      expect(await client.callTool({ name: "shout", arguments: { text: "hi" } })).toEqual({ content: [{ type: "text", text: "HI" }], isError: false });
      expect(await client.readResource({ uri: "memo://today" })).toEqual({ contents: [{ uri: "memo://today", text: "buy milk", mimeType: "text/plain" }] });
      expect(await client.readResource({ uri: "notes://7" })).toEqual({ contents: [{ uri: "notes://7", text: "note 7" }] });
      expect((await client.listResourceTemplates()).resourceTemplates).toEqual([{ uriTemplate: "notes://{id}", name: "note" }]);
      expect(await client.getPrompt({ name: "review", arguments: { file: "a.harn" } })).toEqual({ messages: [{ role: "user", content: { type: "text", text: "review a.harn" } }] });
      const unsupported = await client.request({ method: "completion/complete", params: { ref: { type: "ref/prompt", name: "review" }, argument: { name: "file", value: "a" } } }, ANY).catch((e: unknown) => e);
      expect(unsupported).toBeInstanceOf(McpError);
      expect((unsupported as McpError).code).toBe(-32601);
      expect((unsupported as McpError).data).toMatchObject({ type: "mcp.unsupportedFeature", method: "completion/complete", role: "server" });
      const unknown = await client.request({ method: "tools/call", params: { name: "nope", arguments: {} } }, ANY).catch((e: unknown) => e);
      expect((unknown as McpError).message).toBe("MCP error -32602: Unknown tool: nope");
      // the script's output went to stderr, never into the protocol
      expect(stderr()).toContain("set up on stderr\n[harn] serve mcp: serving 4 tools, 2 resources, 1 prompt as 'notes'\n");
      expect(stderr()).toContain("handler output\n");
    } finally {
      await client.close();
    }
    await eventually(() => !alive(pid), "harn serve mcp to exit once its stdin closed");
  });

  it("answers requests already sent when stdin ends, exits 0, and drops lines that are not JSON", async () => {
    const child = spawn(process.execPath, [harnBin, "serve", "mcp", script], { cwd: work.dir, env: cleanEnv(), stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    child.stdin.end(
      [
        "not json",
        "",
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "t", version: "1" } } }),
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
        JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "double", arguments: { n: 2 } } }),
        JSON.stringify({ jsonrpc: "2.0", id: 3, method: "no/such" }),
      ].join("\n") + "\n",
    );
    expect(await exited).toBe(0);
    const replies = out.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(replies).toEqual([
      { jsonrpc: "2.0", id: 1, result: expect.objectContaining({ protocolVersion: "2025-11-25" }) },
      { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "4" }], isError: false } },
      { jsonrpc: "2.0", id: 3, error: { code: -32601, message: "Method not found: no/such" } },
    ]);
  });

  it("refuses to serve a script that registered no tools", async () => {
    const bare = join(work.dir, "bare.harn");
    writeFileSync(bare, `mcp_resource({uri: "a://b", name: "b", text: "t"})\nprintln("ran")\n`);
    const child = spawn(process.execPath, [harnBin, "serve", "mcp", bare], { cwd: work.dir, env: cleanEnv(), stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((r) => child.on("exit", (c) => r(c)));
    expect({ code, out, err }).toEqual({
      code: 1,
      out: "",
      err: "ran\nerror: pipeline did not call mcp_serve(registry)\nhint: call mcp_serve(tools) at the end of your pipeline\n",
    });
  });
});

const EXPORTS = `let greeting = "hello"

pub fn add(a: int, b: int = 2) -> int {
  return a + b
}

pub fn greet(name: string) -> dict {
  return {text: greeting + " " + name, n: len(name)}
}

pub fn fail(why) {
  throw "no: " + why
}

pub fn nap(ms: int) -> string {
  sleep(ms)
  return "rested"
}

fn hidden() { return 1 }

pipeline main() {
  println("the pipeline does not run in export mode")
}
`;

describe("harn serve mcp of a file of pub fns (export mode)", () => {
  it("serves each pub fn as a tool, runs calls concurrently, reports progress, and cancels a call the client gave up", async () => {
    const file = join(work.dir, "calc.harn");
    writeFileSync(file, EXPORTS);
    const { client, pid, stderr } = await stdioClient(file);
    try {
      expect(client.getServerVersion()).toEqual({ name: "calc", version: "0.1.0" });
      expect(client.getServerCapabilities()).toEqual({ tools: {}, logging: {} });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["add", "fail", "greet", "nap"]);
      expect(tools[0]).toEqual({
        name: "add",
        description: "Invoke exported Harn function 'add'.",
        inputSchema: { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, required: ["a"] },
      });
      expect(tools[1]!.inputSchema).toEqual({ type: "object", properties: { why: {} }, required: ["why"] });
      expect(tools[2]!.outputSchema).toEqual({ type: "object" });
      const text = (r: unknown) => (r as { content: { text: string }[] }).content[0]!.text;
      // by name (a default left out), positionally
      expect(text(await client.callTool({ name: "add", arguments: { a: 40 } }))).toBe("42");
      expect(text(await client.request({ method: "tools/call", params: { name: "add", arguments: [1, 2] } }, ANY))).toBe("3");
      // a top-level binding of the file is there; a dict is structured too
      expect(await client.callTool({ name: "greet", arguments: { name: "bo" } })).toEqual({
        content: [{ type: "text", text: '{\n  "n": 2,\n  "text": "hello bo"\n}' }],
        structuredContent: { n: 2, text: "hello bo" },
      });
      expect(await client.callTool({ name: "fail", arguments: { why: "x" } })).toEqual({ content: [{ type: "text", text: "Thrown: no: x" }], isError: true });
      const bad = await client.request({ method: "tools/call", params: { name: "add", arguments: 5 } }, ANY).catch((e: unknown) => e);
      expect((bad as McpError).message).toBe("MCP error -32602: tool arguments must be an object, array, or null");
      const prompt = await client.getPrompt({ name: "any" }).catch((e: unknown) => e);
      expect((prompt as McpError).message).toBe("MCP error -32602: Unknown prompt");

      // progress: at the start, then every second
      const progress: unknown[] = [];
      const napped = await client.callTool({ name: "nap", arguments: { ms: 1300 } }, undefined, { onprogress: (p) => void progress.push(p) });
      expect(text(napped)).toBe("rested");
      expect(progress.slice(0, 2)).toEqual([
        { progress: 0, message: "Starting nap" },
        { progress: 1, message: "Running nap" },
      ]);

      // a long call does not hold up others; cancelling it ends it (else
      // the server would wait for it when its stdin closes)
      const giveUp = new AbortController();
      const long = client.callTool({ name: "nap", arguments: { ms: 600_000 } }, undefined, { signal: giveUp.signal }).catch((e: unknown) => e);
      expect(text(await client.callTool({ name: "add", arguments: { a: 1, b: 1 } }))).toBe("2");
      giveUp.abort("enough");
      expect(((await long) as McpError).message).toBe("MCP error -32001: enough");
    } finally {
      await client.close();
    }
    await eventually(() => !alive(pid), "harn serve mcp to exit once its stdin closed");
    // it ended on its own: a call still running would have kept it until
    // the client's SIGTERM (which harn reports on stderr)
    expect(stderr()).toBe("[harn] MCP workflow server ready on stdio\n");
  });

  it("wants initialize with 2025-11-25 before anything but ping; a line that is not JSON gets -32700", async () => {
    const file = join(work.dir, "calc2.harn");
    writeFileSync(file, EXPORTS);
    const child = spawn(process.execPath, [harnBin, "serve", "mcp", file], { cwd: work.dir, env: cleanEnv(), stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    const init = (id: number, v: string) => JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: v, capabilities: {}, clientInfo: { name: "t", version: "1" } } });
    child.stdin.end(
      [
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        "not json",
        "",
        JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
        init(3, "2024-11-05"),
        init(4, "2025-11-25"),
        JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "add", arguments: null } }),
      ].join("\n") + "\n",
    );
    expect(await exited).toBe(0);
    const byId = new Map(out.trim().split("\n").map((l) => JSON.parse(l) as { id: number }).map((m) => [m.id, m]));
    expect(byId.get(1)).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32002, message: "server not initialized" } });
    expect(byId.get(2)).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    // one reply for the bad line, none for the blank one
    expect(out.trim().split("\n")).toHaveLength(6);
    expect(byId.get(null as unknown as number)).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: ./) } });
    expect(byId.get(3)).toEqual({ jsonrpc: "2.0", id: 3, error: { code: -32602, message: "Unsupported protocol version", data: { supported: ["2025-11-25"], requested: "2024-11-05" } } });
    expect(byId.get(4)).toMatchObject({ result: { protocolVersion: "2025-11-25", serverInfo: { name: "calc2" } } });
    // no arguments: add(a) without its a is a failed call, not a protocol error
    expect(byId.get(5)).toMatchObject({ result: { isError: true } });
  });
});

describe("harn serve mcp over Streamable HTTP", () => {
  it("requires an API key, serves sessions to the SDK's client, and ends on SIGTERM", async () => {
    const child = spawn(process.execPath, [harnBin, "serve", "mcp", "--transport", "http", "--bind", "127.0.0.1:0", "--api-key", "k1, k2", script], {
      cwd: work.dir,
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    try {
      await eventually(() => /ready on (\S+)/.test(err), "the server to listen");
      const url = /ready on (\S+)/.exec(err)![1]!;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } };
      const denied = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(init) });
      expect(denied.status).toBe(401);
      expect(await denied.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32001 }, id: null });
      for (const headers of [{ authorization: "Bearer k2" }, { "x-api-key": "k1" }] as Record<string, string>[]) {
        const client = new Client({ name: "test", version: "1.0.0" });
        await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["double", "quota", "stats", "shout"]);
        expect(await client.callTool({ name: "double", arguments: { n: 5 } })).toEqual({ content: [{ type: "text", text: "10" }], isError: false });
        await client.close();
      }
      const wrong = new Client({ name: "test", version: "1.0.0" });
      await expect(wrong.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: "Bearer nope" } } }))).rejects.toMatchObject({ code: 401 });
      child.kill("SIGTERM");
      expect(await exited).toBe(124);
    } finally {
      child.kill("SIGKILL");
    }
    expect(alive(child.pid!)).toBe(false);
  });

  it("API keys need --transport http", async () => {
    const child = spawn(process.execPath, [harnBin, "serve", "mcp", "--api-key", "k", script], { cwd: work.dir, env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((r) => child.on("exit", (c) => r(c)));
    expect({ code, err }).toEqual({ code: 1, err: "error: HTTP auth flags require `harn serve mcp --transport http`\n" });
  });
});
