/**
 * `daemon_spawn` with a PostgreSQL store (`store: "postgresql://…"`, or
 * `HARN_DAEMON_STORE`) and `daemon_connect(store, name)`; see
 * docs/daemons-postgresql.md.
 */
import { HarnError, HDict, type CallContext, type Value } from "@harn/vm";
import { uuidV7 } from "../../../core/encoding";
import { durationMs } from "../../loop/options";
import { loopOptions, storedOptions } from "../config";
import type { MetaHeader } from "../files";
import { daemonRegistry, type DaemonHandle } from "../registry";
import { isStoreUrl, PgConnection } from "./connection";
import { SharedDaemon } from "./shared";
import { createRow, deleteRow, readRow } from "./store";

export const DEFAULT_LEASE_MS = 10_000;

/** The store a config names, or null for a root directory: `store`, else
 * `HARN_DAEMON_STORE` when the config names no root. */
export function storeOf(config: HDict, env: Record<string, string | undefined>, hasRoot: boolean): string | null {
  const given = config.get("store");
  if (given !== null) {
    if (typeof given !== "string" || !isStoreUrl(given)) throw HarnError.runtime("daemon_spawn: `store` must be a postgresql:// URL");
    return given;
  }
  const fromEnv = env.HARN_DAEMON_STORE;
  if (hasRoot || fromEnv === undefined || fromEnv === "") return null;
  if (!isStoreUrl(fromEnv)) throw HarnError.runtime("daemon_spawn: HARN_DAEMON_STORE must be a postgresql:// URL");
  return fromEnv;
}

function handleAt(ctx: CallContext, place: string): DaemonHandle | undefined {
  for (const d of daemonRegistry(ctx.runtime).daemons.values()) if (d.place === place) return d;
  return undefined;
}

export interface SharedSpawn {
  url: string;
  name: string | null;
  prompt: string;
  system: string | null;
  sessionId: string | null;
  capacity: number;
  onExisting: "resume" | "replace" | null;
  /** The config, or its `options` dict. */
  source: HDict;
  leaseMs: Value;
}

export async function spawnShared(ctx: CallContext, s: SharedSpawn): Promise<Value> {
  const rt = ctx.runtime;
  if (s.name === null) throw HarnError.runtime("daemon_spawn: a daemon in a PostgreSQL store needs a `name` (it is how every process finds it)");
  const leaseMs = s.leaseMs === null ? DEFAULT_LEASE_MS : durationMs(s.leaseMs);
  if (leaseMs === undefined || !Number.isInteger(leaseMs) || leaseMs <= 0) throw HarnError.runtime("daemon_spawn: `lease_ms` must be a positive duration or int");
  const conn = await PgConnection.get(rt, s.url);
  const place = `${conn.shown}#${s.name}`;
  const registry = daemonRegistry(rt);
  if (registry.runningFor(place)) throw HarnError.runtime(`daemon_spawn: a daemon is already running for '${place}'`);
  if (s.onExisting === "replace" && !(await deleteRow(conn, s.name))) {
    throw HarnError.runtime(`daemon_spawn: daemon '${s.name}' in ${conn.shown} is running (another process holds its lease); stop it before replacing it`);
  }
  const sessionId = s.sessionId ?? `daemon_session_${uuidV7(rt)}`;
  const header: MetaHeader = {
    _type: "daemon_meta",
    id: `daemon_${uuidV7(rt)}`,
    name: s.name,
    prompt: s.prompt,
    system: s.system,
    session_id: sessionId,
    options: storedOptions(loopOptions(s.source, null, sessionId, null)),
    event_queue_capacity: s.capacity,
  };
  // A daemon of that name carries on (its queue and history): spawning it
  // from several processes is how they share it.
  await createRow(conn, header);
  const row = await readRow(conn, s.name);
  if (row === null) throw HarnError.runtime(`daemon_spawn: daemon '${s.name}' vanished from ${conn.shown} while it was being spawned`);
  const home = ctx.inSession ? ctx.inSession(row.header.session_id, { detached: true }) : ctx;
  const daemon = new SharedDaemon(conn, row, { ctx: home, source: s.source, leaseMs }, rt);
  registry.daemons.set(daemon.id, daemon);
  try {
    await daemon.begin();
  } catch (e) {
    await daemon.shutdown();
    registry.daemons.delete(daemon.id);
    throw e;
  }
  return daemon.summary();
}

/** `daemon_connect(store, name)`: a handle that feeds and observes. */
export async function daemonConnect(args: Value[], ctx: CallContext): Promise<Value> {
  const url = args[0] ?? null;
  const name = args[1] ?? null;
  if (typeof url !== "string" || !isStoreUrl(url)) throw HarnError.runtime("daemon_connect: `store` must be a postgresql:// URL");
  if (typeof name !== "string" || name === "") throw HarnError.runtime("daemon_connect: `name` must be a non-empty string");
  const rt = ctx.runtime;
  const conn = await PgConnection.get(rt, url);
  const existing = handleAt(ctx, `${conn.shown}#${name}`);
  if (existing) return existing.summary();
  const row = await readRow(conn, name);
  if (row === null) throw HarnError.runtime(`daemon_connect: no daemon '${name}' in ${conn.shown}`);
  const handle = new SharedDaemon(conn, row, null, rt);
  daemonRegistry(rt).daemons.set(handle.id, handle);
  return handle.summary();
}
