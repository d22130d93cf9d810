/**
 * The MCP layer below the builtins (spec/mcp.md): server specs, the
 * request timeout and serialisation of one connection against the
 * SDK-based helper server, result mapping, and the served script's
 * template matching and pagination.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { display, HarnError, HDict, type Value } from "@harn/vm";
import { McpConnection } from "../../src/mcp/client";
import { parseServerSpec, readLoopServers } from "../../src/mcp/config";
import { resourceValue, toolResultValue } from "../../src/mcp/results";
import { matchTemplate } from "../../src/mcp/serve";
import { raised, rig } from "../core/harness";

const HELPER = join(resolve(dirname(fileURLToPath(import.meta.url)), "../../../.."), "conformance/helpers/mcp_echo_server.mjs");
const open: McpConnection[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** A server that answers `initialize` (at once: no SDK to load) and then
 * only `tools/call` of `echo`. */
const TERSE = `require("readline").createInterface({ input: process.stdin }).on("line", (l) => {
  const m = JSON.parse(l);
  const reply = (result) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }) + "\\n");
  if (m.method === "initialize") reply({ protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "terse", version: "1" } });
  else if (m.method === "tools/call" && m.params.name === "echo") reply({ content: [{ type: "text", text: m.params.arguments.text }] });
});`;

async function connect(timeoutMs?: number): Promise<McpConnection> {
  const r = rig();
  const args = timeoutMs === undefined ? [HELPER] : ["-e", TERSE];
  const spec = parseServerSpec({ name: "echo", command: process.execPath, args });
  const c = await McpConnection.open(r.rt, spec, timeoutMs === undefined ? {} : { timeoutMs });
  open.push(c);
  return c;
}

/** The description of the error a request fails with. */
async function failure(request: () => Promise<unknown>): Promise<string> {
  return (await raised(request as () => Promise<Value>)).description();
}

describe("a connection", () => {
  it("times out a request the server never answers, with the method in the text, and stays usable", async () => {
    const c = await connect(1500);
    expect(await failure(() => c.request("tools/call", { name: "hang", arguments: {} }))).toBe("Runtime error: MCP: server did not respond to 'tools/call' within 1.5s");
    expect(await c.request("tools/call", { name: "echo", arguments: { text: "still here" } })).toEqual({ content: [{ type: "text", text: "still here" }] });
  });

  it("runs its requests one at a time, in order", async () => {
    const c = await connect();
    const order: string[] = [];
    await Promise.all(
      ["a", "b", "c", "d"].map((t) => c.request("tools/call", { name: "echo", arguments: { text: t } }).then((r) => order.push((r.content as { text: string }[])[0]!.text))),
    );
    expect(order).toEqual(["a", "b", "c", "d"]);
  });

  it("is disconnected after close, and close twice is fine", async () => {
    const c = await connect();
    await c.close();
    await c.close();
    expect(c.connected).toBe(false);
    expect(await failure(() => c.request("tools/list", {}))).toBe("Runtime error: MCP client is disconnected");
  });

  it("reports a JSON-RPC error as the thrown `MCP error (<code>): <message>`", async () => {
    const c = await connect();
    expect(await failure(() => c.request("no/such/method", {}))).toBe("Thrown: MCP error (-32601): Method not found");
  });
});

