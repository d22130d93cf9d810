/**
 * The file builtins on a named pipe (FIFO), through the built `harn`. A
 * FIFO's open waits for its other side; done with the synchronous calls
 * the file builtins use for regular files, that wait froze the event loop
 * inside a system call, so Ctrl-C, SIGTERM and other tasks were ignored and
 * only SIGKILL ended harn. FIFOs are now opened non-blocking and read or
 * written on the event loop (stdlib core/fifo.ts); the reference's
 * semantics stay: a read waits for a writer and lasts until the last writer
 * closes, a write waits for a reader.
 */
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli, eventually, harn, interrupt, runToEnd, workDir } from "./hang-harness";

let work: ReturnType<typeof workDir>;
let n = 0;
beforeAll(() => {
  buildCli();
  work = workDir("harn-hangs-fifo-");
});
afterAll(() => work.dispose());

/** A new FIFO in the work directory. */
function fifo(): string {
  const path = join(work.dir, `pipe${++n}`);
  const made = spawnSync("mkfifo", [path]);
  expect(made.status).toBe(0);
  return path;
}

/** Another process writing `text` into `path` (its open waits for our reader). */
function writer(path: string, text: string) {
  const child = spawn("sh", ["-c", 'printf "%s" "$1" > "$2"', "sh", text, path]);
  return new Promise<number | null>((done) => child.on("exit", done));
}

describe("named pipes", () => {
  it("read_file waits for a writer without blocking other tasks, then reads until it closes", async () => {
    const path = fifo();
    const run = harn(
      work.dir,
      // a spawned task's stdout appears at its await (semantics.md §9), its stderr at once
      `let ticker = spawn {\n  for i in 0 to 2 { eprintln("tick " + to_string(i)); sleep(20ms) }\n}\nlet text = read_file("${path}")\nawait(ticker)\nprintln("read: " + text)\n`,
    );
    await eventually(() => run.stderr().includes("tick 2"), "other tasks running while the read waits");
    expect(run.stdout()).toBe("");
    expect(await writer(path, "hello\nthere")).toBe(0);
    const { code } = await run.exit;
    expect(run.stderr()).toBe("tick 0\ntick 1\ntick 2\n");
    expect(code).toBe(0);
    expect(run.stdout()).toBe("read: hello\nthere\n");
  });

  it("read_file_bytes, read_lines and read_file_result read a FIFO too", async () => {
    const path = fifo();
    const script = `println(len(read_file_bytes("${path}")))\nprintln(read_lines("${path}"))\nprintln(read_file_result("${path}"))\n`;
    const run = harn(work.dir, script);
    // the next writer only once the previous read has ended (printed), or
    // its text would join the previous read, as FIFOs work
    const texts = ["12345", "a\nb\n", "ok"];
    for (let i = 0; i < texts.length; i++) {
      await eventually(() => run.stdout().split("\n").length - 1 === i, `read ${i} to have ended`);
      expect(await writer(path, texts[i]!)).toBe(0);
    }
    const { code } = await run.exit;
    expect(run.stderr()).toBe("");
    expect(code).toBe(0);
    expect(run.stdout()).toBe("5\n[a, b]\nResult.Ok(ok)\n");
  });

  it("write_file and append_file wait for a reader and deliver everything", async () => {
    const path = fifo();
    const run = harn(work.dir, `write_file("${path}", "first")\nappend_file("${path}", "second")\nwrite_file_bytes("${path}", bytes_from_string("third"))\nprintln("written")\n`);
    // one reader after another (a write may land in the previous reader if
    // it has not seen the end yet: that is how FIFOs work)
    const readers = spawn("sh", ["-c", 'while :; do cat "$1"; done', "sh", path], { detached: true });
    let got = "";
    readers.stdout.on("data", (d: Buffer) => (got += d.toString()));
    const { code } = await run.exit;
    await eventually(() => got === "firstsecondthird", "everything written arriving");
    process.kill(-readers.pid!, "SIGKILL"); // the loop and the cat waiting for a next writer
    expect(run.stderr()).toBe("");
    expect(code).toBe(0);
    expect(run.stdout()).toBe("written\n");
  });

  it("Ctrl-C while read_file waits for a writer ends harn with 130, running defers", async () => {
    const path = fifo();
    const run = harn(work.dir, `defer { println("defer ran") }\nprintln("waiting")\nread_file("${path}")\nprintln("not reached")\n`);
    const { code } = await interrupt(run, () => run.stdout().includes("waiting"), "the read");
    expect(code).toBe(130);
    expect(run.stdout()).toBe("waiting\ndefer ran\n");
  });

  it("SIGTERM while write_file waits for a reader ends harn with 124", async () => {
    const path = fifo();
    const run = harn(work.dir, `println("waiting")\nwrite_file("${path}", "x")\nprintln("not reached")\n`);
    await eventually(() => run.stdout().includes("waiting"), "the write");
    run.child.kill("SIGTERM");
    const { code } = await run.exit;
    expect(code).toBe(124);
    expect(run.stdout()).toBe("waiting\n");
  });

  it("a cancelled task stops waiting, and a script that ends with a waiting task exits", async () => {
    const [a, b] = [fifo(), fifo()];
    const script = `let r = spawn { read_file("${a}") }\nlet w = spawn { write_file("${b}", "x") }\nsleep(50ms)\ncancel(r)\nprintln(await(r))\nprintln("left the writer waiting")\n`;
    const { code, stdout, stderr } = await runToEnd(work.dir, script);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toBe("nil\nleft the writer waiting\n");
  });

  it("a reader that leaves early gives write_file the OS error", async () => {
    const path = fifo();
    const big = "x".repeat(1 << 20);
    const bigFile = join(work.dir, "big.txt");
    writeFileSync(bigFile, big);
    const run = harn(work.dir, `try {\n  write_file("${path}", read_file("${bigFile}"))\n} catch (e) {\n  println(e)\n}\n`);
    // take one byte, then close the read end while the write is under way
    const head = spawn("sh", ["-c", 'head -c 1 "$1" > /dev/null', "sh", path]);
    await new Promise((done) => head.on("exit", done));
    const { code } = await run.exit;
    expect(code).toBe(0);
    expect(run.stdout()).toBe(`Failed to write file ${path}: Broken pipe (os error 32)\n`);
    expect(readFileSync(bigFile, "utf8").length).toBe(big.length);
  });
});
