#!/usr/bin/env node
/**
 * bench/fs — the long-running filesystem builtins against their native
 * peers, as whole processes from a cold interpreter:
 *
 *   walk_dir(root)                  vs  find ROOT
 *   glob("**\/*.md", root)           vs  fd -H -I -g '*.md' ROOT
 *   find_text(root, literal)        vs  rg -F --no-ignore LITERAL ROOT
 *
 * plus the cancel latency of a running background walk (in process), and
 * `harn run` on an empty script: the start-up every harn row pays, so the
 * table also shows each row net of it (what the builtin itself costs).
 *
 * The tree (100,000 files in 10,000 directories) is created once in a temp
 * directory and reused. Every command runs once untimed (warm page cache,
 * same for both sides) and then RUNS times; the table shows medians.
 * Outputs are checked to agree in size before timing.
 *
 *   pnpm build && node bench/fs/run.mjs [--runs N] [--tree DIR]
 *
 * Missing peers (`apt-get install -y fd-find ripgrep`) are reported and
 * their rows skipped; nothing is installed by this script.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, openSync, closeSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ensureTree, NEEDLE } from "./tree.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const { values } = parseArgs({
  options: { runs: { type: "string", default: "5" }, tree: { type: "string" } },
});
const runs = Math.max(1, Number(values.runs));
const root = values.tree ?? join(tmpdir(), "harn-bench-fs-tree");

function which(name) {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const p = join(dir, name);
    if (dir && existsSync(p)) return p;
  }
  return null;
}

// The installed command, exec'd through its shebang as users run it (its sh
// part defers NODE_EXTRA_CA_CERTS, cli/bin/harn.cjs); it loads the bundle.
const harnBin = join(repo, "cli", "bin", "harn.cjs");
if (!existsSync(join(repo, "cli", "dist", "harn.cjs"))) {
  console.error("bench/fs: cli/dist/harn.cjs is missing; run `pnpm build` first");
  process.exit(2);
}
const peers = { find: which("find"), fd: which("fdfind") ?? which("fd"), rg: which("rg") };
for (const [name, path] of Object.entries(peers)) {
  if (!path) console.error(`bench/fs: \`${name}\` not found; its row is skipped (apt-get install -y fd-find ripgrep)`);
}

await ensureTree(root, (m) => console.error(m));
const loadAtStart = loadavg().map((x) => x.toFixed(2)).join(" ");

const work = mkdtempSync(join(tmpdir(), "harn-bench-fs-"));
function script(name, code) {
  const p = join(work, `${name}.harn`);
  writeFileSync(p, code + "\n");
  return p;
}
const harn = (file) => [harnBin, "run", file, "--", root];

const rows = [
  {
    name: "walk_dir",
    harn: harn(script("walk", "println(len(walk_dir(argv[0])))")),
    peerName: "find",
    peer: peers.find && [peers.find, root],
  },
  {
    name: 'glob("**/*.md")',
    harn: harn(script("glob", 'println(len(glob("**/*.md", argv[0])))')),
    peerName: "fd",
    peer: peers.fd && [peers.fd, "-H", "-I", "-g", "*.md", root],
  },
  {
    name: "find_text(literal)",
    harn: harn(script("find", `println(len(find_text(argv[0], "${NEEDLE}", {max_matches: 1000000}).matches))`)),
    peerName: "rg",
    peer: peers.rg && [peers.rg, "-F", "--no-ignore", NEEDLE, root],
  },
];

/** Wall time of one whole process, stdout to /dev/null. */
function timed(argv) {
  const devnull = openSync("/dev/null", "w");
  const t0 = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), { stdio: ["ignore", devnull, "pipe"] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  closeSync(devnull);
  if (r.status !== 0 && !(argv[0] === peers.rg && r.status === 1)) {
    throw new Error(`${argv.join(" ")} failed (${r.status}): ${r.stderr}`);
  }
  return ms;
}

