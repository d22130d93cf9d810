/**
 * Tool registries (spec/agents.md §2.4): `tool_registry`, `tool_define` and
 * the helpers over registries, plus `tool_parse_call` and
 * `tool_format_result`. A registry is an immutable dict
 * `{_type: "tool_registry", tools: [...]}`; every helper returns a new one.
 */
import { display, HarnError, HDict, type Value } from "@harn/vm";
import { fromJson, quoteJson, toJson } from "../../core/json";
import { inputSchema, isRegistry, KNOWN_EXECUTORS, LONG_RUNNING_NOTE, SHORT_CIRCUIT_TOOLS, signature, specOf } from "./spec";
import { parseJsonToolCalls } from "./text_protocol";
import { boundTool, setBoundRegistry } from "./bound";
import { validateSurface } from "./surface";
import { builtinModule } from "../../registry/define";

function registry(tools: Value[]): HDict {
  return HDict.of({ _type: "tool_registry", tools });
}

function tools(reg: HDict): HDict[] {
  const t = reg.get("tools");
  return Array.isArray(t) ? t.filter((x): x is HDict => x instanceof HDict) : [];
}

/** The registry argument of a helper, with the §2.4 error texts. */
function registryArg(v: Value | undefined, helper: string, nonDict: "requires" | "first"): HDict {
  if (!(v instanceof HDict)) {
    throw HarnError.thrown(nonDict === "requires" ? `${helper}: requires a tool registry` : `${helper}: first argument must be a tool registry`);
  }
  if (v.get("_type") !== "tool_registry") throw HarnError.thrown(`${helper}: argument must be a tool registry (created with tool_registry())`);
  return v;
}

const RESERVED_CONFIG = new Set(["parameters", "returns", "handler", "executor", "annotations"]);

/** `tool_define(registry, name, description, config)`. */
export function toolDefine(args: Value[]): HDict {
  if (args.length < 4) throw HarnError.thrown("tool_define: requires registry, name, description, and config dict");
  const reg = args[0]!;
  if (!isRegistry(reg)) throw HarnError.thrown("tool_define: first argument must be a tool registry");
  const name = typeof args[1] === "string" ? args[1] : display(args[1]!);
  let description = typeof args[2] === "string" ? args[2] : args[2] === null ? "" : display(args[2]!);
  const config = args[3]!;
  if (!(config instanceof HDict)) throw HarnError.thrown("tool_define: config must be a dict with parameters and handler");
  if (config.has("params")) throw HarnError.thrown("tool_define: use 'parameters', not 'params'");
  const handler = config.get("handler");
  const rawExecutor = config.get("executor");
  let executor: string;
  if (rawExecutor === null) {
    if (handler === null && !SHORT_CIRCUIT_TOOLS.has(name)) {
      throw HarnError.thrown(
        `tool_define: tool "${name}" has no \`handler\` and no \`executor\`. Give it a handler closure, or declare executor: "host_bridge" / "mcp_server" / "provider_native".`,
      );
    }
    executor = "harn";
  } else {
    const x = typeof rawExecutor === "string" ? rawExecutor : display(rawExecutor);
    executor = x === "harn_builtin" ? "harn" : x;
    if (!(KNOWN_EXECUTORS as readonly string[]).includes(executor)) {
      throw HarnError.thrown(
        `tool_define: unknown executor "${x}" for tool "${name}". Expected one of: "harn", "host_bridge", "mcp_server", "provider_native"`,
      );
    }
    if (executor !== "harn" && handler !== null) {
      throw HarnError.thrown(`tool_define: tool "${name}" declares executor: "${executor}" but also has a \`handler\`; remove one of them`);
    }
    if (executor === "harn" && handler === null && !SHORT_CIRCUIT_TOOLS.has(name)) {
      throw HarnError.thrown(`tool_define: tool "${name}" declares executor: "harn" but has no \`handler\``);
    }
    if (executor === "host_bridge" && config.get("host_capability") === null) {
      throw HarnError.thrown(`tool_define: tool "${name}" declares executor: "host_bridge" but has no \`host_capability\``);
    }
    if (executor === "mcp_server" && config.get("mcp_server") === null) {
      throw HarnError.thrown(`tool_define: tool "${name}" declares executor: "mcp_server" but has no \`mcp_server\``);
    }
  }
  if (config.has("defer_loading") && typeof config.get("defer_loading") !== "boolean") {
    throw HarnError.thrown("tool_define: `defer_loading` must be a bool");
  }
  if (config.has("namespace")) {
    const ns = config.get("namespace");
    if (typeof ns !== "string" || ns.trim() === "") throw HarnError.thrown("tool_define: `namespace` must be a non-empty string");
  }
  const longRunning = config.get("long_running") === true;
  if (longRunning) description = description === "" ? LONG_RUNNING_NOTE : `${description} ${LONG_RUNNING_NOTE}`;
  const entry = new Map<string, Value>();
  for (const k of config.keys()) if (!RESERVED_CONFIG.has(k)) entry.set(k, config.get(k));
  entry.set("name", name);
  entry.set("description", description);
  entry.set("handler", handler);
  const params = config.get("parameters");
  entry.set("parameters", params instanceof HDict ? params : HDict.empty());
  entry.set("executor", executor);
  if (config.has("returns")) entry.set("outputSchema", config.get("returns"));
  if (config.has("annotations")) entry.set("annotations", config.get("annotations"));
  const kept = tools(reg).filter((t) => t.get("name") !== name);
  return registry([...kept, new HDict(entry)]);
}

