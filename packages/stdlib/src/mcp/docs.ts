/** Signatures and docs of the MCP builtins (spec/mcp.md §1–§2, §4.1), for
 * the builtin table (registry/docs.ts). */
import type { BuiltinDocs } from "../registry/docs";

export const MCP_DOCS: BuiltinDocs = {
  mcp_connect: ["mcp_connect(command, args?) -> mcp_client", "Spawn a stdio MCP server (or connect a server spec dict, stdio or Streamable HTTP) and run the handshake."],
  mcp_list_tools: ["mcp_list_tools(client) -> list<dict>", "The server's tools (every page), each with `_mcp_server`."],
  mcp_call: ["mcp_call(client, name, arguments?) -> string | list<dict> | nil", "Call a tool: one text item is a string, no content nil, else the content list; an `isError` result is thrown as its text."],
  mcp_list_resources: ["mcp_list_resources(client) -> list<dict>", "The server's resources (first page)."],
  mcp_list_resource_templates: ["mcp_list_resource_templates(client) -> list<dict>", "The server's resource templates (first page)."],
  mcp_read_resource: ["mcp_read_resource(client, uri) -> string | list<dict> | nil", "Read a resource: one text item is its text, else the content list."],
  mcp_list_prompts: ["mcp_list_prompts(client) -> list<dict>", "The server's prompts (first page)."],
  mcp_get_prompt: ["mcp_get_prompt(client, name, arguments?) -> dict", "Get a prompt: the whole result (`description`, `messages`)."],
  mcp_server_info: ["mcp_server_info(client) -> dict", "`{connected: true, name}` of a connected client."],
  mcp_disconnect: ["mcp_disconnect(client) -> nil", "Close the connection (a stdio server's stdin is closed, then it is signalled if still running)."],
  mcp_ensure_active: ["mcp_ensure_active(name) -> mcp_client", "Connect a server declared in harn.toml (`[[mcp]]`) if needed and count one more binder."],
  mcp_release: ["mcp_release(name) -> nil", "Drop a binder of a declared server; the last one disconnects it (after `keep_alive_ms`)."],
  mcp_registry_status: ["mcp_registry_status() -> list<dict>", "`{name, lazy, active, ref_count, card?}` of every declared server, by name."],
  mcp_server_card: ["mcp_server_card(target) -> dict", "A Server Card from a file, a URL or a declared server's `card` (cached 300 s)."],
  mcp_tools: ["mcp_tools(registry) -> nil", "Record the tool registry `harn serve mcp` serves."],
  mcp_serve: ["mcp_serve(registry) -> nil", "Alias of `mcp_tools`."],
  mcp_resource: ["mcp_resource({uri, name, text, title?, description?, mime_type?}) -> nil", "Record a static resource for `harn serve mcp`."],
  mcp_resource_template: ["mcp_resource_template({uri_template, name, handler, title?, description?, mime_type?}) -> nil", "Record a resource template (RFC 6570 level 1) for `harn serve mcp`; the handler gets the captured variables."],
  mcp_prompt: ["mcp_prompt({name, handler, title?, description?, arguments?}) -> nil", "Record a prompt for `harn serve mcp`; the handler gets the arguments dict."],
};
