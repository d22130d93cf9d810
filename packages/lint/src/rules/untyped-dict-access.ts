/** `untyped-dict-access` (lint.md §3.28). */
import type { Node } from "@harn/parser";
import type { Rule, RuleContext } from "../types";

const BOUNDARY = new Set([
  "json_parse",
  "json_extract",
  "yaml_parse",
  "toml_parse",
  "llm_call",
  "llm_completion",
  "http_get",
  "http_post",
  "http_put",
  "http_patch",
  "http_delete",
  "http_request",
  "http_session_request",
  "sse_receive",
  "sse_server_mock_receive",
  "sse_server_response",
  "sse_server_status",
  "websocket_accept",
  "websocket_receive",
  "host_call",
  "mcp_call",
]);

function check(ctx: RuleContext, n: Node, object: Node, form: "property" | "subscript"): void {
  if (object.kind !== "FunctionCall" || !BOUNDARY.has(object.name)) return;
  ctx.report({
    node: n,
    messageId: "raw",
    data: { form, name: object.name },
  });
}

export const untypedDictAccess: Rule = {
  id: "untyped-dict-access",
  meta: {
    reusable: true,
    severity: "warning",
    description: "`.field` or `[k]` applied directly to the result of a boundary call such as `json_parse(..)`",
    fixable: false,
    triggers: { words: [...BOUNDARY] },
    messages: {
      raw: {
        message: "{form} access on raw `{name}()` result without schema validation",
        help: "assign to a variable and validate with schema_expect() or a type annotation first",
      },
    },
  },
  create(ctx) {
    return {
      PropertyAccess: (n) => check(ctx, n, n.object, "property"),
      OptionalPropertyAccess: (n) => check(ctx, n, n.object, "property"),
      SubscriptAccess: (n) => check(ctx, n, n.object, "subscript"),
      OptionalSubscriptAccess: (n) => check(ctx, n, n.object, "subscript"),
    };
  },
};
