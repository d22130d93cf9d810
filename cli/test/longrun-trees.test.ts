/**
 * End to end through `harn run`, checked with `ps`: descendants that leave
 * their command's process group (`setsid`, a double fork with `setsid`,
 * `nohup … &`) die with the command on every path — `cancel_handle`,
 * session-end cleanup, the end of the script — and a command that put its
 * own work in the background is not `completed` while that work runs.
 * After a SIGKILL of harn, the next `harn` reaps what the dead run left,
 * one stderr line per process tree, and touches nothing of a run that is
 * still alive. Each process writes its pid to a file, so the test knows
 * exactly which processes to look for. Tests that kill harn use a
 * HARN_HOME of their own (the registry of live runs).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killProcessesWithEnv } from "../../packages/stdlib/src/core/proc";
import { alive, buildCli, eventually, harn as harnRun, workDir, type Run } from "./hang-harness";

let work: ReturnType<typeof workDir>;
beforeAll(async () => {
  await buildCli();
  work = workDir("harn-trees-e2e-");
});
afterAll(() => {
  sweep();
  work.dispose();
});

let counter = 0;

const harn = (dir: string, source: string, guardMs = 20_000, env: Record<string, string> = {}): Run => harnRun(dir, source, guardMs, { ...MARK, ...env });

/**
 * A shell script that starts, besides `sleep 100` in its own group, three
 * processes that leave it or try to: one with `setsid`, one by a double
 * fork into a new session, one with `nohup … &`. Each writes its pid.
 */
function escapers(tag: string): { script: string; files: string[] } {
  const n = ++counter;
  const f = (what: string) => join(work.dir, `${tag}-${n}-${what}.pid`);
  const files = [f("setsid"), f("double"), f("nohup")];
  const script = [
    `setsid sh -c 'echo $$ > ${files[0]}; exec sleep 100' >/dev/null 2>&1 &`,
    `(setsid sh -c 'echo $$ > ${files[1]}; exec sleep 100' >/dev/null 2>&1 &) ;`,
    `nohup sh -c 'echo $$ > ${files[2]}; exec sleep 100' >/dev/null 2>&1 &`,
    `sleep 100`,
  ].join(" ");
  return { script, files };
}

/** A Harn string literal of `text` (no `${` in these scripts). */
const lit = (text: string) => JSON.stringify(text);

const written = (file: string) => existsSync(file) && readFileSync(file, "utf8").endsWith("\n");
const pidIn = (file: string) => Number(readFileSync(file, "utf8"));

async function started(files: string[]): Promise<number[]> {
  await eventually(() => files.every(written), "every process to write its pid");
  const pids = files.map(pidIn);
  expect(pids.every(alive)).toBe(true);
  return pids;
}

async function allGone(pids: number[], what: string): Promise<void> {
  await eventually(() => !pids.some(alive), what);
}

/** Every harn of this file, and so every process it starts, carries this
 * variable: what a failing test leaves behind is found by it. */
const MARK = { HARN_TREES_TEST: `${process.pid}` };

/** Kill what a failed test left behind (nothing when it passed). */
function sweep(): void {
  killProcessesWithEnv("HARN_TREES_TEST", MARK.HARN_TREES_TEST);
}

