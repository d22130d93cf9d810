#!/usr/bin/env node
/**
 * A throwaway PostgreSQL server for tests and benchmarks: `initdb` into a
 * fresh temp dir, `pg_ctl start` on a free 127.0.0.1 port, and at the end
 * `pg_ctl stop` and the dir removed. Running as root (CI does), the server
 * runs as the `postgres` user, which initdb requires, in a dir it owns.
 *
 *   import { startPgServer, pgBinDir } from "scripts/pg-test-server.mjs";
 *   const pg = await startPgServer({ durable: false });   // pg.url, pg.stop()
 *
 *   node scripts/pg-test-server.mjs [--durable]   prints the URL, runs until
 *                                                  stdin closes or SIGINT/SIGTERM
 *
 * `durable: false` (tests) turns fsync off: tests kill harn processes, not
 * the machine, and every start is a new cluster. Benchmarks keep fsync on.
 * Binaries: $PG_BINDIR, else the newest /usr/lib/postgresql/N/bin, else
 * `pg_ctl` on PATH. `.ci/run` installs Debian's `postgresql` package.
 */
import { execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The directory holding initdb/pg_ctl/postgres, or null. */
export function pgBinDir() {
  if (process.env.PG_BINDIR) return existsSync(join(process.env.PG_BINDIR, "initdb")) ? process.env.PG_BINDIR : null;
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => /^\d+$/.test(v) && existsSync(join(debian, v, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length > 0) return join(debian, versions[0], "bin");
  }
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir && existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return dir;
  }
  return null;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** uid/gid of `postgres` when we are root (initdb refuses root), else null. */
function runAs() {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return null;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("postgres:"));
  if (!line) throw new Error("pg-test-server: running as root needs a `postgres` user (Debian's postgresql package creates it)");
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

function run(bin, args, user, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"], env, ...(user ?? {}) });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`${bin} ${args.join(" ")} exited ${code}:\n${out}`))));
  });
}

/**
 * Start a server. Returns `{ url, port, dir, stop }`; `stop()` stops it
 * and removes its dir (idempotent). The superuser is `harn`, trusted on
 * 127.0.0.1 and the server's own socket dir only.
 */
export async function startPgServer({ durable = false } = {}) {
  const bin = pgBinDir();
  if (bin === null) throw new Error("pg-test-server: PostgreSQL binaries not found (install Debian's `postgresql` package or set PG_BINDIR)");
  const user = runAs();
  // The postgres user must reach the dir: a test run's private TMPDIR is
  // root's alone, so as root the dir goes straight into /tmp.
  const dir = mkdtempSync(join(user ? "/tmp" : tmpdir(), "harn-pg-"));
  if (user) chownSync(dir, user.uid, user.gid);
  const env = { ...process.env, LC_ALL: "C", TZ: "UTC", HOME: dir };
  const data = join(dir, "data");
  let started = false;
  const stop = async () => {
    if (started) {
      started = false;
      await run(join(bin, "pg_ctl"), ["stop", "-D", data, "-m", "immediate", "-w"], user, env).catch(() => undefined);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await run(join(bin, "initdb"), ["-D", data, "-U", "harn", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"], user, env);
    const settings = ["-c listen_addresses=127.0.0.1", `-c unix_socket_directories=${dir}`, "-c max_connections=200", "-c shared_buffers=32MB"];
    if (!durable) settings.push("-c fsync=off", "-c full_page_writes=off");
    for (let attempt = 0; ; attempt++) {
      const port = await freePort();
      try {
        started = true;
        await run(join(bin, "pg_ctl"), ["start", "-D", data, "-w", "-t", "60", "-l", join(dir, "server.log"), "-o", `-p ${port} ${settings.join(" ")}`], user, env);
        return { url: `postgresql://harn@127.0.0.1:${port}/postgres`, port, dir, stop };
      } catch (e) {
        started = false;
        // Another process may have taken the port between the probe and the start.
        if (attempt >= 2) throw e;
      }
    }
  } catch (e) {
    await stop();
    throw e;
  }
}

/** Create database `name` on the server at `url` (the superuser's). */
export function createDatabase(url, name) {
  const bin = pgBinDir();
  const u = new URL(url);
  execFileSync(join(bin, "createdb"), ["-h", u.hostname, "-p", u.port, "-U", decodeURIComponent(u.username), name], { stdio: "pipe" });
  u.pathname = `/${name}`;
  return u.toString();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const pg = await startPgServer({ durable: process.argv.includes("--durable") });
  console.log(pg.url);
  let stopping = false;
  const end = () => {
    if (stopping) return;
    stopping = true;
    void pg.stop().then(() => process.exit(0));
  };
  process.on("SIGINT", end);
  process.on("SIGTERM", end);
  process.stdin.on("end", end);
  process.stdin.resume();
}
