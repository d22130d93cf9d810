/**
 * The tables of a PostgreSQL daemon store, created and migrated by harn
 * itself: `harn_schema` records the version of each component, and
 * `MIGRATIONS[i]` takes the daemons' tables from version i to i + 1. A
 * store already at the current version is only read (so a role without
 * CREATE rights can use tables its owner created); migrating takes an
 * advisory lock, so processes starting together migrate once. Stock
 * PostgreSQL (15) only: no extension.
 *
 *   harn_daemons        one row per daemon (by name): identity and options
 *                       (`header`, JSON), queue counters, the snapshot's
 *                       checkpoint, the stop reason, and the lease
 *                       (owner, generation, expiry by the server's clock)
 *   harn_daemon_events  the queue: one row per event until it is
 *                       acknowledged (pending and in flight alike)
 *   harn_daemon_deltas  what each idle boundary added to the snapshot
 *                       since the checkpoint (delta.ts), in order
 *
 * JSON is stored as text, not jsonb: payloads keep 64-bit ints and
 * integral floats exactly, and key order.
 */
import type { ClientBase } from "pg";

const COMPONENT = "daemons";
/** pg_advisory_xact_lock key of migrations ("harn" in ASCII, twice). */
const MIGRATION_LOCK = "1751217774";

export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE harn_daemons (
     name text PRIMARY KEY,
     id text NOT NULL,
     header text NOT NULL,
     capacity integer NOT NULL CHECK (capacity > 0),
     next_seq bigint NOT NULL DEFAULT 1,
     queued integer NOT NULL DEFAULT 0,
     checkpoint text,
     checkpoint_bytes bigint NOT NULL DEFAULT 0,
     delta_bytes bigint NOT NULL DEFAULT 0,
     next_delta bigint NOT NULL DEFAULT 1,
     stop_reason text,
     lease_owner text,
     lease_generation bigint NOT NULL DEFAULT 0,
     lease_expires_at timestamptz,
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now()
   );
   CREATE TABLE harn_daemon_events (
     daemon text NOT NULL REFERENCES harn_daemons (name) ON DELETE CASCADE,
     seq bigint NOT NULL,
     enqueued_at text NOT NULL,
     payload text NOT NULL,
     PRIMARY KEY (daemon, seq)
   );
   CREATE TABLE harn_daemon_deltas (
     daemon text NOT NULL REFERENCES harn_daemons (name) ON DELETE CASCADE,
     n bigint NOT NULL,
     delta text NOT NULL,
     PRIMARY KEY (daemon, n)
   );`,
];

async function version(c: ClientBase): Promise<number | null> {
  const t = await c.query<{ t: string | null }>("SELECT to_regclass('harn_schema')::text AS t");
  if (t.rows[0]?.t == null) return null;
  const r = await c.query<{ version: number }>("SELECT version FROM harn_schema WHERE component = $1", [COMPONENT]);
  return r.rows[0]?.version ?? 0;
}

/** Bring the store reached by `c` to the current schema. */
export async function migrate(c: ClientBase): Promise<void> {
  const latest = MIGRATIONS.length;
  const seen = await version(c);
  if (seen === latest) return;
  if (seen !== null && seen > latest) throw tooNew(seen, latest);
  try {
    await c.query("BEGIN");
    await c.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await c.query("CREATE TABLE IF NOT EXISTS harn_schema (component text PRIMARY KEY, version integer NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now())");
    const now = (await version(c)) ?? 0;
    if (now > latest) throw tooNew(now, latest);
    for (let v = now; v < latest; v++) await c.query(MIGRATIONS[v]!);
    if (now < latest) {
      await c.query(
        "INSERT INTO harn_schema (component, version) VALUES ($1, $2) ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version, migrated_at = now()",
        [COMPONENT, latest],
      );
    }
    await c.query("COMMIT");
  } catch (e) {
    await c.query("ROLLBACK").catch(() => undefined);
    const code = (e as { code?: string }).code;
    // 42501: insufficient_privilege
    if (code === "42501") {
      throw new Error(`cannot create harn's tables (${(e as Error).message}); grant CREATE on the schema, or let its owner run harn once`);
    }
    throw e;
  }
}

function tooNew(seen: number, latest: number): Error {
  return new Error(`the daemon tables are at schema version ${seen}, newer than this harn knows (${latest}); upgrade harn`);
}