describe("descendants that leave the process group die with their command", () => {
  it("on cancel_handle, while harn goes on", async () => {
    const { script, files } = escapers("cancel");
    const run = harn(
      work.dir,
      `let h = host_tool_call("run_command", {argv: ["sh", "-c", ${lit(script)}], background: true})
while !(${files.map((f) => `file_exists(${lit(f)})`).join(" && ")}) { sleep(10) }
sleep(100)
println("cancelled: " + to_string(cancel_handle(h).cancelled))
sleep(60000)
`,
    );
    try {
      await eventually(() => run.stdout().includes("cancelled: true"), "the cancel");
      const pids = files.map(pidIn);
      await allGone(pids, "the escaped processes to die with cancel_handle");
      expect(run.child.exitCode).toBeNull();
      run.child.kill("SIGTERM");
      expect((await run.exit).code).toBe(124);
    } finally {
      sweep();
    }
  });

  it("at the end of the script", async () => {
    const { script, files } = escapers("end");
    const fg = join(work.dir, `end-${++counter}-fg.pid`);
    const run = harn(
      work.dir,
      `let h = host_tool_call("run_command", {argv: ["sh", "-c", ${lit(script)}], background: true})
let r = host_tool_call("run_command", {argv: ["sh", "-c", ${lit(`setsid sh -c 'echo $$ > ${fg}; exec sleep 100' >/dev/null 2>&1 & echo started`)}]})
while !(${[...files, fg].map((f) => `file_exists(${lit(f)})`).join(" && ")}) { sleep(10) }
sleep(100)
println(r.status + " " + handle_status(h))
`,
    );
    try {
      const { code } = await run.exit;
      expect(run.stdout()).toBe("completed running\n");
      expect(code).toBe(0);
      await allGone([...files, fg].map(pidIn), "every escaped process to die with the script");
    } finally {
      sweep();
    }
  });

  it("at session-end cleanup of the agent loop whose tool started them, which stderr reports", async () => {
    const { script, files } = escapers("session");
    const run = harn(
      work.dir,
      `tool start_job(n: int) -> dict {
  description "Start background work"
  return host_tool_call("run_command", {argv: ["sh", "-c", ${lit(script)}], background: true})
}
pipeline main() {
  llm_mock({text: "", tool_calls: [{name: "start_job", arguments: {n: 1}}]})
  let r = agent_loop("work", nil, {provider: "mock", tools: start_job, tool_format: "native", max_iterations: 1})
  println("loop: " + r.status)
  sleep(60000)
}
`,
      20_000,
      { HARN_LLM_CALLS_DISABLED: "1" },
    );
    try {
      await eventually(() => run.stdout().includes("loop: "), "the loop to end");
      const pids = files.filter(written).map(pidIn);
      await allGone(pids, "the escaped processes to die with the loop's session");
      expect(run.stderr()).toMatch(/\[harn\] agent loop ended: cancelled hto-[0-9a-f]+-1 \(run_command sh -c setsid /);
      run.child.kill("SIGTERM");
      await run.exit;
    } finally {
      sweep();
    }
  });
});

describe("a command that backgrounds its own work", () => {
  it("is running until that work ends, then completed; the end time is the work's", async () => {
    const f = join(work.dir, `self-${++counter}.pid`);
    const run = harn(
      work.dir,
      `let h = host_tool_call("run_command", {argv: ["sh", "-c", ${lit(`setsid sh -c 'echo $$ > ${f}; exec sleep 1' >/dev/null 2>&1 & echo started`)}], background: true})
while !file_exists(${lit(f)}) { sleep(10) }
sleep(200)
println("pid " + to_string(h.pid) + " " + handle_status(h))
let p = handle_wait(h)
println(p.status + " " + trim(p.stdout) + " " + to_string(p.duration_ms >= 900))
`,
    );
    try {
      await eventually(() => run.stdout().includes(" running\n"), "the status while the work runs");
      const shell = Number(/pid (\d+) running/.exec(run.stdout())![1]);
      // the command's own process is gone; its work is not
      expect(alive(shell)).toBe(false);
      const { code } = await run.exit;
      expect(code).toBe(0);
      expect(run.stdout()).toMatch(/completed started true\n$/);
      expect(alive(pidIn(f))).toBe(false);
    } finally {
      sweep();
    }
  });
});

describe("command output files", () => {
  it("live in one directory per run, which is gone when the run ends", async () => {
    const tmp = join(work.dir, `tmp-${++counter}`);
    mkdirSync(tmp);
    const run = harn(
      work.dir,
      `let r = host_tool_call("run_command", {argv: ["sh", "-c", "echo out; echo err >&2"]})
let h = host_tool_call("run_command", {argv: ["sh", "-c", "sleep 100"], background: true})
println(file_exists(r.output_path))
println(read_file(r.output_path))
println(starts_with(r.output_path, ${lit(tmp + "/harn-run-")}) && starts_with(h.output_path, ${lit(tmp + "/harn-run-")}))
`,
      20_000,
      { TMPDIR: tmp },
    );
    const { code } = await run.exit;
    expect(run.stdout()).toBe("true\nout\nerr\n\ntrue\n");
    expect(code).toBe(0);
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe("after a SIGKILL of harn", () => {
  it("the next harn reaps what the dead run left, one line per tree, and leaves a live run alone", async () => {
    const home = join(work.dir, `home-${++counter}`);
    mkdirSync(home);
    const env = { HARN_HOME: home };
    // a live run with processes of its own, which must survive the reaping
    const keep = join(work.dir, `keep-${counter}.pid`);
    const live = harn(work.dir, `let h = host_tool_call("run_command", {argv: ["sh", "-c", ${lit(`echo $$ > ${keep}; sleep 100`)}], background: true})\nsleep(60000)\n`, 30_000, env);
    const bg = escapers("killed");
    const fg = join(work.dir, `killed-${counter}-fg.pid`);
    const victim: Run = harn(
      work.dir,
      `let h = host_tool_call("run_command", {argv: ["sh", "-c", ${lit(bg.script)}], background: true})
host_tool_call("run_command", {argv: ["sh", "-c", ${lit(`echo $$ > ${fg}; setsid sleep 100 >/dev/null 2>&1 & sleep 100`)}]})
`,
      30_000,
      env,
    );
    try {
      const pids = await started([...bg.files, fg, keep]);
      victim.child.kill("SIGKILL");
      expect((await victim.exit).signal).toBe("SIGKILL");
      // nothing in the dead harn could clean up
      expect(pids.every(alive)).toBe(true);
      const next = harn(work.dir, `println("next run")\n`, 20_000, env);
      const { code } = await next.exit;
      expect(code).toBe(0);
      expect(next.stdout()).toBe("next run\n");
      const lines = next.stderr().split("\n").filter((l) => l !== "");
      const dead = victim.child.pid;
      expect(lines).toHaveLength(2);
      expect(lines.every((l) => l.startsWith(`[harn] reaped `) && l.includes(`left running by a killed harn (pid ${dead}): sh -c `))).toBe(true);
      // the background tree: its shell, sleep 100 and three escapers; the foreground one: its shell, two sleeps
      expect(lines.map((l) => Number(/reaped (\d+) process/.exec(l)![1])).sort()).toEqual([3, 5]);
      await allGone(pids.slice(0, -1), "the dead run's processes to be reaped");
      expect(alive(pidIn(keep))).toBe(true);
      // one record left: the live run's
      expect(readdirSync(join(home, "runs"))).toHaveLength(1);
      live.child.kill("SIGTERM");
      expect((await live.exit).code).toBe(124);
      await allGone([pidIn(keep)], "the live run's process to die with its harn");
      expect(readdirSync(join(home, "runs"))).toEqual([]);
    } finally {
      sweep();
    }
  });
});
