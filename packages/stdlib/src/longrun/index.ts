/**
 * Long-running work (agents.md §1): background `walk_dir` / `glob` /
 * `find_text`, host command tools, handles, the pending feedback queue,
 * cancellation and cleanup.
 *
 * `installLongRunning` adds the builtins; the agent loop and daemons use
 * `longRunState(runtime)` (drain for a turn, wait, session-end cleanup,
 * feedback listeners) and `attachHostBridge`.
 */
import type { Runtime } from "@harn/vm";
import { installFeedbackBuiltins } from "./feedback_builtins";
import { findText } from "./find_text";
import { glob } from "./glob";
import { installHostTools } from "./host_tools";
import { walkDir } from "./walk_dir";

export { longRunState, LongRunState, FeedbackItem, type HandleRecord, type HandleStatus, type FeedbackListener } from "./state";
export { attachHostBridge, type HostBridge } from "./host_tools";

export function installLongRunning(rt: Runtime): void {
  rt.defineBuiltin("walk_dir", walkDir);
  rt.defineBuiltin("glob", glob);
  rt.defineBuiltin("find_text", findText);
  installFeedbackBuiltins(rt);
  installHostTools(rt);
}
