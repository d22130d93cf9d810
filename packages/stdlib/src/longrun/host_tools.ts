/**
 * `host_tool_call`, `host_tool_list` and the host-library builtin names
 * (agents.md §1.12, §1.14).
 *
 * Routing [TS decision]: the command tools and cancel/read run in process
 * (with or without the `tools.` prefix, and as `tools.<name>(…)`); any
 * other name goes to an attached host bridge; without one the call throws
 * `host_tool_call: no host bridge is attached`, or, for a name close to an
 * in-process tool, `host_tool_call: unknown host tool 'run_comand' (did
 * you mean 'run_command'?)`.
 *
 * The reference's `hostlib_tools_*` builtins refuse to run until
 * `hostlib_enable("tools:deterministic")`; that gate is kept for those names
 * only (scripts written for the reference call it), never for cancellation,
 * and not for `host_tool_call`, which in the reference goes to a host that
 * has no such gate.
 */
import { HarnError, HDict, RuntimeSlot, suggest, type CallContext, type Runtime, type Value } from "@harn/vm";
import { runCommandTool, readCommandOutput } from "./commands/tools";
import type { CommandTool } from "./commands/request";
import { cancelById, cancelRequestId } from "./feedback_builtins";
import { hostlibError, typeName } from "./hostlib_errors";
import { textArg } from "./options";
import { IN_PROCESS_TOOL_NAMES, namespacedBuiltin, unknownToolText, type InProcessToolName } from "./tools_namespace";
import { builtinModule } from "../registry/define";

/** A host that serves further tools (an IDE, an orchestrator). */
export interface HostBridge {
  call(name: string, args: Value, ctx: CallContext): Value | Promise<Value>;
  /** Descriptors `{name, description, schema, deprecated}` of its tools. */
  list(): Value[];
}

interface HostState {
  bridge: HostBridge | null;
  readonly enabled: Set<string>;
}

const HOST = new RuntimeSlot<HostState>("longrun.host", () => ({ bridge: null, enabled: new Set() }));

/** Attach (or, with null, detach) the host bridge of a runtime. */
export function attachHostBridge(rt: Runtime, bridge: HostBridge | null): void {
  rt.slot(HOST).bridge = bridge;
}

type InProcessTool = (args: Value | undefined, ctx: CallContext) => Value | Promise<Value>;

const command = (tool: CommandTool): InProcessTool => (args, ctx) => runCommandTool(tool, args, ctx);

const IN_PROCESS: Record<InProcessToolName, InProcessTool> = {
  run_command: command("run_command"),
  run_test: command("run_test"),
  run_build_command: command("run_build_command"),
  // an id string too, as the plain `cancel_handle(h)` takes
  cancel_handle: (args, ctx) => cancelById(ctx, typeof args === "string" ? args : cancelRequestId(args)),
  read_command_output: (args, ctx) => readCommandOutput(args, ctx),
};

const FEATURE = "tools:deterministic";

function gated(builtin: string, tool: InProcessTool): (args: Value[], ctx: CallContext) => Value | Promise<Value> {
  return (args, ctx) => {
    if (!ctx.runtime.slot(HOST).enabled.has(FEATURE)) {
      throw hostlibError(
        "backend_error",
        builtin,
        `feature \`${FEATURE}\` is not enabled in this session — call \`hostlib_enable("${FEATURE}")\` before invoking deterministic tools`,
      );
    }
    return tool(args[0], ctx);
  };
}

