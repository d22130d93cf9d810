/**
 * Signatures and docs of the longrun builtins for the builtin table
 * (registry/docs.ts): the spec's words where it documents the builtin, a
 * short summary where it only mentions it. Read by the build only.
 */
import type { BuiltinDocs } from "../registry/docs";

export const LONGRUN_DOCS: BuiltinDocs = {
  agent_inject_feedback: ["agent_inject_feedback(session_id: string, kind: string, content: string) -> nil", "Pushes an item onto the pending feedback queue. Errors (runtime errors): `agent_inject_feedback(session_id, kind, content): session_id must be a string`, `…: kind must be a string`, `…: content must be a string` (same prefix)."],
  cancel_handle: ["cancel_handle(x)", "Cancels a long-running handle (id string, envelope dict or `{handle_id}`); returns `{handle_id, cancelled}`."],
  find_text: ["find_text(root: string, pattern: string, options?: dict) -> dict | handle", "Searches the files under `root` for a regex `pattern`; returns `{matches: [{path, line, column, text}], truncated}`. Options: `glob`, `case_insensitive`, `fixed_strings`, `max_matches`, `context_before`/`context_after`, `include_hidden`, `long_running`/`background` (then a handle)."],
  glob: ["glob(pattern: string, base?: any, options?: dict) -> list<string> | handle", "Paths under `base` (default `\".\"`) matching the glob pattern, sorted. With `long_running`/`background` returns a handle instead (agents.md §1.7)."],
  handle_status: ["handle_status(handle: string | dict) -> string", "`\"running\"` (in flight), `\"completed\"` / `\"failed\"` (payload still queued), `\"cancelled\"`, or `\"unknown\"` (never seen, or payload already drained)."],
  handle_wait: ["handle_wait(handle: string | dict, options?: {timeout_ms?: int}) -> dict | nil", "Waits until the handle's completion payload is queued, removes that item and returns the parsed payload; nil when `timeout_ms` elapses or the handle is unknown, cancelled or already drained."],
  host_tool_call: ["host_tool_call(name: string, args?: any) -> any", "Forwards to an attached host bridge (as a `builtin_call` with `{name, args: [args]}`); with no bridge it throws `host_tool_call: no host bridge is attached`. The in-process tools (`run_command`, `run_test`, ...) answer without a bridge."],
  host_tool_list: ["host_tool_list()", "[TS decision, P2] returns descriptors `{name, description, schema, deprecated: false}` for the in-process tools (unprefixed names) followed by any bridge tools."],
  hostlib_enable: ["hostlib_enable(feature)", "Enables a host-library feature (`\"tools:deterministic\"`), which the `hostlib_tools_*` builtins require; returns `{feature, enabled: true, newly_enabled}`."],
  hostlib_tools_cancel_handle: ["hostlib_tools_cancel_handle(request)", "Cancels a long-running command handle (`{handle_id}`)."],
  hostlib_tools_read_command_output: ["hostlib_tools_read_command_output(request)", "Reads the captured output of a command run (`handle_id` or `command_id`, `stream`, `offset`, `max_bytes`)."],
  hostlib_tools_run_build_command: ["hostlib_tools_run_build_command(request)", "Runs the project's build (`argv?`, `cwd?`, `target?`, `release?`, `timeout_ms?`, `long_running?`)."],
  hostlib_tools_run_command: ["hostlib_tools_run_command(request)", "Runs a command (`argv`, `cwd`, `env`, `timeout_ms`, `background`/`long_running`, ...) and returns its result dict or, in the background, a handle."],
  hostlib_tools_run_test: ["hostlib_tools_run_test(request)", "Runs the project's tests (`argv?`, `cwd?`, `filter?`, `timeout_ms?`, `long_running?`)."],
  pending_feedback_drain: ["pending_feedback_drain(session_id?: string) -> list<{session_id, kind, content, payload}>", "Removes and returns, in FIFO order, the feedback items of `session_id` (default: the current session); `payload` is the parsed JSON of `content` when it parses."],
  walk_dir: ["walk_dir(path: string, options?: dict) -> list<dict> | handle dict", "One dict `{path, is_dir, is_file, depth}` per entry under `path`, the root included, pre-order, siblings sorted by name. Options: `max_depth`, `follow_symlinks`, `long_running`/`background` (then returns a handle, agents.md §1.7)."],
  "tools.cancel_handle": ["tools.cancel_handle(h)", "Cancels a long-running command handle (an id string, an envelope or `{handle_id}`), like `cancel_handle(h)`."],
  "tools.read_command_output": ["tools.read_command_output(request)", "Reads the captured output of a command run (`handle_id` or `command_id`, `stream`, `offset`, `max_bytes`), like `hostlib_tools_read_command_output`."],
  "tools.run_build_command": ["tools.run_build_command(request)", "Runs the project's build, like `hostlib_tools_run_build_command`; in the background with `long_running: true` or `background: true`."],
  "tools.run_command": ["tools.run_command(request)", "Runs a command (`argv`, `cwd`, `env`, `timeout_ms`, `background`/`long_running`, ...), like `hostlib_tools_run_command`; in the background it returns a handle."],
  "tools.run_test": ["tools.run_test(request)", "Runs the project's tests, like `hostlib_tools_run_test`; in the background with `long_running: true` or `background: true`."],
};
