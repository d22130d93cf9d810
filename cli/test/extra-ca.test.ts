/**
 * NODE_EXTRA_CA_CERTS, deferred (cli/bin/harn.cjs, cli/src/deferred-ca.ts,
 * stdlib tls/extra-ca.ts): `harn` run as a program starts Node without the
 * variable and trusts the bundle itself on its first TLS connection. Every
 * test runs the bin as a program (its sh part runs) against a real HTTPS
 * server on 127.0.0.1 whose self-signed certificate (fixtures/tls, valid
 * until 2126, SAN IP:127.0.0.1) is trusted only through the variable.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openAiChatStream } from "../../packages/stdlib/test/llm/wire";
import { acceptHandshake, frame } from "../../packages/stdlib/test/http/websocket-peer";
import { buildCli, harnBin, repoRoot } from "./cli-harness";

const bin = harnBin;
const fixtures = join(repoRoot, "cli/test/fixtures/tls");
const cert = join(fixtures, "cert.pem");

let server: https.Server;
let origin = "";
let work = "";

/** A WebSocket server's side of the handshakes, sending one text frame (RFC 6455). */
function greetOverWebSocket(req: { headers: Record<string, string | string[] | undefined> }, socket: Socket): void {
  acceptHandshake(socket, String(req.headers["sec-websocket-key"]));
  socket.write(frame(1, Buffer.from("hello over wss")));
  // The client's close frame (opcode 8) gets the closing handshake's answer.
  socket.on("data", (frame: Buffer) => {
    if ((frame[0]! & 0x0f) === 8) socket.end(Buffer.from([0x88, 0x00]));
  });
  socket.on("error", () => undefined);
}

beforeAll(async () => {
  buildCli();
  work = mkdtempSync(join(tmpdir(), "harn-extra-ca-"));
  server = https.createServer({ key: readFileSync(join(fixtures, "key.pem")), cert: readFileSync(cert) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      if (req.url === "/v1/chat/completions") {
        const reply = openAiChatStream({ model: "gpt-test", text: ["trusted ", "model"], usage: { input: 1, output: 2 } });
        res.writeHead(200, { "content-type": reply.contentType });
        res.end(reply.body);
        return;
      }
      res.end("secure hello");
    });
  });
  server.on("upgrade", greetOverWebSocket);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  origin = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((done) => server.close(() => done()));
  rmSync(work, { recursive: true, force: true });
});

function script(name: string, text: string): string {
  const p = join(work, name);
  writeFileSync(p, text);
  return p;
}

/** `harn ARGS` exec'd as a program (through the bin's shebang), with the
 * CA variables of the test's own environment replaced by `env`. Async: the
 * HTTPS server lives in this process. */
