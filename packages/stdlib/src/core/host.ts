/**
 * Host capability calls (spec/stdlib.md §15.4): `host_call("cap.op",
 * params)` with local fallbacks when no host bridge is attached, and the
 * mock layer tests use (`host_mock*`). Mocks, recorded calls, scopes and
 * the chosen default shell are per runtime.
 */
import { existsSync, realpathSync } from "node:fs";
import * as nodePath from "node:path";
import {
  display,
  equals,
  HarnError,
  HDict,
  RuntimeSlot,
  type CallContext,
  type Runtime,
  type Value,
} from "@harn/vm";
import { arg, strArg } from "./args";
import { childEnv, defaultShell, shellArgs, spawnCaptured, STANDARD_SHELLS, systemShells } from "./process";
import { osErrorText } from "./oserror";
import { resolvePath } from "./paths";
import { nodeCrypto } from "./node-builtins";
import { builtinModule } from "../registry/define";

interface HostMock {
  capability: string;
  operation: string;
  result: Value;
  error: string | null;
  params: HDict | null;
}

interface HostState {
  mocks: HostMock[];
  calls: Value[];
  scopes: { mocks: HostMock[]; calls: Value[] }[];
  defaultShellId: string | null;
}

const HOST = new RuntimeSlot<HostState>("stdlib.host", () => ({ mocks: [], calls: [], scopes: [], defaultShellId: null }));

/** Operations answered locally, with their descriptions (the manifest). */
const LOCAL_OPS: Record<string, Record<string, string>> = {
  process: {
    exec: "Run a command (shell or argv mode) and capture its output",
    list_shells: "List the shells available on this machine",
    get_default_shell: "The default shell",
    set_default_shell: "Choose the default shell",
    shell_invocation: "The program and arguments that would run a shell command",
  },
  template: { render: "Render a template file with bindings" },
  interaction: { ask: "Ask the user a question on stdin" },
  runtime: { task: "The current task description", set_result: "Record the run's result" },
  workspace: { project_root: "The project root", cwd: "The working directory" },
};

// ---------------------------------------------------------------------------
// Shells

interface ShellInfo {
  id: string;
  label: string;
  path: string;
}

function shellInfo(path: string): ShellInfo {
  const id = nodePath.basename(path).replace(/\.exe$/i, "");
  return { id, label: id, path };
}

function shellDict(s: ShellInfo, isDefault: boolean): HDict {
  return HDict.of({ id: s.id, label: s.label, path: s.path, is_default: isDefault });
}

function availableShells(rt: Runtime): ShellInfo[] {
  const seen = new Set<string>();
  const ids = new Set<string>();
  const out: ShellInfo[] = [];
  const preferred = defaultShell(rt);
  for (const p of [preferred, ...systemShells(), ...STANDARD_SHELLS]) {
    if (!p || !existsSync(p)) continue;
    let real = p;
    try {
      real = realpathSync(p);
    } catch {
      // keep the path as listed
    }
    const info = shellInfo(p);
    if (seen.has(real) || ids.has(info.id)) continue;
    seen.add(real);
    ids.add(info.id);
    out.push(info);
  }
  return out;
}

function defaultShellInfo(rt: Runtime, shells: ShellInfo[]): ShellInfo | null {
  const chosen = rt.slot(HOST).defaultShellId;
  if (chosen !== null) {
    const s = shells.find((x) => x.id === chosen);
    if (s) return s;
  }
  const d = defaultShell(rt);
  if (d !== null) return shells.find((x) => x.path === d) ?? shellInfo(d);
  return shells[0] ?? null;
}

/** The shell named by `shell` (an id or a path) or `shell_id` params.
 * `what` prefixes the error texts; stdlib.md §15.4 spells them
 * `host_call process.exec: …` but `process.shell_invocation: …`. */
function pickShell(rt: Runtime, params: HDict, what: string): ShellInfo {
  const shells = availableShells(rt);
  const byId = params.get("shell_id");
  const byShell = params.get("shell");
  if (byId !== null) {
    const s = shells.find((x) => x.id === display(byId));
    if (s) return s;
    throw HarnError.thrown(`${what}: unknown shell_id '${display(byId)}'`);
  }
  if (byShell !== null) {
    const name = byShell instanceof HDict ? display(byShell.get("path") ?? byShell.get("id")) : display(byShell);
    return shells.find((x) => x.id === name || x.path === name) ?? shellInfo(name);
  }
  throw HarnError.runtime(`${what}: shell mode requires \`shell\` or \`shell_id\``);
}

// ---------------------------------------------------------------------------
// process.exec

function timeoutOf(params: HDict): number | undefined {
  const t = params.get("timeout_ms") ?? params.get("timeout");
  if (typeof t === "number") return t;
  if (t !== null && typeof t === "object" && "ms" in t) return (t as { ms: number }).ms;
  return undefined;
}

