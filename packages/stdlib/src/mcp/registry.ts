/**
 * Declared MCP servers (spec/mcp.md §2): the `[[mcp]]` entries of
 * `harn.toml`, connected before the script runs unless lazy, and the
 * per-runtime registry behind `mcp_ensure_active`, `mcp_release` and
 * `mcp_registry_status`. Active connections carry a binder count; pinned
 * (eager) ones stay until the runtime shuts down, released ones are
 * disconnected at once or after their `keep_alive_ms`.
 */
import { display, HarnError, HDict, RuntimeSlot, type CancelTimer, type Runtime, type Value } from "@harn/vm";
import { isJsonObject as isObject, type JsonObject } from "../core/json";
import { parseServerSpec, type McpServerSpec } from "./config";
import { clientValue, connectSpec, type ClientHandle } from "./handle";

export interface Registration {
  spec: McpServerSpec;
  lazy: boolean;
  keepAliveMs: number;
  card: string | null;
}

interface Active {
  handle: ClientHandle;
  count: number;
  pinned: boolean;
  /** The pending keep-alive disconnect. */
  cancelKeepAlive: CancelTimer | null;
}

export class McpRegistry {
  readonly registered = new Map<string, Registration>();
  readonly active = new Map<string, Active>();
  /** First activations in progress, so concurrent ones share a connection. */
  private readonly connecting = new Map<string, Promise<ClientHandle>>();

  constructor(private readonly rt: Runtime) {
    rt.onShutdown(async () => {
      const all = [...this.active.values()];
      this.active.clear();
      for (const a of all) a.cancelKeepAlive?.();
      await Promise.all(all.map((a) => a.handle.disconnect()));
    });
  }

  async ensureActive(name: string, signal?: AbortSignal): Promise<ClientHandle> {
    const a = this.active.get(name);
    if (a) {
      a.cancelKeepAlive?.();
      a.cancelKeepAlive = null;
      if (!a.pinned) a.count++;
      return a.handle;
    }
    const pending = this.connecting.get(name);
    if (pending) {
      await pending;
      return this.ensureActive(name, signal);
    }
    const reg = this.registered.get(name);
    if (!reg) throw HarnError.runtime(`mcp: no server named '${name}' is registered (check harn.toml)`);
    const connecting = connectSpec(this.rt, reg.spec, name, { signal });
    this.connecting.set(name, connecting);
    try {
      const handle = await connecting;
      this.active.set(name, { handle, count: 1, pinned: false, cancelKeepAlive: null });
      return handle;
    } finally {
      this.connecting.delete(name);
    }
  }

  release(name: string): void {
    const a = this.active.get(name);
    if (!a || a.pinned || a.count === 0) return;
    a.count--;
    if (a.count > 0) return;
    const keepAlive = this.registered.get(name)?.keepAliveMs ?? 0;
    if (keepAlive <= 0) {
      this.drop(name, a);
      return;
    }
    a.cancelKeepAlive = this.rt.clock.timer(keepAlive, () => {
      if (this.active.get(name) === a && a.count === 0) this.drop(name, a);
    });
  }

  /** An active connection by name, without counting a binder. */
  activeHandle(name: string): ClientHandle | null {
    return this.active.get(name)?.handle ?? null;
  }

  pin(name: string, handle: ClientHandle): void {
    this.active.set(name, { handle, count: 1, pinned: true, cancelKeepAlive: null });
  }

  status(): Value {
    return [...this.registered.keys()].sort().map((name) => {
      const r = this.registered.get(name)!;
      const a = this.active.get(name);
      const entry: Record<string, Value> = { name, lazy: r.lazy, active: a !== undefined, ref_count: a?.count ?? 0 };
      if (r.card !== null) entry.card = r.card;
      return HDict.of(entry);
    });
  }

  private drop(name: string, a: Active): void {
    a.cancelKeepAlive?.();
    this.active.delete(name);
    void a.handle.disconnect();
  }
}

export const MCP_REGISTRY = new RuntimeSlot("mcp.registry", (rt) => new McpRegistry(rt));

/** A `[[mcp]]` entry (§2.1): a server spec plus the registry keys. */
export function registrationOf(entry: JsonObject): Registration {
  const spec = parseServerSpec(entry);
  const lazy = entry.lazy;
  if (lazy !== undefined && typeof lazy !== "boolean") throw HarnError.runtime(`Invalid MCP server config: \`lazy\` of '${spec.name}' must be a boolean`);
  const keep = entry.keep_alive_ms ?? entry["keep-alive-ms"] ?? entry.keep_alive;
  const keepMs = keep === undefined ? 0 : typeof keep === "bigint" ? Number(keep) : typeof keep === "number" ? keep : undefined;
  if (keepMs === undefined || !Number.isFinite(keepMs) || keepMs < 0) throw HarnError.runtime(`Invalid MCP server config: \`keep_alive_ms\` of '${spec.name}' must be a non-negative integer`);
  const card = entry.card;
  if (card !== undefined && typeof card !== "string") throw HarnError.runtime(`Invalid MCP server config: \`card\` of '${spec.name}' must be a string`);
  return { spec, lazy: lazy === true, keepAliveMs: keepMs, card: card ?? null };
}

/** Where startup reports (stderr lines). */
export type StartupLog = (line: string) => void;

/**
 * §2.2: register every `[[mcp]]` entry and connect the eager ones, in
 * order; the connected ones become the `mcp` global. A bad entry or a
 * failed connection is a warning, and the others proceed.
 */
export async function startDeclaredServers(rt: Runtime, entries: unknown[], log: StartupLog): Promise<void> {
  const registry = rt.slot(MCP_REGISTRY);
  const connected = new Map<string, Value>();
  for (const raw of entries) {
    let reg: Registration;
    try {
      if (!isObject(raw)) throw HarnError.runtime("Invalid MCP server config: every [[mcp]] entry must be a table");
      reg = registrationOf(raw);
    } catch (e) {
      log(`warning: mcp: ${e instanceof HarnError ? e.description() : String(e)}`);
      continue;
    }
    const name = reg.spec.name;
    registry.registered.set(name, reg);
    if (reg.lazy) {
      log(`[harn] mcp: deferred '${name}' (lazy, boots on first use)`);
      continue;
    }
    try {
      const handle = await connectSpec(rt, reg.spec, name);
      registry.pin(name, handle);
      connected.set(name, clientValue(handle));
      log(`[harn] mcp: connected to '${name}'`);
    } catch (e) {
      const text = e instanceof HarnError ? e.description() : display(String(e));
      log(`warning: mcp: failed to connect to '${name}': ${text}`);
    }
  }
  if (connected.size > 0) rt.globals.set("mcp", new HDict(connected));
}