function harn(args: string[], env: Record<string, string>, how: "program" | "node" = "program"): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  for (const k of ["NODE_EXTRA_CA_CERTS", "NODE_OPTIONS", "HARN_DEFERRED_EXTRA_CA_CERTS", "FORCE_COLOR"]) delete base[k];
  const [cmd, argv] = how === "program" ? [bin, args] : [process.execPath, [bin, ...args]];
  const child = spawn(cmd, argv, { env: { ...base, ...env }, cwd: work, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (t: string) => (stdout += t));
  child.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t));
  return new Promise((done, fail) => {
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

const certError = (url: string) => `http: request failed: error sending request for url (${url}): self-signed certificate`;

describe("NODE_EXTRA_CA_CERTS deferred by the harn bin", async () => {
  it("http_get trusts the bundle, and fails with the certificate error without it", async () => {
    const get = script("get.harn", `println(http_get("${origin}/").body)\nprintln(http_get("${origin}/again").body)\n`);
    expect(await harn(["run", get], { NODE_EXTRA_CA_CERTS: cert })).toEqual({ code: 0, stdout: "secure hello\nsecure hello\n", stderr: "" });
    const without = await harn(["run", get], {});
    expect(without.code).toBe(1);
    expect(without.stderr).toContain(certError(`${origin}/`));
  });

  it("run by node directly, Node loads the bundle itself and the request works too", async () => {
    const get = script("get-node.harn", `println(http_get("${origin}/").body)\n`);
    expect(await harn(["run", get], { NODE_EXTRA_CA_CERTS: cert }, "node")).toEqual({ code: 0, stdout: "secure hello\n", stderr: "" });
  });

  it("an LLM provider over HTTPS (OpenAI wire format) trusts the bundle", async () => {
    const call = script("llm.harn", `let r = llm_call("hi", nil, {provider: "openai", model: "gpt-test"})\nprintln(r.text)\n`);
    const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${origin}/v1`, HARN_LLM_PROVIDER: "openai" };
    expect(await harn(["run", call], { ...env, NODE_EXTRA_CA_CERTS: cert })).toEqual({ code: 0, stdout: "trusted model\n", stderr: "" });
    const without = await harn(["run", call], env);
    expect(without.code).toBe(1);
    expect(without.stderr).toContain("self-signed certificate");
  });

  it("a wss:// WebSocket trusts the bundle", async () => {
    const ws = script("ws.harn", `let h = websocket_connect("${origin.replace("https", "wss")}/socket")\nprintln(websocket_receive(h, 5000).data)\nwebsocket_close(h)\n`);
    expect(await harn(["run", ws], { NODE_EXTRA_CA_CERTS: cert })).toEqual({ code: 0, stdout: "hello over wss\n", stderr: "" });
    expect((await harn(["run", ws], {})).code).toBe(1);
  });

  it("scripts and child processes see the user's environment unchanged", async () => {
    const show = script(
      "env.harn",
      `println(env("NODE_EXTRA_CA_CERTS"))\nprintln(env("HARN_DEFERRED_EXTRA_CA_CERTS"))\nprint(exec("env").stdout)\n`,
    );
    const r = await harn(["run", show], { NODE_EXTRA_CA_CERTS: cert });
    expect(r.code).toBe(0);
    const [own, deferred, ...child] = r.stdout.split("\n");
    expect([own, deferred]).toEqual([cert, "nil"]);
    expect(child).toContain(`NODE_EXTRA_CA_CERTS=${cert}`);
    expect(child.filter((l) => l.startsWith("HARN_DEFERRED"))).toEqual([]);
  });

  it("an unreadable bundle: no warning until a TLS connection, then Node's warning once", async () => {
    const missing = join(work, "no-such-bundle.pem");
    const quiet = script("quiet.harn", `println(1 + 1)\n`);
    expect(await harn(["run", quiet], { NODE_EXTRA_CA_CERTS: missing })).toEqual({ code: 0, stdout: "2\n", stderr: "" });
    const twice = script(
      "twice.harn",
      `for path in ["/a", "/b"] {\n  try { http_get("${origin}" + path) } catch (e) { println(e) }\n}\n`,
    );
    const r = await harn(["run", twice], { NODE_EXTRA_CA_CERTS: missing });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`Warning: Ignoring extra certs from \`${missing}\`, load failed: error:80000002:system library::No such file or directory\n`);
    expect(r.stdout).toBe(`${certError(`${origin}/a`)}\n${certError(`${origin}/b`)}\n`);
  });

  it("a CA store chosen in NODE_OPTIONS leaves the bundle to Node", async () => {
    const missing = join(work, "no-such-bundle.pem");
    const quiet = script("quiet-openssl.harn", `println("ran")\n`);
    // Node itself warns at start-up, before the script: nothing was deferred.
    const r = await harn(["run", quiet], { NODE_EXTRA_CA_CERTS: missing, NODE_OPTIONS: "--use-openssl-ca" });
    expect(r).toEqual({
      code: 0,
      stdout: "ran\n",
      stderr: `Warning: Ignoring extra certs from \`${missing}\`, load failed: error:80000002:system library::No such file or directory\n`,
    });
    const get = script("get-openssl.harn", `println(http_get("${origin}/").body)\n`);
    expect(await harn(["run", get], { NODE_EXTRA_CA_CERTS: cert, NODE_OPTIONS: "--use-openssl-ca" })).toEqual({ code: 0, stdout: "secure hello\n", stderr: "" });
  });
});
