/**
 * What the end-to-end LLM tests share: a `harn` bundled from source into
 * the test's temp dir, child `harn` processes with a clean provider
 * environment, and model servers on 127.0.0.1 that answer in each
 * provider's real wire format (the recorded shapes of
 * packages/stdlib/test/llm/wire.ts), scripted per request.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seededRandom } from "@harn/vm";
import { bundleHarn } from "./harn-bundle";
import { PROVIDER_ENV } from "../../vitest.offline";
import { FORMATS, type WireFormat } from "../../packages/stdlib/test/llm/helpers";
import { sendJson, sendStream, startServer, type SeenRequest, type TestServer } from "../../packages/stdlib/test/llm/server";
import type { Script } from "../../packages/stdlib/test/llm/wire";

export { FORMATS, type WireFormat, type Script, type SeenRequest, type TestServer };


export interface Workspace {
  dir: string;
  bin: string;
  file(name: string, text: string): string;
  dispose(): void;
}

/** A temp dir with its own `harn.mjs` (other test files may be rebuilding
 * cli/dist while this one runs). */
export async function workspace(prefix: string): Promise<Workspace> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const bin = join(dir, "harn.mjs");
  await bundleHarn(bin);
  return {
    dir,
    bin,
    file(name, text) {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Provider settings of the developer's shell must not leak into a test
 * (vitest.offline.ts removes them for the whole run; this also covers a
 * test that set one in its own process). */

export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!PROVIDER_ENV.test(k)) env[k] = v;
  env.NO_COLOR = "1";
  delete env.FORCE_COLOR;
  return { ...env, ...extra };
}

export interface Child {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when `check` holds (tested on every output chunk and every
   * 10 ms, so it may look at other state too), rejects if the process
   * exits first or `ms` pass. */
  until(check: (out: { stdout: string; stderr: string }) => boolean, what: string, ms?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  write(text: string): void;
}

export function harn(ws: Workspace, args: string[], env: NodeJS.ProcessEnv, cwd = ws.dir): Child {
  const child = spawn(process.execPath, [ws.bin, ...args], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const waiters = new Set<() => void>();
  const poke = () => {
    for (const w of [...waiters]) w();
  };
  child.stdout!.on("data", (d) => {
    out += d;
    poke();
  });
  child.stderr!.on("data", (d) => {
    err += d;
    poke();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => {
      resolve({ code, signal });
      poke();
    }),
  );
  let done = false;
  void exited.then(() => (done = true));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    write: (text) => void child.stdin!.write(text),
    until(check, what, ms = 20_000) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => finish(new Error(`timed out waiting for ${what}\nstdout: ${out}\nstderr: ${err}`)), ms);
        const poll = setInterval(() => test(), 10);
        const finish = (e?: Error) => {
          clearTimeout(timer);
          clearInterval(poll);
          waiters.delete(test);
          if (e) reject(e);
          else resolve();
        };
        const test = () => {
          if (check({ stdout: out, stderr: err })) finish();
          else if (done) finish(new Error(`harn exited before ${what}\nstdout: ${out}\nstderr: ${err}`));
        };
        waiters.add(test);
        test();
      });
    },
  };
}

/** Run to the end (with a guard against hangs), `io.input` on stdin, in
 * `io.cwd` (default: the workspace). */
export async function run(ws: Workspace, args: string[], env: NodeJS.ProcessEnv, ms = 50_000, io: { input?: string; cwd?: string } = {}) {
  const c = harn(ws, args, env, io.cwd);
  c.child.stdin!.end(io.input ?? "");
  const timer = setTimeout(() => c.child.kill("SIGKILL"), ms);
  const { code } = await c.exited;
  clearTimeout(timer);
  return { code, stdout: c.stdout(), stderr: c.stderr() };
}

/** What a scripted model server does with one request. */
export type Reply =
  | Script
  | { status: number; body: unknown; headers?: Record<string, string> }
  /** Write the reply yourself (partial streams, stalls, resets). */
  | ((req: SeenRequest, res: http.ServerResponse) => unknown);

/** Does the request ask for a streamed reply? (Every wire format puts
 * `stream: true` in the body.) */
export function streamed(req: SeenRequest): boolean {
  return (req.body as { stream?: unknown } | null)?.stream === true;
}

/** A model server in `format`'s wire format; `reply` decides each answer
 * (index = 0-based request number). */
export function modelServer(format: WireFormat, reply: (req: SeenRequest, index: number) => Reply): Promise<TestServer> {
  return startServer(async (req, res, index) => {
    const r = reply(req, index);
    if (typeof r === "function") return r(req, res);
    if ("status" in r) return sendJson(res, r.status, r.body, r.headers);
    if (streamed(req)) return sendStream(res, format.stream(r), { pieceBytes: 64 });
    return sendJson(res, 200, format.body(r));
  });
}

export function format(provider: string): WireFormat {
  const f = FORMATS.find((x) => x.provider === provider);
  if (!f) throw new Error(`no wire format ${provider}`);
  return f;
}

/** Deterministic randomness for chaos servers (the vm's seeded PRNG). */
export const seeded = seededRandom;
