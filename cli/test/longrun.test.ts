/**
 * End to end: `harn run` as a child process, checked with `ps`. Whatever
 * way a script ends — cancel, a foreground timeout, Ctrl-C (SIGINT to
 * `harn`), a normal end that forgot a handle, an uncaught error — no
 * process it started may survive, and `harn` must exit promptly.
 *
 * Every command the scripts start writes its shell pid (= its process group
 * id, commands run in their own group) to a file, so the test knows which
 * group to look for. The CLI is bundled from source into the test's own
 * temp directory first (other test files may be rebuilding cli/dist).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleHarn } from "./harn-bundle";
import { eventually as eventuallyWithin, liveInGroup } from "./hang-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";


let work: string;
let harnBin: string;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "harn-longrun-e2e-"));
  harnBin = join(work, "harn.mjs");
  await bundleHarn(harnBin);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The waits here give up after 10 s (a hang detector, not a threshold). */
const eventually = (check: () => boolean, what: string) => eventuallyWithin(check, what, 10_000);

/** SIGKILL was sent before harn exited; the kernel may take a moment to
 * tear the processes down, but none may stay. */
function gone(pgid: number): Promise<void> {
  return eventually(() => liveInGroup(pgid).length === 0, `process group ${pgid} to be gone`);
}

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

let counter = 0;
/** Writes `source` to a file and runs it with `harn run`. */
function harn(source: string): Run {
  const file = join(work, `script${++counter}.harn`);
  writeFileSync(file, source);
  const child = spawn(process.execPath, [harnBin, "run", file], { cwd: work, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exit };
}

/** A hang guard, not a speed threshold: a script that forgot its handles
 * must still end instead of waiting for `sleep 100`. */
async function exited(run: Run, limitMs = 20_000) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      run.child.kill("SIGKILL");
      reject(new Error(`harn did not exit; stderr: ${run.stderr()}`));
    }, limitMs);
  });
  try {
    return await Promise.race([run.exit, hang]);
  } finally {
    clearTimeout(timer);
  }
}

function pidFile(name: string): string {
  return join(work, `${name}-${++counter}.pid`);
}

function groupOf(file: string): number {
  return Number(readFileSync(file, "utf8").trim());
}

/** A background command whose shell records its pid, then leaves two sleeps. */
function bgSleepers(file: string): string {
  return `host_tool_call("run_command", {argv: ["sh", "-c", "echo $$ > ${file}; sleep 100 & sleep 100"], background: true})`;
}

