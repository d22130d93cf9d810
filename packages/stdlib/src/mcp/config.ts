/**
 * MCP server specs (spec/mcp.md §1.4): the one shape shared by `harn.toml`
 * `[[mcp]]` entries, `agent_loop`'s `mcp_servers` entries (§3.1) and the
 * dict form of `mcp_connect`. Plain data, no SDK: the agent loop validates
 * its options with it before anything connects.
 */
import { HarnError, HDict, type Value } from "@harn/vm";
import { isJsonObject as isObject, toJson, type Json, type JsonObject } from "../core/json";

export interface McpServerSpec {
  name: string;
  transport: "stdio" | "http";
  command: string;
  args: string[];
  /** Added to / overriding the inherited environment (stdio). */
  env: Record<string, string>;
  url: string;
  authToken: string | null;
  /** Initial `MCP-Protocol-Version` header value (http). */
  protocolVersion: string;
  /** Adds `"serverName"` to every JSON-RPC body (http, multiplexing proxies). */
  proxyServerName: string | null;
  cwd: string | null;
  headers: Record<string, string>;
}

export const PROTOCOL_VERSION = "2025-11-25";

function invalid(detail: string): HarnError {
  return HarnError.runtime(`Invalid MCP server config: ${detail}`);
}

function str(o: JsonObject, key: string, fallback: string): string {
  const v = o[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== "string") throw invalid(`\`${key}\` must be a string`);
  return v;
}

function strings(o: JsonObject, key: string): string[] {
  const v = o[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) throw invalid(`\`${key}\` must be a list of strings`);
  return v as string[];
}

function stringMap(o: JsonObject, key: string): Record<string, string> {
  const v = o[key];
  if (v === undefined || v === null) return {};
  if (!isObject(v) || !Object.values(v).every((x) => typeof x === "string")) throw invalid(`\`${key}\` must be a table of strings`);
  return v as Record<string, string>;
}

/** A server spec from a JSON object (a TOML table, or a script dict through
 * `toJson`). Wrong types are `Invalid MCP server config: …` runtime errors. */
export function parseServerSpec(o: JsonObject): McpServerSpec {
  const name = str(o, "name", "").trim();
  if (name === "") throw invalid("`name` is required");
  const transport = str(o, "transport", "stdio");
  if (transport !== "stdio" && transport !== "http") throw invalid(`unknown transport '${transport}' for '${name}' (expected "stdio" or "http")`);
  const token = str(o, "auth_token", "");
  const proxy = str(o, "proxy_server_name", "");
  const cwd = str(o, "cwd", "");
  return {
    name,
    transport,
    command: str(o, "command", ""),
    args: strings(o, "args"),
    env: stringMap(o, "env"),
    url: str(o, "url", ""),
    authToken: token === "" ? null : token,
    protocolVersion: str(o, "protocol_version", PROTOCOL_VERSION),
    proxyServerName: proxy === "" ? null : proxy,
    cwd: cwd === "" ? null : cwd,
    headers: stringMap(o, "headers"),
  };
}

/** A script dict as a server spec. */
export function specFromDict(d: HDict): McpServerSpec {
  return parseServerSpec(toJson(d) as JsonObject);
}

/**
 * `agent_loop`'s `mcp_servers` option (§3.1), checked when the options are
 * read, before anything runs. Empty when absent (or nil: a [TS decision]).
 */
export function readLoopServers(v: Value): McpServerSpec[] {
  if (v === null) return [];
  const fail = (m: string) => HarnError.runtime(`agent_loop: ${m}`);
  if (!Array.isArray(v)) throw fail("`mcp_servers` must be a list of server config dicts");
  const specs: McpServerSpec[] = [];
  for (const entry of v) {
    if (!(entry instanceof HDict)) throw fail("each `mcp_servers` entry must be a dict");
    const o = toJson(entry) as JsonObject;
    const command = o.command;
    if (Array.isArray(command)) {
      const [head, ...rest] = command as Json[];
      if (typeof head !== "string") throw fail("stdio MCP `command` arrays must start with a command string");
      if (!rest.every((x) => typeof x === "string")) throw fail("stdio MCP `command` array args must be strings");
      o.command = head;
      if (o.args === undefined || o.args === null) o.args = rest;
    } else if (command !== undefined && command !== null && typeof command !== "string") {
      throw fail("MCP `command` must be a string or a string array");
    }
    const name = typeof o.name === "string" ? o.name.trim() : "";
    if (name === "") throw fail("every `mcp_servers` entry requires a non-empty `name`");
    if (specs.some((s) => s.name === name)) throw fail(`duplicate MCP server name \`${name}\` in \`mcp_servers\``);
    specs.push(parseServerSpec({ ...o, name }));
  }
  return specs;
}
