/**
 * MCP servers in `agent_loop` (spec/mcp.md §3): the loop's tool source.
 * It connects the `mcp_servers` entries, turns their tools into registry
 * entries named `<server>__<tool>`, dispatches calls of those tools to the
 * right client (with `tool_retries`), and disconnects every client when
 * the loop ends, however it ends. Loaded only by loops that use MCP.
 */
import { HarnError, HDict, type CallContext, type Runtime, type Value } from "@harn/vm";
import { fromJson, isJsonObject as isObject, type Json, type JsonObject } from "../core/json";
import { isRegistry } from "../agent/tools/spec";
import type { McpCaller } from "../agent/tools/dispatch";
import type { McpServerSpec } from "./config";
import { connectSpec, listTools, type ClientHandle } from "./handle";
import { MCP_REGISTRY } from "./registry";
import { toolResultText, toolResultValue } from "./results";

export interface LoopMcp {
  /** The loop's `tools` option with the servers' tools appended. */
  tools: HDict;
  /** The caller for `server`'s tools: the loop's own client, else an
   * active registry connection (§3.3 [extension]). */
  clients(server: string): McpCaller | null;
  /** Disconnect the loop's clients. */
  close(): Promise<void>;
}

/**
 * §3.2 bootstrap: connect each server in order and list its tools. On any
 * failure the clients opened so far are disconnected and the failure is
 * the loop's.
 */
export async function openLoopServers(ctx: CallContext, servers: McpServerSpec[], tools: Value, resumedTools: JsonObject[] | null, retries: number): Promise<LoopMcp> {
  const rt = ctx.runtime;
  const opened = new Map<string, ClientHandle>();
  const close = async () => {
    const all = [...opened.values()];
    opened.clear();
    await Promise.all(all.map((h) => h.disconnect()));
  };
  try {
    const base = baseRegistry(tools, resumedTools);
    const added: Value[] = [];
    for (const spec of servers) {
      const h = await connectSpec(rt, spec, spec.name, { signal: ctx.signal });
      opened.set(spec.name, h);
      for (const t of await listTools(h, ctx.signal)) added.push(toolEntry(spec.name, t));
    }
    const existing = base.get("tools");
    const all = [...(Array.isArray(existing) ? existing : []), ...added];
    if (added.length > 0) {
      const seen = new Set<string>();
      for (const e of all) {
        const name = e instanceof HDict ? e.get("name") : null;
        if (typeof name !== "string") continue;
        if (seen.has(name)) throw HarnError.runtime(`agent_loop: duplicate tool name \`${name}\` after MCP server prefixing`);
        seen.add(name);
      }
    }
    return {
      tools: base.with("tools", all),
      clients: (server) => {
        const h = opened.get(server) ?? rt.slot(MCP_REGISTRY).activeHandle(server);
        return h ? caller(h, retries) : null;
      },
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}

/** Without `mcp_servers`, a loop's `executor: "mcp_server"` tools go to
 * active registry connections (§3.3 [extension]). */
export function registryClient(rt: Runtime, server: string, retries: number): McpCaller | null {
  const h = rt.slot(MCP_REGISTRY).activeHandle(server);
  return h ? caller(h, retries) : null;
}

/** The loop's tools as a registry (§3.2): absent → a new one, a registry
 * as is, a list wrapped. A resumed loop without `tools` starts from the
 * tools of its yielded state, less the MCP tools the bootstrap adds again. */
function baseRegistry(tools: Value, resumedTools: JsonObject[] | null): HDict {
  const empty = HDict.of({ _type: "tool_registry", tools: [] });
  if (tools === null) {
    if (resumedTools === null) return empty;
    return empty.with("tools", resumedTools.filter((t) => t.executor !== "mcp_server").map((t) => fromJson(t)));
  }
  if (isRegistry(tools)) return tools;
  if (Array.isArray(tools)) return empty.with("tools", tools);
  throw HarnError.runtime("agent_loop: `tools` must be a tool registry or list when `mcp_servers` is used");
}

/** The registry entry of MCP tool `tool` of `server` (§3.2). */
function toolEntry(server: string, tool: JsonObject): Value {
  const name = typeof tool.name === "string" ? tool.name.trim() : "";
  if (name === "") throw HarnError.runtime(`agent_loop: MCP server \`${server}\` returned a tool without a name`);
  const schema = tool.inputSchema ?? tool.input_schema;
  const props = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  const required = isObject(schema) && Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
  const parameters: JsonObject = {};
  for (const [p, s] of Object.entries(props)) parameters[p] = isObject(s) ? { ...s, required: required.includes(p) } : s;
  const entry: Record<string, Json> = {
    name: `${server}__${name}`,
    description: typeof tool.description === "string" ? tool.description : "",
    parameters,
    annotations: { kind: "fetch", side_effect_level: "network", arg_schema: { required } },
    executor: "mcp_server",
    mcp_server: server,
    _mcp_server: server,
    _mcp_tool_name: name,
  };
  const output = tool.outputSchema ?? tool.output_schema;
  if (output !== undefined) entry.outputSchema = output;
  return fromJson(entry);
}

/** `tools/call` through `h` (§3.3 step 2), retried up to `retries` times;
 * the result as the loop's tool text. */
function caller(h: ClientHandle, retries: number): McpCaller {
  return async (tool, args, ctx) => {
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await h.request("tools/call", { name: tool, arguments: args }, ctx.signal);
        return toolResultText(toolResultValue(result));
      } catch (e) {
        if (attempt >= retries || ctx.signal.aborted || !(e instanceof HarnError)) throw e;
      }
    }
  };
}