function byName(list: HDict[]): HDict[] {
  return list.slice().sort((a, b) => {
    const x = String(a.get("name"));
    const y = String(b.get("name"));
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

function describe(reg: HDict): string {
  const list = byName(tools(reg));
  if (list.length === 0) return "Available tools:\n(none)";
  const lines = ["Available tools:"];
  for (const t of list) {
    const s = specOf(t);
    if (!s) continue;
    lines.push(`- ${signature(s)}: ${s.description}`);
    if (t.has("outputSchema")) lines.push(`  returns ${JSON.stringify(toJson(t.get("outputSchema")))}`);
  }
  return lines.join("\n");
}

function schema(reg: HDict, components: Value): HDict {
  const out: Value[] = [];
  for (const t of tools(reg)) {
    const s = specOf(t);
    if (!s) continue;
    const m = new Map<string, Value>([
      ["name", s.name],
      ["description", s.description],
      ["inputSchema", fromJson(inputSchema(s.parameters))],
    ]);
    if (t.has("outputSchema")) m.set("outputSchema", t.get("outputSchema"));
    out.push(new HDict(m));
  }
  const m = new Map<string, Value>([
    ["schema_version", "harn-tools/1.0"],
    ["tools", out],
  ]);
  if (components !== null && components !== undefined) m.set("components", HDict.of({ schemas: components }));
  return new HDict(m);
}

function prompt(reg: HDict): string {
  const list = byName(tools(reg));
  if (list.length === 0) return "No tools are available.";
  const parts = ["# Available Tools"];
  for (const t of list) {
    const s = specOf(t);
    if (!s) continue;
    const lines = [`## ${s.name}`, s.description];
    const keys = s.parameters.keys();
    if (keys.length > 0) {
      lines.push("", "Parameters:");
      for (const k of keys) {
        const p = s.parameters.get(k);
        const type = typeof p === "string" ? p : p instanceof HDict ? display(p.get("type") ?? "any") : "any";
        const req = p instanceof HDict && p.get("required") === false ? "optional" : "required";
        const desc = p instanceof HDict && typeof p.get("description") === "string" ? `: ${p.get("description") as string}` : "";
        lines.push(`- \`${k}\` (${type}, ${req})${desc}`);
      }
    }
    parts.push(lines.join("\n"));
  }
  return parts.join("\n\n");
}

export const TOOL_REGISTRY_BUILTINS = builtinModule("agent/tools/registry", (def, rt) => {
  def("tool_registry", () => registry([]));
  def("tool_bind", (args) => {
    const v = args[0] ?? null;
    if (v !== null && !(v instanceof HDict)) throw HarnError.thrown("tool_bind: argument must be a tool registry or nil");
    setBoundRegistry(rt, v === null ? null : registryArg(v, "tool_bind", "first"));
    return null;
  });
  def("tool_ref", (args) => {
    boundTool(rt, "tool_ref", args[0] ?? null);
    return args[0]!;
  });
  def("tool_def", (args) => boundTool(rt, "tool_def", args[0] ?? null));
  def("tool_surface_validate", (args) => {
    const surface = args[0] ?? null;
    if (!(surface instanceof HDict)) throw HarnError.runtime("tool_surface_validate: surface must be a dict");
    return validateSurface(surface);
  });
  def("tool_define", (args) => toolDefine(args));
  def("tool_list", (args) => tools(registryArg(args[0], "tool_list", "requires")).map((t) => t.without("handler")));
  def("tool_count", (args) => tools(registryArg(args[0], "tool_count", "requires")).length);
  def("tool_find", (args) => {
    const reg = registryArg(args[0], "tool_find", "first");
    if (args.length < 2) throw HarnError.thrown("tool_find: requires registry and name");
    return tools(reg).find((t) => t.get("name") === args[1]) ?? null;
  });
  def("tool_select", (args) => {
    const reg = registryArg(args[0], "tool_select", "first");
    if (args.length < 2) throw HarnError.thrown("tool_select: requires registry and names list");
    const names = args[1];
    if (!Array.isArray(names)) throw HarnError.thrown("tool_select: second argument must be a list of tool names");
    return registry(tools(reg).filter((t) => names.includes(t.get("name"))));
  });
  def("tool_remove", (args) => {
    const reg = registryArg(args[0], "tool_remove", "first");
    if (args.length < 2) throw HarnError.thrown("tool_remove: requires registry and name");
    return registry(tools(reg).filter((t) => t.get("name") !== args[1]));
  });
  def("tool_describe", (args) => describe(registryArg(args[0], "tool_describe", "requires")));
  def("tool_schema", (args) => schema(registryArg(args[0], "tool_schema", "requires"), args[1] ?? null));
  def("tool_prompt", (args) => prompt(registryArg(args[0], "tool_prompt", "requires")));
  def("tool_parse_call", (args) => {
    const text = args[0];
    return parseJsonToolCalls(typeof text === "string" ? text : text == null ? "" : display(text)).map(fromJson);
  });
  def("tool_format_result", (args) => {
    if (args.length < 2) throw HarnError.thrown("tool_format_result: requires name and result");
    const show = (v: Value) => (typeof v === "string" ? v : display(v));
    return `<tool_result>{"name": ${quoteJson(show(args[0]!))}, "result": ${quoteJson(show(args[1]!))}}</tool_result>`;
  });
});