/** The command's output: harn prints a count, peers print one line per item. */
function count(argv, isHarn) {
  const r = spawnSync(argv[0], argv.slice(1), { encoding: "utf8", maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${argv.join(" ")} failed (${r.status}): ${r.stderr}`);
  return isHarn ? Number(r.stdout.trim()) : r.stdout.split("\n").filter(Boolean).length;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const startupArgv = [harnBin, "run", script("empty", "")];
const startupRuns = [];
const nodeArgv = [process.execPath, "-e", "0"];
const nodeRuns = [];
const table = [];
for (const row of rows) {
  if (!row.peer) continue;
  const mine = count(row.harn, true);
  const theirs = count(row.peer, false);
  if (mine !== theirs) console.error(`bench/fs: ${row.name} found ${mine}, ${row.peerName} found ${theirs}`);
  const a = [];
  const b = [];
  for (let i = 0; i < runs; i++) {
    // interleaved, so load changes on the shared machine hit both sides alike
    a.push(timed(row.harn));
    b.push(timed(row.peer));
    startupRuns.push(timed(startupArgv));
    nodeRuns.push(timed(nodeArgv));
  }
  table.push({ name: row.name, peerName: row.peerName, items: mine, harn: median(a), peer: median(b) });
}

// Cancel latency, in process: bundle the probe with esbuild and run it.
const { build } = await import("esbuild");
const probe = join(work, "cancel_probe.mjs");
await build({
  entryPoints: [join(here, "cancel_probe.ts")],
  outfile: probe,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  logLevel: "warning",
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
const p = spawnSync(process.execPath, [probe, root, String(Math.max(runs, 5))], { encoding: "utf8" });
if (p.status !== 0) throw new Error(`cancel probe failed: ${p.stderr}`);
const latency = JSON.parse(p.stdout);
rmSync(work, { recursive: true, force: true });

const fmt = (ms) => `${ms.toFixed(0)} ms`.padStart(8);
console.log(`bench/fs — ${root}, medians of ${runs} runs, whole processes (node ${process.version}), load average at the start ${loadAtStart}`);
console.log("");
const startup = startupRuns.length > 0 ? median(startupRuns) : 0;
console.log(`${"workload".padEnd(22)}${"items".padStart(8)}${"harn".padStart(10)}${"peer".padStart(16)}${"ratio".padStart(8)}${"net of start-up".padStart(18)}`);
for (const r of table) {
  const net = r.harn - startup;
  console.log(
    `${r.name.padEnd(22)}${String(r.items).padStart(8)}${fmt(r.harn).padStart(10)}${(r.peerName + " " + fmt(r.peer).trim()).padStart(16)}${(r.harn / r.peer).toFixed(2).padStart(7)}x${`${fmt(net).trim()} ${(net / r.peer).toFixed(2)}x`.padStart(18)}`,
  );
}
console.log("");
console.log(`harn start-up (run of an empty script, interleaved with the rows above): median ${fmt(startup).trim()}; node -e 0: ${fmt(median(nodeRuns)).trim()}`);
if (process.env.NODE_EXTRA_CA_CERTS) {
  // Node parses that bundle before any script runs (~50 ms of CPU on the
  // bench machine); harn defers it to its first TLS connection (none here).
  console.log(`NODE_EXTRA_CA_CERTS is set: node -e 0 parses ${process.env.NODE_EXTRA_CA_CERTS} at start-up, harn does not (it defers the bundle to its first TLS connection); \`env -u NODE_EXTRA_CA_CERTS node bench/fs/run.mjs\` measures node without it`);
}
console.log(`load average at the end: ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
console.log(`cancel_handle on a running walk: median ${median(latency.cancelMs).toFixed(3)} ms (max ${Math.max(...latency.cancelMs).toFixed(3)} ms)`);
console.log(`walk stopped (no fs request in flight) after: median ${median(latency.stopMs).toFixed(1)} ms (max ${Math.max(...latency.stopMs).toFixed(1)} ms)`);
