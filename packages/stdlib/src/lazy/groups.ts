/**
 * The stdlib's lazy builtin groups (see loader.ts): for each, the names its
 * installer defines and the dynamic import that loads it. A unit test
 * (test/lazy/groups.test.ts) installs each group for real and checks the
 * list, so a builtin added to a group without being listed here fails
 * there, not at a user's first call.
 *
 * Which groups are lazy: code a typical script does not touch and that is
 * large to parse (agents, HTTP, templates, dates and zones, regex
 * translation, schemas, formats and archives, long-running work). The core
 * builtins, the method tables and the `std/...` module sources stay eager.
 */
import type { LazyGroup } from "./loader";

export const LAZY_GROUPS: readonly LazyGroup[] = [
  {
    /** The agent layer: mock provider, llm_call, tools, agent_loop, background sub-agents, daemons (agents.md §2–§6). */
    name: "agent",
    builtins: [
      "llm_mock", "llm_mock_calls", "llm_mock_clear", "llm_mock_push_scope", "llm_mock_pop_scope",
      "llm_call_structured", "llm_call_structured_safe", "llm_call_structured_result", "agent_trace",
      "llm_call", "llm_call_safe", "llm_stream", "llm_completion", "llm_pick_model", "with_rate_limit",
      "llm_rate_limit", "agent", "agent_config", "agent_name", "tool_registry", "tool_define", "tool_list",
      "tool_count", "tool_find", "tool_select", "tool_remove", "tool_describe", "tool_schema",
      "tool_prompt", "tool_parse_call", "tool_format_result", "register_tool_hook", "clear_tool_hooks",
      "agent_subscribe", "agent_loop", "agent_resume", "agent_update", "agent_resolve",
      "agent_session_current_id", "transcript", "transcript_from_messages", "transcript_messages",
      "transcript_events", "transcript_assets", "transcript_summary", "transcript_id",
      "transcript_events_by_kind", "transcript_stats", "conversation", "add_message", "add_user",
      "add_assistant", "add_system", "add_tool_result", "transcript_archive", "transcript_resume",
      "transcript_abandon", "transcript_fork", "transcript_reset", "transcript_render_visible",
      "transcript_render_full", "transcript_export", "transcript_import", "transcript_add_asset",
      "estimate_tokens", "microcompact", "transcript_compact", "transcript_summarize",
      "transcript_auto_compact", "agent_session_open", "agent_session_exists", "agent_session_length",
      "agent_session_snapshot", "agent_session_inject", "agent_session_fork", "agent_session_reset",
      "agent_session_close", "background_tasks", "background_task_wait", "daemon_spawn", "daemon_trigger",
      "daemon_snapshot", "daemon_stop", "daemon_resume"
    ],
    load: () => import("../agent/index").then((m) => m.installAgents),
  },
  {
    /** HTTP, SSE, websockets, cookies, JWTs and signatures (stdlib.md §19). */
    name: "http",
    builtins: [
      "sse_mock", "sse_event", "sse_connect", "sse_receive", "sse_close", "websocket_mock",
      "websocket_connect", "websocket_send", "websocket_receive", "websocket_close", "transport_mock_calls",
      "transport_mock_clear", "egress_policy", "jwt_sign", "jwt_verify", "ed25519_keypair",
      "x25519_keypair", "ed25519_sign", "ed25519_verify", "x25519_agree", "signed_url", "verify_signed_url",
      "cookie_parse", "cookie_serialize", "cookie_delete", "cookie_sign", "cookie_verify", "session_sign",
      "session_verify", "session_cookie", "session_from_cookies", "cookie_round_trip", "http_get",
      "http_delete", "http_post", "http_put", "http_patch", "http_request", "http_mock", "http_mock_calls",
      "http_mock_clear", "http_session", "http_session_request", "http_session_close", "http_download",
      "http_stream_open", "http_stream_read", "http_stream_info", "http_stream_close"
    ],
    load: () => import("../http/builtins").then((m) => m.installHttp),
  },
  {
    /** Long-running work: walk_dir/glob/find_text, handles, feedback, host tools (agents.md §1). */
    name: "longrun",
    builtins: [
      "walk_dir", "glob", "find_text", "cancel_handle", "pending_feedback_drain", "handle_wait",
      "handle_status", "agent_inject_feedback", "host_tool_call", "host_tool_list",
      "hostlib_tools_run_command", "hostlib_tools_run_test", "hostlib_tools_run_build_command",
      "hostlib_tools_read_command_output", "hostlib_tools_cancel_handle", "hostlib_enable"
    ],
    load: () => import("../longrun/index").then((m) => m.installLongRunning),
  },
  {
    /** Templates (stdlib.md §20). */
    name: "templates",
    builtins: [
      "render", "render_prompt", "render_with_provenance", "prompt_mark_rendered", "render_string"
    ],
    load: () => import("../template/builtins").then((m) => m.installTemplates),
  },
  {
    /** Clocks, dates, time zones and durations (stdlib.md §13). */
    name: "time",
    builtins: [
      "timestamp", "now_ms", "elapsed", "monotonic_ms", "mock_time", "advance_time", "unmock_time",
      "sleep_ms", "timer_start", "timer_end", "date_now", "date_now_iso", "date_iso", "date_parse",
      "date_format", "date_to_zone", "date_in_zone", "date_from_components", "weekday_name", "month_name",
      "duration_ms", "duration_seconds", "duration_minutes", "duration_hours", "duration_days",
      "duration_to_seconds", "duration_to_human", "date_add", "date_diff"
    ],
    load: () => import("../time/builtins").then((m) => m.installTime),
  },
  {
    /** Regular expressions (stdlib.md §12). */
    name: "regex",
    builtins: [
      "regex_match", "regex_captures", "regex_replace", "regex_replace_all", "regex_split"
    ],
    load: () => import("../regex/builtins").then((m) => m.installRegex),
  },
  {
    /** Schemas (stdlib.md §11.6); the compiler's type lowering stays eager (schema/hook.ts). */
    name: "schema",
    builtins: [
      "schema_is", "is_type", "schema_check", "schema_parse", "schema_expect", "json_validate", "schema_of",
      "schema_to_json_schema", "schema_to_openapi_schema", "schema_from_json_schema",
      "schema_from_openapi_schema", "schema_extend", "schema_partial", "schema_pick", "schema_omit"
    ],
    load: () => import("../schema/builtins").then((m) => m.installSchema),
  },
  {
    /** Data formats, archives, compression, stores (stdlib.md §11, §23). */
    name: "formats",
    builtins: [
      "store_get", "store_set", "store_delete", "store_list", "store_save", "store_clear", "gzip_encode",
      "gzip_decode", "brotli_encode", "brotli_decode", "zstd_encode", "zstd_decode", "tar_create",
      "tar_extract", "zip_create", "zip_extract", "parse_junit_xml", "multipart_parse",
      "multipart_field_text", "multipart_field_bytes", "multipart_form_data", "secret_scan", "yaml_parse",
      "yaml_stringify", "toml_parse", "toml_stringify", "json_pointer", "json_pointer_set",
      "json_pointer_delete", "jq", "jq_first", "csv_parse", "csv_stringify", "url_parse", "url_build",
      "query_parse", "query_stringify"
    ],
    load: () => import("../formats/builtins").then((m) => m.installFormats),
  },
];
