/**
 * Tools as the agent loop sees them (spec/agents.md §2.4): the accepted
 * `tools` option shapes, startup validation, JSON-Schema input schemas for
 * native definitions and the text-format tool contract.
 */
import { display, HarnError, HBuiltinRef, HClosure, HDict, isToolDeclHandler, type Value } from "@harn/vm";
import type { LlmToolDefinition } from "../../llm/types";
import { isJsonObject, type Json, type JsonObject, toJson } from "../../core/json";

export const TOOLS_SHAPE_ERROR = "tools must be a tool_registry or a list of tool definition dicts";

export const KNOWN_EXECUTORS = ["harn", "host_bridge", "mcp_server", "provider_native"] as const;

/** Names served by a built-in implementation even without a handler. */
export const SHORT_CIRCUIT_TOOLS = new Set(["read_file", "list_directory", "emit_plan", "update_plan"]);

/** Built-in tools the loop provides itself (extensions.md §2). */
export const BACKGROUND_TOOL_NAMES = new Set(["background_task", "check_task"]);

/**
 * The sentence appended to a long-running tool's description
 * (extensions.md §1.1), so the model neither waits for nor repeats it.
 */
export const LONG_RUNNING_NOTE =
  "This is a long-running operation: it returns at once with a pending status and its result is delivered in a later message. Do not call this tool again for the same operation while it is pending.";

export interface ToolSpec {
  name: string;
  description: string;
  /** Parameter name → schema dict (or a bare type string), as stored. */
  parameters: HDict;
  handler: Value;
  executor: string;
  longRunning: boolean;
  /** The handler came from a `tool` declaration: bind arguments by name. */
  declared: boolean;
  /** Served by the loop itself (`background_task`, `read_file`, …). */
  builtin: string | null;
  /** `executor: "mcp_server"`: the server (`mcp_server`, else
   * `_mcp_server`) and the server's name of the tool (`_mcp_tool_name`),
   * spec/mcp.md §3.3. */
  mcp?: { server: string | null; tool: string | null };
  /** The registry entry's `namespace` (skill scoping by `namespace:<tag>`). */
  namespace?: string | null;
  /** The native schema says `additionalProperties: false`. */
  closedSchema?: boolean;
  /** `defer_loading: true`: found through tool search (workflows.md §3). */
  deferLoading?: boolean;
  /** The entry's `annotations` dict (kind, side_effect_level, …). */
  annotations?: HDict | null;
}

export function isRegistry(v: Value): v is HDict {
  return v instanceof HDict && v.get("_type") === "tool_registry";
}

export function canonicalExecutor(v: Value): string | null {
  if (v === null) return null;
  const s = typeof v === "string" ? v : display(v);
  return s === "harn_builtin" ? "harn" : s;
}

/** A tool entry dict as a `ToolSpec` (no validation). */
export function specOf(entry: HDict): ToolSpec | null {
  const name = entry.get("name");
  if (typeof name !== "string" || name === "") return null;
  const params = entry.get("parameters");
  const handler = entry.get("handler");
  const description = entry.get("description");
  const executor = canonicalExecutor(entry.get("executor")) ?? (handler !== null ? "harn" : "");
  const text = (v: Value) => (v === null ? null : typeof v === "string" ? v : display(v));
  return {
    name,
    description: typeof description === "string" ? description : description === null ? "" : display(description),
    parameters: params instanceof HDict ? params : HDict.empty(),
    handler,
    executor,
    longRunning: entry.get("long_running") === true,
    declared: isToolDeclHandler(handler),
    builtin: null,
    ...(executor === "mcp_server" ? { mcp: { server: text(entry.get("mcp_server") ?? entry.get("_mcp_server")), tool: text(entry.get("_mcp_tool_name")) } } : {}),
    namespace: typeof entry.get("namespace") === "string" ? (entry.get("namespace") as string) : null,
    deferLoading: entry.get("defer_loading") === true,
    annotations: entry.get("annotations") instanceof HDict ? (entry.get("annotations") as HDict) : null,
  };
}

/** The tool list of a `tools` option value (registry, list of dicts, nil).
 * String list entries name built-in tools; other non-dicts are ignored.
 *
 * [TS decision] A registry inside the list contributes its tools, so
 * `tools: [deploy, lookup]` over two `tool` declarations (each binds a
 * one-tool registry, §2.4) offers both tools. Taken literally the spec
 * would keep the registry as a nameless tool dict, and the model's calls
 * to those tools would be refused as "not available" with no hint why. */
export function toolEntries(v: Value): { entries: HDict[]; named: string[] } {
  if (v === null) return { entries: [], named: [] };
  let list: Value[];
  if (isRegistry(v)) {
    const tools = v.get("tools");
    list = Array.isArray(tools) ? tools : [];
  } else if (Array.isArray(v)) {
    list = v;
  } else {
    throw HarnError.thrown(TOOLS_SHAPE_ERROR);
  }
  const entries: HDict[] = [];
  const named: string[] = [];
  for (const x of list) {
    if (isRegistry(x)) {
      const inner = x.get("tools");
      if (Array.isArray(inner)) for (const t of inner) if (t instanceof HDict) entries.push(t);
    } else if (x instanceof HDict) entries.push(x);
    else if (typeof x === "string") named.push(x);
  }
  return { entries, named };
}

