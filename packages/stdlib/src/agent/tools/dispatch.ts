/**
 * Running one tool call of an agent turn (spec/agents.md §2.6): required
 * arguments, backend selection, handler invocation (by parameter name for
 * `tool` declarations), the result text and its status.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { display, HarnError, HDict, isPromise, type CallContext, type Value } from "@harn/vm";
import { osErrorText } from "../../core/oserror";
import { resolvePath } from "../../core/paths";
import { deniedBy, limitOutput } from "./hooks";
import { isCallable, isRequired, type ToolSpec } from "./spec";
import { fromJson, type JsonObject } from "../../core/json";

export interface ToolCall {
  id: string;
  name: string;
  arguments: JsonObject;
}

export type CallStatus = "ok" | "error" | "rejected";

export interface CallOutcome {
  name: string;
  text: string;
  status: CallStatus;
  /** False when the call never ran (missing arguments): it is not
   * recorded in `tools.calls`. */
  ran: boolean;
  /** The handler's return value (the initial response of a long-running
   * tool). */
  value: Value;
  /** Extra metadata for the call's `tool_execution` event (permission
   * decisions). */
  eventMeta?: Record<string, Value>;
}

/** Tools the loop serves itself (background sub-agents). */
export type BuiltinTool = (args: HDict, ctx: CallContext) => Value | Promise<Value>;

/** Calls tool `tool` of one MCP server; resolves to the result text
 * (spec/mcp.md §3.3 step 2). */
export type McpCaller = (tool: string, args: JsonObject, ctx: CallContext) => Promise<string>;

/** The MCP client a loop sends `server`'s tools to, or null: none. */
export type McpClients = (server: string) => McpCaller | null | Promise<McpCaller | null>;

/** The pretty-printed denial of §2.6 step 1 / step 5. */
export function denial(name: string, reason: string): string {
  return JSON.stringify({ error: "permission_denied", tool: name, reason }, null, 2);
}

function rejected(name: string, reason: string): CallOutcome {
  return { name, text: denial(name, reason), status: "rejected", ran: true, value: null };
}

function statusOf(text: string): CallStatus {
  return text.startsWith("Error:") || text.startsWith("ERROR:") ? "error" : "ok";
}

/** Result text of a handler's return value: display form, not JSON. */
export function resultText(v: Value): string {
  return typeof v === "string" ? v : display(v);
}

/** `Error: <display of the error>` for anything a handler threw. */
export function errorText(e: HarnError): string {
  return `Error: ${e.description()}`;
}

function missingParams(tool: ToolSpec, args: JsonObject): string[] {
  const missing: string[] = [];
  for (const name of tool.parameters.keys()) {
    if (!isRequired(tool.parameters.get(name))) continue;
    const v = args[name];
    if (v === undefined || v === null) missing.push(name);
  }
  return missing;
}

/** Positional arguments of a `tool` declaration's handler, bound by name
 * (agents.md §2.6 [TS decision]): absent names take the schema default,
 * and trailing absent ones are left out so the declared defaults apply. */
function positional(tool: ToolSpec, params: readonly string[], args: JsonObject): Value[] {
  const out: Value[] = [];
  let last = -1;
  params.forEach((p, i) => {
    const name = p.replace(/^\.\.\./, "");
    if (args[name] !== undefined) {
      out.push(fromJson(args[name]));
      last = i;
      return;
    }
    const schema = tool.parameters.get(name);
    if (schema instanceof HDict && schema.has("default")) {
      out.push(schema.get("default"));
      last = i;
    } else out.push(null);
  });
  return out.slice(0, last + 1);
}

/** Call a tool's handler closure with `args` (§2.6 step 4): a `tool`
 * declaration's by parameter name, any other with the arguments dict. */
export function callHandler(tool: ToolSpec, args: JsonObject, ctx: CallContext): Value | Promise<Value> {
  const values = tool.declared ? positional(tool, (tool.handler as { params: string[] }).params, args) : [fromJson(args)];
  return ctx.call(tool.handler, values);
}

