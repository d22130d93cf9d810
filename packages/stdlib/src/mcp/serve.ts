/**
 * A Harn script served over MCP, script mode (spec/mcp.md §4.2–§4.4): the
 * methods' answers, computed from what the script registered (§4.1). The
 * JSON-RPC framing and the transports are the SDK's (serve-transport.ts);
 * this module decides what each request returns. Requests run one at a
 * time, in arrival order, on the script's interpreter.
 */
import { display, HarnError, HDict, isPromise, type CallContext, type Runtime, type Value } from "@harn/vm";
import { HARN_VERSION } from "@harn/vm/version";
import { fromJson, isJsonObject as isObject, toJson, type Json, type JsonObject } from "../core/json";
import { callHandler } from "../agent/tools/dispatch";
import { isCallable, isRequired, specOf, type ToolSpec } from "../agent/tools/spec";
import { PROTOCOL_VERSION } from "./config";
import { MCP_REGISTRATIONS, type Prompt, type Registrations } from "./registrations";
import { INTERNAL_ERROR, INVALID_PARAMS, ProtocolError, taskAugmentation, unsupportedMethod } from "./unsupported";

const PAGE_SIZE = 50;
export const CARD_URI = "well-known://mcp-card";

/** What a request handler gets from the SDK besides the request. */
export interface RequestExtra {
  /** Aborted when the client cancels the request. */
  signal: AbortSignal;
  sendNotification(n: { method: string; params?: JsonObject }): Promise<void>;
}

/** A served file, script mode (here) or export mode (export.ts). */
export interface Served {
  readonly name: string;
  /** An unparsable stdio line gets a -32700 error (export mode, §4.7) rather than being dropped (script mode). */
  readonly answersParseErrors: boolean;
  /** The request handler of one client session. */
  session(): (method: string, params: JsonObject, extra: RequestExtra) => Promise<JsonObject>;
  /** Resolves once no request is waiting or running. */
  idle(): Promise<void>;
}

/** The listing of the `--card` resource (§4.4). */
export function cardResource(): JsonObject {
  return {
    uri: CARD_URI,
    name: "Server Card",
    description: "MCP v2.1 Server Card advertising this server's identity and capabilities",
    mimeType: "application/json",
  };
}

interface ServedTool {
  spec: ToolSpec;
  /** The MCP tool object of `tools/list`. */
  listed: JsonObject;
  hasOutputSchema: boolean;
}

/** Why serving cannot start (printed as `error: <message>`, exit 1). */
export class ServeSetupError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

export class ScriptServer implements Served {
  readonly answersParseErrors = false;
  private readonly tools: ServedTool[] = [];
  private readonly regs: Registrations;
  private readonly ctx: CallContext;
  private queue: Promise<unknown> = Promise.resolve();
  /** `logging/setLevel`'s level (stored, otherwise unused). */
  logLevel = "warning";

  /**
   * Collect what the script registered; `name` is the server's name (the
   * file's stem), `card` the `--card` document.
   */
  constructor(
    regs: Registrations,
    readonly name: string,
    readonly card: Json | null,
  ) {
    if (regs.tools === null) throw new ServeSetupError("pipeline did not call mcp_serve(registry)", "call mcp_serve(tools) at the end of your pipeline");
    this.regs = regs;
    this.ctx = regs.ctx!;
    const entries = regs.tools.get("tools");
    for (const entry of Array.isArray(entries) ? entries : []) {
      if (!(entry instanceof HDict)) continue;
      const spec = specOf(entry);
      if (spec === null || !isCallable(spec.handler)) {
        throw new ServeSetupError(`Runtime error: mcp_tools: tool '${spec?.name ?? display(entry.get("name"))}' has no handler closure`);
      }
      this.tools.push(served(spec, entry));
    }
  }

  /** `[harn] serve mcp: serving 2 tools, 1 resource as 'notes'`. */
  summary(): string {
    const count = (n: number, what: string) => (n === 0 ? null : `${n} ${what}${n === 1 ? "" : "s"}`);
    const parts = [
      count(this.tools.length, "tool"),
      count(this.regs.resources.length + this.regs.templates.length, "resource"),
      count(this.regs.prompts.length, "prompt"),
    ].filter((p) => p !== null);
    return `[harn] serve mcp: serving ${parts.join(", ")} as '${this.name}'`;
  }

