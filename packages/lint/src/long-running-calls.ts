/**
 * Which calls start long-running work and which cancel it (lint.md §4.2,
 * §4.3; agents.md §1.17). One table, so callees can be added in one place.
 */
import type { DictLiteral, FunctionCall, Node } from "@harn/parser";
import { isStringLiteralNode } from "./ast-util";

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

/** (B) of §4.2: some argument is a dict literal with `long_running: true`
 * or `background: true` written in it. */
export function hasLiteralBackgroundFlag(call: { args: Node[] }): boolean {
  for (const a of call.args) {
    if (a.kind !== "DictLiteral") continue;
    for (const e of a.entries) {
      const key = entryKey(e);
      if (key !== null && FLAG_KEYS.has(key) && e.value.kind === "BoolLiteral" && e.value.value) return true;
    }
  }
  return false;
}

/** The reference's notion of a long-running call. */
export function isLongRunningCall(call: FunctionCall): boolean {
  return isLongRunningCallee(call) && hasLiteralBackgroundFlag(call);
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

/** `tools.run_command({.., background: true})` and its siblings: a
 * long-running start through the `tools` namespace. */
export function isLongRunningToolsCall(n: Node): boolean {
  const tool = toolsNamespaceTool(n);
  return tool !== null && LONG_RUNNING_HOST_TOOLS.has(tool) && hasLiteralBackgroundFlag(n as { args: Node[] });
}

/** `cancel_handle(..)`, `tools.cancel_handle(..)` or
 * `host_tool_call("cancel_handle" | "tools.cancel_handle", ..)`. */
export function isCancelCall(n: Node): boolean {
  if (toolsNamespaceTool(n) === "cancel_handle") return true;
  if (n.kind !== "FunctionCall") return false;
  if (n.name === "cancel_handle") return true;
  return isHostCancel(n);
}

function isHostCancel(n: FunctionCall): boolean {
  if (n.name !== "host_tool_call") return false;
  const tool = literalString(n.args[0]);
  return tool !== null && CANCEL_HOST_TOOLS.has(tool);
}
