/**
 * The registration builtins of a script served over MCP (spec/mcp.md
 * §4.1): `mcp_tools` (alias `mcp_serve`), `mcp_resource`,
 * `mcp_resource_template`, `mcp_prompt`. They only record definitions in
 * per-runtime state; `harn serve mcp` serves them once the script's entry
 * pipeline has run (serve.ts).
 *
 * The first registration also keeps a call context that outlives the
 * entry pipeline (a detached root-scope task), through which the server
 * later calls the handlers.
 */
import { display, HarnError, HDict, RuntimeSlot, type CallContext, type Value } from "@harn/vm";
import { isCallableValue } from "../core/args";
import { isRegistry } from "../agent/tools/spec";

export interface StaticResource {
  uri: string;
  name: string;
  text: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  handler: Value;
  title?: string;
  description?: string;
  mimeType?: string;
}

export interface PromptArgument {
  name: string;
  description?: string;
  required: boolean;
}

export interface Prompt {
  name: string;
  handler: Value;
  title?: string;
  description?: string;
  arguments: PromptArgument[];
}

export interface Registrations {
  /** The last `mcp_tools` registry; null until one was recorded. */
  tools: HDict | null;
  resources: StaticResource[];
  templates: ResourceTemplate[];
  prompts: Prompt[];
  /** Export mode (§4.7): the file's `pub fn`s by name, recorded by the
   * entry `harn serve mcp` generates for it. */
  exports: HDict | null;
  /** Calls the handlers after the entry pipeline has ended. */
  ctx: CallContext | null;
}

export const MCP_REGISTRATIONS = new RuntimeSlot<Registrations>("mcp.registrations", () => ({
  tools: null,
  resources: [],
  templates: [],
  prompts: [],
  exports: null,
  ctx: null,
}));

function state(ctx: CallContext): Registrations {
  const s = ctx.runtime.slot(MCP_REGISTRATIONS);
  s.ctx ??= ctx.inSession ? ctx.inSession("", { detached: true }) : ctx;
  return s;
}

const text = (v: Value): string => (typeof v === "string" ? v : display(v));

/** The display-converted optional keys `title`, `description` and the
 * MIME type (`mime_type`, as `mimeType`). */
function optional(d: HDict): { title?: string; description?: string; mimeType?: string } {
  const out: { title?: string; description?: string; mimeType?: string } = {};
  if (d.get("title") !== null) out.title = text(d.get("title"));
  if (d.get("description") !== null) out.description = text(d.get("description"));
  if (d.get("mime_type") !== null) out.mimeType = text(d.get("mime_type"));
  return out;
}

function mcpTools(args: Value[], ctx: CallContext): Value {
  if (args.length === 0) throw HarnError.runtime("mcp_tools: requires a tool_registry argument");
  const reg = args[0]!;
  if (!(reg instanceof HDict)) throw HarnError.runtime("mcp_tools: argument must be a tool registry");
  if (!isRegistry(reg)) throw HarnError.runtime("mcp_tools: argument must be a tool registry (created with tool_registry())");
  state(ctx).tools = reg;
  return null;
}

function mcpResource(args: Value[], ctx: CallContext): Value {
  const d = args[0];
  if (!(d instanceof HDict)) throw HarnError.runtime("mcp_resource: argument must be a dict with {uri, name, text}");
  for (const key of ["uri", "name", "text"]) if (d.get(key) === null) throw HarnError.runtime(`mcp_resource: '${key}' is required`);
  state(ctx).resources.push({ uri: text(d.get("uri")), name: text(d.get("name")), text: text(d.get("text")), ...optional(d) });
  return null;
}

function mcpResourceTemplate(args: Value[], ctx: CallContext): Value {
  const d = args[0];
  if (!(d instanceof HDict)) throw HarnError.runtime("mcp_resource_template: argument must be a dict");
  for (const key of ["uri_template", "name"]) if (d.get(key) === null) throw HarnError.runtime(`mcp_resource_template: '${key}' is required`);
  const handler = d.get("handler");
  if (!isCallableValue(handler)) throw HarnError.runtime("mcp_resource_template: 'handler' closure is required");
  state(ctx).templates.push({ uriTemplate: text(d.get("uri_template")), name: text(d.get("name")), handler, ...optional(d) });
  return null;
}

function mcpPrompt(args: Value[], ctx: CallContext): Value {
  const d = args[0];
  if (!(d instanceof HDict)) throw HarnError.runtime("mcp_prompt: argument must be a dict with {name, handler}");
  if (d.get("name") === null) throw HarnError.runtime("mcp_prompt: 'name' is required");
  const handler = d.get("handler");
  if (!isCallableValue(handler)) throw HarnError.runtime("mcp_prompt: 'handler' closure is required");
  const raw = d.get("arguments");
  const promptArgs: PromptArgument[] = [];
  if (Array.isArray(raw)) {
    for (const a of raw) {
      if (!(a instanceof HDict)) continue;
      const arg: PromptArgument = { name: a.get("name") === null ? "" : text(a.get("name")), required: a.get("required") === true };
      if (a.get("description") !== null) arg.description = text(a.get("description"));
      promptArgs.push(arg);
    }
  }
  const { title, description } = optional(d);
  state(ctx).prompts.push({
    name: text(d.get("name")),
    handler,
    arguments: promptArgs,
    ...(title !== undefined ? { title } : {}),
    ...(description !== undefined ? { description } : {}),
  });
  return null;
}

/** `__mcp_export(fns)`: not for scripts; the entry `harn serve mcp`
 * generates for a file of `pub fn`s records them with it. */
function mcpExport(args: Value[], ctx: CallContext): Value {
  const fns = args[0];
  if (!(fns instanceof HDict)) throw HarnError.runtime("__mcp_export: argument must be a dict");
  state(ctx).exports = fns;
  return null;
}

export const REGISTRATION_BUILTINS = {
  mcp_tools: mcpTools,
  mcp_serve: mcpTools,
  mcp_resource: mcpResource,
  mcp_resource_template: mcpResourceTemplate,
  mcp_prompt: mcpPrompt,
  __mcp_export: mcpExport,
} as const;