  /** Resolves once no request is waiting or running (stdin ended: what
   * was asked before is still answered). The SDK hands requests over a
   * few microtasks after reading them and writes answers a few after. */
  async idle(): Promise<void> {
    const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
    for (;;) {
      await turn();
      const tail = this.queue;
      await tail;
      await turn();
      if (tail === this.queue) return;
    }
  }

  session(): (method: string, params: JsonObject) => Promise<JsonObject> {
    return (method, params) => this.handle(method, params);
  }

  /** Answer one request (the SDK sends the result, or the thrown error). */
  handle(method: string, params: JsonObject): Promise<JsonObject> {
    const run = () => this.answer(method, params);
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => undefined);
    return p;
  }

  private async answer(method: string, params: JsonObject): Promise<JsonObject> {
    switch (method) {
      case "initialize":
        return this.initialize();
      case "ping":
        return {};
      case "logging/setLevel":
        if (typeof params.level === "string") this.logLevel = params.level;
        return {};
      case "tools/list":
        return page(this.tools.map((t) => t.listed), params, "tools");
      case "tools/call":
        return this.callTool(params);
      case "resources/list":
        return this.listResources(params);
      case "resources/templates/list":
        return page(
          this.regs.templates.map((t) => withOptional({ uriTemplate: t.uriTemplate, name: t.name }, t)),
          params,
          "resourceTemplates",
        );
      case "resources/read":
        return this.readResource(params);
      case "prompts/list":
        return page(this.regs.prompts.map(listedPrompt), params, "prompts");
      case "prompts/get":
        return this.getPrompt(params);
      default:
        throw unsupportedMethod(method, "server");
    }
  }

  private initialize(): JsonObject {
    const capabilities: JsonObject = {};
    if (this.tools.length > 0) capabilities.tools = { listChanged: true };
    if (this.regs.resources.length > 0 || this.regs.templates.length > 0 || this.card !== null) capabilities.resources = { listChanged: true };
    if (this.regs.prompts.length > 0) capabilities.prompts = { listChanged: true };
    capabilities.logging = {};
    const serverInfo: JsonObject = { name: this.name, version: HARN_VERSION };
    if (this.card !== null) serverInfo.card = this.card;
    return { protocolVersion: PROTOCOL_VERSION, capabilities, serverInfo };
  }

  private async callTool(params: JsonObject): Promise<JsonObject> {
    if (params.task !== undefined) throw taskAugmentation();
    const name = typeof params.name === "string" ? params.name : display(fromJson(params.name ?? null));
    const tool = this.tools.find((t) => t.spec.name === name);
    if (!tool) throw new ProtocolError(INVALID_PARAMS, `Unknown tool: ${name}`);
    const args = isObject(params.arguments) ? params.arguments : {};
    let v: Value;
    try {
      v = await settle(callHandler(tool.spec, args, this.ctx));
    } catch (e) {
      if (!(e instanceof HarnError)) throw e;
      return { content: [{ type: "text", text: e.description() }], isError: true };
    }
    const result: JsonObject = { content: toolContent(v), isError: false };
    if (tool.hasOutputSchema) {
      const structured = structuredContent(v);
      if (structured !== null) result.structuredContent = structured;
    }
    return result;
  }

  private listResources(params: JsonObject): JsonObject {
    const listed = this.regs.resources.map((r) => withOptional({ uri: r.uri, name: r.name }, r));
    const result = page(listed, params, "resources");
    if (this.card !== null && offsetOf(params) === 0) {
      result.resources = [cardResource(), ...(result.resources as Json[])];
    }
    return result;
  }

  private async readResource(params: JsonObject): Promise<JsonObject> {
    const uri = typeof params.uri === "string" ? params.uri : "";
    if (uri === CARD_URI && this.card !== null) {
      return { contents: [{ uri, text: JSON.stringify(this.card), mimeType: "application/json" }] };
    }
    const r = this.regs.resources.find((x) => x.uri === uri);
    if (r) return { contents: [withMime({ uri, text: r.text }, r.mimeType)] };
    for (const t of this.regs.templates) {
      const vars = matchTemplate(t.uriTemplate, uri);
      if (vars === null) continue;
      let v: Value;
      try {
        v = await settle(this.ctx.call(t.handler, [HDict.of(vars)]));
      } catch (e) {
        if (!(e instanceof HarnError)) throw e;
        throw new ProtocolError(INTERNAL_ERROR, e.description());
      }
      return { contents: [withMime({ uri, text: display(v) }, t.mimeType)] };
    }
    throw new ProtocolError(-32002, `Resource not found: ${uri}`);
  }

  private async getPrompt(params: JsonObject): Promise<JsonObject> {
    const name = typeof params.name === "string" ? params.name : "";
    const prompt = this.regs.prompts.find((p) => p.name === name);
    if (!prompt) throw new ProtocolError(INVALID_PARAMS, `Unknown prompt: ${name}`);
    const args = isObject(params.arguments) ? params.arguments : {};
    let v: Value;
    try {
      v = await settle(this.ctx.call(prompt.handler, [fromJson(args)]));
    } catch (e) {
      if (!(e instanceof HarnError)) throw e;
      throw new ProtocolError(INTERNAL_ERROR, e.description());
    }
    return { messages: promptMessages(v) };
  }
}