export const HOST_TOOLS_BUILTINS = builtinModule("longrun/host_tools", (def) => {
  def("host_tool_call", (args, ctx) => {
    const name = textArg(args[0]);
    if (name === "") throw HarnError.thrown("host_tool_call: tool name is required");
    const short = name.startsWith("tools.") ? name.slice("tools.".length) : name;
    if (Object.hasOwn(IN_PROCESS, short)) return IN_PROCESS[short as InProcessToolName](args[1], ctx);
    const bridge = ctx.runtime.slot(HOST).bridge;
    if (bridge) return bridge.call(name, args[1] ?? null, ctx);
    // a misspelt in-process tool is the likely mistake, not a missing bridge
    if (suggest(short, IN_PROCESS_TOOL_NAMES) !== null) throw HarnError.thrown(`host_tool_call: ${unknownToolText(name)}`);
    throw HarnError.thrown("host_tool_call: no host bridge is attached");
  });

  def("host_tool_list", (_args, ctx) => {
    const bridge = ctx.runtime.slot(HOST).bridge;
    return [...inProcessDescriptors(), ...(bridge ? bridge.list() : [])];
  });

  def("hostlib_tools_run_command", gated("hostlib_tools_run_command", IN_PROCESS.run_command), { longRunning: true });
  def("hostlib_tools_run_test", gated("hostlib_tools_run_test", IN_PROCESS.run_test), { longRunning: true });
  def("hostlib_tools_run_build_command", gated("hostlib_tools_run_build_command", IN_PROCESS.run_build_command), { longRunning: true });
  def("hostlib_tools_read_command_output", gated("hostlib_tools_read_command_output", IN_PROCESS.read_command_output));
  // cancellation only reduces capability: never gated (§1.11)
  def("hostlib_tools_cancel_handle", (args, ctx) => IN_PROCESS.cancel_handle(args[0], ctx));

  def("hostlib_enable", (args, ctx) => {
    let feature: Value | undefined = args[0];
    if (feature instanceof HDict) feature = feature.get("feature");
    if (feature === undefined || feature === null) throw hostlibError("missing_parameter", "hostlib_enable", "feature");
    if (typeof feature !== "string") {
      throw hostlibError("invalid_parameter", "hostlib_enable", "feature", `expected string, got ${typeName(feature)}`);
    }
    if (feature !== FEATURE) {
      throw hostlibError("invalid_parameter", "hostlib_enable", "feature", `unknown feature \`${feature}\`; supported: [\`${FEATURE}\`]`);
    }
    const enabled = ctx.runtime.slot(HOST).enabled;
    const newly = !enabled.has(feature);
    enabled.add(feature);
    return HDict.of({ feature, enabled: true, newly_enabled: newly });
  });

  // the `tools` namespace (tools_namespace.ts): `tools.run_command(req)`
  for (const name of IN_PROCESS_TOOL_NAMES) {
    def(namespacedBuiltin(name), (args, ctx) => IN_PROCESS[name](args[0], ctx), name.startsWith("run_") ? { longRunning: true } : {});
  }
});

const str = (description: string) => HDict.of({ type: "string", description });
const obj = (properties: Record<string, Value>, required: string[]) =>
  HDict.of({ type: "object", properties: HDict.of(properties), required });

/** `host_tool_list()` entries for the in-process tools (unprefixed names). */
function inProcessDescriptors(): Value[] {
  const commandProps = {
    argv: HDict.of({ type: "array", items: HDict.of({ type: "string" }), description: "Program and arguments" }),
    cwd: str("Working directory (must exist)"),
    timeout_ms: HDict.of({ type: "integer", description: "Kill the process group after this many milliseconds (foreground)" }),
    long_running: HDict.of({ type: "boolean", description: "Return a handle at once; the result arrives as pending feedback" }),
  };
  const entry = (name: string, description: string, schema: HDict) =>
    HDict.of({ name, description, schema, deprecated: false });
  return [
    entry(
      "run_command",
      "Run a program (argv or shell mode) in its own process group; foreground with a timeout, or in the background with a handle",
      obj(
        {
          ...commandProps,
          mode: HDict.of({ type: "string", enum: ["argv", "shell"] }),
          command: str("Shell command (shell mode)"),
          env: HDict.of({ type: "object", additionalProperties: HDict.of({ type: "string" }) }),
          env_mode: HDict.of({ type: "string", enum: ["inherit_clean", "replace", "patch"] }),
          stdin: str("Text fed to stdin (foreground)"),
          background: HDict.of({ type: "boolean", description: "Return a handle at once" }),
          capture: HDict.of({ type: "object" }),
        },
        [],
      ),
    ),
    entry("run_test", "Run a test command; background only with long_running", obj({ ...commandProps, filter: str("Test filter, appended to argv") }, ["argv"])),
    entry(
      "run_build_command",
      "Run a build command; background only with long_running",
      obj({ ...commandProps, target: str("Build target"), release: HDict.of({ type: "boolean" }) }, ["argv"]),
    ),
    entry("cancel_handle", "Cancel a long-running handle; true once, then false", obj({ handle_id: str("The handle id") }, ["handle_id"])),
    entry(
      "read_command_output",
      "Read a command's output artifact (also while it runs)",
      obj(
        {
          command_id: str("Command id"),
          handle_id: str("Background handle id"),
          path: str("Artifact path"),
          offset: HDict.of({ type: "integer" }),
          length: HDict.of({ type: "integer" }),
        },
        [],
      ),
    ),
  ];
}
