/**
 * The MCP methods Harn answers with an explicit "unsupported" error, as a
 * client (server→client requests, spec/mcp.md §1.8) and as a server
 * (§4.5), and the protocol-error objects both sides send.
 */
import type { JsonObject } from "../core/json";
import { PROTOCOL_VERSION } from "./config";

interface Unsupported {
  feature: string;
  role: "client" | "server";
  reason: string;
}

const UNSUPPORTED: Readonly<Record<string, Unsupported>> = {
  "completion/complete": { feature: "completions", role: "server", reason: "Harn does not expose prompt or resource-template argument completion." },
  "resources/subscribe": { feature: "resource subscriptions", role: "server", reason: "Harn resources are read on demand and are not backed by subscription state." },
  "resources/unsubscribe": { feature: "resource subscriptions", role: "server", reason: "Harn resources are read on demand and are not backed by subscription state." },
  "roots/list": { feature: "roots", role: "client", reason: "Harn does not currently expose host root discovery to MCP servers." },
  "sampling/createMessage": { feature: "sampling", role: "client", reason: "Harn does not currently let MCP servers invoke a client-side model sampler." },
  "elicitation/create": { feature: "elicitation", role: "client", reason: "Harn does not currently let MCP servers request client-side user elicitation." },
  "tasks/get": { feature: "tasks", role: "server", reason: "Harn MCP tools execute inline; MCP task polling is not implemented." },
  "tasks/result": { feature: "tasks", role: "server", reason: "Harn MCP tools execute inline; MCP task result retrieval is not implemented." },
  "tasks/list": { feature: "tasks", role: "server", reason: "Harn MCP tools execute inline; MCP task listing is not implemented." },
  "tasks/cancel": { feature: "tasks", role: "server", reason: "Harn MCP cancellation uses notifications/cancelled instead of MCP tasks." },
};

/** A JSON-RPC error as the SDK's request handlers throw it: the SDK sends
 * `code`, `message` and `data` of a thrown object as they are (an
 * `McpError` would prefix its message with `MCP error <code>: `). */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: JsonObject,
  ) {
    super(message);
  }
}

export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

/** The error for a request of `method` that the receiving side does not
 * implement: the "unsupported feature" error for a listed method (a client
 * knows only the client-role ones, a server lists them all), else
 * `Method not found: <method>`. */
export function unsupportedMethod(method: string, side: "client" | "server"): ProtocolError {
  const u = Object.hasOwn(UNSUPPORTED, method) ? UNSUPPORTED[method] : undefined;
  if (u === undefined || (side === "client" && u.role !== "client")) return new ProtocolError(METHOD_NOT_FOUND, `Method not found: ${method}`);
  return new ProtocolError(METHOD_NOT_FOUND, `Unsupported MCP method: ${method}`, {
    type: "mcp.unsupportedFeature",
    protocolVersion: PROTOCOL_VERSION,
    method,
    feature: u.feature,
    role: u.role,
    status: "unsupported",
    reason: u.reason,
  });
}

/** `tools/call` with `task` params (task-augmented execution, §4.5). */
export function taskAugmentation(): ProtocolError {
  return new ProtocolError(INVALID_PARAMS, "MCP task-augmented execution is not supported", {
    type: "mcp.unsupportedFeature",
    protocolVersion: PROTOCOL_VERSION,
    method: "tools/call",
    feature: "tasks",
    status: "unsupported",
    reason: "Harn MCP tools execute inline and do not advertise taskSupport.",
  });
}