/** The server of the script that ran in `rt`, from its registrations. */
export function scriptServer(rt: Runtime, name: string, card: Json | null): ScriptServer {
  return new ScriptServer(rt.slot(MCP_REGISTRATIONS), name, card);
}

function settle(v: Value | Promise<Value>): Promise<Value> {
  return isPromise<Value>(v) ? v : Promise.resolve(v);
}

const text = (v: Value): string => (typeof v === "string" ? v : display(v));

function withOptional(base: JsonObject, o: { title?: string; description?: string; mimeType?: string }): JsonObject {
  if (o.title !== undefined) base.title = o.title;
  if (o.description !== undefined) base.description = o.description;
  if (o.mimeType !== undefined) base.mimeType = o.mimeType;
  return base;
}

function withMime(base: JsonObject, mimeType: string | undefined): JsonObject {
  if (mimeType !== undefined) base.mimeType = mimeType;
  return base;
}

/** §4.3 tool conversion. */
function served(spec: ToolSpec, entry: HDict): ServedTool {
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const p of spec.parameters.keys()) {
    const schema = spec.parameters.get(p);
    const prop: JsonObject = {};
    if (typeof schema === "string") prop.type = schema;
    else if (schema instanceof HDict) {
      for (const k of ["type", "description"]) {
        const v = schema.get(k);
        if (typeof v === "string") prop[k] = v;
      }
    }
    properties[p] = prop;
    // [TS decision] §4.3: required unless `required: false` or a default.
    if (isRequired(schema)) required.push(p);
  }
  const inputSchema: JsonObject = { type: "object", properties };
  if (required.length > 0) inputSchema.required = required;
  const listed: JsonObject = { name: spec.name, description: spec.description, inputSchema };
  const title = entry.get("title");
  if (title !== null) listed.title = text(title);
  // MCP requires an object schema here: clients validating `tools/list`
  // (the SDK's) reject the whole list over one `{type: "integer"}`, which a
  // `tool` declaration returning `int` has. Those tools go without one.
  const output = entry.get("outputSchema") ?? entry.get("output_schema");
  const hasOutputSchema = output instanceof HDict && output.get("type") === "object";
  if (hasOutputSchema) listed.outputSchema = toJson(output);
  const annotations = entry.get("annotations");
  if (annotations instanceof HDict) {
    const kept: JsonObject = {};
    if (typeof annotations.get("title") === "string") kept.title = annotations.get("title") as string;
    for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
      const v = annotations.get(hint);
      if (typeof v === "boolean") kept[hint] = v;
    }
    if (Object.keys(kept).length > 0) listed.annotations = kept;
  }
  return { spec, listed, hasOutputSchema };
}

/** §4.3: the content list of a handler's return value. */
function toolContent(v: Value): Json[] {
  if (!Array.isArray(v)) return [{ type: "text", text: text(v) }];
  if (v.length === 0) return [{ type: "text", text: "[]" }];
  return v.map((item): Json => {
    if (!(item instanceof HDict)) return { type: "text", text: text(item) };
    const type = item.get("type");
    if (type === "resource") {
      const out: JsonObject = { type: "resource" };
      if (item.has("resource")) out.resource = toJson(item.get("resource"));
      return out;
    }
    if (type === "resource_link") {
      const out: JsonObject = { type: "resource_link" };
      for (const k of ["uri", "name", "description", "mimeType"]) if (item.has(k)) out[k] = text(item.get(k));
      return out;
    }
    return { type: "text", text: item.get("text") !== null ? text(item.get("text")) : display(item) };
  });
}