describe("server specs", () => {
  it("defaults and wrong types", () => {
    expect(parseServerSpec({ name: " notes ", command: "node" })).toEqual({
      name: "notes",
      transport: "stdio",
      command: "node",
      args: [],
      env: {},
      url: "",
      authToken: null,
      protocolVersion: "2025-11-25",
      proxyServerName: null,
      cwd: null,
      headers: {},
    });
    const bad = (o: Record<string, unknown>) => {
      try {
        parseServerSpec(o as never);
      } catch (e) {
        return (e as HarnError).description();
      }
      return "ok";
    };
    expect(bad({ name: "a", transport: "ws" })).toBe(`Runtime error: Invalid MCP server config: unknown transport 'ws' for 'a' (expected "stdio" or "http")`);
    expect(bad({ name: "a", env: { X: 1 } })).toBe("Runtime error: Invalid MCP server config: `env` must be a table of strings");
    expect(bad({ command: "node" })).toBe("Runtime error: Invalid MCP server config: `name` is required");
  });

  it("agent_loop entries: a command list is the command and its args, unless args are given", () => {
    const list = (...entries: Record<string, Value>[]) => entries.map((e) => HDict.of(e));
    const specs = readLoopServers(list({ name: "a", command: ["node", "srv.mjs", "--ro"] }, { name: "b", command: ["node", "x"], args: ["y"] }));
    expect(specs.map((s) => [s.name, s.command, s.args])).toEqual([
      ["a", "node", ["srv.mjs", "--ro"]],
      ["b", "node", ["y"]],
    ]);
    expect(readLoopServers(null)).toEqual([]);
  });
});

describe("results", () => {
  const text = (v: Value) => (typeof v === "string" ? v : display(v));
  it("tools/call: error text joined, one text item, nothing, other content", () => {
    expect(() => toolResultValue({ isError: true, content: [{ type: "text", text: "a" }, { type: "image", data: "x" }, { type: "text", text: "b" }] })).toThrow();
    try {
      toolResultValue({ isError: true, content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] });
    } catch (e) {
      expect((e as HarnError).caughtValue()).toBe("a\nb");
    }
    try {
      toolResultValue({ isError: true, content: [] });
    } catch (e) {
      expect((e as HarnError).caughtValue()).toBe("{content: [], isError: true}");
    }
    expect(toolResultValue({ content: [{ type: "text", text: "hi" }], structuredContent: { x: 1 } })).toBe("hi");
    expect(toolResultValue({})).toBe(null);
    expect(text(toolResultValue({ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }))).toBe("[{text: a, type: text}, {text: b, type: text}]");
  });

  it("resources/read: one text, none, binary", () => {
    expect(resourceValue({ contents: [{ uri: "a://b", text: "t" }] })).toBe("t");
    expect(resourceValue({ contents: [] })).toBe(null);
    expect(text(resourceValue({ contents: [{ uri: "a://b", blob: "AA==" }] }))).toBe("[{blob: AA==, uri: a://b}]");
  });
});

describe("served resource templates (RFC 6570 level 1)", () => {
  it("captures up to the literal that follows, to the end when last", () => {
    expect(matchTemplate("notes://{folder}/{id}.md", "notes://work/42.md")).toEqual({ folder: "work", id: "42" });
    expect(matchTemplate("notes://{id}", "notes://a/b")).toEqual({ id: "a/b" });
    expect(matchTemplate("notes://{id}.md", "notes://.md")).toEqual({ id: "" });
    expect(matchTemplate("notes://{id}.md", "notes://42.txt")).toBe(null);
    expect(matchTemplate("notes://{a}{b}", "notes://xy")).toEqual({ a: "xy", b: "" });
    expect(matchTemplate("memo://today", "memo://today")).toEqual({});
    expect(matchTemplate("memo://today", "memo://todayx")).toBe(null);
  });
});

describe("the mcp global of declared servers", () => {
  it("is not defined when nothing connected", async () => {
    const r = rig();
    const { startDeclaredServers } = await import("../../src/mcp/registry");
    const lines: string[] = [];
    await startDeclaredServers(r.rt, [{ name: "later", command: "node", lazy: true }, { name: "bad", transport: 5 }], (l) => lines.push(l));
    expect(lines).toEqual(["[harn] mcp: deferred 'later' (lazy, boots on first use)", "warning: mcp: Runtime error: Invalid MCP server config: `transport` must be a string"]);
    expect(r.rt.globals.has("mcp")).toBe(false);
    expect(display(r.call("mcp_registry_status"))).toBe("[{active: false, lazy: true, name: later, ref_count: 0}]");
  });
});
