/**
 * The bound tool registry (spec/workflows.md §3.5): `tool_bind` sets it,
 * each `agent_loop` binds its own tools for its duration, and `tool_ref` /
 * `tool_def` look names up in it.
 */
import { HarnError, HDict, RuntimeSlot, type Runtime, type Value } from "@harn/vm";
import { toolEntries } from "./spec";

const BOUND = new RuntimeSlot("agent.tools.bound", () => ({ value: null as Value }));

export function boundRegistry(rt: Runtime): Value {
  return rt.slot(BOUND).value;
}

export function setBoundRegistry(rt: Runtime, v: Value): void {
  rt.slot(BOUND).value = v;
}

/** Bind a loop's tools (a registry, or a list made into one) until the
 * returned function restores what was bound before. */
export function bindLoopTools(rt: Runtime, tools: Value): () => void {
  const before = boundRegistry(rt);
  const reg = tools instanceof HDict && tools.get("_type") === "tool_registry" ? tools : HDict.of({ _type: "tool_registry", tools: toolEntries(tools).entries });
  setBoundRegistry(rt, reg);
  return () => setBoundRegistry(rt, before);
}

/** The bound registry's entry named by `tool_ref` / `tool_def`'s argument. */
export function boundTool(rt: Runtime, builtin: string, name: Value): HDict {
  if (typeof name !== "string") throw HarnError.thrown(`${builtin}: name must be a string literal`);
  const reg = boundRegistry(rt);
  if (reg === null) throw HarnError.thrown(`${builtin}: no tool registry bound to this scope. Call tool_bind(registry) first, or invoke inside an agent_loop.`);
  if (!(reg instanceof HDict)) throw HarnError.thrown(`${builtin}: bound tool registry is not a dict`);
  const list = reg.get("tools");
  const entries = Array.isArray(list) ? list.filter((x): x is HDict => x instanceof HDict) : [];
  const found = entries.find((e) => e.get("name") === name);
  if (found) return found;
  const names = entries.map((e) => String(e.get("name")));
  throw HarnError.thrown(`${builtin}: unknown tool ${JSON.stringify(name)}. Registered tools: ${names.length > 0 ? names.join(", ") : "(none registered)"}`);
}
