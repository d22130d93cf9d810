/**
 * `harn test --crash-points` end to end (spec/extensions.md §5; formats in
 * cli/src/crash-points.ts): the built `harn` crashes a daemon test at every
 * boundary in turn (real SIGKILLed child processes), restarts it, and
 * checks the daemon queue's journal and files.
 */
import { describe, expect, it } from "vitest";
import { cliSandbox } from "./cli-harness";

const cli = cliSandbox({ prefix: "harn-crash-", harn: "built", colour: "plain", timeout: 120_000 });
const { harn, file } = cli;

const TOOL = `
tool record(n: int) -> string {
  description "Record event n"
  return "ok"
}
`;

// Written for crashes: after a restart it resumes the daemon it finds.
const RESUMES = `${TOOL}
pipeline test_daemon_resumes() {
  let root = path_join(temp_dir(), "daemon")
  llm_mock({match: "*", text: "noted", delay_ms: 20})
  var d = nil
  if file_exists(path_join(root, "daemon.meta.json")) {
    d = daemon_resume(root, {tools: record})
  } else {
    d = daemon_spawn({task: "Record events", provider: "mock", tools: record, persist_path: root})
    daemon_trigger(d, {n: 1})
    daemon_trigger(d, {n: 2})
  }
  while daemon_snapshot(d).queued_event_count > 0 { sleep(5) }
  daemon_stop(d)
}
`;

// Starts a new daemon over the old root after a restart, discarding on
// purpose (\`on_existing: "replace"\`) what was queued before the crash.
const STARTS_OVER = `${TOOL}
pipeline test_daemon_starts_over() {
  let root = path_join(temp_dir(), "daemon")
  llm_mock({match: "*", text: "noted", delay_ms: 20})
  let d = daemon_spawn({task: "Record events", provider: "mock", tools: record, persist_path: root, on_existing: "replace"})
  if !file_exists(path_join(root, "started")) {
    write_file(path_join(root, "started"), "yes")
    daemon_trigger(d, {n: 1})
    daemon_trigger(d, {n: 2})
  }
  while daemon_snapshot(d).queued_event_count > 0 { sleep(5) }
  daemon_stop(d)
}
`;

describe("harn test --crash-points", () => {
  it("passes a daemon test that resumes after every crash, and says how many points it tried", () => {
    file("resumes.harn", RESUMES);
    const r = harn(["test", "--crash-points", "--timeout", "10000", "resumes.harn"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const m = /PASS {2}test_daemon_resumes \[.*resumes\.harn\] \(\d+ ms; (\d+) crash points\)/.exec(r.stdout);
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThan(2);
  });

  it("reports the crash point at which a queued event is lost, and how to replay it", () => {
    file("starts_over.harn", STARTS_OVER);
    const r = harn(["test", "--crash-points", "--timeout", "10000", "starts_over.harn"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /\n {8}crash point \d+ of \d+ \([^)]+\): event \d of daemon \$TMPDIR\/daemon was lost \(durable before the crash, never handled, not queued on disk\)\n {8}seed: none \(FIFO order\)\n {8}replay: harn test --crash-points --filter test_daemon_starts_over \S+starts_over\.harn\n/,
    );
    const seeded = harn(["test", "--crash-points", "--seed", "3", "--timeout", "10000", "starts_over.harn"]);
    expect(seeded.code).toBe(1);
    expect(seeded.stdout).toContain("        seed: 3\n        replay: harn test --crash-points --seed 3 --filter test_daemon_starts_over ");
  });

  it("a test that fails without a crash reports its own error", () => {
    file("plain_fail.harn", 'pipeline test_fails() {\n  sleep(1s)\n  throw "broken before any crash"\n}\n');
    const r = harn(["test", "--crash-points", "plain_fail.harn"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("        error: Thrown: broken before any crash\n");
  });
});