/** Startup validation (§2.4): every tool must have a way to run. */
export function validateSpec(s: ToolSpec, entry: HDict): void {
  if (s.builtin !== null || SHORT_CIRCUIT_TOOLS.has(s.name)) return;
  const raw = entry.get("executor");
  if (raw !== null) {
    const ex = canonicalExecutor(raw)!;
    if (!(KNOWN_EXECUTORS as readonly string[]).includes(ex)) {
      throw HarnError.runtime(
        `agent_loop: tool '${s.name}' declares unknown executor "${ex}". Expected one of: "harn", "host_bridge", "mcp_server", "provider_native".`,
      );
    }
    if (ex === "harn" && !isCallable(s.handler)) {
      throw HarnError.runtime(`agent_loop: tool '${s.name}' declares executor: "harn" but has no callable \`handler\`. Give it a handler closure or remove the executor.`);
    }
    return;
  }
  if (isCallable(s.handler) || entry.has("_mcp_server")) return;
  throw HarnError.runtime(`agent_loop: tool '${s.name}' has no executable backend (no handler closure, executor or MCP server)`);
}

/**
 * [extension, P2] The standard definitions a string entry of the `tools`
 * list expands to (§2.4): `"read_file"` and `"list_directory"`, served by
 * the built-in implementations.
 */
export function namedToolSpec(name: string): ToolSpec | null {
  const base = { handler: null, executor: "harn", longRunning: false, declared: false, builtin: name };
  if (name === "read_file") {
    return {
      ...base,
      name,
      description: "Read a text file and return its contents.",
      parameters: HDict.of({ path: HDict.of({ type: "string", description: "Path of the file, relative to the working directory" }) }),
    };
  }
  if (name === "list_directory") {
    return {
      ...base,
      name,
      description: "List the entries of a directory (directories end with /).",
      parameters: HDict.of({ path: HDict.of({ type: "string", description: "Directory to list (default: the working directory)", required: false }) }),
    };
  }
  return null;
}

export function isCallable(v: Value): v is HClosure | HBuiltinRef {
  return v instanceof HClosure || v instanceof HBuiltinRef;
}

/** A parameter's schema as a dict (a bare type string `t` is `{type: t}`). */
function paramSchema(v: Value): JsonObject {
  if (typeof v === "string") return { type: v };
  const j = toJson(v);
  return isJsonObject(j) ? j : { type: "any" };
}

/** Whether a call must supply this parameter (§2.6 step 2). */
export function isRequired(schema: Value): boolean {
  if (!(schema instanceof HDict)) return true;
  return schema.get("required") !== false && !schema.has("default");
}

/** The JSON-Schema object of a tool's arguments. */
export function inputSchema(params: HDict): JsonObject {
  const properties: JsonObject = {};
  const required: Json[] = [];
  for (const name of params.keys()) {
    const raw = params.get(name);
    const s = paramSchema(raw);
    delete s.required;
    properties[name] = s;
    if (!(raw instanceof HDict) || raw.get("required") !== false) required.push(name);
  }
  return { type: "object", properties, required };
}

/** A tool's native definition; `searchFlags` (native tool search, §3.3)
 * adds `defer_loading` and `namespace` where set. */
export function nativeDefinition(s: ToolSpec, searchFlags = false): LlmToolDefinition {
  const parameters = inputSchema(s.parameters);
  if (s.closedSchema) parameters.additionalProperties = false;
  const def: LlmToolDefinition = { name: s.name, description: s.description, parameters };
  if (searchFlags && s.deferLoading) def.defer_loading = true;
  if (searchFlags && s.namespace) def.namespace = s.namespace;
  return def;
}

/** `name(a: type, b?: type)`: the signature line of the tool contract. */
export function signature(s: ToolSpec): string {
  const ps: string[] = [];
  for (const name of s.parameters.keys()) {
    const raw = s.parameters.get(name);
    const schema = paramSchema(raw);
    const type = typeof schema.type === "string" ? schema.type : "any";
    const optional = raw instanceof HDict && raw.get("required") === false;
    ps.push(`${name}${optional ? "?" : ""}: ${type}`);
  }
  return `${s.name}(${ps.join(", ")})`;
}

/**
 * The text-format tool contract appended to the system prompt. It names
 * `<done>` only for persistent loops: the mock answers with the tagged
 * protocol exactly when the system prompt contains `<done>` (§3.6).
 */
export function toolContract(tools: readonly ToolSpec[], persistent: boolean, sentinel: string): string {
  const lines = [
    "## Tools",
    "Call a tool by writing a block like this in your reply (one call per block; arguments are an object literal):",
    "<tool_call>",
    'tool_name({ key: "value" })',
    "</tool_call>",
    "Use <<EOF … EOF heredocs for multi-line string arguments. Results come back in a later message.",
    "",
    "Available tools:",
  ];
  for (const t of tools) lines.push(`- ${signature(t)}: ${t.description}`);
  if (persistent) lines.push("", `When the whole task is complete, reply with <done>${sentinel}</done>.`);
  return lines.join("\n");
}
