/**
 * A file of `pub fn`s served over MCP, export mode (spec/mcp.md §4.7):
 * every exported function is a tool whose schema comes from its parameter
 * and return types. Unlike script mode, calls run concurrently, each in a
 * task of its own that `notifications/cancelled` cancels (the SDK then
 * sends no response), and a call with a progress token reports progress
 * every second while it runs.
 */
import type { FnDecl, Node, Program } from "@harn/parser";
import { display, HarnError, HDict, toolTypeSchema, type CallContext, type Runtime, type SessionCallContext, type Value } from "@harn/vm";
import { HARN_VERSION } from "@harn/vm/version";
import { fromJson, isJsonObject as isObject, toJson, type Json, type JsonObject } from "../core/json";
import { PROTOCOL_VERSION } from "./config";
import { MCP_REGISTRATIONS } from "./registrations";
import { CARD_URI, cardResource, type RequestExtra, type Served } from "./serve";
import { INVALID_PARAMS, ProtocolError, taskAugmentation, unsupportedMethod } from "./unsupported";

const NOT_INITIALIZED = -32002;
const PROGRESS_EVERY_MS = 1000;

/** One exported function, as the entry generated for the file found it. */
export interface ExportedFn {
  name: string;
  /** Parameters in order: JSON schema of the type, and whether it has a default. */
  params: { name: string; schema: JsonObject; optional: boolean }[];
  /** JSON schema of the return type; null when untyped. */
  returns: JsonObject | null;
}

interface Tool {
  decl: ExportedFn;
  fn: Value;
  listed: JsonObject;
}

export class ExportServer implements Served {
  readonly answersParseErrors = true;
  private readonly tools: Tool[] = [];
  private running = 0;
  private settled: (() => void) | null = null;

  constructor(
    readonly name: string,
    decls: ExportedFn[],
    fns: HDict,
    private readonly ctx: CallContext,
    private readonly card: Json | null,
  ) {
    for (const decl of [...decls].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const fn = fns.get(decl.name);
      if (fn === null) continue;
      this.tools.push({ decl, fn, listed: listed(decl) });
    }
  }

  get toolCount(): number {
    return this.tools.length;
  }

  async idle(): Promise<void> {
    // what stdin delivered before it ended reaches the SDK's handlers a
    // few microtasks later
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.running > 0) await new Promise<void>((resolve) => (this.settled = resolve));
  }

  session(): (method: string, params: JsonObject, extra: RequestExtra) => Promise<JsonObject> {
    let initialized = false;
    return async (method, params, extra) => {
      if (method === "initialize") {
        const result = this.initialize(params);
        initialized = true;
        return result;
      }
      if (!initialized && method !== "ping") throw new ProtocolError(NOT_INITIALIZED, "server not initialized");
      return this.answer(method, params, extra);
    };
  }

  private initialize(params: JsonObject): JsonObject {
    const requested = params.protocolVersion ?? null;
    if (requested !== PROTOCOL_VERSION) {
      throw new ProtocolError(INVALID_PARAMS, "Unsupported protocol version", { supported: [PROTOCOL_VERSION], requested });
    }
    const capabilities: JsonObject = {};
    if (this.tools.length > 0) capabilities.tools = {};
    if (this.card !== null) capabilities.resources = {};
    capabilities.logging = {};
    const serverInfo: JsonObject = { name: this.name, version: HARN_VERSION };
    if (this.card !== null) serverInfo.card = this.card;
    return { protocolVersion: PROTOCOL_VERSION, capabilities, serverInfo };
  }

  private async answer(method: string, params: JsonObject, extra: RequestExtra): Promise<JsonObject> {
    switch (method) {
      case "ping":
      case "logging/setLevel":
        return {};
      case "tools/list":
        return { tools: this.tools.map((t) => t.listed) };
      case "tools/call":
        return this.call(params, extra);
      case "resources/list":
        return { resources: this.card !== null ? [cardResource()] : [] };
      case "resources/templates/list":
        return { resourceTemplates: [] };
      case "resources/read": {
        const uri = typeof params.uri === "string" ? params.uri : "";
        if (uri === CARD_URI && this.card !== null) return { contents: [{ uri, text: JSON.stringify(this.card), mimeType: "application/json" }] };
        throw new ProtocolError(-32002, `Resource not found: ${uri}`);
      }
      case "prompts/list":
        return { prompts: [] };
      case "prompts/get":
        throw new ProtocolError(INVALID_PARAMS, "Unknown prompt");
      default:
        throw unsupportedMethod(method, "server");
    }
  }

  private async call(params: JsonObject, extra: RequestExtra): Promise<JsonObject> {
    if (params.task !== undefined) throw taskAugmentation();
    const name = typeof params.name === "string" ? params.name : display(fromJson(params.name ?? null));
    const tool = this.tools.find((t) => t.decl.name === name);
    if (!tool) throw new ProtocolError(INVALID_PARAMS, `Unknown tool: ${name}`);
    const args = positional(tool.decl, params.arguments);
    const token = isObject(params._meta) ? params._meta.progressToken : undefined;
    const progress = typeof token === "string" || typeof token === "number" ? token : null;
    const notify = (n: number, message: string) => {
      if (progress === null) return;
      extra.sendNotification({ method: "notifications/progress", params: { progressToken: progress, progress: n, message } }).catch(() => undefined);
    };
    notify(0, `Starting ${name}`);
    let ticks = 0;
    const timer = progress === null ? null : setInterval(() => notify(++ticks, `Running ${name}`), PROGRESS_EVERY_MS);
    const task: SessionCallContext | null = this.ctx.inTask ? this.ctx.inTask({ detached: true }) : null;
    const cancel = () => task?.cancel();
    extra.signal.addEventListener("abort", cancel, { once: true });
    this.running++;
    try {
      const v = await (task ?? this.ctx).call(tool.fn, args);
      const result: JsonObject = { content: [{ type: "text", text: typeof v === "string" ? v : JSON.stringify(toJson(v), null, 2) }] };
      if (v instanceof HDict) result.structuredContent = toJson(v);
      return result;
    } catch (e) {
      if (!(e instanceof HarnError)) throw e;
      return { content: [{ type: "text", text: e.description() }], isError: true };
    } finally {
      if (timer !== null) clearInterval(timer);
      extra.signal.removeEventListener("abort", cancel);
      this.running--;
      if (this.running === 0) this.settled?.();
    }
  }
}

