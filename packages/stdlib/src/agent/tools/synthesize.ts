/**
 * Synthesized tools (spec/workflows.md §3.7): `tool_synthesize(spec)` pins
 * a tool described at run time under a deterministic id and returns a
 * closure that checks its arguments and dispatches through the chosen
 * executor; `tool_synthesis_cache` lists what was pinned in this runtime.
 *
 * The `mcp_server` executor is a [TS decision]: the spec names it without
 * saying where it dispatches, so it calls the tool (`mcp_tool`, default the
 * tool's name) on the client given as `mcp_client` (from `mcp_connect`).
 */
import { createHash } from "node:crypto";
import { display, HarnError, HBuiltinRef, HDict, nativeClosure, RuntimeSlot, type CallContext, type Value } from "@harn/vm";
import { stringifyJsonKeepingFloats, toJson } from "../../core/json";
import { builtinModule } from "../../registry/define";

const EXECUTORS = ["dry_run", "host_bridge", "mcp_server"];
const DRY_RUN_MESSAGE = 'synthesized tool is pinned and validated, but executor is dry_run; set executor: "host_bridge" or "mcp_server" to dispatch';

/** Side-effect levels inferred from capability prefixes, strongest first. */
const LEVELS: [string, string[]][] = [
  ["network", ["http", "oauth", "network", "connector", "mcp"]],
  ["process_exec", ["process", "exec", "shell"]],
  ["workspace_write", ["workspace.write", "workspace.apply", "workspace.delete"]],
];

export function inferSideEffectLevel(capabilities: string[]): string {
  if (capabilities.length === 0) return "none";
  for (const [level, prefixes] of LEVELS) if (capabilities.some((c) => prefixes.some((p) => c.startsWith(p)))) return level;
  return "read_only";
}

interface Synthesized {
  id: string;
  name: string;
  description: string;
  executor: string;
  hostTool: string | null;
  mcpClient: Value;
  mcpTool: string;
  capabilities: string[];
  sideEffectLevel: string;
  parameters: HDict;
  returnType: Value;
}

/** Pinned tools by id, in the order first pinned. */
const CACHE = new RuntimeSlot("agent.toolSynthesis", () => new Map<string, Synthesized>());

const fail = (text: string) => HarnError.runtime(`tool_synthesize: ${text}`);

function optString(spec: HDict, key: string): string | null {
  const v = spec.get(key);
  if (v === null || v === "") return null;
  if (typeof v !== "string") throw fail(`${key} must be a string, got ${display(v)}`);
  return v;
}

/** The parameter properties: `{name: schema}` or an object schema's `properties`. */
function parameterProperties(v: Value): HDict {
  if (v === null) return HDict.empty();
  if (!(v instanceof HDict)) throw fail(`parameters must be a dict, got ${display(v)}`);
  const props = v.get("properties");
  return v.get("type") === "object" && props instanceof HDict ? props : v;
}

function parse(spec: Value): Synthesized {
  if (!(spec instanceof HDict)) throw fail("spec must be a dict");
  const description = optString(spec, "description");
  if (description === null) throw fail("description is required");
  const name = optString(spec, "name") ?? "synthesized_tool";
  const executor = optString(spec, "executor") ?? "dry_run";
  if (!EXECUTORS.includes(executor)) throw fail(`executor must be "dry_run", "host_bridge" or "mcp_server", got "${executor}"`);
  const hostTool = optString(spec, "host_tool");
  if (executor === "host_bridge" && hostTool === null) throw fail('executor "host_bridge" needs host_tool');
  const mcpClient = spec.get("mcp_client");
  if (executor === "mcp_server" && mcpClient === null) throw fail('executor "mcp_server" needs mcp_client (a client from mcp_connect)');
  const caps = spec.get("capabilities");
  if (caps !== null && !Array.isArray(caps)) throw fail(`capabilities must be a list, got ${display(caps)}`);
  const capabilities = (caps ?? []).map((c) => (typeof c === "string" ? c : display(c)));
  const parameters = parameterProperties(spec.get("parameters"));
  const returnType = spec.get("return_type");
  const level = optString(spec, "side_effect_level") ?? inferSideEffectLevel(capabilities);
  // The id pins what the tool is, not how the spec happened to list its
  // capabilities: they are hashed sorted.
  const pinned = [name, description, json(parameters), json(returnType), executor, [...capabilities].sort()];
  const id = `synth_${createHash("sha256").update(JSON.stringify(pinned)).digest("hex").slice(0, 16)}`;
  return { id, name, description, executor, hostTool, mcpClient, mcpTool: optString(spec, "mcp_tool") ?? name, capabilities, sideEffectLevel: level, parameters, returnType };
}

const json = (v: Value): string => stringifyJsonKeepingFloats(toJson(v));

function call(tool: Synthesized, args: Value[], ctx: CallContext): Value | Promise<Value> {
  const given = args[0] ?? null;
  if (given !== null && !(given instanceof HDict)) throw HarnError.thrown(`${tool.name}: arguments must be a dict, got ${display(given)}`);
  const dict = given ?? HDict.empty();
  for (const param of tool.parameters.keys()) {
    if (dict.get(param) === null) throw HarnError.thrown(`${tool.name}: missing required argument "${param}"`);
  }
  switch (tool.executor) {
    case "host_bridge":
      return ctx.call(new HBuiltinRef("host_tool_call"), [tool.hostTool, dict]);
    case "mcp_server":
      return ctx.call(new HBuiltinRef("mcp_call"), [tool.mcpClient, tool.mcpTool, dict]);
    default:
      return HDict.of({
        _type: "synthesized_tool_result",
        status: "dry_run",
        tool_id: tool.id,
        name: tool.name,
        description: tool.description,
        args: dict,
        capabilities: tool.capabilities,
        side_effect_level: tool.sideEffectLevel,
        message: DRY_RUN_MESSAGE,
      });
  }
}

export const TOOL_SYNTHESIS_BUILTINS = builtinModule("agent/tools/synthesize", (def, rt) => {
  def("tool_synthesize", (args) => {
    const tool = parse(args[0] ?? null);
    rt.slot(CACHE).set(tool.id, tool);
    return nativeClosure(tool.name, ["args"], (callArgs, ctx) => call(tool, callArgs, ctx));
  });
  def("tool_synthesis_cache", () =>
    [...rt.slot(CACHE).values()].map((t) =>
      HDict.of({
        id: t.id,
        name: t.name,
        description: t.description,
        executor: t.executor,
        host_tool: t.hostTool,
        capabilities: t.capabilities,
        side_effect_level: t.sideEffectLevel,
        parameters: t.parameters,
      }),
    ),
  );
  def("tool_synthesis_clear", () => {
    rt.slot(CACHE).clear();
    return null;
  });
});
