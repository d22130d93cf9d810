/**
 * Running commands (spec/stdlib.md §15.2): exec, shell, exec_at, shell_at.
 *
 * Children run through execa with stdin on the null device and output
 * captured. The script waits for them, but other tasks keep running. Each
 * child gets its own process group and its run's process-tree cookie
 * (run_scope.ts), so that cancellation (`ctx.signal`), timeouts and
 * runtime shutdown kill everything it started, even descendants that left
 * the group, not just the direct child.
 */
import { existsSync, readFileSync } from "node:fs";
import * as nodePath from "node:path";
import { HarnError, HDict, type CallContext, type Runtime, type Value } from "@harn/vm";
import { strArg } from "./args";
import { osErrorText } from "./oserror";
import { resolvePath } from "./paths";
import { nodeOs } from "./node-builtins";
import { noteLeftovers } from "./leftovers";
import { runScope } from "./run_scope";
import { builtinModule } from "../registry/define";

/** The environment children get: the run's env (process env plus run-level
 * overrides), as the runtime holds it. */
export function childEnv(rt: Runtime): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(rt.env)) if (v !== undefined) env[k] = v;
  return env;
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

export interface SpawnOptions {
  cwd: string;
  /** The complete child environment (defaults to the run's). */
  env?: Record<string, string>;
  /** Kill the child (its whole group) after this many ms. */
  timeoutMs?: number;
}

export interface SpawnResult {
  stdout: string;
  stderr: string;
  /** Exit code, or null when a signal ended the child. */
  exitCode: number | null;
  signal: string | null;
  pid: number | null;
  timedOut: boolean;
  /** Set when the child could not be started. */
  spawnError: unknown;
}

/**
 * Run `file args…` with output captured and stdin on the null device, in a
 * process group of its own that cancellation, timeouts and runtime shutdown
 * kill as a whole. Rejects only with the task's abort reason.
 */
export async function spawnCaptured(file: string, args: string[], opts: SpawnOptions, ctx: CallContext): Promise<SpawnResult> {
  const rt = ctx.runtime;
  const signal = ctx.signal;
  if (signal.aborted) throw signal.reason;
  // execa is loaded on first use: most scripts never start a process, and
  // it is a sizeable share of what `harn run` would otherwise parse at start.
  const { execa } = await import("execa");
  if (signal.aborted) throw signal.reason;
  const scope = runScope(rt);
  const env = { ...(opts.env ?? childEnv(rt)) };
  const tree = scope.adopt(env);
  const child = execa(file, args, {
    cwd: opts.cwd,
    env,
    extendEnv: false,
    stdin: "ignore",
    reject: false,
    stripFinalNewline: false,
    detached: true,
    maxBuffer: 1024 * 1024 * 1024,
  });
  let timedOut = false;
  const kill = () => {
    killGroup(child.pid);
    scope.kill(tree);
  };
  const timer =
    opts.timeoutMs !== undefined
      ? setTimeout(() => {
          timedOut = true;
          kill();
        }, Math.max(0, opts.timeoutMs))
      : null;
  signal.addEventListener("abort", kill, { once: true });
  const unregister = rt.onShutdown(kill);
  let result;
  try {
    result = await child;
  } finally {
    if (timer) clearTimeout(timer);
    signal.removeEventListener("abort", kill);
    unregister();
    // `shell("server >log 2>&1 &")`: the server may serve the rest of the
    // script, but not outlive it
    if (child.pid !== undefined) noteLeftovers(rt, child.pid);
  }
  if (signal.aborted) throw signal.reason;
  const started = result.exitCode !== undefined || result.signal !== undefined;
  return {
    stdout: String(result.stdout ?? ""),
    stderr: String(result.stderr ?? ""),
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    pid: child.pid ?? null,
    timedOut,
    spawnError: started ? null : result,
  };
}

/**
 * Run `file args…` in `cwd` and build the `{stdout, stderr, status,
 * success}` dict. Spawn failures throw `<what> failed: process spawn
 * failed: <os error>`.
 */
export async function runProcess(file: string, args: string[], cwd: string, ctx: CallContext, what: string): Promise<Value> {
  const r = await spawnCaptured(file, args, { cwd }, ctx);
  if (r.spawnError !== null) throw HarnError.thrown(`${what} failed: process spawn failed: ${osErrorText(r.spawnError)}`);
  const status = r.exitCode ?? -1;
  return HDict.of({ stdout: r.stdout, stderr: r.stderr, status, success: status === 0 });
}

// ---------------------------------------------------------------------------
// Shell selection

function loginShell(): string | null {
  try {
    return nodeOs().userInfo().shell ?? null;
  } catch {
    return null;
  }
}

export function systemShells(): string[] {
  try {
    return readFileSync("/etc/shells", "utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l.startsWith("/"));
  } catch {
    return [];
  }
}

export const STANDARD_SHELLS = ["/bin/zsh", "/usr/bin/zsh", "/bin/bash", "/usr/bin/bash", "/bin/sh", "/usr/bin/sh"];

/** The default shell: HARN_DEFAULT_SHELL, SHELL, the login shell, the
 * system shells list, then standard locations. Absolute candidates must
 * exist; bare names are looked up on PATH at spawn. */
export function defaultShell(rt: Runtime): string | null {
  const candidates = [rt.env.HARN_DEFAULT_SHELL, rt.env.SHELL, loginShell(), ...systemShells(), ...STANDARD_SHELLS];
  for (const c of candidates) {
    if (!c) continue;
    if (!nodePath.isAbsolute(c) || existsSync(c)) return c;
  }
  return null;
}

/** Arguments that make `shell` run `command`. */
export function shellArgs(shell: string, command: string): string[] {
  const name = nodePath.basename(shell).toLowerCase().replace(/\.exe$/, "");
  if (name === "cmd") return ["/C", command];
  if (name === "powershell" || name === "pwsh") return ["-NoProfile", "-Command", command];
  return ["-c", command];
}

function runShell(command: string, cwd: string, ctx: CallContext, what: string): Promise<Value> {
  const shell = defaultShell(ctx.runtime);
  if (shell === null) throw HarnError.runtime(`${what}: no shell candidates available`);
  return runProcess(shell, shellArgs(shell, command), cwd, ctx, what);
}

export const PROCESS_BUILTINS = builtinModule("core/process", (def) => {
  def("exec", (args, ctx) => {
    if (args.length === 0) throw HarnError.thrown("exec: command is required");
    const rest = args.slice(1).map((_, i) => strArg(args, i + 1));
    return runProcess(strArg(args, 0), rest, ctx.runtime.cwd, ctx, "exec");
  });

  def("exec_at", (args, ctx) => {
    if (args.length < 2) throw HarnError.thrown("exec_at: directory and command are required");
    const rest = args.slice(2).map((_, i) => strArg(args, i + 2));
    return runProcess(strArg(args, 1), rest, resolvePath(ctx.runtime, strArg(args, 0)), ctx, "exec_at");
  });

  def("shell", (args, ctx) => {
    const command = strArg(args, 0);
    if (args.length === 0 || args[0] === null || command === "") throw HarnError.thrown("shell: command string is required");
    return runShell(command, ctx.runtime.cwd, ctx, "shell");
  });

  def("shell_at", (args, ctx) => {
    if (args.length < 2) throw HarnError.thrown("shell_at: directory and command string are required");
    const command = strArg(args, 1);
    if (args[1] === null || command === "") throw HarnError.thrown("shell_at: command string is required");
    return runShell(command, resolvePath(ctx.runtime, strArg(args, 0)), ctx, "shell_at");
  });
});
