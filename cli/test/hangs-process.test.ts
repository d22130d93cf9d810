/**
 * Host commands and tasks that never finish, or leave processes behind,
 * through the built `harn` (cli/bin/harn.cjs). For each: the script gets
 * its result, harn exits once the script ends, Ctrl-C (SIGINT) ends it with
 * 130 (extensions.md §3.3), and `ps` finds nothing it started.
 *
 * Commands that leave a process in their group after their own process
 * exited (`sh -c 'server >log 2>&1 &'`) return when their process does;
 * the leftover keeps running while the script does (it may be a server the
 * script talks to), and dies with harn (core/leftovers.ts). Before that,
 * such leftovers outlived harn, from `shell` and from `run_command` in both
 * modes.
 *
 * A command whose leftover still holds the output pipe is waited for, as
 * `$(…)` in a shell and the reference do: the output is not complete until
 * then. Ctrl-C and `timeout_ms` still end it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alive, buildCli, eventually, harn, interrupt, liveInGroup, runToEnd, workDir } from "./hang-harness";

let work: ReturnType<typeof workDir>;
beforeAll(() => {
  buildCli();
  work = workDir("harn-hangs-process-");
});
const pidFiles: string[] = [];
afterAll(() => {
  // a failed test must not leave its sleepers behind either
  for (const f of pidFiles) {
    if (!existsSync(f)) continue;
    const pid = Number(readFileSync(f, "utf8").trim());
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, "SIGKILL");
      } catch {
        // gone, as it should be
      }
    }
  }
  work.dispose();
});

let counter = 0;
function pidFile(name: string): string {
  const f = join(work.dir, `${name}-${++counter}.pid`);
  pidFiles.push(f);
  return f;
}
const written = (f: string) => existsSync(f) && readFileSync(f, "utf8").endsWith("\n");
const pidIn = (f: string) => Number(readFileSync(f, "utf8").trim());
const gone = (pgid: number) => eventually(() => liveInGroup(pgid).length === 0, `process group ${pgid} to be gone`);

/** A shell command line that leaves `sleep 100` running with its output
 * redirected, records the sleep's pid in `f`, and exits. */
const leaveSleeper = (f: string) => `sleep 100 >/dev/null 2>&1 & echo $! > ${f}`;

describe("a command that leaves a process behind", () => {
  it("shell: returns when the shell exits, the leftover runs during the script and dies with harn", async () => {
    const f = pidFile("shell");
    const r = await runToEnd(
      work.dir,
      `let r = shell("echo hi; ${leaveSleeper(f)}")
println(r.stdout + to_string(r.status))
println(shell("kill -0 $(cat ${f}) && echo still running").stdout)
`,
    );
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("hi\n0\nstill running\n\n");
    expect(r.code).toBe(0);
    await eventually(() => !alive(pidIn(f)), "the leftover to be gone");
  });

  it("run_command in the foreground: the same", async () => {
    const f = pidFile("fg");
    const r = await runToEnd(
      work.dir,
      `let r = host_tool_call("run_command", {argv: ["sh", "-c", "echo hi; ${leaveSleeper(f)}"]})
println(r.status + " " + r.stdout)
`,
    );
    expect(r.stdout).toBe("completed hi\n\n");
    expect(r.code).toBe(0);
    await eventually(() => !alive(pidIn(f)), "the leftover to be gone");
  });

  it("run_command in the background: running while what it left runs (its work), completed once that ends", async () => {
    const f = pidFile("bg");
    const r = await runToEnd(
      work.dir,
      `let h = host_tool_call("run_command", {argv: ["sh", "-c", "sleep 1 >/dev/null 2>&1 & echo $! > ${f}"], background: true})
while !file_exists("${f}") { sleep(10) }
sleep(200)
println(handle_status(h))
println(handle_wait(h).status)
`,
    );
    expect(r.stdout).toBe("running\ncompleted\n");
    expect(r.code).toBe(0);
    expect(alive(pidIn(f))).toBe(false);
  });

  it("a leftover that holds the output pipe is waited for; Ctrl-C ends the wait and the group", async () => {
    const f = pidFile("pipe");
    const run = harn(work.dir, `println("waiting")\nshell("echo $$ > ${f}; sleep 100 &")\nprintln("not reached")\n`);
    const { code } = await interrupt(run, () => run.stdout().includes("waiting") && written(f), "the shell to start");
    expect(code).toBe(130);
    expect(run.stdout()).toBe("waiting\n");
    await gone(pidIn(f));
  });

  it("run_command the same, in the foreground", async () => {
    const f = pidFile("fgpipe");
    const run = harn(
      work.dir,
      `println("waiting")\nhost_tool_call("run_command", {argv: ["sh", "-c", "echo $$ > ${f}; sleep 100 &"]})\nprintln("not reached")\n`,
    );
    const { code } = await interrupt(run, () => run.stdout().includes("waiting") && written(f), "the command to start");
    expect(code).toBe(130);
    await gone(pidIn(f));
  });
});

describe("a command that does not cooperate", () => {
  it("one that ignores SIGTERM is still ended by timeout_ms", async () => {
    const f = pidFile("term");
    const r = await runToEnd(
      work.dir,
      `let r = host_tool_call("run_command", {argv: ["sh", "-c", "trap '' TERM; echo $$ > ${f}; sleep 100 & sleep 100"], timeout_ms: 300})
println(r.status + " " + to_string(r.exit_code))
`,
    );
    expect(r.stdout).toBe("timed_out -1\n");
    expect(r.code).toBe(0);
    await gone(pidIn(f));
  });

  it("one that closed its output but keeps running is ended by Ctrl-C", async () => {
    const f = pidFile("closed");
    const run = harn(work.dir, `defer { println("defer ran") }\nshell("echo $$ > ${f}; exec >&- 2>&-; trap '' TERM INT; sleep 100")\n`);
    const { code } = await interrupt(run, () => written(f), "the shell to start");
    expect(code).toBe(130);
    expect(run.stdout()).toBe("defer ran\n");
    await gone(pidIn(f));
  });

  it("handle_wait on a background command that ignores SIGTERM is ended by Ctrl-C", async () => {
    const f = pidFile("wait");
    const run = harn(
      work.dir,
      `let h = host_tool_call("run_command", {argv: ["sh", "-c", "trap '' TERM INT; echo $$ > ${f}; sleep 100"], background: true})
while !file_exists("${f}") { sleep(10) }
println("waiting")
handle_wait(h)
println("not reached")
`,
    );
    const { code } = await interrupt(run, () => run.stdout().includes("waiting"), "handle_wait");
    expect(code).toBe(130);
    await gone(pidIn(f));
  });
});

describe("tasks that never finish", () => {
  it("a script that ends while a task runs a command exits, and the command is gone", async () => {
    const f = pidFile("task");
    const r = await runToEnd(
      work.dir,
      `let t = spawn { shell("echo $$ > ${f}; sleep 100 & sleep 100") }
while !file_exists("${f}") { sleep(10) }
println("leaving")
`,
    );
    expect(r.stdout).toBe("leaving\n");
    expect(r.code).toBe(0);
    await gone(pidIn(f));
  });

  it("Ctrl-C while awaiting a task that waits on a channel nobody sends to", async () => {
    const run = harn(
      work.dir,
      `let ch = channel()
let t = spawn { receive(ch) }
let ticker = spawn { sleep(100000) }
println("waiting")
await(t)
println("not reached")
`,
    );
    const { code } = await interrupt(run, () => run.stdout().includes("waiting"), "the await");
    expect(code).toBe(130);
    expect(run.stdout()).toBe("waiting\n");
  });
});
