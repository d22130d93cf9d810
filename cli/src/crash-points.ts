/**
 * `harn test --crash-points` (spec/extensions.md §5): crash a user test at
 * every boundary in turn, restart it, and check the daemon queue's
 * guarantees across the crash (agents.md §4.3, §4.5).
 *
 * A boundary is a step of the virtual clock's scheduler (a timer firing, a
 * task starting: where awaits on time and tasks resume) or a daemon queue
 * change (a trigger made durable, an event handed to the loop, a
 * completion made durable). For a test with N boundaries (counted by a run
 * without a crash), for k = 1 … N:
 *   1. run the test in a child `harn` on the virtual clock (same seed) with
 *      its own TMPDIR; at boundary k the child SIGKILLs itself: nothing
 *      after that point runs, no `finally`, no shutdown, no buffered write;
 *   2. run the test again in a fresh child with the same TMPDIR (the
 *      restart): a test written for crash points resumes its daemons from
 *      the persisted state it finds under `temp_dir()`;
 *   3. check the journal of both runs (stdlib agent/daemon/journal.ts):
 *      an event whose completion was recorded (its metadata commit
 *      finished) is never delivered again, and every durable trigger was
 *      handled by the end of the restart or is still queued in the
 *      daemon's state on disk (its journal, else `daemon.meta.json`; no
 *      state is an empty queue).
 * The first violation, or the restart failing, fails the test.
 *
 * Report (user-test format of cli.md §5.1):
 *   PASS  {name} [{file}] ({ms} ms; {N} crash points)
 *   FAIL  {name} [{file}]
 *         crash point {k} of {N} ({label}): {violation}
 *         seed: {S}
 *         replay: harn test --crash-points --seed {S} --filter {name} {file}
 * Violations: `event {seq} of daemon {root} was delivered again after its
 * completion was recorded`, `event {seq} of daemon {root} was lost (durable
 * before the crash, never handled, not queued on disk)`, or `the
 * restarted test failed:` followed by its error lines.
 *
 * The children are this same `harn` with two internal options: `--journal
 * FILE` (append the daemon journal and, at the end, the boundary count)
 * and `--crash-at K`; with either, `--filter` names the test exactly.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { replayLines, shellWord } from "./deterministic";

/** One line of a child's journal file. */
export type JournalLine = { op: "trigger" | "deliver" | "completing" | "complete"; root: string; seq: number } | { op: "end"; boundaries: number };

interface ChildRun {
  /** Null when the child ended by itself. */
  crash: { point: number; label: string } | null;
  /** The child's failure block (the FAIL lines' error), or null if it passed. */
  failure: string | null;
}

export interface CrashPointsResult {
  failure: string | null;
  points: number;
}

/** The state a daemon root holds on disk (the stdlib's reader, from the
 * engine: the journal of a crashed daemon, else its files at rest). */
export type RootReader = (root: string, builtin: string) => { meta: { pending_events: { seq: number }[]; inflight_event: { seq: number } | null } };

