/**
 * A WebSocket server that never answers the closing handshake must not keep
 * `harn` alive: after `websocket_close`, or at the end of a script that left
 * a connection open, the client waits a moment for the server's close frame
 * and then drops the socket (stdlib http/streams.ts, WS_CLOSE_GRACE_MS).
 * Before that, such a script never exited.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { frame, onUpgradeRequest } from "../../packages/stdlib/test/http/websocket-peer";
import { harnBin } from "./cli-harness";

const bin = harnBin;

let server: Server;
let url = "";
let work = "";
const clientSockets = new Set<Socket>();

/** Accepts the opening handshake, greets, then ignores everything (no close frame back). */
function deafServer(socket: Socket): void {
  clientSockets.add(socket);
  socket.on("close", () => clientSockets.delete(socket));
  onUpgradeRequest(socket, () => {
    socket.write(frame(1, Buffer.from("hi")));
    socket.on("data", () => undefined); // the client's close frame: never answered
  });
  socket.on("error", () => undefined);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "harn-ws-close-"));
  server = createServer(deafServer);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address() as { port: number };
  url = `ws://127.0.0.1:${address.port}/`;
});

afterAll(async () => {
  for (const s of clientSockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(work, { recursive: true, force: true });
});

function runHarn(source: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const file = join(work, `s${Math.random().toString(36).slice(2)}.harn`);
  writeFileSync(file, source);
  return new Promise((resolveRun) => {
    const child = spawn(bin, ["run", file], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    // A hung harn is the failure this file guards against: kill it so the
    // test reports it instead of timing out with a child left behind.
    const guard = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.on("close", (status) => {
      clearTimeout(guard);
      resolveRun({ status, stdout, stderr });
    });
  });
}

describe("a WebSocket server that never answers the close", () => {
  it("does not keep harn alive after websocket_close", async () => {
    const r = await runHarn(
      `let ws = websocket_connect("${url}")\nprintln(websocket_receive(ws, 5000))\nprintln(websocket_close(ws))\nprintln("done")\n`,
    );
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("{data: hi, type: text}\ntrue\ndone\n");
    expect(r.status).toBe(0);
  }, 30_000);

  it("does not keep harn alive when the script ends with the connection open", async () => {
    const r = await runHarn(`let ws = websocket_connect("${url}")\nprintln(websocket_receive(ws, 5000))\n`);
    expect(r.stdout).toBe("{data: hi, type: text}\n");
    expect(r.status).toBe(0);
  }, 30_000);
});
