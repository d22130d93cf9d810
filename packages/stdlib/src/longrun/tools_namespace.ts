/**
 * The `tools` namespace: `tools.run_command(req)`, `tools.run_test(req)`,
 * `tools.run_build_command(req)`, `tools.cancel_handle(h)` and
 * `tools.read_command_output(req)` call the in-process host tools
 * (agents.md §1.12–§1.14) directly, as the long-running docs and the
 * lint help spell them (`cancel it ... with tools.cancel_handle`). The
 * reference only knows these names as `host_tool_call` arguments.
 *
 * `tools` is a global namespace dict (semantics.md §1.2, like `stream`):
 * a user binding of the same name shadows it, its members are builtin
 * references `tools.<name>`, and a member it lacks is an error that
 * suggests the closest one. This module is small and eager; the builtins
 * themselves load with the long-running group (host_tools.ts).
 */
import { HarnError, HBuiltinRef, HDict, suggest, type Runtime, type Value } from "@harn/vm";

/** The host tools served in process, in `host_tool_list()` order. */
export const IN_PROCESS_TOOL_NAMES = ["run_command", "run_test", "run_build_command", "cancel_handle", "read_command_output"] as const;
export type InProcessToolName = (typeof IN_PROCESS_TOOL_NAMES)[number];

/** The builtin behind `tools.<name>`. */
export const namespacedBuiltin = (name: InProcessToolName): string => `tools.${name}`;

/** `unknown host tool 'run_comand' (did you mean 'run_command'?)`: the
 * closest in-process tool name, written with the prefix `name` has. */
export function unknownToolText(name: string): string {
  const prefixed = name.startsWith("tools.");
  const near = suggest(prefixed ? name.slice("tools.".length) : name, IN_PROCESS_TOOL_NAMES);
  const hint = near === null ? "" : ` (did you mean '${prefixed ? namespacedBuiltin(near as InProcessToolName) : near}'?)`;
  return `unknown host tool '${name}'${hint}`;
}

export function installToolsNamespace(rt: Runtime): void {
  const members: Record<string, Value> = { _namespace: "tools" };
  for (const name of IN_PROCESS_TOOL_NAMES) members[name] = new HBuiltinRef(namespacedBuiltin(name));
  rt.globals.set("tools", HDict.of(members));
  rt.strictNamespaces.set("tools", (member) => HarnError.thrown(unknownToolText(`tools.${member}`)));
}