describe("harn run leaves no process behind", () => {
  it("after cancel_handle", async () => {
    const f = pidFile("cancel");
    const run = harn(`
let h = ${bgSleepers(f)}
while !file_exists("${f}") { sleep(10) }
println("cancelled: " + to_string(cancel_handle(h).cancelled))
sleep(60000)
`);
    await eventually(() => run.stdout().includes("cancelled: true"), "the cancel");
    const pgid = groupOf(f);
    await eventually(() => liveInGroup(pgid).length === 0, "the group to die while harn still runs");
    expect(run.child.exitCode).toBeNull();
    run.child.kill("SIGKILL");
    await run.exit;
  });

  it("after a foreground timeout", async () => {
    const f = pidFile("timeout");
    const run = harn(`
let r = host_tool_call("run_command", {argv: ["sh", "-c", "echo $$ > ${f}; sleep 100 & sleep 100"], timeout_ms: 300})
println(r.status)
sleep(60000)
`);
    await eventually(() => run.stdout().includes("timed_out"), "the timeout");
    const pgid = groupOf(f);
    await eventually(() => liveInGroup(pgid).length === 0, "the group to die while harn still runs");
    run.child.kill("SIGKILL");
    await run.exit;
  });

  it("at a normal end that forgot its handles, and exits promptly", async () => {
    const f = pidFile("forgot");
    const run = harn(`
let h = ${bgSleepers(f)}
let w = walk_dir("/", {long_running: true})
let g = glob("**/*.harn-none", {base: "/", long_running: true})
while !file_exists("${f}") { sleep(10) }
println("leaving " + handle_status(h))
`);
    const { code } = await exited(run);
    expect(run.stdout()).toBe("leaving running\n");
    expect(code).toBe(0);
    await gone(groupOf(f));
  });

  it("after an uncaught error", async () => {
    const f = pidFile("error");
    const run = harn(`
let h = ${bgSleepers(f)}
while !file_exists("${f}") { sleep(10) }
throw "boom"
`);
    const { code } = await exited(run);
    expect(code).toBe(1);
    expect(run.stderr()).toContain("boom");
    await gone(groupOf(f));
  });

  it("after Ctrl-C (SIGINT to harn), with a background and a foreground command running", async () => {
    const bg = pidFile("sigint-bg");
    const fg = pidFile("sigint-fg");
    const run = harn(`
let h = ${bgSleepers(bg)}
defer { println("defer ran: " + to_string(cancel_handle(h).cancelled)) }
host_tool_call("run_command", {argv: ["sh", "-c", "echo $$ > ${fg}; sleep 100 & sleep 100"]})
println("not reached")
`);
    await eventually(() => existsSync(bg) && existsSync(fg) && readFileSync(fg, "utf8").endsWith("\n"), "both commands to start");
    const groups = [groupOf(bg), groupOf(fg)];
    await eventually(() => groups.every((g) => liveInGroup(g).length > 0), "both groups to be up");
    run.child.kill("SIGINT");
    const { code } = await exited(run);
    expect(code).not.toBe(0);
    expect(run.stdout()).not.toContain("not reached");
    expect(run.stdout()).toContain("defer ran: true");
    for (const g of groups) await gone(g);
  });

  // A closed terminal or a dropped SSH session (SIGHUP), Ctrl-\ (SIGQUIT)
  // and SIGTERM end the run like a second Ctrl-C: defers run, every handle
  // is cancelled, every process tree is gone, each with its own status.
  it.each([
    ["SIGHUP", 129],
    ["SIGQUIT", 131],
    ["SIGTERM", 124],
  ] as const)("after %s, with a background and a foreground command running (exit %i)", async (signal, status) => {
    const bg = pidFile(`${signal}-bg`);
    const fg = pidFile(`${signal}-fg`);
    const run = harn(`
let h = ${bgSleepers(bg)}
defer { println("defer ran: " + to_string(cancel_handle(h).cancelled)) }
try {
  host_tool_call("run_command", {argv: ["sh", "-c", "echo $$ > ${fg}; sleep 100 & sleep 100"]})
} finally {
  println("finally ran")
}
println("not reached")
`);
    await eventually(() => existsSync(bg) && existsSync(fg) && readFileSync(fg, "utf8").endsWith("\n"), "both commands to start");
    const groups = [groupOf(bg), groupOf(fg)];
    await eventually(() => groups.every((g) => liveInGroup(g).length > 0), "both groups to be up");
    run.child.kill(signal);
    const { code, signal: died } = await exited(run);
    expect(died).toBeNull();
    expect(code).toBe(status);
    expect(run.stdout()).toBe("finally ran\ndefer ran: true\n");
    expect(run.stderr()).toContain("[harn] signal received");
    for (const g of groups) await gone(g);
  });

  it("after SIGINT sent the moment the script's first statement started a command", async () => {
    const f = pidFile("early");
    const run = harn(`
let h = ${bgSleepers(f)}
handle_wait(h)
`);
    await eventually(() => existsSync(f) && readFileSync(f, "utf8").endsWith("\n"), "the command to start");
    run.child.kill("SIGINT");
    const { signal } = await exited(run);
    // harn handled the signal itself (no default-action death) and cleaned up
    expect(signal).toBeNull();
    await gone(groupOf(f));
  });

  it("a process that left the group, holding the pipes, neither keeps harn alive nor outlives it", async () => {
    const f = pidFile("escaped");
    const run = harn(`
let h = host_tool_call("run_command", {argv: ["sh", "-c", "setsid sh -c 'echo $$ > ${f}; exec sleep 100' & sleep 100"], background: true})
while !file_exists("${f}") { sleep(10) }
println("leaving")
`);
    const { code } = await exited(run);
    expect(code).toBe(0);
    await eventually(() => existsSync(f) && readFileSync(f, "utf8").endsWith("\n"), "the escaped pid");
    // it leads a session of its own: found by its process-tree cookie (longrun-trees.test.ts)
    await gone(groupOf(f));
  });

  it("while handle_wait blocks on a command, SIGINT still ends the run", async () => {
    const f = pidFile("wait");
    const run = harn(`
let h = ${bgSleepers(f)}
while !file_exists("${f}") { sleep(10) }
println("waiting")
handle_wait(h)
println("not reached")
`);
    await eventually(() => run.stdout().includes("waiting"), "the script to reach handle_wait");
    run.child.kill("SIGINT");
    await exited(run);
    expect(run.stdout()).not.toContain("not reached");
    await gone(groupOf(f));
  });
});
