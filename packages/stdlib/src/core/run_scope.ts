/**
 * What a run leaves on the machine while it runs, so that nothing of it
 * outlives `harn` on any exit path: its process trees and its scratch
 * directory.
 *
 * Process trees. Commands run in process groups of their own, but a
 * descendant can leave the group (`setsid`, `nohup … &`, a daemon's double
 * fork) and then no group kill reaches it. So every child process the
 * runtime starts gets an environment cookie, `HARN_TREE_<run token>=<tree
 * id>`, which every descendant inherits unless it scrubs its environment
 * on purpose; a scan of /proc/*\/environ (readable for our own processes,
 * no privileges needed; the approach of Jenkins' process-tree killer)
 * finds them all. The variable's name carries the run's token, so a harn
 * started by another harn adds its own cookie and keeps its parent's.
 *
 * Scratch directory. Command artifacts and capped results live under one
 * `<TMPDIR>/harn-run-<token>/` per run, removed when the runtime shuts
 * down.
 *
 * Both are recorded in a per-user registry of live runs (run_registry.ts)
 * the first time the run starts a process or needs its directory, so a
 * later `harn` can reap what a SIGKILLed one left. Shutdown kills every
 * tree, removes the directory and the record; a `process.on("exit")`
 * hook does the same synchronously if the process ends without shutdown.
 * Without /proc (macOS) the trees are not tracked: process groups remain
 * the only reach (docs/design.md).
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { RuntimeSlot, type Runtime } from "@harn/vm";
import { nodeCrypto, nodeOs } from "./node-builtins";
import { envValue, killProcessesWithEnv, processesWithEnv } from "./proc";
import { RunRecord } from "./run_registry";
import { makeDirsSync } from "./make-dirs";

/** How often a wait for a tree to empty looks again: from the first to
 * the last value, doubling. */
const POLL_FIRST_MS = 20;
const POLL_MAX_MS = 500;

export class RunScope {
  readonly token = nodeCrypto().randomBytes(8).toString("hex");
  /** The cookie's variable name. */
  readonly cookieName = `HARN_TREE_${this.token}`;
  private readonly cookieKey = Buffer.from(`${this.cookieName}=`);
  private trees = 0;
  private record: RunRecord | null = null;
  private scratch: string | null = null;
  private ended = false;
  private readonly onExit = () => this.end();

  constructor(private readonly rt: Runtime) {}

  /** A new tree: puts its cookie into `env` (the child's environment, a
   * copy the caller owns) and returns the tree's id. */
  adopt(env: Record<string, string>): number {
    this.register();
    const id = ++this.trees;
    env[this.cookieName] = String(id);
    return id;
  }

  /** `<TMPDIR>/harn-run-<token>` (created, mode 0700), removed at shutdown. */
  scratchDir(): string {
    this.register();
    this.scratch ??= this.scratchPath();
    makeDirsSync(this.scratch, 0o700);
    return this.scratch;
  }

  private scratchPath(): string {
    return join(this.rt.env.TMPDIR || nodeOs().tmpdir(), `harn-run-${this.token}`);
  }

  /** Live processes of tree `id`, or of every tree of the run. */
  members(id: number | null): number[] {
    if (this.trees === 0) return [];
    const all = processesWithEnv(this.cookieName, process.pid);
    const want = id === null ? null : String(id);
    return all.filter((c) => want === null || c.value === want).map((c) => c.pid);
  }

  /** SIGKILL every process of tree `id` (every tree: null). Returns how
   * many were killed. */
  kill(id: number | null): number {
    if (this.trees === 0) return 0;
    return killProcessesWithEnv(this.cookieName, id === null ? null : String(id)).length;
  }

  /**
   * Resolves once no process of tree `id` is left, or rejects with the
   * signal's reason when it aborts. It watches the members it found (one
   * small read each) and scans /proc again only when they are all gone,
   * for descendants they started meanwhile.
   */
  waitGone(id: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let watched = this.members(id);
      if (watched.length === 0) return resolve();
      let delay = POLL_FIRST_MS;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal.reason);
      };
      const want = String(id);
      const look = () => {
        watched = watched.filter((pid) => envValue(pid, this.cookieKey) === want);
        if (watched.length === 0) watched = this.members(id);
        if (watched.length === 0) {
          signal.removeEventListener("abort", onAbort);
          return resolve();
        }
        delay = Math.min(delay * 2, POLL_MAX_MS);
        timer = setTimeout(look, delay);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      timer = setTimeout(look, delay);
    });
  }

  /** Kill every tree, remove the scratch directory and the registry
   * record. Idempotent, synchronous, never throws. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    process.off("exit", this.onExit);
    try {
      this.kill(null);
    } catch {
      // cleanup never throws
    }
    try {
      if (this.scratch !== null) rmSync(this.scratch, { recursive: true, force: true });
    } catch {
      // a file the user made unremovable stays; the record goes anyway
    }
    this.record?.remove();
  }

  private register(): void {
    if (this.record !== null || this.ended) return;
    this.record = RunRecord.create({ cookie: this.cookieName, scratch: this.scratchPath() });
    process.on("exit", this.onExit);
  }
}

const SCOPE = new RuntimeSlot<RunScope>("process.runScope", (rt) => {
  const scope = new RunScope(rt);
  rt.onShutdown(() => scope.end());
  return scope;
});

/** The run scope of a runtime (created on first use). */
export function runScope(rt: Runtime): RunScope {
  return rt.slot(SCOPE);
}
