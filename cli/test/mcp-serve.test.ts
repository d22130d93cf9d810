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

describe("harn serve mcp over stdio", () => {
  it("serves the script's tools, resources and prompts to the SDK's client, and ends with its stdin", async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [harnBin, "serve", "mcp", script], cwd: work.dir, env: cleanEnv() as Record<string, string>, stderr: "pipe" });
    let stderr = "";
    transport.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(transport);
    const pid = transport.pid!;
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
      expect(stderr).toContain("set up on stderr\n[harn] serve mcp: serving 4 tools, 2 resources, 1 prompt as 'notes'\n");
      expect(stderr).toContain("handler output\n");
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
