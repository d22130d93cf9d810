/**
 * Which calls start long-running work and which cancel it (lint.md §4.2,
 * §4.3; agents.md §1.17). One table, so callees can be added in one place.
 */
import type { DictLiteral, FunctionCall, Node } from "@harn/parser";
import { isStringLiteralNode } from "./ast-util";
import type { RuleTriggers } from "./types";

/** Builtins that run in the background when asked to (`find_text` is our
 * extension, agents.md §1.6). */
export const LONG_RUNNING_BUILTINS: ReadonlySet<string> = new Set([
  "walk_dir",
  "glob",
  "http_get",
  "http_request",
  "http_download",
  "run_command",
  "run_test",
  "run_build_command",
  "find_text",
]);

/** Host tools `host_tool_call(TOOL, ..)` can start in the background. */
export const LONG_RUNNING_HOST_TOOLS: ReadonlySet<string> = new Set([
  "run_command",
  "run_test",
  "run_build_command",
  "tools.run_command",
  "tools.run_test",
  "tools.run_build_command",
]);

export const CANCEL_HOST_TOOLS: ReadonlySet<string> = new Set(["cancel_handle", "tools.cancel_handle"]);

export const FLAG_KEYS: ReadonlySet<string> = new Set(["long_running", "background"]);

/** The string value of a plain or raw string literal argument. */
export function literalString(n: Node | undefined): string | null {
  return n && isStringLiteralNode(n) ? n.value : null;
}

/** (A) of §4.2: the callee can run long. */
export function isLongRunningCallee(call: FunctionCall): boolean {
  if (LONG_RUNNING_BUILTINS.has(call.name)) return true;
  if (call.name !== "host_tool_call") return false;
  const tool = literalString(call.args[0]);
  return tool !== null && LONG_RUNNING_HOST_TOOLS.has(tool);
}

/** The key of a dict entry written as a bare identifier or a (raw) string. */
export function entryKey(e: DictLiteral["entries"][number]): string | null {
  if (e.computed || e.value.kind === "Spread") return null;
  return isStringLiteralNode(e.key) ? e.key.value : null;
}

/**
 * The host tool of a call through the `tools` namespace
 * (`tools.run_command(..)`, `tools.cancel_handle(h)`: our runtime runs
 * them, stdlib longrun/tools_namespace.ts), or null for any other node.
 */
export function toolsNamespaceTool(n: Node): string | null {
  if (n.kind !== "MethodCall" || n.object.kind !== "Identifier" || n.object.name !== "tools") return null;
  return n.method;
}

/** `cancel_handle(..)`, `hostlib_tools_cancel_handle(..)`, `tools.cancel_handle(..)` or
 * `host_tool_call("cancel_handle" | "tools.cancel_handle", ..)`. */
export function isCancelCall(n: Node): boolean {
  if (toolsNamespaceTool(n) === "cancel_handle") return true;
  if (n.kind !== "FunctionCall") return false;
  if (n.name === "cancel_handle" || n.name === "hostlib_tools_cancel_handle") return true;
  return isHostCancel(n);
}

function isHostCancel(n: FunctionCall): boolean {
  if (n.name !== "host_tool_call") return false;
  const tool = literalString(n.args[0]);
  return tool !== null && CANCEL_HOST_TOOLS.has(tool);
}

/** What a file must mention for a handle rule to find anything there
 * (gates.ts): a site is a call of a starting builtin, of `host_tool_call`
 * or through `tools`, or of a function that returns a handle, which in
 * turn makes such a call or calls an imported function that returns one. */
export const HANDLE_TRIGGERS: RuleTriggers = { words: [...LONG_RUNNING_BUILTINS, "host_tool_call", "tools"], importedHandles: true };

/** Builtins that settle a handle passed to them: cancel it or wait for it. */
export const SETTLING_BUILTINS: ReadonlySet<string> = new Set(["cancel_handle", "hostlib_tools_cancel_handle", "handle_wait"]);
/** Builtins that adopt or drain every outstanding handle. */
export const ADOPTING_BUILTINS: ReadonlySet<string> = new Set(["agent_loop", "pending_feedback_drain"]);

/** The name a long-running start goes by (`walk_dir`, `host_tool_call`,
 * `tools.run_command`) when `n` can start one, whatever its options;
 * null otherwise. */
export function startingCallee(n: Node): string | null {
  if (n.kind === "FunctionCall") return isLongRunningCallee(n) ? n.name : null;
  const tool = toolsNamespaceTool(n);
  return tool !== null && LONG_RUNNING_HOST_TOOLS.has(tool) ? `tools.${tool}` : null;
}

// --- static option values ---------------------------------------------------

/** Statically `true`, or not known statically (it may be). */
export type Flag = "true" | "unknown";

/** What a name is bound to where it is read: the value of a constant
 * binding, null for a binding whose value is not known, undefined for a
 * name not bound here. */
export type Lookup = (name: string) => Node | null | undefined;

/** Is some argument's background flag statically true, unknown, or absent
 * / false (null)? The value may be a literal, a constant bound to one, a
 * dict bound to a constant, or spread from one. */
export function classifyOptions(args: readonly Node[], lookup: Lookup): Flag | null {
  let unknown = false;
  for (const a of args) {
    const f = classifyDict(a, lookup, 0);
    if (f === "true") return "true";
    if (f === "unknown") unknown = true;
  }
  return unknown ? "unknown" : null;
}

function resolveConst(n: Node, lookup: Lookup): Node | null {
  if (n.kind !== "Identifier") return n;
  const v = lookup(n.name);
  return v ?? null;
}

function classifyDict(n: Node, lookup: Lookup, depth: number): Flag | null {
  if (depth > 8) return null;
  const d = n.kind === "Identifier" ? resolveConst(n, lookup) : n;
  if (!d || d.kind !== "DictLiteral") return null;
  let unknown = false;
  for (const e of d.entries) {
    if (e.value.kind === "Spread") {
      const inner = e.value.expr;
      const f = classifyDict(inner, lookup, depth + 1);
      if (f === "true") return "true";
      if (f === "unknown" || (inner.kind === "Identifier" && resolveConst(inner, lookup) === null)) unknown = true;
      continue;
    }
    const key = entryKey(e);
    if (key === null || !FLAG_KEYS.has(key)) continue;
    const v = classifyValue(e.value, lookup, depth + 1);
    if (v === "true") return "true";
    if (v === "unknown") unknown = true;
  }
  return unknown ? "unknown" : null;
}

function classifyValue(n: Node, lookup: Lookup, depth: number): Flag | null {
  if (depth > 8) return "unknown";
  switch (n.kind) {
    case "BoolLiteral":
      return n.value ? "true" : null;
    case "IntLiteral":
    case "FloatLiteral":
    case "StringLiteral":
    case "RawStringLiteral":
    case "NilLiteral":
    case "ListLiteral":
    case "DictLiteral":
      return null;
    case "Identifier": {
      const v = lookup(n.name);
      if (v === undefined || v === null) return "unknown";
      return classifyValue(v, lookup, depth + 1);
    }
    default:
      return "unknown";
  }
}
