/**
 * Running commands (spec/stdlib.md §15.2): exec, shell, exec_at, shell_at.
 *
 * Children run through execa with stdin on the null device and output
 * captured. The script waits for them, but other tasks keep running. Each
 * child gets its own process group so that cancellation (`ctx.signal`) and
 * runtime shutdown kill everything it started, not just the direct child.
 */
import { existsSync, readFileSync } from "node:fs";
import { userInfo } from "node:os";
import * as nodePath from "node:path";
import { execa } from "execa";
import { HarnError, HDict, type CallContext, type Runtime, type Value } from "@harn/vm";
import { strArg } from "./args";
import { osErrorText } from "./oserror";
import { resolvePath } from "./paths";

/** The environment children get: the run's env (process env plus run-level
 * overrides), as the runtime holds it. */
function childEnv(rt: Runtime): Record<string, string> {
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

/**
 * Run `file args…` in `cwd` and build the result dict. Spawn failures throw
 * `<what> failed: process spawn failed: <os error>`.
 */
export async function runProcess(file: string, args: string[], cwd: string, ctx: CallContext, what: string): Promise<Value> {
  const rt = ctx.runtime;
  const signal = ctx.signal;
  if (signal.aborted) throw signal.reason;
  const child = execa(file, args, {
    cwd,
    env: childEnv(rt),
    extendEnv: false,
    stdin: "ignore",
    reject: false,
    stripFinalNewline: false,
    detached: true,
    maxBuffer: 1024 * 1024 * 1024,
  });
  const kill = () => killGroup(child.pid);
  signal.addEventListener("abort", kill, { once: true });
  const unregister = rt.onShutdown(kill);
  let result;
  try {
    result = await child;
  } finally {
    signal.removeEventListener("abort", kill);
    unregister();
  }
  if (signal.aborted) throw signal.reason;
  if (result.exitCode === undefined && result.signal === undefined) {
    throw HarnError.thrown(`${what} failed: process spawn failed: ${osErrorText(result)}`);
  }
  const status = result.exitCode ?? -1;
  return HDict.of({
    stdout: String(result.stdout ?? ""),
    stderr: String(result.stderr ?? ""),
    status,
    success: status === 0,
  });
}

// ---------------------------------------------------------------------------
// Shell selection

function loginShell(): string | null {
  try {
    return userInfo().shell ?? null;
  } catch {
    return null;
  }
}

function systemShells(): string[] {
  try {
    return readFileSync("/etc/shells", "utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l.startsWith("/"));
  } catch {
    return [];
  }
}

const STANDARD_SHELLS = ["/bin/zsh", "/usr/bin/zsh", "/bin/bash", "/usr/bin/bash", "/bin/sh", "/usr/bin/sh"];

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

export function installProcess(rt: Runtime): void {
  rt.defineBuiltin("exec", (args, ctx) => {
    if (args.length === 0) throw HarnError.thrown("exec: command is required");
    const rest = args.slice(1).map((_, i) => strArg(args, i + 1));
    return runProcess(strArg(args, 0), rest, ctx.runtime.cwd, ctx, "exec");
  });

  rt.defineBuiltin("exec_at", (args, ctx) => {
    if (args.length < 2) throw HarnError.thrown("exec_at: directory and command are required");
    const rest = args.slice(2).map((_, i) => strArg(args, i + 2));
    return runProcess(strArg(args, 1), rest, resolvePath(ctx.runtime, strArg(args, 0)), ctx, "exec_at");
  });

  rt.defineBuiltin("shell", (args, ctx) => {
    const command = strArg(args, 0);
    if (args.length === 0 || args[0] === null || command === "") throw HarnError.thrown("shell: command string is required");
    return runShell(command, ctx.runtime.cwd, ctx, "shell");
  });

  rt.defineBuiltin("shell_at", (args, ctx) => {
    if (args.length < 2) throw HarnError.thrown("shell_at: directory and command string are required");
    const command = strArg(args, 1);
    if (args[1] === null || command === "") throw HarnError.thrown("shell_at: command string is required");
    return runShell(command, resolvePath(ctx.runtime, strArg(args, 0)), ctx, "shell_at");
  });
}
