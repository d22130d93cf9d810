/**
 * Reading stdin from a pipe (or a terminal) whose writer never closes it,
 * through the built `harn`. `read_line`, `read_stdin` and `prompt_user`
 * used to read with a blocking `readSync`, which froze the event loop:
 * Ctrl-C (its handler needs the loop) was ignored until input arrived,
 * and every other task stood still. Pipes and terminals are now read
 * asynchronously (core/terminal.ts); between reads stdin is paused and
 * unreferenced, so a writer that keeps the pipe open cannot keep harn
 * alive after the script ends.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli, eventually, GUARD_MS, harn, harnBin, interrupt, workDir } from "./hang-harness";

let work: ReturnType<typeof workDir>;
beforeAll(() => {
  buildCli();
  work = workDir("harn-hangs-stdin-");
});
afterAll(() => work.dispose());

/** harn with stdin a pipe the test writes to (and never closes, unless told). */
const withStdin = (source: string) => harn(work.dir, source, undefined, {}, "pipe");

describe("stdin that never closes", () => {
  it("Ctrl-C during read_line ends harn with 130", async () => {
    const run = withStdin(`defer { println("defer ran") }\nprintln("waiting")\nprintln(read_line())\nprintln("not reached")\n`);
    const { code } = await interrupt(run, () => run.stdout().includes("waiting"), "the read");
    expect(code).toBe(130);
    expect(run.stdout()).toBe("waiting\ndefer ran\n");
    expect(run.stderr()).toBe("[harn] signal received, flushing state...\n");
  });

  it("SIGTERM during prompt_user ends harn with 124 (cli.md §2.6)", async () => {
    const run = withStdin(`prompt_user("name? ")\nprintln("not reached")\n`);
    await eventually(() => run.stdout() === "name? ", "the prompt");
    run.child.kill("SIGTERM");
    const { code } = await run.exit;
    expect(code).toBe(124);
    expect(run.stdout()).toBe("name? ");
  });

  it("Ctrl-C during read_stdin ends harn with 130", async () => {
    const run = withStdin(`println("waiting")\nread_stdin()\nprintln("not reached")\n`);
    run.child.stdin!.write("some input\n");
    const { code } = await interrupt(run, () => run.stdout().includes("waiting"), "the read");
    expect(code).toBe(130);
    expect(run.stdout()).toBe("waiting\n");
  });

  it("other tasks run while read_line waits; the line arrives; harn exits with the pipe still open", async () => {
    // a task's printed output is buffered until awaited (semantics.md §9.1): it leaves a file instead
    const tick = join(work.dir, "tick.txt");
    const run = withStdin(`let t = spawn { sleep(20)\n write_file("${tick}", "x") }\nprintln("got " + read_line())\n`);
    await eventually(() => existsSync(tick), "the other task to run during the read");
    run.child.stdin!.write("héllo\nmore\n");
    const { code } = await run.exit;
    expect(code).toBe(0);
    expect(run.stdout()).toBe("got héllo\n");
  });

  it("prompt_user shows its prompt before waiting and trims the answer", async () => {
    const run = withStdin(`let name = prompt_user("name? ")\nprintln("[" + name + "]")\n`);
    await eventually(() => run.stdout() === "name? ", "the prompt");
    run.child.stdin!.write("Ada  \n");
    const { code } = await run.exit;
    expect(code).toBe(0);
    expect(run.stdout()).toBe("name? [Ada]\n");
  });

  it("a character split across two writes, and read_stdin up to the end", async () => {
    const run = withStdin(`println(read_line())\nprintln(read_stdin())\nprintln(read_line())\n`);
    const bytes = Buffer.from("é\nrest", "utf8");
    run.child.stdin!.write(bytes.subarray(0, 1));
    await new Promise((r) => setTimeout(r, 50));
    run.child.stdin!.end(bytes.subarray(1));
    const { code } = await run.exit;
    expect(code).toBe(0);
    expect(run.stdout()).toBe("é\nrest\nnil\n");
  });
});

describe("harn test", () => {
  it("a test that waits on a stdin that never closes fails with the per-test timeout", async () => {
    const dir = join(work.dir, "tests");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "reads.harn"), `println(read_line())\n`);
    writeFileSync(join(dir, "reads.expected"), "nil\n");
    const child = spawn(process.execPath, [harnBin, "test", dir, "--timeout", "300"], { cwd: work.dir, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    const guard = setTimeout(() => child.kill("SIGKILL"), GUARD_MS);
    const code = await new Promise<number | null>((r) => child.on("exit", (c) => r(c)));
    clearTimeout(guard);
    child.stdin!.destroy();
    expect(code).toBe(1);
    expect(out).toContain("reads.harn: timed out after 300ms");
  });
});
