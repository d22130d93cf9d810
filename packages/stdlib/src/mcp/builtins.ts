/**
 * The MCP builtins (spec/mcp.md §1–§2, §4.1): client handles and their
 * requests, the lazy registry of declared servers, Server Cards, and the
 * registration builtins of served scripts. A lazy builtin group: the SDK
 * loads with it, on a script's first MCP call.
 */
import { display, HarnError, HDict, type CallContext, type Value } from "@harn/vm";
import { fromJson } from "../core/json";
import { strArg } from "../core/args";
import { serverCard } from "./card";
import { parseServerSpec, specFromDict } from "./config";
import { clientOf, clientValue, connectSpec, listTools, type ClientHandle } from "./handle";
import { MCP_REGISTRY } from "./registry";
import { builtinModule, type BuiltinModule } from "../registry/define";
import { REGISTRATION_BUILTINS } from "./registrations";
import { argumentsJson, listOf, resourceValue, toolResultValue } from "./results";

/** §1.13: the handle argument, or the builtin's thrown argument error. */
function client(args: Value[], builtin: string, first: boolean): ClientHandle {
  const h = clientOf(args[0] ?? null);
  if (h === null) throw HarnError.thrown(`${builtin}: ${first ? "first argument" : "argument"} must be an MCP client`);
  return h;
}

async function mcpConnect(args: Value[], ctx: CallContext): Promise<Value> {
  const rt = ctx.runtime;
  const target = args[0] ?? null;
  if (target instanceof HDict) {
    const spec = specFromDict(target);
    return clientValue(await connectSpec(rt, spec, spec.name, { signal: ctx.signal }));
  }
  const command = strArg(args, 0);
  if (command === "") throw HarnError.thrown("mcp_connect: command is required");
  const raw = args[1];
  const argv = Array.isArray(raw) ? raw.map((a) => (typeof a === "string" ? a : display(a))) : [];
  return clientValue(await connectSpec(rt, parseServerSpec({ name: command, command, args: argv }), command, { signal: ctx.signal }));
}

/** A builtin listing `key` of `method`'s result (first page only). */
function lister(builtin: string, method: string, key: string) {
  return async (args: Value[], ctx: CallContext): Promise<Value> => {
    const h = client(args, builtin, false);
    return fromJson(listOf(await h.request(method, {}, ctx.signal), key));
  };
}

async function mcpListTools(args: Value[], ctx: CallContext): Promise<Value> {
  const h = client(args, "mcp_list_tools", false);
  const tools = await listTools(h, ctx.signal);
  return tools.map((t) => fromJson("_mcp_server" in t ? t : { ...t, _mcp_server: h.name }));
}

async function mcpCall(args: Value[], ctx: CallContext): Promise<Value> {
  const h = client(args, "mcp_call", true);
  const name = strArg(args, 1);
  if (name === "") throw HarnError.thrown("mcp_call: tool name is required");
  const result = await h.request("tools/call", { name, arguments: argumentsJson(args[2] ?? null) }, ctx.signal);
  return toolResultValue(result);
}

async function mcpReadResource(args: Value[], ctx: CallContext): Promise<Value> {
  const h = client(args, "mcp_read_resource", true);
  const uri = strArg(args, 1);
  if (uri === "") throw HarnError.thrown("mcp_read_resource: URI is required");
  return resourceValue(await h.request("resources/read", { uri }, ctx.signal));
}

async function mcpGetPrompt(args: Value[], ctx: CallContext): Promise<Value> {
  const h = client(args, "mcp_get_prompt", true);
  const name = strArg(args, 1);
  if (name === "") throw HarnError.thrown("mcp_get_prompt: prompt name is required");
  return fromJson(await h.request("prompts/get", { name, arguments: argumentsJson(args[2] ?? null) }, ctx.signal));
}

function mcpServerInfo(args: Value[]): Value {
  const h = client(args, "mcp_server_info", false);
  h.live();
  return HDict.of({ connected: true, name: h.name });
}

async function mcpDisconnect(args: Value[]): Promise<Value> {
  await client(args, "mcp_disconnect", false).disconnect();
  return null;
}

/** The server name argument of the registry builtins. */
function serverName(args: Value[], builtin: string): string {
  const name = args[0] === undefined || args[0] === null ? "" : strArg(args, 0);
  if (name === "") throw HarnError.thrown(`${builtin}: server name is required`);
  return name;
}

export const MCP_BUILTINS = builtinModule("mcp/builtins", (def) => {
  def("mcp_connect", mcpConnect);
  def("mcp_list_tools", mcpListTools);
  def("mcp_call", mcpCall);
  def("mcp_list_resources", lister("mcp_list_resources", "resources/list", "resources"));
  def("mcp_list_resource_templates", lister("mcp_list_resource_templates", "resources/templates/list", "resourceTemplates"));
  def("mcp_read_resource", mcpReadResource);
  def("mcp_list_prompts", lister("mcp_list_prompts", "prompts/list", "prompts"));
  def("mcp_get_prompt", mcpGetPrompt);
  def("mcp_server_info", mcpServerInfo);
  def("mcp_disconnect", mcpDisconnect);
  def("mcp_ensure_active", async (args, ctx) => {
    const name = serverName(args, "mcp_ensure_active");
    return clientValue(await ctx.runtime.slot(MCP_REGISTRY).ensureActive(name, ctx.signal));
  });
  def("mcp_release", (args, ctx) => {
    ctx.runtime.slot(MCP_REGISTRY).release(serverName(args, "mcp_release"));
    return null;
  });
  def("mcp_registry_status", (_args, ctx) => ctx.runtime.slot(MCP_REGISTRY).status());
  def("mcp_server_card", serverCard);
  for (const [name, fn] of Object.entries(REGISTRATION_BUILTINS)) def(name, fn);
});

/** The `mcp` lazy group (lazy/groups.ts). */
export const MCP_MODULES: readonly BuiltinModule[] = [MCP_BUILTINS];
