/**
 * Validating the request dicts of the host command tools (agents.md §1.12,
 * errors §6.2) into a `CommandSpec`.
 *
 * Choices where the reference leaves things to its host ([TS decisions],
 * tested):
 * - Shell mode without `shell`/`shell_id` runs `/bin/sh -c <command>`.
 *   `shell_id` names the shell program (`"bash"`); a `shell` dict may give
 *   `path` (or `program`) and `args` (default `["-c"]`); `login` and
 *   `interactive` add `-l` / `-i`.
 * - `env_mode: "inherit_clean"` starts from the run's environment and then
 *   applies `env` like `patch` does; `replace` starts from nothing.
 * - `run_test`'s `filter` is appended to `argv` as one more argument.
 *   Ecosystem detection is not implemented: without `argv`, `run_test` and
 *   `run_build_command` fail with the reference's "no recognized project
 *   manifest" error, and `run_build_command`'s `target` / `release` (which
 *   only shape a detected build command) are not read.
 */
import { statSync, realpathSync } from "node:fs";
import { resolve } from "node:path";
import { HDict, type Value } from "@harn/vm";
import { hostlibError, typeName } from "../hostlib_errors";

export type CommandTool = "run_command" | "run_test" | "run_build_command";

export const BUILTIN_NAMES: Record<CommandTool, string> = {
  run_command: "hostlib_tools_run_command",
  run_test: "hostlib_tools_run_test",
  run_build_command: "hostlib_tools_run_build_command",
};

export interface CaptureSpec {
  /** Inline stdout in the result (artifacts are always written). */
  readonly stdout: boolean;
  readonly stderr: boolean;
  /** Send stderr into the stdout stream (like `2>&1`). */
  readonly merge: boolean;
  readonly maxInlineBytes: number;
}

export interface CommandSpec {
  readonly tool: CommandTool;
  /** The builtin name used in error dicts. */
  readonly builtin: string;
  /** Program and arguments (shell mode: the shell, its flags, the command). */
  readonly argv: readonly string[];
  readonly cwd: string;
  /** The child's complete environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly stdin: string | null;
  /** Foreground only; null = no timeout. */
  readonly timeoutMs: number | null;
  readonly background: boolean;
  readonly capture: CaptureSpec;
  readonly policyContext: HDict | null;
}

export const DEFAULT_MAX_INLINE_BYTES = 50_000;

/** Parses and validates one request; throws the §6.2 error dicts. */
export function parseCommandRequest(
  tool: CommandTool,
  request: Value | undefined,
  runDir: string,
  runEnv: Readonly<Record<string, string | undefined>>,
): CommandSpec {
  const builtin = BUILTIN_NAMES[tool];
  if (request === undefined || request === null) throw hostlibError("missing_parameter", builtin, "request");
  if (!(request instanceof HDict)) {
    throw hostlibError("invalid_parameter", builtin, "request", `expected a dict (JSON request body), got ${typeName(request)}`);
  }
  const r = new RequestReader(builtin, request);

  let argv: string[];
  if (tool === "run_command" && (r.string("mode") ?? "argv") === "shell") {
    argv = shellArgv(r);
  } else {
    const mode = tool === "run_command" ? r.string("mode") : null;
    if (mode !== null && mode !== "argv") {
      throw r.invalid("mode", `unsupported command mode "${mode}"; expected argv or shell`);
    }
    const given = r.stringList("argv");
    if (given === null) {
      if (tool === "run_command") throw hostlibError("missing_parameter", builtin, "argv");
      throw r.invalid("argv", "no recognized project manifest in cwd; pass argv explicitly");
    }
    argv = given;
    if (argv.length === 0) throw r.invalid("argv", "argv must contain at least one element");
    if (argv[0] === "") throw r.invalid("argv", "first argv element (program) must be non-empty");
    if (tool === "run_test") {
      const filter = r.string("filter");
      if (filter !== null && filter !== "") argv = [...argv, filter];
    }
  }

  const cwd = commandCwd(r, runDir);
  const env = tool === "run_command" ? commandEnv(r, runEnv) : inherited(runEnv);

  // Background selection (§1.12, quirk 17): run_command reads `background`
  // first and falls back to `long_running`; the reference's other two read
  // only `long_running`, and [TS decision] accept `background` after it,
  // as the stdlib operations do (a `{background: true}` run_test ran in
  // the foreground and blocked the script).
  let background: boolean;
  if (tool === "run_command") background = r.bool("background") ?? r.bool("long_running") ?? false;
  else background = r.bool("long_running") ?? r.bool("background") ?? false;

  const timeout = r.int("timeout_ms");
  if (timeout !== null && timeout < 0) throw r.invalid("timeout_ms", "expected a non-negative int");

  return {
    tool,
    builtin,
    argv,
    cwd,
    env,
    stdin: tool === "run_command" ? r.string("stdin") : null,
    timeoutMs: timeout === null || timeout === 0 ? null : timeout,
    background,
    capture: tool === "run_command" ? captureSpec(r) : { stdout: true, stderr: true, merge: false, maxInlineBytes: DEFAULT_MAX_INLINE_BYTES },
    policyContext: tool === "run_command" ? r.dict("policy_context") : null,
  };
}