async function processExec(params: HDict, ctx: CallContext): Promise<Value> {
  const rt = ctx.runtime;
  const mode = params.has("mode") ? display(params.get("mode")) : "shell";
  let file: string;
  let args: string[];
  let commandText: string;
  if (mode === "argv") {
    const argv = params.get("argv");
    if (!Array.isArray(argv) || argv.length === 0) throw HarnError.thrown("host_call: missing required parameter 'argv'");
    [file, ...args] = argv.map((x) => display(x));
    commandText = argv.map((x) => display(x)).join(" ");
  } else {
    if (!params.has("command")) throw HarnError.thrown("host_call: missing required parameter 'command'");
    commandText = display(params.get("command"));
    const shell = pickShell(rt, params, "host_call process.exec");
    file = shell.path;
    args = shellArgs(shell.path, commandText);
  }
  const cwdParam = params.get("cwd");
  const cwd = cwdParam === null ? rt.cwd : resolvePath(rt, display(cwdParam));
  const extra = params.get("env");
  const replace = params.has("env_mode") && ["replace", "clear", "empty"].includes(display(params.get("env_mode")));
  const env: Record<string, string> = replace ? {} : childEnv(rt);
  if (extra instanceof HDict) for (const [k, v] of extra.map) env[k] = display(v);

  const startedMs = Date.now();
  const r = await spawnCaptured(file, args, { cwd, env, timeoutMs: timeoutOf(params) }, ctx);
  const endedMs = Date.now();
  if (r.spawnError !== null) throw HarnError.thrown(`host_call process.exec: process spawn failed: ${osErrorText(r.spawnError)}`);
  const exitCode = r.timedOut ? -1 : (r.exitCode ?? -1);
  const stdout = r.timedOut ? "" : r.stdout;
  const stderr = r.timedOut ? "" : r.stderr;
  return HDict.of({
    command_id: nodeCrypto().randomUUID(),
    status: r.timedOut ? "timed_out" : "completed",
    pid: r.pid,
    process_group_id: r.pid,
    handle_id: null,
    started_at: new Date(startedMs).toISOString(),
    ended_at: new Date(endedMs).toISOString(),
    duration_ms: endedMs - startedMs,
    exit_code: exitCode,
    signal: null,
    timed_out: r.timedOut,
    stdout,
    stderr,
    combined: stdout + stderr,
    exit_status: exitCode,
    legacy_status: exitCode,
    success: exitCode === 0,
    command: commandText,
  });
}

// ---------------------------------------------------------------------------

function requireParam(params: HDict, key: string): Value {
  if (!params.has(key)) throw HarnError.thrown(`host_call: missing required parameter '${key}'`);
  return params.get(key);
}

function localCall(cap: string, op: string, params: HDict, ctx: CallContext): Value | Promise<Value> {
  const rt = ctx.runtime;
  switch (`${cap}.${op}`) {
    case "process.exec":
      return processExec(params, ctx);
    case "process.list_shells": {
      const shells = availableShells(rt);
      const d = defaultShellInfo(rt, shells);
      return HDict.of({ shells: shells.map((s) => shellDict(s, s.id === d?.id)), default_shell_id: d ? d.id : null });
    }
    case "process.get_default_shell": {
      const d = defaultShellInfo(rt, availableShells(rt));
      return d ? shellDict(d, true) : null;
    }
    case "process.set_default_shell": {
      const s = pickShell(rt, params, "host_call process.set_default_shell");
      rt.slot(HOST).defaultShellId = s.id;
      return shellDict(s, true);
    }
    case "process.shell_invocation": {
      const s = pickShell(rt, params, "process.shell_invocation");
      const command = display(requireParam(params, "command"));
      const flags: string[] = [];
      if (params.get("login") === true) flags.push("-l");
      if (params.get("interactive") === true) flags.push("-i");
      const args = [...flags, ...shellArgs(s.path, command)];
      return HDict.of({ program: s.path, args, command_arg_index: args.length - 1, shell: shellDict(s, false) });
    }
    case "template.render": {
      const render = rt.builtins.get("render");
      if (!render) throw HarnError.thrown("host_call: unsupported operation template.render");
      return render([requireParam(params, "path"), params.get("bindings")], ctx);
    }
    case "interaction.ask": {
      ctx.out(display(requireParam(params, "question")));
      const readLine = rt.builtins.get("read_line")!;
      return readLine([], ctx);
    }
    case "runtime.task":
      return rt.env.HARN_TASK ?? "";
    case "runtime.set_result":
      return null;
    case "workspace.project_root":
      return rt.env.HARN_PROJECT_ROOT ?? rt.cwd;
    case "workspace.cwd":
      return rt.cwd;
  }
  throw HarnError.thrown(`host_call: unsupported operation ${cap}.${op}`);
}

/** Every key/value of `filter` is equal in `params`. */
function paramsMatch(filter: HDict | null, params: HDict): boolean {
  if (filter === null) return true;
  for (const [k, v] of filter.map) if (!params.has(k) || !equals(params.get(k), v)) return false;
  return true;
}

/**
 * The result of the newest host mock for `cap.op` whose params match (the
 * call is recorded, and a mock with `error` throws it), or undefined when
 * none does. Also how human-in-the-loop requests find mocked responses
 * (agents-surface.md §6.1).
 */
