/**
 * The workflow runtime's builtins (spec/workflows.md §1.5–§1.10).
 */
import { builtinModule } from "../../registry/define";
import { workflowExecute } from "./execute";
export { WORKFLOW_MAILBOX_BUILTINS } from "./mailbox";

export const WORKFLOW_RUNTIME_BUILTINS = builtinModule("workflow/runtime", (def) => {
  def("workflow_execute", (args, ctx) => workflowExecute(ctx, args));
});
