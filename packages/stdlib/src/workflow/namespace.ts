/**
 * The `workflow` global (spec/workflows.md §1.10): a namespace dict whose
 * members are references to the `workflow.*` mailbox builtins of the lazy
 * workflow group. Installed at start; the builtins load on first call.
 */
import { HBuiltinRef, HDict, type Runtime, type Value } from "@harn/vm";

export const WORKFLOW_NAMESPACE_MEMBERS = ["signal", "query", "update", "publish_query", "receive", "respond_update", "pause", "resume", "status", "continue_as_new"];

export function installWorkflowNamespace(rt: Runtime): void {
  // No dict method shares a member name, so members need no namespace
  // precedence (`_namespace`): `workflow.keys()` lists them.
  const members: Record<string, Value> = {};
  for (const m of WORKFLOW_NAMESPACE_MEMBERS) members[m] = new HBuiltinRef(`workflow.${m}`);
  rt.globals.set("workflow", HDict.of(members));
}
