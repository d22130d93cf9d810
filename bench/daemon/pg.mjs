#!/usr/bin/env node
/**
 * bench/daemon/pg.mjs — daemons in a PostgreSQL store, against the same
 * server, in one run:
 *
 *   triggers   durable `daemon_trigger` rate with 1 and with P producers
 *              (tasks of one harn process, into a daemon whose loop is busy,
 *              so only the enqueue is timed), each compared with pgbench's
 *              single-row INSERT+COMMIT rate with as many clients, measured
 *              right before and after it (the mean of the two);
 *   takeover   two workers and a producer (an event every 20 ms); the
 *              runner is SIGKILLed; the time until the standby handles an
 *              event, from the test's clock, and that minus lease_ms.
 *
 *   pnpm build && node bench/daemon/pg.mjs [--events N] [--producers P] [--rounds R] [--lease-ms L] [--takeovers K] [--seconds S]
 *
 * The server is a throwaway one (scripts/pg-test-server.mjs) with fsync on,
 * so a commit is a WAL flush, as in production. The table shows medians.
 */
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createDatabase, pgBinDir, startPgServer } from "../../scripts/pg-test-server.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const { values } = parseArgs({
  options: {
    events: { type: "string", default: "2000" },
    producers: { type: "string", default: "8" },
    rounds: { type: "string", default: "3" },
    "lease-ms": { type: "string", default: "1000" },
    takeovers: { type: "string", default: "3" },
    seconds: { type: "string", default: "3" },
  },
});
const events = Number(values.events);
const producers = Number(values.producers);
const rounds = Number(values.rounds);
const leaseMs = Number(values["lease-ms"]);
const takeovers = Number(values.takeovers);
const seconds = Number(values.seconds);

const harn = join(repo, "cli", "dist", "harn.cjs");
if (!existsSync(harn)) {
  console.error(`bench/daemon/pg: ${harn} is missing; run \`pnpm build\` first`);
  process.exit(2);
}
const bin = pgBinDir();
if (bin === null) {
  console.error("bench/daemon/pg: no PostgreSQL binaries (install Debian's `postgresql` package or set PG_BINDIR)");
  process.exit(2);
}

const workload = join(here, "pg-workload.harn");
const work = mkdtempSync(join(tmpdir(), "harn-bench-daemon-pg-"));
const run = (file, args, opts = {}) =>
  new Promise((resolve, reject) =>
    execFile(file, args, { maxBuffer: 1 << 24, ...opts }, (e, stdout, stderr) => (e ? reject(new Error(`${file} ${args.join(" ")}: ${e.message}\n${stderr}`)) : resolve(stdout))),
  );
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** pgbench: single-row INSERT+COMMIT transactions per second with `clients`. */
async function insertRate(url, clients) {
  const u = new URL(url);
  const file = join(work, "insert.sql");
  writeFileSync(file, "INSERT INTO bench_rows (payload) VALUES ('{\"i\":1234}');\n");
  const out = await run(join(bin, "pgbench"), ["-n", "-h", u.hostname, "-p", u.port, "-U", "harn", "-c", String(clients), "-j", String(clients), "-T", String(seconds), "-f", file, u.pathname.slice(1)]);
  const m = /tps = ([\d.]+)/.exec(out);
  if (!m) throw new Error(`pgbench printed no tps:\n${out}`);
  return Number(m[1]);
}

async function triggerRate(url, name, clients) {
  const out = await run(process.execPath, [harn, "run", workload, "--", "triggers", url, name, String(events), String(clients)]);
  const r = JSON.parse(out.trim().split("\n").at(-1));
  return (r.events / r.ms) * 1000;
}

/** One takeover: ms from the SIGKILL to the standby's first handled event. */
async function takeover(url, name) {
  const log = join(work, `${name}.log`);
  const start = (args) => {
    const child = spawn(process.execPath, [harn, "run", workload, "--", ...args], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    return { child, out: () => out, exit: new Promise((r) => child.on("exit", r)) };
  };
  const handled = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").filter(Boolean).map((l) => l.split(" ").map(Number)) : []);
  const until = async (check) => {
    const end = Date.now() + 60_000;
    while (!check()) {
      if (Date.now() > end) throw new Error("bench/daemon/pg: takeover phase stalled");
      await sleep(5);
    }
  };
  const a = start(["worker", url, name, log, String(leaseMs)]);
  await until(() => a.out().includes("running"));
  const b = start(["worker", url, name, log, String(leaseMs)]);
  await until(() => b.out().includes("standby"));
  const p = start(["producer", url, name, "1", "1500", "20"]);
  await until(() => handled().length >= 20);
  a.child.kill("SIGKILL");
  const killed = Date.now();
  await until(() => handled().some(([pid]) => pid === b.child.pid));
  const ms = Date.now() - killed;
  for (const c of [p, b]) c.child.kill("SIGKILL");
  await Promise.all([a.exit, b.exit, p.exit]);
  return ms;
}

const server = await startPgServer({ durable: true });
try {
  const url = createDatabase(server.url, "bench");
  await run(join(bin, "psql"), [url, "-qc", "CREATE TABLE bench_rows (id bigserial PRIMARY KEY, payload text NOT NULL)"]);
  const rows = { 1: [], [producers]: [] };
  for (let r = 0; r < rounds; r++) {
    for (const clients of [1, producers]) {
      const before = await insertRate(url, clients);
      const rate = await triggerRate(url, `bench-${r}-${clients}`, clients);
      const after = await insertRate(url, clients);
      rows[clients].push({ rate, bound: (before + after) / 2 });
    }
  }
  const times = [];
  for (let k = 0; k < takeovers; k++) times.push(await takeover(url, `takeover-${k}`));

  const line = (label, value, note = "") => console.log(`${label.padEnd(58)} ${value.padStart(12)}${note}`);
  console.log(`bench/daemon/pg: ${events} triggers per measurement, ${rounds} rounds, pgbench ${seconds} s before and after each, ${takeovers} takeovers with lease_ms ${leaseMs} (medians)`);
  for (const clients of [1, producers]) {
    const xs = rows[clients];
    const who = clients === 1 ? "1 producer" : `${clients} producers`;
    line(`INSERT+COMMIT, ${clients === 1 ? "1 client" : `${clients} clients`} (pgbench)`, `${median(xs.map((x) => x.bound)).toFixed(0)} /s`);
    line(`daemon_trigger, ${who}`, `${median(xs.map((x) => x.rate)).toFixed(0)} /s`, `  ${(median(xs.map((x) => x.rate / x.bound)) * 100).toFixed(0)}% of INSERT+COMMIT`);
  }
  line("takeover after SIGKILL (kill -> standby handles an event)", `${median(times)} ms`, `  lease_ms + ${median(times) - leaseMs} ms; all: ${times.join(", ")}`);
} finally {
  await server.stop();
  rmSync(work, { recursive: true, force: true });
}