export function hostMockResult(rt: Runtime, cap: string, op: string, params: HDict): Value | undefined {
  const st = rt.slot(HOST);
  for (let i = st.mocks.length - 1; i >= 0; i--) {
    const m = st.mocks[i]!;
    if (m.capability !== cap || m.operation !== op || !paramsMatch(m.params, params)) continue;
    st.calls.push(HDict.of({ capability: cap, operation: op, params }));
    if (m.error !== null) throw HarnError.thrown(m.error);
    return m.result;
  }
  return undefined;
}

/**
 * What every `process.exec` passes through when the agent layer has
 * installed its command-policy gate (agent/permissions/command_policy.ts,
 * agents-surface.md §5.3): the gate decides, and calls `run` (mocks, then
 * the local implementation) for a command it lets through.
 */
export type ProcessExecGate = (params: HDict, ctx: CallContext, run: (params: HDict) => Value | Promise<Value>) => Promise<Value>;

export const PROCESS_EXEC_GATE = new RuntimeSlot<{ gate: ProcessExecGate | null }>("host.process_exec_gate", () => ({ gate: null }));

export const HOST_BUILTINS = builtinModule("core/host", (def) => {
  def("host_call", (args, ctx) => {
    const name = strArg(args, 0);
    const dot = name.indexOf(".");
    if (dot <= 0 || dot === name.length - 1) throw HarnError.thrown(`host_call: unsupported operation name '${name}'`);
    const cap = name.slice(0, dot);
    const op = name.slice(dot + 1);
    const p = arg(args, 1);
    const params = p instanceof HDict ? p : HDict.empty();
    const run = (p: HDict): Value | Promise<Value> => {
      const mocked = hostMockResult(ctx.runtime, cap, op, p);
      return mocked !== undefined ? mocked : localCall(cap, op, p, ctx);
    };
    const gate = name === "process.exec" ? ctx.runtime.slot(PROCESS_EXEC_GATE).gate : null;
    return gate !== null ? gate(params, ctx, run) : run(params);
  });

  def("host_mock", (args, ctx) => {
    const cap = arg(args, 0);
    const op = arg(args, 1);
    if (cap === null || op === null || args.length < 2) throw HarnError.thrown("host_mock: capability and operation are required");
    const config = arg(args, 2);
    const filter = arg(args, 3);
    const mock: HostMock = { capability: display(cap), operation: display(op), result: config, error: null, params: filter instanceof HDict ? filter : null };
    const isConfig = config instanceof HDict && (config.has("result") || config.has("error") || config.has("params"));
    if (isConfig) {
      mock.result = config.get("result");
      mock.error = config.has("error") && config.get("error") !== null ? display(config.get("error")) : null;
      const cp = config.get("params");
      if (mock.params === null && cp instanceof HDict) mock.params = cp;
    }
    ctx.runtime.slot(HOST).mocks.push(mock);
    return null;
  });

  def("host_mock_calls", (_a, ctx) => ctx.runtime.slot(HOST).calls.slice());
  def("host_mock_clear", (_a, ctx) => {
    const st = ctx.runtime.slot(HOST);
    st.mocks = [];
    st.calls = [];
    st.scopes = [];
    return null;
  });
  def("host_mock_push_scope", (_a, ctx) => {
    const st = ctx.runtime.slot(HOST);
    st.scopes.push({ mocks: st.mocks, calls: st.calls });
    st.mocks = [];
    st.calls = [];
    return null;
  });
  def("host_mock_pop_scope", (_a, ctx) => {
    const st = ctx.runtime.slot(HOST);
    const saved = st.scopes.pop();
    if (!saved) throw HarnError.thrown("host_mock_pop_scope: no scope to pop");
    st.mocks = saved.mocks;
    st.calls = saved.calls;
    return null;
  });

  const manifest = (rt2: Runtime): Map<string, Map<string, string>> => {
    const m = new Map<string, Map<string, string>>();
    for (const [cap, ops] of Object.entries(LOCAL_OPS)) m.set(cap, new Map(Object.entries(ops)));
    for (const mock of rt2.slot(HOST).mocks) {
      if (!m.has(mock.capability)) m.set(mock.capability, new Map());
      const ops = m.get(mock.capability)!;
      if (!ops.has(mock.operation)) ops.set(mock.operation, "Mocked operation");
    }
    return m;
  };

  def("host_capabilities", (_a, ctx) => {
    const out = new Map<string, Value>();
    for (const [cap, ops] of manifest(ctx.runtime)) {
      const names = [...ops.keys()].sort();
      const operations = new Map<string, Value>(names.map((n) => [n, HDict.of({ description: ops.get(n)! })]));
      out.set(cap, HDict.of({ description: `${cap} capability`, ops: names, operations: new HDict(operations) }));
    }
    return new HDict(out);
  });

  def("host_has", (args, ctx) => {
    const ops = manifest(ctx.runtime).get(strArg(args, 0));
    if (!ops) return false;
    return args.length < 2 || args[1] === null ? true : ops.has(strArg(args, 1));
  });
});