export function exploreCrashPoints(name: string, file: string, seed: number | null, timeoutMs: number, readRoot: RootReader): CrashPointsResult {
  const work = mkdtempSync(join(tmpdir(), "harn-crash-points-"));
  try {
    const replay = replayLines(seed, `--filter ${shellWord(name)} ${shellWord(file)}`).map(crashReplay);
    const fail = (text: string) => ({ failure: [text, ...replay].join("\n"), points: 0 });

    // The run without a crash: the test must pass, and tells how many
    // boundaries there are.
    const ref = runChild(name, file, seed, timeoutMs, null, join(work, "ref"), join(work, "ref.jsonl"));
    if (ref.failure !== null) return { failure: ref.failure, points: 0 };
    const refJournal = readJournal(join(work, "ref.jsonl"));
    const end = refJournal.find((l) => l.op === "end");
    const n = end && end.op === "end" ? end.boundaries : 0;
    const refViolation = checkJournal(refJournal, readRoot);
    if (refViolation !== null) return fail(`without a crash: ${refViolation.split(join(work, "ref")).join("$TMPDIR")}`);

    for (let k = 1; k <= n; k++) {
      const dir = join(work, `k${k}`);
      const journal = join(work, `k${k}.jsonl`);
      const crashed = runChild(name, file, seed, timeoutMs, k, dir, journal);
      if (crashed.crash === null) {
        // The run took another path and ended before boundary k.
        if (crashed.failure !== null) return fail(`crash point ${k} of ${n}: the test failed before reaching it:\n${crashed.failure}`);
        continue;
      }
      const where = `crash point ${k} of ${n} (${crashed.crash.label})`;
      const restart = runChild(name, file, seed, timeoutMs, null, dir, journal);
      if (restart.failure !== null) return fail(`${where}: the restarted test failed:\n${restart.failure}`);
      const violation = checkJournal(readJournal(journal), readRoot);
      // the test's TMPDIR is gone once we return: name it, not its path
      if (violation !== null) return fail(`${where}: ${violation.split(dir).join("$TMPDIR")}`);
      rmSync(dir, { recursive: true, force: true });
    }
    return { failure: null, points: n };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function crashReplay(line: string): string {
  return line.replace("harn test --deterministic", "harn test --crash-points");
}

function runChild(name: string, file: string, seed: number | null, timeoutMs: number, crashAt: number | null, tmp: string, journal: string): ChildRun {
  const args = [process.argv[1]!, "test", "--deterministic", "--timeout", String(timeoutMs), "--journal", journal, "--filter", name];
  if (seed !== null) args.push("--seed", String(seed));
  if (crashAt !== null) args.push("--crash-at", String(crashAt));
  args.push(file);
  mkdirSync(tmp, { recursive: true });
  const r = spawnSync(process.execPath, args, {
    encoding: "utf8",
    env: { ...process.env, TMPDIR: tmp, NO_COLOR: "1", FORCE_COLOR: undefined },
    timeout: timeoutMs * 2 + 10_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const m = /crash point (\d+): (.*)\n/.exec(r.stderr ?? "");
  if (r.signal === "SIGKILL" && m) return { crash: { point: Number(m[1]), label: m[2]! }, failure: null };
  if (r.status === 0) return { crash: null, failure: null };
  return { crash: null, failure: failureBlock(r.stdout ?? "", r.stderr ?? "", r.signal) };
}

/** The error lines under a child's FAIL line, unindented. */
function failureBlock(stdout: string, stderr: string, signal: NodeJS.Signals | null): string {
  const lines = stdout.split("\n");
  const at = lines.findIndex((l) => l.startsWith("  FAIL  "));
  if (at >= 0) {
    const out: string[] = [];
    for (const l of lines.slice(at + 1)) {
      if (!l.startsWith("        ")) break;
      if (/^ {8}(seed|replay): /.test(l)) continue;
      out.push(l.slice(8));
    }
    if (out.length > 0) return out.join("\n");
  }
  const why = signal ? `killed by ${signal}` : stderr.trim().split("\n").slice(-3).join("\n");
  return `the test run failed: ${why || "no output"}`;
}

export function readJournal(path: string): JournalLine[] {
  if (!existsSync(path)) return [];
  const out: JournalLine[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    try {
      out.push(JSON.parse(line) as JournalLine);
    } catch {
      // a line cut short by the crash itself: it was never recorded
    }
  }
  return out;
}

/** The first violation of the queue's guarantees in `journal`, or null. */
export function checkJournal(journal: JournalLine[], readRoot: RootReader): string | null {
  const completed = new Map<string, Set<number>>();
  /** Handled: completing or complete (the disk may or may not show it). */
  const handled = new Map<string, Set<number>>();
  const triggered = new Map<string, number[]>();
  const of = <T>(m: Map<string, T>, root: string, init: () => T) => m.get(root) ?? (m.set(root, init()), m.get(root)!);
  for (const l of journal) {
    if (l.op === "end") continue;
    const done = of(completed, l.root, () => new Set<number>());
    if (l.op === "deliver" && done.has(l.seq)) return `event ${l.seq} of daemon ${l.root} was delivered again after its completion was recorded`;
    if (l.op === "complete") done.add(l.seq);
    if (l.op === "complete" || l.op === "completing") of(handled, l.root, () => new Set<number>()).add(l.seq);
    if (l.op === "trigger") of(triggered, l.root, () => []).push(l.seq);
  }
  for (const [root, seqs] of triggered) {
    const done = handled.get(root) ?? new Set<number>();
    const queued = queuedOnDisk(root, readRoot);
    for (const seq of seqs) {
      if (!done.has(seq) && !queued.has(seq)) return `event ${seq} of daemon ${root} was lost (durable before the crash, never handled, not queued on disk)`;
    }
  }
  return null;
}

function queuedOnDisk(root: string, readRoot: RootReader): Set<number> {
  const seqs = new Set<number>();
  try {
    const { meta } = readRoot(root, "harn test --crash-points");
    for (const e of meta.pending_events) seqs.add(e.seq);
    if (meta.inflight_event) seqs.add(meta.inflight_event.seq);
  } catch {
    // no state: nothing is queued
  }
  return seqs;
}
