/**
 * A real Runtime with the long-running builtins, and the small CallContext
 * a builtin sees, for testing builtins without the evaluator.
 */
import { execFileSync } from "node:child_process";
import { installModules } from "../../src/registry/define";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HarnError, isPromise, Runtime, type CallContext, type Value } from "@harn/vm";
import { LONGRUN_MODULES } from "../../src/longrun/index";

export interface TestRuntime {
  rt: Runtime;
  /** Call a builtin by name, awaiting it when it suspends. */
  call(name: string, args: Value[], opts?: { sessionId?: string; signal?: AbortSignal }): Promise<Value>;
  ctx(opts?: { sessionId?: string; signal?: AbortSignal }): CallContext;
}

export function testRuntime(cwd = process.cwd(), env: Record<string, string | undefined> = process.env): TestRuntime {
  const rt = new Runtime({ stdout: { write() {} }, stderr: { write() {} }, cwd, env });
  installModules(rt, LONGRUN_MODULES);
  const ctx = (opts: { sessionId?: string; signal?: AbortSignal } = {}): CallContext => ({
    runtime: rt,
    call() {
      throw new Error("no evaluator in builtin tests");
    },
    prepare() {
      throw new Error("no evaluator in builtin tests");
    },
    out() {},
    err() {},
    signal: opts.signal ?? new AbortController().signal,
    span: null,
    task: null,
    sessionId: opts.sessionId,
  });
  return {
    rt,
    ctx,
    async call(name, args, opts) {
      const fn = rt.builtins.get(name);
      if (!fn) throw new Error(`no builtin ${name}`);
      const r = fn(args, ctx(opts));
      return isPromise<Value>(r) ? await r : r;
    },
  };
}

/** The value a script's `catch (e)` would bind for a failing call. */
export async function caught(p: () => Promise<unknown>): Promise<Value> {
  try {
    await p();
  } catch (e) {
    if (e instanceof HarnError) return e.caughtValue();
    throw e;
  }
  throw new Error("expected the call to fail");
}

export function tempDir(prefix = "harn-longrun-test-"): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Live (non-zombie) processes in a process group, from `ps`. */
export function liveInGroup(pgid: number): number[] {
  const out = execFileSync("ps", ["-eo", "pid=,pgid=,stat="], { encoding: "utf8" });
  const pids: number[] = [];
  for (const line of out.split("\n")) {
    const [pid, group, stat] = line.trim().split(/\s+/);
    if (Number(group) === pgid && stat && !stat.startsWith("Z")) pids.push(Number(pid));
  }
  return pids;
}

/** Waits (event-driven polling with a deadline) until `check` is true. */
export async function eventually(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
