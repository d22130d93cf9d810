/**
 * `harn serve mcp [options] FILE` (spec/mcp.md §4.2): run a script, then
 * serve the tools, resources and prompts it registered (`mcp_tools`,
 * `mcp_resource`, …) to MCP clients, over stdio or Streamable HTTP. The
 * script runs exactly as `harn run` would (run-script.ts), with its output
 * on stderr; serving happens before its runtime shuts down, so handlers
 * keep everything the script set up.
 */
import { readFileSync } from "node:fs";
import { basename, extname } from "node:path";
import { type Command, Option } from "commander";
import { parse } from "@harn/parser";
import { osErrorText } from "@harn/stdlib/oserror";
import { runCommand } from "../run-script";
import { readSourceText } from "../source-file";
import type { SetExitCode } from "./index";

interface ServeMcpFlags {
  transport: "stdio" | "http";
  http?: boolean;
  bind: string;
  path: string;
  apiKey?: string;
  card?: string;
}

export function register(program: Command, setExitCode: SetExitCode): void {
  const serve = program.command("serve").description("serve a Harn script to other programs (`harn serve mcp FILE`)");
  serve
    .command("mcp")
    .description("serve the tools, resources and prompts a script registers over MCP (stdio, or Streamable HTTP)")
    .argument("<file>", "script that registers them (mcp_tools, mcp_resource, mcp_resource_template, mcp_prompt)")
    .addOption(new Option("--transport <transport>", "stdio or http").choices(["stdio", "http"]).default("stdio"))
    .option("--http", "shorthand for --transport http")
    .addOption(new Option("--bind <addr>", "HTTP listen address (port 0: any free port)").env("HARN_SERVE_MCP_BIND").default("127.0.0.1:8765"))
    .option("--path <path>", "Streamable HTTP endpoint", "/mcp")
    .addOption(new Option("--api-key <keys>", "HTTP only: accepted API keys, comma-separated (Authorization: Bearer K or X-API-Key: K)").env("HARN_SERVE_API_KEY"))
    .option("--card <path-or-json>", "Server Card to publish (a file, or inline JSON)")
    .action(async (file: string, flags: ServeMcpFlags) => {
      setExitCode(await serveMcp(file, flags));
    });
}

function fail(message: string): number {
  process.stderr.write(`error: ${message}\n`);
  return 1;
}

async function serveMcp(file: string, flags: ServeMcpFlags): Promise<number> {
  const transport = flags.http ? "http" : flags.transport;
  const apiKeys = (flags.apiKey ?? "").split(",").map((k) => k.trim()).filter((k) => k !== "");
  if (transport === "stdio" && apiKeys.length > 0) return fail("HTTP auth flags require `harn serve mcp --transport http`");
  let card: unknown = null;
  if (flags.card !== undefined) {
    const c = readCard(flags.card);
    if (typeof c === "string") return fail(`--card: ${c}`);
    card = c.card;
  }
  let source: string;
  try {
    source = readSourceText(file);
  } catch (e) {
    return fail(`failed to load script: ${osErrorText(e)}`);
  }
  const parsed = parse(source, { file });
  if (parsed.errors.length > 0) return fail(`failed to load script: ${parsed.errors[0]!.message}`);
  const name = basename(file, extname(file));
  // `harn serve mcp` serves in any case: the SDK loads now.
  const m = await import("@harn/stdlib/mcp-serve");
  const exported = m.exportedFns(parsed.program);
  if (exported.length > 0) {
    const pubFns = exported.map((f) => f.name);
    // Export mode (§4.7): an entry of our own imports the file as a module
    // (its top-level bindings run, its pipelines do not) and records the
    // functions; each becomes a tool.
    const from = extname(file) === ".harn" ? name : basename(file);
    const entry = [
      `import { ${pubFns.join(", ")} } from "./${from}"`,
      `pipeline __harn_mcp_export() {`,
      `  __mcp_export({${pubFns.map((f) => `${f}: ${f}`).join(", ")}})`,
      `}`,
      ``,
    ].join("\n");
    return runCommand({
      file,
      inline: undefined,
      source: entry,
      argv: [],
      serve: async (rt, stop) => {
        const served = m.exportServer(rt, name, exported, card as never);
        return serveOn(m, served, transport, flags, apiKeys, stop, () => process.stderr.write("[harn] MCP workflow server ready on stdio\n"));
      },
    });
  }
  return runCommand({
    file,
    inline: undefined,
    argv: [],
    serve: async (rt, stop) => {
      let script;
      try {
        script = m.scriptServer(rt, name, card as never);
      } catch (e) {
        if (!(e instanceof m.ServeSetupError)) throw e;
        process.stderr.write(`error: ${e.message}\n${e.hint ? `hint: ${e.hint}\n` : ""}`);
        return 1;
      }
      process.stderr.write(`${script.summary()}\n`);
      return serveOn(m, script, transport, flags, apiKeys, stop);
    },
  });
}

type ServeModule = typeof import("@harn/stdlib/mcp-serve");

/** Serve until stdin ends (stdio) or `stop` aborts; the exit status. */
async function serveOn(
  m: ServeModule,
  served: Parameters<ServeModule["serveStdio"]>[0],
  transport: "stdio" | "http",
  flags: ServeMcpFlags,
  apiKeys: string[],
  stop: AbortSignal,
  onStdio: () => void = () => undefined,
): Promise<number> {
  if (transport === "stdio") {
    onStdio();
    await m.serveStdio(served, stop);
    return 0;
  }
  const ready = (url: string) => void process.stderr.write(`[harn] MCP workflow server ready on ${url}\n`);
  try {
    await m.serveHttp(served, { bind: flags.bind, path: flags.path, apiKeys, ready }, stop);
  } catch (e) {
    return fail(`cannot serve on ${flags.bind}: ${(e as Error).message}`);
  }
  return 0;
}

/** `--card`: inline JSON (first non-blank character `{` or `[`) or a file. */
function readCard(arg: string): { card: unknown } | string {
  const inline = /^\s*[{[]/.test(arg);
  let text = arg;
  if (!inline) {
    try {
      text = readFileSync(arg, "utf8");
    } catch (e) {
      return `io: read ${arg}: ${osErrorText(e)}`;
    }
  }
  try {
    return { card: JSON.parse(text) };
  } catch (e) {
    return `${inline ? "inline JSON parse error" : "parse"}: ${(e as Error).message}`;
  }
}
