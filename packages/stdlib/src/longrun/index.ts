/**
 * Long-running work (agents.md §1): background `walk_dir` / `glob` /
 * `find_text`, host command tools, handles, the pending feedback queue,
 * cancellation and cleanup.
 *
 * `LONGRUN_MODULES` define the builtins; the agent loop and daemons use
 * `longRunState(runtime)` (drain for a turn, wait, session-end cleanup,
 * feedback listeners) and `attachHostBridge`.
 */
import { FEEDBACK_BUILTINS } from "./feedback_builtins";
import { findText } from "./find_text";
import { glob } from "./glob";
import { HOST_TOOLS_BUILTINS } from "./host_tools";
import { walkDir } from "./walk_dir";
import { builtinModule, type BuiltinModule } from "../registry/define";

export { longRunState, LongRunState, FeedbackItem, type HandleRecord, type HandleStatus, type FeedbackListener } from "./state";
export { attachHostBridge, type HostBridge } from "./host_tools";

const TREE_BUILTINS = builtinModule("longrun/tree", (def) => {
  def("walk_dir", walkDir, { longRunning: true });
  def("glob", glob, { longRunning: true });
  def("find_text", findText, { longRunning: true });
});

/** The long-running group's builtin modules (lazy/groups.ts). */
export const LONGRUN_MODULES: readonly BuiltinModule[] = [TREE_BUILTINS, FEEDBACK_BUILTINS, HOST_TOOLS_BUILTINS];
