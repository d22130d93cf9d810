/** The Harn version this implementation reports: `harn --version`, and the
 * `clientInfo` / `serverInfo` of its MCP client and servers. Its own module,
 * so the CLI's main chunk can read it without loading the evaluator. */
export const HARN_VERSION = "0.1.0";
