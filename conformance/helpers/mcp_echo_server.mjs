// An MCP server for the tests (spec/mcp.md §7), written with the official
// SDK: stdio by default, Streamable HTTP on 127.0.0.1 with `--http` (it then
// prints its URL as the first line of stdout). Options:
//   --protocol V       answer `initialize` with protocol version V
//   --http             serve Streamable HTTP on an ephemeral port
//   --token T          (http) require `Authorization: Bearer T`
//   --log FILE         append every JSON-RPC request it receives to FILE
//   --noise            write non-JSON lines and notifications to stdout first
//   --exit-after N     exit after answering N tools/call requests
//   --pid-file FILE    write the server's pid to FILE
import { appendFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const argv = process.argv.slice(2);
const opt = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const protocol = opt("--protocol");
const logFile = opt("--log");
const exitAfter = opt("--exit-after") === undefined ? Infinity : Number(opt("--exit-after"));
if (opt("--pid-file")) writeFileSync(opt("--pid-file"), String(process.pid));
let calls = 0;

const text = (t) => ({ content: [{ type: "text", text: String(t) }] });

function build() {
  const server = new McpServer({ name: "echo", version: "1.0.0" });
  server.registerTool("echo", { description: "Echo the text back", inputSchema: { text: z.string() } }, async ({ text: t }) => text(t));
  server.registerTool("add", { description: "Add two integers", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => text(a + b));
  server.registerTool("fail", { description: "Fail with the given message", inputSchema: { message: z.string() } }, async ({ message }) => ({
    content: [{ type: "text", text: message }],
    isError: true,
  }));
  server.registerTool("pixel", { description: "A one-pixel image" }, async () => ({
    content: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }],
  }));
  server.registerTool("nothing", { description: "Returns no content" }, async () => ({ content: [] }));
  server.registerTool("env", { description: "The value of an environment variable", inputSchema: { name: z.string() } }, async ({ name }) =>
    text(process.env[name] ?? "(unset)"),
  );
  server.registerTool("cwd", { description: "The working directory" }, async () => text(process.cwd()));
  server.registerTool("hang", { description: "Never answers" }, () => new Promise(() => {}));
  server.registerResource("hello", "memo://hello", { description: "A greeting", mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, text: "hello from memo", mimeType: "text/plain" }],
  }));
  server.registerResource("blob", "bin://one", { mimeType: "application/octet-stream" }, async (uri) => ({
    contents: [{ uri: uri.href, blob: "AAE=", mimeType: "application/octet-stream" }],
  }));
  server.registerResource("note", new ResourceTemplate("notes://{id}", { list: undefined }), { description: "A note by id" }, async (uri, { id }) => ({
    contents: [{ uri: uri.href, text: `note ${id}` }],
  }));
  server.registerPrompt("greet", { description: "Greet someone", argsSchema: { name: z.string() } }, ({ name }) => ({
    messages: [{ role: "user", content: { type: "text", text: `Say hello to ${name}` } }],
  }));
  const inner = server.server;
  const handle = inner._onrequest.bind(inner);
  inner._onrequest = (request, extra) => {
    if (logFile) appendFileSync(logFile, JSON.stringify(request) + "\n");
    if (request.method === "tools/call" && ++calls > exitAfter) process.exit(0);
    return handle(request, extra);
  };
  if (protocol) {
    const init = inner._requestHandlers.get("initialize");
    inner._requestHandlers.set("initialize", async (req, extra) => ({ ...(await init(req, extra)), protocolVersion: protocol }));
  }
  return server;
}

if (argv.includes("--http")) {
  const token = opt("--token");
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    if (logFile) appendFileSync(logFile, JSON.stringify({ http: req.method, authorization: req.headers.authorization ?? null, headers: req.headers }) + "\n");
    if (token !== undefined && req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401).end();
      return;
    }
    if (req.method === "GET") {
      res.writeHead(404).end();
      return;
    }
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => sessions.set(sid, transport) });
      await build().connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  http.listen(0, "127.0.0.1", () => {
    process.stdout.write(`http://127.0.0.1:${http.address().port}/mcp\n`);
  });
} else {
  if (argv.includes("--noise")) {
    process.stdout.write("this line is not JSON\n\n");
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "booting" } }) + "\n");
  }
  await build().connect(new StdioServerTransport());
}
