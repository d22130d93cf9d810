/**
 * Connections to a PostgreSQL daemon store (docs/daemons-postgresql.md):
 * one pool per store URL per runtime, plus one LISTEN connection shared by
 * the daemons of that URL that wait for news (runners, standbys, waits).
 * `pg` (node-postgres) is loaded on first use, so a script without a
 * PostgreSQL store never loads it. The schema is migrated once per
 * connection (schema.ts).
 *
 * Every failure becomes a runtime error naming the store by its URL
 * without the password.
 */
import type { Client, ClientBase, Notification, Pool, QueryResultRow } from "pg";
import { hostname } from "node:os";
import { HarnError, type Runtime } from "@harn/vm";
import { daemonRegistry, type DaemonResource } from "../registry";
import { migrate } from "./schema";

/** The notification channel of every daemon store. Payloads are one
 * letter and the daemon's name: `e` an event was queued, `a` an event was
 * acknowledged (or the daemon stopped by itself), `l` the lease was let go. */
export const CHANNEL = "harn_daemons";
export type NewsKind = "e" | "a" | "l";

export function isStoreUrl(s: string): boolean {
  return /^postgres(ql)?:\/\//i.test(s);
}

/** The URL without its password (for messages and handles). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== "") u.password = "";
    return u.toString().replace(/^(\w+:\/\/[^:@/]*):@/, "$1@");
  } catch {
    return url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1@");
  }
}

type PgModule = typeof import("pg");

async function loadPg(): Promise<PgModule> {
  const mod = (await import("pg")) as PgModule & { default?: PgModule };
  return mod.default ?? mod;
}

function detail(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: string }).code;
    // An aggregate connect error (IPv4 and IPv6 both refused) has no message of its own.
    const msg = e.message || (e instanceof AggregateError ? e.errors.map((x: unknown) => (x instanceof Error ? x.message : String(x))).join("; ") : "");
    return msg || code || e.name;
  }
  return String(e);
}

/** Who holds a lease: host, pid and a random part (for monitoring). */
export function ownerName(): string {
  return `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
}

/** A runtime's connection to one URL, as registered for closing. */
interface Opening extends DaemonResource {
  opening: Promise<PgConnection>;
}

export class PgConnection implements DaemonResource {
  private listener: Client | null = null;
  private listening: Promise<Client> | null = null;
  private readonly subscribers = new Map<string, Set<(kind: NewsKind) => void>>();
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly pg: PgModule,
    readonly url: string,
    readonly pool: Pool,
  ) {}

  /** The URL without its password. */
  get shown(): string {
    return redactUrl(this.url);
  }

  /** The connection of `url` for this runtime, its schema migrated. */
  static get(rt: Runtime, url: string): Promise<PgConnection> {
    const registry = daemonRegistry(rt);
    const key = `pg ${url}`;
    let entry = registry.resources.get(key) as Opening | undefined;
    if (entry === undefined) {
      const opening = PgConnection.open(url);
      entry = { opening, close: () => opening.then((c) => c.close(), () => undefined) };
      registry.resources.set(key, entry);
      // A failed open is not kept: the next use tries again.
      opening.catch(() => registry.resources.delete(key));
    }
    return entry.opening;
  }

  private static async open(url: string): Promise<PgConnection> {
    const pg = await loadPg();
    const pool = new pg.Pool({ connectionString: url, max: 10, allowExitOnIdle: true, application_name: "harn", connectionTimeoutMillis: 15_000 });
    // An idle connection that breaks is dropped by the pool; the next
    // query opens another one.
    pool.on("error", () => undefined);
    const conn = new PgConnection(pg, url, pool);
    try {
      const client = await pool.connect();
      try {
        await migrate(client);
      } finally {
        client.release();
      }
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw conn.error(e);
    }
    return conn;
  }

  /** A failure of this store as a runtime error. */
  error(e: unknown): HarnError {
    if (e instanceof HarnError) return e;
    return HarnError.runtime(`daemon store ${this.shown}: ${detail(e)}`);
  }

  async query<R extends QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
    try {
      return (await this.pool.query<R>(text, values)).rows;
    } catch (e) {
      throw this.error(e);
    }
  }

  /** Run `fn` in one transaction (rolled back if it throws). */
  async transaction<T>(fn: (c: ClientBase) => Promise<T>): Promise<T> {
    let client;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw this.error(e);
    }
    let broken = false;
    try {
      await client.query("BEGIN");
      const r = await fn(client);
      await client.query("COMMIT");
      return r;
    } catch (e) {
      try {
        await client.query("ROLLBACK");
      } catch {
        broken = true;
      }
      throw this.error(e);
    } finally {
      client.release(broken);
    }
  }

  /** Call `fn` on news about daemon `name`; returns the unsubscribe. The
   * LISTEN connection lives while someone listens; after it breaks it is
   * opened again, and every subscriber hears `l` and `e` (news may have
   * been missed). */
  subscribe(name: string, fn: (kind: NewsKind) => void): () => void {
    let set = this.subscribers.get(name);
    if (!set) this.subscribers.set(name, (set = new Set()));
    set.add(fn);
    void this.listen().catch(() => this.reconnectLater());
    return () => {
      set.delete(fn);
      if (set.size === 0) this.subscribers.delete(name);
      if (this.subscribers.size === 0) this.unlisten();
    };
  }

  /** Resolves once the LISTEN connection is up (news from then on arrive). */
  listen(): Promise<Client> {
    if (this.listening) return this.listening;
    const client = new this.pg.Client({ connectionString: this.url, application_name: "harn-listen" });
    client.on("notification", (n: Notification) => this.dispatch(n.payload ?? ""));
    client.on("error", () => {
      if (this.listener === client) this.dropListener();
      this.reconnectLater();
    });
    client.on("end", () => {
      if (this.listener === client) {
        this.dropListener();
        this.reconnectLater();
      }
    });
    this.listening = (async () => {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      this.listener = client;
      return client;
    })();
    this.listening.catch(() => {
      if (this.listening !== null && this.listener === null) this.listening = null;
      client.end().catch(() => undefined);
    });
    return this.listening;
  }

  private dispatch(payload: string): void {
    const kind = payload[0] as NewsKind;
    for (const fn of [...(this.subscribers.get(payload.slice(1)) ?? [])]) fn(kind);
  }

  private dropListener(): void {
    const c = this.listener;
    this.listener = null;
    this.listening = null;
    c?.end().catch(() => undefined);
  }

  private reconnectLater(): void {
    if (this.closed || this.subscribers.size === 0 || this.reconnectTimer !== null) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.closed || this.subscribers.size === 0) return;
      this.listen().then(
        () => {
          for (const [name, set] of this.subscribers) for (const fn of [...set]) (fn("l"), this.subscribers.get(name) && fn("e"));
        },
        () => this.reconnectLater(),
      );
    }, 1000);
  }

  private unlisten(): void {
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const pending = this.listening;
    this.listener = null;
    this.listening = null;
    pending?.then((c) => c.end()).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.subscribers.clear();
    this.unlisten();
    await this.pool.end().catch(() => undefined);
  }
}
