/**
 * One child process of a command tool, through execa, in its own process
 * group (`detached: true`), so that killing `-pgid` takes the whole tree
 * with it: `sh -c 'sleep 100 & sleep 100'` leaves nothing behind. The
 * child also carries its run's process-tree cookie (core/run_scope.ts):
 * descendants that left the group (`setsid`, `nohup … &`, a double fork)
 * die with it too, and `treeDone()` tells when the last of them ended.
 *
 * The runtime keeps the set of live groups; while it is non-empty a
 * `process.on("exit")` hook kills them synchronously, the last line of
 * defence when the process ends without `Runtime.shutdown()` having run.
 */
import { RuntimeSlot, type Runtime } from "@harn/vm";
import { nodeOs } from "../../core/node-builtins";
import { noteLeftovers } from "../../core/leftovers";
import { runScope } from "../../core/run_scope";
import { osErrorText } from "../../core/oserror";
import type { ArtifactWriter } from "./artifacts";
import type { CommandSpec } from "./request";

export interface ProcessOutcome {
  /** null when the process was ended by a signal. */
  readonly exitCode: number | null;
  /** Signal name (`"SIGKILL"`) or null. */
  readonly signal: string | null;
  /** Killed because `timeout_ms` elapsed. */
  readonly timedOut: boolean;
  readonly endedAtMs: number;
  readonly durationMs: number;
}

/** `spawn failed: <os detail>` material. */
export class SpawnError {
  constructor(readonly detail: string) {}
}

export interface RunningProcess {
  readonly pid: number;
  readonly startedAtMs: number;
  /** Resolves once the process exited and its output pipes closed. */
  readonly done: Promise<ProcessOutcome>;
  /** SIGKILL to the group, then to the child. Idempotent, never throws. */
  kill(): void;
  /**
   * `kill`, and let go of the child: close our ends of its pipes and unref
   * it, so that nothing it left behind (a grandchild that moved to its own
   * session still holding the pipe) can keep this process alive. For
   * cancellation and shutdown, where the output no longer matters.
   */
  abandon(): void;
  /**
   * `done`, then the end of every process of the command's tree: a
   * background command that put its work in the background itself
   * (`setsid job >log 2>&1 & echo started`) is not finished when its own
   * process is. The outcome's end time is then the last process's. Rejects
   * once the command is abandoned.
   */
  treeDone(): Promise<ProcessOutcome>;
}

/** How long a killed foreground command's pipes may stay open (held by a
 * process that left the group) before the call stops waiting for them. */
const PIPE_GRACE_MS = 1000;

class LiveGroups {
  private readonly live = new Set<RunningProcess>();
  private readonly onExit = () => {
    for (const p of this.live) p.kill();
  };

  add(p: RunningProcess): void {
    if (this.live.size === 0) process.on("exit", this.onExit);
    this.live.add(p);
  }

  delete(p: RunningProcess): void {
    if (!this.live.delete(p)) return;
    if (this.live.size === 0) process.off("exit", this.onExit);
  }

  killAll(): void {
    for (const p of [...this.live]) p.abandon();
  }
}

const LIVE = new RuntimeSlot<LiveGroups>("longrun.processes", (rt) => {
  const groups = new LiveGroups();
  rt.onShutdown(() => groups.killAll());
  return groups;
});

/**
 * Starts `spec.argv`, streaming its output into `writer`. In the foreground
 * `timeout_ms` is enforced and `stdin` fed; `signal` (the calling task's)
 * kills the group when it aborts. Throws `SpawnError` when the program
 * cannot be started.
 */
export async function spawnProcess(
  rt: Runtime,
  spec: CommandSpec,
  writer: ArtifactWriter,
  options: { foreground: boolean; signal: AbortSignal | null },
): Promise<RunningProcess> {
  const startedAtMs = Date.now();
  const startedPerf = performance.now();
  const stdin = options.foreground ? spec.stdin : null;
  // Loaded on first use (see core/process.ts).
  const { execa } = await import("execa");
  const scope = runScope(rt);
  const env = { ...spec.env };
  const tree = scope.adopt(env);
  const sub = execa(spec.argv[0]!, spec.argv.slice(1), {
    cwd: spec.cwd,
    env,
    extendEnv: false,
    ...(stdin !== null ? { input: stdin } : { stdin: "ignore" as const }),
    stdout: "pipe",
    stderr: "pipe",
    buffer: false,
    reject: false,
    detached: true,
    cleanup: false,
    stripFinalNewline: false,
    windowsHide: true,
  });

  const pid = sub.pid;
  if (pid === undefined) {
    const r = await sub;
    throw new SpawnError(osErrorText(r.cause));
  }

  sub.stdout?.on("data", (chunk: Buffer) => writer.write("stdout", chunk));
  sub.stderr?.on("data", (chunk: Buffer) => writer.write(spec.capture.merge ? "stdout" : "stderr", chunk));

  let settled = false;
  let timedOut = false;
  const kill = () => {
    scope.kill(tree);
    if (settled) return;
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // group already gone
    }
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // child already gone
    }
  };

  const abandoned = new AbortController();
  const abandon = () => {
    kill();
    abandoned.abort(new Error("command abandoned"));
    sub.stdout?.destroy();
    sub.stderr?.destroy();
    sub.unref();
  };

  // Foreground timeout: kill the group, and if something that escaped it
  // still holds the output pipes after a grace period, stop waiting for them.
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (options.foreground && spec.timeoutMs !== null) {
    timer = setTimeout(() => {
      timedOut = true;
      kill();
      timer = setTimeout(abandon, PIPE_GRACE_MS);
    }, spec.timeoutMs);
  }
  const signal = options.signal;
  const onAbort = () => abandon();
  signal?.addEventListener("abort", onAbort, { once: true });

  const groups = rt.slot(LIVE);
  const running: RunningProcess = {
    pid,
    startedAtMs,
    kill,
    abandon,
    treeDone: async () => {
      const own = await running.done;
      await scope.waitGone(tree, abandoned.signal);
      const endedAtMs = Date.now();
      if (endedAtMs - own.endedAtMs < 1) return own;
      return { ...own, endedAtMs, durationMs: Math.max(0, Math.round(performance.now() - startedPerf)) };
    },
    done: sub.then((r) => {
      settled = true;
      groups.delete(running);
      // what the command left running in its group dies with the runtime
      noteLeftovers(rt, pid);
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      return {
        exitCode: r.signal ? null : (r.exitCode ?? null),
        signal: r.signal ?? null,
        timedOut,
        endedAtMs: Date.now(),
        durationMs: Math.max(0, Math.round(performance.now() - startedPerf)),
      };
    }),
  };
  groups.add(running);
  if (signal?.aborted) abandon();
  return running;
}

/** `SIG<number>` as background payloads report signals (`"SIG9"`). */
export function signalNumberName(name: string | null): string | null {
  if (name === null) return null;
  const n = (nodeOs().constants.signals as Record<string, number | undefined>)[name];
  return n === undefined ? name : `SIG${n}`;
}
