/**
 * `harn run` end to end: the real bundle as a child process, scripts in a
 * temp dir. Checks what a user sees: stdout, stderr, exit codes, argv, the
 * rendered runtime error (and never a JavaScript stack trace), signals, and
 * that nothing keeps the process alive after the script ends.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliSandbox, harnEnv } from "./cli-harness";

const cli = cliSandbox({ prefix: "harn-run-", harn: "built", colour: "plain", timeout: 50_000 });
const { harn, file } = cli;

/** A JS stack frame line, e.g. `    at foo (file.js:1:2)`. */
const JS_STACK = /^\s+at .+\(.*:\d+:\d+\)$|^\s+at .*:\d+:\d+$/m;

describe("harn run", () => {
  it("runs the default pipeline and prints its output", () => {
    file("hello.harn", 'println("top-level is ignored")\npipeline default() {\n  log("hi")\n  println([1, "a", {b: 2}])\n}\n');
    expect(harn(["run", "hello.harn"])).toEqual({ code: 0, stdout: "[harn] hi\n[1, a, {b: 2}]\n", stderr: "" });
  });

  it("supports the `harn FILE.harn` shorthand", () => {
    file("short.harn", "println(1 + 2)\n");
    expect(harn(["short.harn"])).toMatchObject({ code: 0, stdout: "3\n" });
  });

  it("passes the arguments after `--` as argv", () => {
    file("args.harn", "println(argv)\nprintln(len(argv))\n");
    expect(harn(["run", "args.harn", "--", "--date", "2025-01-31", "fast"]).stdout).toBe("[--date, 2025-01-31, fast]\n3\n");
    expect(harn(["run", "args.harn"]).stdout).toBe("[]\n0\n");
  });

  it("maps the entry value to the exit code", () => {
    file("int.harn", "pipeline default() {\n  40 + 2\n}\n");
    expect(harn(["run", "int.harn"]).code).toBe(42);
    file("big.harn", "pipeline default() {\n  999\n}\n");
    expect(harn(["run", "big.harn"]).code).toBe(255);
    file("neg.harn", "pipeline default() {\n  0 - 5\n}\n");
    expect(harn(["run", "neg.harn"]).code).toBe(0);
    file("err.harn", 'pipeline default() {\n  Err("bad input")\n}\n');
    expect(harn(["run", "err.harn"])).toMatchObject({ code: 1, stderr: "bad input\n" });
    file("ok.harn", "pipeline default() {\n  Ok(5)\n}\n");
    expect(harn(["run", "ok.harn"]).code).toBe(0);
    file("script.harn", "let x = 7\nx\n");
    expect(harn(["run", "script.harn"]).code).toBe(0);
    file("ret.harn", "println(\"a\")\nreturn 3\n");
    expect(harn(["run", "ret.harn"])).toMatchObject({ code: 3, stdout: "a\n" });
  });

  it("exit(n) ends the run with that status after flushing output", () => {
    file("exit.harn", 'println("before")\nexit(7)\nprintln("after")\n');
    expect(harn(["run", "exit.harn"])).toMatchObject({ code: 7, stdout: "before\n" });
    // like Rust's process::exit: the OS keeps the low 8 bits
    file("exit_neg.harn", "exit(-1)\n");
    expect(harn(["run", "exit_neg.harn"]).code).toBe(255);
    file("exit_big.harn", "exit(300)\n");
    expect(harn(["run", "exit_big.harn"]).code).toBe(44);
  });

  it("renders an uncaught error with a code frame and call notes, exit 1", () => {
    file(
      "boom.harn",
      'fn helper(x) {\n  let z = x + "a"\n  return z\n}\npipeline default() {\n  println("partial")\n  helper(1)\n}\n',
    );
    const r = harn(["run", "boom.harn"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("partial\n");
    expect(r.stderr).toBe(
      [
        "error: Type error: Cannot add int and string (line 2)",
        "  --> boom.harn:2:15",
        "   |",
        ' 2 |   let z = x + "a"',
        "   |               ^",
        "  = note: called from pipeline at boom.harn:7",
        "",
      ].join("\n"),
    );
    expect(r.stderr).not.toMatch(JS_STACK);
  });

  it("widens the code-frame gutter with the line number (cli.md §2.5, lint.md §5.3)", () => {
    file("wide.harn", "\n".repeat(11) + "let total = 1\nlet z = total + nil\n");
    const r = harn(["run", "wide.harn"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      [
        "error: Type error: Cannot add int and nil (line 13)",
        "   --> wide.harn:13:17",
        "    |",
        " 13 | let z = total + nil",
        "    |                 ^^^",
        "",
      ].join("\n"),
    );
  });

  it("reports thrown values and stack overflow without a JS trace", () => {
    file("throw.harn", 'throw {code: 1}\n');
    expect(harn(["run", "throw.harn"])).toMatchObject({ code: 1 });
    expect(harn(["run", "throw.harn"]).stderr).toMatch(/^error: Thrown: \{code: 1\}\n/);
    file("deep.harn", "fn f(n) {\n  return 1 + f(n + 1)\n}\nf(0)\n");
    const r = harn(["run", "deep.harn"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: Runtime error: Stack overflow: too many nested calls \(line 2\)/);
    expect(r.stderr).not.toMatch(JS_STACK);
    // Recursion through a callback alternates frames; the notes stay short.
    file("cb.harn", "fn f(n) {\n  return [n].map({ x -> f(x + 1) })[0]\n}\nf(0)\n");
    const cb = harn(["run", "cb.harn"]);
    expect(cb.code).toBe(1);
    const notes = cb.stderr.split("\n").filter((l) => l.startsWith("  = note: "));
    expect(notes.length).toBe(12);
    expect(notes[9]).toMatch(/^  = note: … \d+ more notes$/);
    expect(notes[11]).toBe("  = note: called from pipeline at cb.harn:4");
  });

  it("rejects syntax errors with a rendered diagnostic, exit 1", () => {
    file("syntax.harn", "let x = (1 +\n");
    const r = harn(["run", "syntax.harn"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^error: /);
    expect(r.stderr).toContain("--> syntax.harn:");
  });

  it("reports compile errors before running anything", () => {
    file("brk.harn", 'println("never")\nbreak\n');
    // The first line is the reference's; the location under it is ours.
    expect(harn(["run", "brk.harn"])).toEqual({ code: 1, stdout: "", stderr: "error: compile error: break outside of loop\n  --> brk.harn:2:1\n   |\n 2 | break\n" });
  });

  it("reads a missing file as an error, exit 1", () => {
    expect(harn(["run", "nope.harn"])).toMatchObject({ code: 1, stderr: "Error reading nope.harn: No such file or directory (os error 2)\n" });
    mkdirSync(join(cli.dir, "adir.harn"), { recursive: true });
    expect(harn(["run", "adir.harn"])).toMatchObject({ code: 1, stderr: "Error reading adir.harn: Is a directory (os error 21)\n" });
  });

  it("rejects a source that is not UTF-8 instead of reading replacement characters, exit 1", () => {
    writeFileSync(join(cli.dir, "latin1.harn"), Buffer.from([...Buffer.from('println("caf'), 0xe9, ...Buffer.from('")\n')]));
    expect(harn(["run", "latin1.harn"])).toEqual({ code: 1, stdout: "", stderr: "Error reading latin1.harn: stream did not contain valid UTF-8\n" });
  });

  it("runs inline code with -e and rejects bad combinations with exit 2", () => {
    expect(harn(["run", "-e", "println(len(argv))", "--", "a", "b"])).toMatchObject({ code: 0, stdout: "2\n" });
    expect(harn(["run", "-e", "println(1)", "x.harn"]).code).toBe(2);
    expect(harn(["run"]).code).toBe(2);
    file("pos.harn", "println(1)\n");
    expect(harn(["run", "pos.harn", "extra"]).code).toBe(2);
    expect(harn(["run", "--deny", "len", "--allow", "len", "pos.harn"]).code).toBe(2);
  });

  it("denies builtins with --deny and --allow", () => {
    file("deny.harn", "println(len([1]))\n");
    const r = harn(["run", "--deny", "len, exec", "deny.harn"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: Error \[tool_rejected\]: Tool 'len' is not permitted\.\n/);
    file("allow.harn", 'println(len([1]))\nprintln(uppercase("a"))\n');
    const a = harn(["run", "--allow", "println", "allow.harn"]);
    expect(a.stdout).toBe("1\n");
    expect(a.stderr).toContain("Tool 'uppercase' is not permitted.");
  });

  it("runs spawned sleeps concurrently and cancels what is left at the end", () => {
    // Sequential sleeps would take 1000 ms and miss the deadline.
    file(
      "conc.harn",
      'let r = deadline 900ms {\n  let a = spawn { sleep(500ms)\n "a" }\n  let b = spawn { sleep(500ms)\n "b" }\n  await(a) + await(b)\n}\nprintln(r)\nspawn { sleep(1h) }\nprintln("end")\n',
    );
    // The un-awaited hour-long sleep must not keep the process alive.
    expect(harn(["run", "conc.harn"])).toMatchObject({ code: 0, stdout: "ab\nend\n" });
  });

  it("reports a deadlock instead of exiting 0 mid-script", () => {
    // Nothing can ever send on the channel: Node's event loop runs dry.
    file("deadlock.harn", 'let ch = channel()\nprintln("before")\nlet v = receive(ch)\nprintln("after")\n');
    const r = harn(["run", "deadlock.harn"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("before\n");
    expect(r.stderr).toContain("error: deadlock: the script is blocked");
  });

  it("lets many tasks wait on one parent without Node's listener-leak warning", () => {
    file("fanout.harn", "var hs = []\nfor i in range(40) { hs = hs.push(spawn { sleep(5ms)\n i }) }\nvar t = 0\nfor h in hs { t = t + await(h) }\nprintln(t)\n");
    expect(harn(["run", "fanout.harn"])).toEqual({ code: 0, stdout: "780\n", stderr: "" });
  });

  // extensions.md §3.3: a SIGINT while no agent turn runs ends the program with 130
  it("exits 130 on SIGINT, running the script's cleanup", async () => {
    file("wait.harn", 'defer { eprintln("cleanup ran") }\nprintln("ready")\nsleep(1h)\n');
    const child = spawn(process.execPath, [cli.bin, "run", "wait.harn"], { cwd: cli.dir, env: harnEnv("plain") });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const code = await new Promise<number | null>((resolveExit) => {
      child.stdout.on("data", (d) => {
        stdout += d;
        if (stdout.includes("ready")) child.kill("SIGINT");
      });
      child.on("exit", (c) => resolveExit(c));
    });
    expect(code).toBe(130);
    expect(stderr).toContain("[harn] signal received, flushing state...");
    expect(stderr).toContain("cleanup ran");
  });

  it("exits 124 on SIGTERM", async () => {
    file("term.harn", 'println("ready")\nsleep(1h)\n');
    const child = spawn(process.execPath, [cli.bin, "run", "term.harn"], { cwd: cli.dir, env: harnEnv("plain") });
    const code = await new Promise<number | null>((resolveExit) => {
      child.stdout.on("data", () => child.kill("SIGTERM"));
      child.on("exit", (c) => resolveExit(c));
    });
    expect(code).toBe(124);
  });

  it("stops quietly with 141 when the reader of its output goes away, running cleanup", async () => {
    file("flood.harn", 'defer { eprintln("cleanup ran") }\nvar i = 0\nwhile true {\n  println("line ${i}")\n  i += 1\n}\n');
    const child = spawn(process.execPath, [cli.bin, "run", "flood.harn"], { cwd: cli.dir, env: harnEnv("plain") });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const code = await new Promise<number | null>((resolveExit) => {
      // Like `| head -1`: read a little, then close the pipe.
      child.stdout.once("data", () => child.stdout.destroy());
      child.on("exit", (c) => resolveExit(c));
    });
    expect(code).toBe(141);
    expect(stderr).toBe("cleanup ran\n");
  });

  it("interrupts a CPU-bound loop on SIGINT", async () => {
    file("spin.harn", 'println("spinning")\nvar i = 0\nwhile true { i += 1 }\n');
    const child = spawn(process.execPath, [cli.bin, "run", "spin.harn"], { cwd: cli.dir, env: harnEnv("plain") });
    const code = await new Promise<number | null>((resolveExit) => {
      child.stdout.on("data", () => child.kill("SIGINT"));
      child.on("exit", (c) => resolveExit(c));
    });
    expect(code).toBe(130);
  });
});

describe("harn run start-up", () => {
  /** The Node built-in modules loaded while `harn run` ran `args`, read from
   * process.moduleLoadList at exit by a preloaded script. */
  function builtinsLoadedBy(args: string[]): { code: number | null; stdout: string; loaded: Set<string> } {
    const report = join(cli.dir, "modules.json");
    const preload = file(
      "report-modules.cjs",
      `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(report)}, JSON.stringify(process.moduleLoadList)));\n`,
    );
    const r = spawnSync(process.execPath, ["--require", join(cli.dir, preload), cli.bin, ...args], { cwd: cli.dir, encoding: "utf8", env: harnEnv("plain"), timeout: 50_000 });
    const list = JSON.parse(readFileSync(report, "utf8")) as string[];
    const loaded = new Set(list.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice("NativeModule ".length)));
    return { code: r.status, stdout: r.stdout, loaded };
  }

  // Modules that only some scripts need load when first used: a script that
  // never hashes, spawns, reads lines or times itself does not pay for them.
  const LOADED_ON_USE = ["crypto", "child_process", "readline", "perf_hooks"];

  it("loads no crypto, child_process, readline or perf_hooks for a script that uses none", () => {
    file("plain.harn", 'println("hi")\n');
    const { code, stdout, loaded } = builtinsLoadedBy(["run", "plain.harn"]);
    expect({ code, stdout }).toEqual({ code: 0, stdout: "hi\n" });
    expect(LOADED_ON_USE.filter((m) => loaded.has(m))).toEqual([]);
  });

  it("loads them when the script uses them", () => {
    file("hash.harn", 'println(sha256("a"))\nprintln(len(uuid()))\n');
    const { code, stdout, loaded } = builtinsLoadedBy(["run", "hash.harn"]);
    expect({ code, stdout }).toEqual({ code: 0, stdout: "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb\n36\n" });
    expect(loaded.has("crypto")).toBe(true);
  });
});
