/**
 * `mcp_server_card(target)` (spec/mcp.md §2.5): a server's Server Card, a
 * JSON document read from a file or fetched from a URL (directly, or by a
 * registered server's `card` setting), cached per source for 300 s.
 */
import { readFileSync } from "node:fs";
import { display, HarnError, RuntimeSlot, type CallContext, type Runtime, type Value } from "@harn/vm";
import { fromJson } from "../core/json";
import { osErrorText } from "../core/oserror";
import { resolvePath } from "../core/paths";
import { runtimeFetch } from "../http/transport";
import { MCP_REGISTRY } from "./registry";

const TTL_MS = 300_000;
const FETCH_TIMEOUT_MS = 10_000;

const CARDS = new RuntimeSlot("mcp.cards", () => new Map<string, { at: number; card: Value }>());

const fail = (detail: string) => HarnError.thrown(`mcp_server_card: ${detail}`);

function isDirect(target: string): boolean {
  return /^https?:\/\//.test(target) || /[/\\]/.test(target) || target.endsWith(".json");
}

export async function serverCard(args: Value[], ctx: CallContext): Promise<Value> {
  const rt = ctx.runtime;
  if (args.length === 0 || args[0] === null) throw fail("server name, URL, or path is required");
  const target = typeof args[0] === "string" ? args[0] : display(args[0]!);
  let source = target;
  if (!isDirect(target)) {
    const reg = rt.slot(MCP_REGISTRY).registered.get(target);
    if (!reg) throw fail(`no MCP server '${target}' registered (check harn.toml) — pass a URL or path directly instead`);
    if (reg.card === null) throw fail(`server '${target}' has no 'card' field in harn.toml`);
    source = reg.card;
  }
  const cache = rt.slot(CARDS);
  const hit = cache.get(source);
  const now = rt.clock.monotonic();
  if (hit && now - hit.at < TTL_MS) return hit.card;
  const text = /^https?:\/\//.test(source) ? await fetchCard(rt, source, ctx.signal) : readCard(rt, source);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw fail(`parse: ${(e as Error).message}`);
  }
  const card = fromJson(parsed);
  cache.set(source, { at: now, card });
  return card;
}

function readCard(rt: Runtime, path: string): string {
  try {
    return readFileSync(resolvePath(rt, path), "utf8");
  } catch (e) {
    throw fail(`io: read ${path}: ${osErrorText(e)}`);
  }
}

/** GET the card; a failure retries once at `/.well-known/mcp-card`. */
async function fetchCard(rt: Runtime, url: string, signal: AbortSignal): Promise<string> {
  const first = await get(rt, url, signal);
  if (typeof first === "string") return first;
  if (url.includes("/.well-known/")) throw first;
  const second = await get(rt, `${url.replace(/\/+$/, "")}/.well-known/mcp-card`, signal);
  if (typeof second === "string") return second;
  throw first;
}

async function get(rt: Runtime, url: string, signal: AbortSignal): Promise<string | HarnError> {
  const f = runtimeFetch(rt) ?? fetch;
  let res: Response;
  try {
    res = await f(url, { signal: AbortSignal.any([signal, AbortSignal.timeout(FETCH_TIMEOUT_MS)]) });
  } catch (e) {
    if (signal.aborted) throw signal.reason;
    const cause = (e as { cause?: unknown }).cause;
    return fail(`http: GET ${url}: ${cause instanceof Error ? cause.message : (e as Error).message}`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    return fail(`http: GET ${url} returned HTTP ${res.status}`);
  }
  try {
    return await res.text();
  } catch (e) {
    return fail(`parse: body: ${(e as Error).message}`);
  }
}
