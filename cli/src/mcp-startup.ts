/**
 * The MCP servers a project declares in `harn.toml` (`[[mcp]]`,
 * spec/mcp.md §2.1–§2.2), connected before `harn run` and `harn serve mcp`
 * run a script. Finding the manifest is cheap and happens on every run;
 * its TOML is parsed (and the MCP layer loaded) only when it declares
 * servers.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { findManifest } from "@harn/lint/manifest-path";
import type { Runtime } from "@harn/vm";
import type { Engine } from "./engine";

const DECLARES_MCP = /^\s*\[\[\s*mcp\s*\]\]/m;

/** The nearest manifest of `file` when it declares MCP servers. */
export function mcpManifestFor(file: string): string | null {
  const manifest = findManifest(dirname(resolve(file)));
  if (manifest === null) return null;
  try {
    return DECLARES_MCP.test(readFileSync(manifest, "utf8")) ? manifest : null;
  } catch {
    return null;
  }
}

/** Register and connect the manifest's servers (the engine's
 * `startDeclaredMcpServers`); problems are warnings on stderr, and the
 * script runs anyway. */
export async function startDeclaredMcp(rt: Runtime, manifest: string, start: Engine["startDeclaredMcpServers"], log: (line: string) => void): Promise<void> {
  const { readManifest } = await import("@harn/lint/config");
  let entries: unknown;
  try {
    entries = readManifest(manifest).mcp;
  } catch (e) {
    log(`warning: mcp: ${(e as Error).message}`);
    return;
  }
  if (!Array.isArray(entries)) {
    log(`warning: mcp: ${manifest}: [[mcp]] must be an array of tables`);
    return;
  }
  await start(rt, entries, log);
}