/** §4.7: object arguments by name, an array positionally, null for none. */
function positional(decl: ExportedFn, args: Json | undefined): Value[] {
  if (args === undefined || args === null) return [];
  if (Array.isArray(args)) return args.map((a) => fromJson(a));
  if (!isObject(args)) throw new ProtocolError(INVALID_PARAMS, "tool arguments must be an object, array, or null");
  // Up to the last parameter given; one left out before it is nil.
  let last = -1;
  decl.params.forEach((p, i) => {
    if (p.name in args) last = i;
  });
  return decl.params.slice(0, last + 1).map((p) => (p.name in args ? fromJson(args[p.name]!) : null));
}

function listed(decl: ExportedFn): JsonObject {
  const properties: JsonObject = {};
  for (const p of decl.params) properties[p.name] = p.schema;
  const required = decl.params.filter((p) => !p.optional).map((p) => p.name);
  const inputSchema: JsonObject = { type: "object", properties };
  if (required.length > 0) inputSchema.required = required;
  const tool: JsonObject = { name: decl.name, description: `Invoke exported Harn function '${decl.name}'.`, inputSchema };
  // MCP wants an object schema here (the SDK's client rejects the whole
  // list over another), as in script mode.
  if (decl.returns !== null && decl.returns.type === "object") tool.outputSchema = decl.returns;
  return tool;
}

/** The file's top-level `pub fn`s; none means script mode (§4.2). */
export function exportedFns(program: Program): ExportedFn[] {
  const out: ExportedFn[] = [];
  for (const item of program.items) {
    let n: Node = item;
    while (n.kind === "AttributedDecl") n = n.inner;
    if (n.kind !== "FnDecl" || !n.isPub) continue;
    const fn: FnDecl = n;
    out.push({
      name: fn.name,
      params: fn.params.map((p) => ({ name: p.name, schema: p.type === null ? {} : (toJson(toolTypeSchema(p.type)) as JsonObject), optional: p.default !== null || p.rest })),
      returns: fn.returnType === null ? null : (toJson(toolTypeSchema(fn.returnType)) as JsonObject),
    });
  }
  return out;
}

/** The server of the export-mode run in `rt` (its entry recorded the
 * functions with `__mcp_export`). */
export function exportServer(rt: Runtime, name: string, decls: ExportedFn[], card: Json | null): ExportServer {
  const regs = rt.slot(MCP_REGISTRATIONS);
  if (regs.exports === null || regs.ctx === null) throw new Error("the generated entry did not record the exported functions");
  return new ExportServer(name, decls, regs.exports, regs.ctx, card);
}
