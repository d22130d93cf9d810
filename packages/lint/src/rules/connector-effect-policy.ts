/** `connector-effect-policy` (lint.md §3.38). */
import type { FnDecl } from "@harn/parser";
import type { Rule } from "../types";
import { clearArray } from "../reuse";

const EXPORTS = new Set(["normalize_inbound", "poll_tick", "call", "activate"]);

interface Group {
  names: ReadonlySet<string>;
  reason: string;
  onlyNormalizeInbound?: boolean;
}

const AGENT_STATE = ["init", "resume", "write", "read", "list", "delete", "handoff"].map((s) => `__agent_state_${s}`);

const GROUPS: Group[] = [
  {
    names: new Set([
      "read_file",
      "read_file_result",
      "read_file_bytes",
      "write_file",
      "write_file_bytes",
      "append_file",
      "copy_file",
      "delete_file",
      "mkdir",
      "list_dir",
      "file_exists",
      "stat",
      "project_fingerprint",
      "project_scan_native",
      "project_scan_tree_native",
      "project_walk_tree_native",
      "project_catalog_native",
      ...AGENT_STATE,
    ]),
    reason: "ambient filesystem access is not allowed",
  },
  { names: new Set(["exec", "exec_at", "shell", "shell_at", "vision_ocr"]), reason: "process execution is not allowed" },
  {
    names: new Set(["llm_call", "llm_call_safe", "llm_completion", "llm_stream", "llm_healthcheck", "agent_loop"]),
    reason: "LLM calls are not allowed",
  },
  {
    names: new Set([
      "mcp_connect",
      "mcp_ensure_active",
      "mcp_call",
      "mcp_list_tools",
      "mcp_list_resources",
      "mcp_list_resource_templates",
      "mcp_read_resource",
      "mcp_list_prompts",
      "mcp_get_prompt",
      "mcp_server_info",
      "mcp_disconnect",
    ]),
    reason: "MCP/process-backed connector access is not allowed",
  },
  {
    names: new Set(["host_call", "host_tool_call", "host_tool_list"]),
    reason: "host calls require an explicit host-owned surface",
  },
  {
    names: new Set([
      "http_get",
      "http_post",
      "http_put",
      "http_patch",
      "http_delete",
      "http_download",
      "http_request",
      "http_session_request",
      "http_stream_open",
      "http_stream_read",
      "http_stream_close",
      "http_stream_info",
      "sse_connect",
      "sse_receive",
      "websocket_accept",
      "websocket_connect",
      "websocket_route",
      "websocket_send",
      "websocket_receive",
      "websocket_server",
      "connector_call",
    ]),
    reason: "outbound network/client calls are not allowed on the ingress hot path",
    onlyNormalizeInbound: true,
  },
];

export const connectorEffectPolicy: Rule = {
  id: "connector-effect-policy",
  meta: {
    reusable: true,
    severity: "warning",
    description: "A connector export calls a builtin that its effect class does not allow",
    fixable: false,
    // only inside a connector export
    triggers: { words: [...EXPORTS] },
    messages: {
      disallowed: {
        message: "connector export `{export}` calls disallowed builtin `{builtin}`: {reason}",
        help: "move `{builtin}` out of `{export}` or configure a trusted connector effect-policy override",
      },
    },
  },
  create(ctx) {
    /** Enclosing connector exports, innermost last. */
    const exports: string[] = [];
    return {
      // made once per run (meta.reusable): a file starts afresh
      Program() {
        clearArray(exports);
      },
      FnDecl(n: FnDecl) {
        if (EXPORTS.has(n.name)) exports.push(n.name);
      },
      "FnDecl:exit"(n: FnDecl) {
        if (EXPORTS.has(n.name)) exports.pop();
      },
      FunctionCall(n) {
        if (exports.length === 0) return;
        const exp = exports[exports.length - 1]!;
        for (const g of GROUPS) {
          if (!g.names.has(n.name) || (g.onlyNormalizeInbound && exp !== "normalize_inbound")) continue;
          ctx.report({
            node: n,
            messageId: "disallowed",
            data: { export: exp, builtin: n.name, reason: g.reason },
          });
          return;
        }
      },
    };
  },
};