export async function dispatchCall(
  call: ToolCall,
  tools: ReadonlyMap<string, ToolSpec>,
  ctx: CallContext,
  builtins: ReadonlyMap<string, BuiltinTool>,
  /** Called once the call passed every check, just before it runs. */
  onIntent?: () => void,
  /** Where `executor: "mcp_server"` tools go (spec/mcp.md §3.3). */
  mcp: McpClients | null = null,
): Promise<CallOutcome> {
  const tool = tools.get(call.name);
  const name = call.name;
  const hookDenial = deniedBy(ctx.runtime, name);
  if (hookDenial !== null) return rejected(name, hookDenial);
  if (tool && typeof call.arguments._raw === "string" && Object.keys(call.arguments).length === 1 && !tool.parameters.has("_raw")) {
    return {
      name,
      text: `ERROR: Tool '${name}' received arguments that are not a JSON object: ${call.arguments._raw}. Send the arguments as one JSON object and try again.`,
      status: "error",
      ran: false,
      value: null,
    };
  }
  if (tool) {
    const missing = missingParams(tool, call.arguments);
    if (missing.length > 0) {
      return {
        name,
        text: `ERROR: Tool '${name}' is missing required parameter(s): ${missing.join(", ")}. Provide all required parameters and try again.`,
        status: "error",
        ran: false,
        value: null,
      };
    }
  }
  const notAvailable = `Tool '${name}' is not available in the current environment. Use only the tools listed in the tool-calling contract. Do not retry this tool.`;
  if (!tool) return rejected(name, notAvailable);
  if (tool.executor === "provider_native") return rejected(name, `Tool '${name}' is executed by the provider, not locally. Do not retry this tool.`);
  if (tool.executor === "host_bridge") {
    return rejected(name, `tool '${name}' is declared executor: "host_bridge" but no host bridge is connected to this environment Do not retry this tool.`);
  }
  const argsDict = fromJson(call.arguments) as HDict;
  let run: () => Value | Promise<Value>;
  const builtin = builtins.get(tool.builtin ?? name);
  const server = tool.executor === "mcp_server" ? (tool.mcp?.server ?? "mcp") : null;
  const viaMcp = server !== null && mcp !== null ? await mcp(server) : null;
  if (builtin && (tool.builtin !== null || SERVED_BUILTINS.has(name))) run = () => builtin(argsDict, ctx);
  else if (viaMcp) run = () => viaMcp(tool.mcp?.tool ?? name, call.arguments, ctx);
  else if (isCallable(tool.handler)) run = () => callHandler(tool, call.arguments, ctx);
  else if (server !== null) {
    return rejected(name, `tool '${name}' (mcp_server: "${server}") cannot be dispatched: no direct MCP client, bridge, or Harn handler Do not retry this tool.`);
  } else return rejected(name, notAvailable);
  onIntent?.();
  try {
    const r = run();
    const value = isPromise<Value>(r) ? await r : r;
    const text = limitOutput(ctx.runtime, name, resultText(value));
    return { name, text, status: statusOf(text), ran: true, value };
  } catch (e) {
    // Cancellation of the loop is not a tool failure.
    if (ctx.signal.aborted || !(e instanceof HarnError)) throw e;
    return { name, text: errorText(e), status: "error", ran: true, value: null };
  }
}

/** Names served by a built-in implementation even when the entry has a
 * handler (§2.6 step 3). */
const SERVED_BUILTINS = new Set(["read_file", "list_directory", "emit_plan", "update_plan"]);

/** A directory, or a symlink to one; false for anything that cannot be
 * stat'ed (a dangling symlink must not fail the whole listing). */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The built-in short-circuit tools. */
export function shortCircuitTools(): Map<string, BuiltinTool> {
  const m = new Map<string, BuiltinTool>();
  m.set("read_file", (args, ctx) => {
    const path = args.get("path");
    if (typeof path !== "string" || path === "") throw HarnError.thrown("read_file: path is required");
    const full = resolvePath(ctx.runtime, path);
    try {
      return readFileSync(full, "utf8");
    } catch (e) {
      throw HarnError.thrown(`read_file: Failed to read file ${full}: ${osErrorText(e)}`);
    }
  });
  m.set("list_directory", (args, ctx) => {
    const raw = args.get("path");
    const dir = resolvePath(ctx.runtime, typeof raw === "string" && raw !== "" ? raw : ".");
    try {
      return readdirSync(dir)
        .sort()
        .map((n) => (isDirectory(`${dir}/${n}`) ? `${n}/` : n))
        .join("\n");
    } catch (e) {
      throw HarnError.thrown(`list_directory: Failed to list ${dir}: ${osErrorText(e)}`);
    }
  });
  const plan: BuiltinTool = (args) => `Plan recorded: ${display(args.get("plan") ?? args)}`;
  m.set("emit_plan", plan);
  m.set("update_plan", plan);
  return m;
}
