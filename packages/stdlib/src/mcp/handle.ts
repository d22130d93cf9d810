/**
 * The `mcp_client` handle (spec/mcp.md §1.1): an opaque value whose copies
 * share one connection, and the request helpers every user of a handle
 * goes through (builtins, the agent loop, the registry).
 */
import { HarnError, HOpaque, type Runtime, type Value } from "@harn/vm";
import type { JsonObject } from "../core/json";
import { McpConnection, type ConnectOptions } from "./client";
import type { McpServerSpec } from "./config";
import { listOf } from "./results";

export class ClientHandle {
  constructor(
    readonly name: string,
    /** Null once disconnected. */
    public conn: McpConnection | null,
  ) {}

  /** The live connection, or the §1.7 "disconnected" error. */
  live(): McpConnection {
    if (this.conn === null || !this.conn.connected) throw HarnError.runtime("MCP client is disconnected");
    return this.conn;
  }

  request(method: string, params: JsonObject, signal?: AbortSignal): Promise<JsonObject> {
    return this.live().request(method, params, signal);
  }

  async disconnect(): Promise<void> {
    const c = this.conn;
    this.conn = null;
    await c?.close();
  }
}

export function clientValue(h: ClientHandle): HOpaque {
  return new HOpaque("mcp_client", `<mcp_client:${h.name}>`, h);
}

export function clientOf(v: Value): ClientHandle | null {
  return v instanceof HOpaque && v.payload instanceof ClientHandle ? v.payload : null;
}

/** Connect `spec` and name the handle after it. */
export async function connectSpec(rt: Runtime, spec: McpServerSpec, displayName: string, options?: ConnectOptions): Promise<ClientHandle> {
  return new ClientHandle(displayName, await McpConnection.open(rt, spec, options));
}

/**
 * `tools/list`, following `nextCursor` to the end ([TS decision] §1.9);
 * a server repeating a cursor ends the listing rather than looping.
 */
export async function listTools(h: ClientHandle, signal?: AbortSignal): Promise<JsonObject[]> {
  const tools: JsonObject[] = [];
  const seen = new Set<string>();
  let cursor: string | null = null;
  for (;;) {
    const result: JsonObject = await h.request("tools/list", cursor === null ? {} : { cursor }, signal);
    for (const t of listOf(result, "tools")) if (t !== null && typeof t === "object" && !Array.isArray(t)) tools.push(t as JsonObject);
    const next = result.nextCursor;
    if (typeof next !== "string" || next === "" || seen.has(next)) return tools;
    seen.add(next);
    cursor = next;
  }
}