/** [TS decision] §4.3: `structuredContent` must be an object. */
function structuredContent(v: Value): JsonObject | null {
  if (v instanceof HDict) return toJson(v) as JsonObject;
  try {
    const parsed: unknown = JSON.parse(display(v));
    return isObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

function listedPrompt(p: Prompt): JsonObject {
  const out = withOptional({ name: p.name }, p);
  if (p.arguments.length > 0) {
    out.arguments = p.arguments.map((a) => {
      const arg: JsonObject = { name: a.name, required: a.required };
      if (a.description !== undefined) arg.description = a.description;
      return arg;
    });
  }
  return out;
}

/** §4.3 `prompts/get`: the messages of a prompt handler's return value. */
function promptMessages(v: Value): Json[] {
  const message = (role: string, content: Json): Json => ({ role, content });
  const textContent = (t: string): Json => ({ type: "text", text: t });
  if (typeof v === "string") return [message("user", textContent(v))];
  if (!Array.isArray(v)) return [message("user", textContent(display(v)))];
  const out: Json[] = [];
  for (const item of v) {
    if (!(item instanceof HDict)) {
      out.push(message("user", textContent(text(item))));
      continue;
    }
    const role = item.get("role") === null ? "user" : text(item.get("role"));
    const content = item.get("content");
    if (content instanceof HDict) out.push(message(role, normalizeContent(content)));
    else if (Array.isArray(content)) for (const c of content) out.push(message(role, normalizeContent(c)));
    else if (content === null && !item.has("content")) out.push(message(role, textContent("")));
    else out.push(message(role, textContent(text(content))));
  }
  return out;
}

function normalizeContent(c: Value): Json {
  if (!(c instanceof HDict)) return { type: "text", text: text(c) };
  const get = (k: string) => (c.get(k) === null ? "" : text(c.get(k)));
  switch (c.get("type")) {
    case "text":
      return { type: "text", text: get("text") };
    case "image": {
      const out: JsonObject = { type: "image", data: get("data"), mimeType: mimeOf(c) };
      if (c.has("annotations")) out.annotations = toJson(c.get("annotations"));
      return out;
    }
    case "audio":
      return { type: "audio", data: get("data"), mimeType: mimeOf(c) };
    case "resource": {
      const out: JsonObject = { type: "resource" };
      if (c.has("resource")) out.resource = toJson(c.get("resource"));
      return out;
    }
    default:
      return { type: "text", text: c.get("text") !== null ? text(c.get("text")) : display(c) };
  }
}

function mimeOf(c: HDict): string {
  const m = c.get("mimeType") ?? c.get("mime_type");
  return m === null ? "application/octet-stream" : text(m);
}

/** The start offset a list request's `cursor` encodes (base64 of the
 * decimal offset); missing or undecodable → 0. */
function offsetOf(params: JsonObject): number {
  const cursor = params.cursor;
  if (typeof cursor !== "string") return 0;
  const decoded = Buffer.from(cursor, "base64").toString("utf8");
  return /^\d+$/.test(decoded) ? Number(decoded) : 0;
}

/** One page (§4.3 pagination) of `items` under `key`. */
function page(items: Json[], params: JsonObject, key: string): JsonObject {
  const start = offsetOf(params);
  const result: JsonObject = { [key]: items.slice(start, start + PAGE_SIZE) };
  if (start + PAGE_SIZE < items.length) result.nextCursor = Buffer.from(String(start + PAGE_SIZE)).toString("base64");
  return result;
}

/**
 * RFC 6570 level 1 matching (§4.3): a `{var}` captures up to the first
 * occurrence of the literal text after it (to the end when the variable is
 * last or followed by another variable); the whole URI must be consumed.
 */
export function matchTemplate(template: string, uri: string): Record<string, string> | null {
  const vars: Record<string, string> = {};
  let t = 0;
  let u = 0;
  while (t < template.length) {
    if (template[t] === "{") {
      const close = template.indexOf("}", t);
      if (close < 0) return null;
      const name = template.slice(t + 1, close);
      t = close + 1;
      const next = template.indexOf("{", t);
      const literal = template.slice(t, next < 0 ? template.length : next);
      let end: number;
      if (literal === "") end = uri.length;
      else {
        end = uri.indexOf(literal, u);
        if (end < 0) return null;
      }
      vars[name] = uri.slice(u, end);
      u = end;
    } else {
      if (uri[u] !== template[t]) return null;
      t++;
      u++;
    }
  }
  return u === uri.length ? vars : null;
}