function shellArgv(r: RequestReader): string[] {
  const command = r.string("command");
  if (command === null) throw hostlibError("missing_parameter", r.builtin, "command");
  const shell = r.dict("shell");
  const shellId = r.string("shell_id");
  let program = "/bin/sh";
  let flags = ["-c"];
  if (shell) {
    const sr = new RequestReader(r.builtin, shell, "shell.");
    program = sr.string("path") ?? sr.string("program") ?? program;
    flags = sr.stringList("args") ?? flags;
  } else if (shellId !== null && shellId !== "") {
    program = shellId;
  }
  if (program === "") throw r.invalid("shell", "first argv element (program) must be non-empty");
  const pre: string[] = [];
  if (r.bool("login")) pre.push("-l");
  if (r.bool("interactive")) pre.push("-i");
  return [program, ...pre, ...flags, command];
}

function commandCwd(r: RequestReader, runDir: string): string {
  const given = r.string("cwd");
  if (given === null || given === "") return runDir;
  const abs = resolve(runDir, given);
  try {
    if (statSync(abs).isDirectory()) return realpathSync(abs);
  } catch {
    // reported below
  }
  throw r.invalid("cwd", `not an existing directory: ${given}`);
}

function inherited(runEnv: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(runEnv)) if (v !== undefined) out[k] = v;
  return out;
}

function commandEnv(r: RequestReader, runEnv: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const given = r.dict("env");
  const vars: Record<string, string> = {};
  if (given) {
    for (const k of given.keys()) {
      const v = given.get(k);
      if (typeof v !== "string") throw r.invalid("env", `expected string, got ${typeName(v)}`);
      vars[k] = v;
    }
  }
  const mode = r.string("env_mode") ?? (given ? "replace" : "inherit_clean");
  switch (mode) {
    case "replace":
      return vars;
    case "inherit_clean":
    case "patch":
      return { ...inherited(runEnv), ...vars };
    default:
      throw r.invalid("env_mode", `unsupported env_mode "${mode}"; expected inherit_clean, replace, or patch`);
  }
}

function captureSpec(r: RequestReader): CaptureSpec {
  const c = r.dict("capture");
  const cr = c ? new RequestReader(r.builtin, c, "capture.") : null;
  const captureStderr = r.bool("capture_stderr");
  let maxInline = cr?.int("max_inline_bytes") ?? r.int("max_inline_bytes") ?? DEFAULT_MAX_INLINE_BYTES;
  if (maxInline < 0) maxInline = 0;
  return {
    stdout: cr?.bool("stdout") ?? true,
    stderr: cr?.bool("stderr") ?? true,
    merge: cr?.bool("merge_stderr") ?? captureStderr === false,
    maxInlineBytes: maxInline,
  };
}

/** Typed access to request keys; nil counts as absent. */
class RequestReader {
  constructor(
    readonly builtin: string,
    private readonly d: HDict,
    private readonly prefix = "",
  ) {}

  invalid(key: string, detail: string) {
    return hostlibError("invalid_parameter", this.builtin, this.prefix + key, detail);
  }

  string(key: string): string | null {
    const v = this.d.get(key);
    if (v === null) return null;
    if (typeof v !== "string") throw this.invalid(key, `expected string, got ${typeName(v)}`);
    return v;
  }

  bool(key: string): boolean | null {
    const v = this.d.get(key);
    if (v === null) return null;
    if (typeof v !== "boolean") throw this.invalid(key, `expected bool, got ${typeName(v)}`);
    return v;
  }

  int(key: string): number | null {
    const v = this.d.get(key);
    if (v === null) return null;
    if (typeof v === "bigint") return v < 0n ? -1 : Number.MAX_SAFE_INTEGER;
    if (typeof v !== "number") throw this.invalid(key, `expected int, got ${typeName(v)}`);
    return v;
  }

  dict(key: string): HDict | null {
    const v = this.d.get(key);
    if (v === null) return null;
    if (!(v instanceof HDict)) throw this.invalid(key, `expected dict, got ${typeName(v)}`);
    return v;
  }

  stringList(key: string): string[] | null {
    const v = this.d.get(key);
    if (v === null) return null;
    if (!Array.isArray(v)) throw this.invalid(key, `expected list of strings, got ${typeName(v)}`);
    return v.map((x, i) => {
      if (typeof x !== "string") throw this.invalid(key, `expected string at index ${i}, got ${typeName(x)}`);
      return x;
    });
  }
}
