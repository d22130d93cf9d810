/**
 * `std/agent_state` (spec/workflows.md §5.4): durable per-session key/value
 * files, Harn wrappers over the `__agent_state_*` builtins of
 * workflow/agent_state.ts (as in the reference, whose error texts name them).
 */
import type { Runtime } from "@harn/vm";

const AGENT_STATE = String.raw`// std/agent_state: bundled with the runtime
pub fn agent_state_init(root, options = nil) {
  return __agent_state_init(root, options)
}

pub fn agent_state_resume(root, session_id, options = nil) {
  return __agent_state_resume(root, session_id, options)
}

pub fn agent_state_write(handle, key, content) {
  return __agent_state_write(handle, key, content)
}

pub fn agent_state_read(handle, key) {
  return __agent_state_read(handle, key)
}

pub fn agent_state_delete(handle, key) {
  return __agent_state_delete(handle, key)
}

pub fn agent_state_list(handle) {
  return __agent_state_list(handle)
}

pub fn agent_state_handoff(handle, summary) {
  return __agent_state_handoff(handle, summary)
}

pub fn agent_state_handoff_key() {
  return "__handoff.json"
}
`;

export function installAgentStateStdModule(rt: Runtime): void {
  rt.stdModules.set("std/agent_state", AGENT_STATE);
}
