/**
 * `find_text` with a regex that V8's backtracking engine takes exponential
 * time on: the reference's engine is linear, so harn searches such patterns
 * with the regex module's linear engine (find_text.ts `matcherSpec`). Run
 * as a child process with a kill timeout, so a regression fails instead of
 * freezing the test run (the search would block harn's only thread).
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { cliSandbox, harnEnv } from "./cli-harness";

// runs are killed with SIGKILL: a harn stuck in one regex search never gets
// to run its SIGTERM handler
const cli = cliSandbox({ prefix: "harn-find-text-linear-", harn: "built", colour: "plain", timeout: 30_000 });

describe("find_text with nested repetition", () => {
  it("finds what the reference finds, in the foreground and the background, without backtracking for ages", () => {
    cli.file("tree/runs.txt", `${"a".repeat(40)}b\naaaa\n${"a".repeat(5000)}!\n`);
    cli.file("tree/other.txt", "nothing here\n");
    cli.file(
      "find.harn",
      [
        'let fg = find_text("tree", "(a+)+$")',
        "for m in fg.matches { println(\"${m.path} ${m.line}:${m.column} ${m.text}\") }",
        'let h = find_text("tree", "(a+)+$", {long_running: true})',
        "let done = handle_wait(h)",
        "println(len(done.result.matches))",
        "",
      ].join("\n"),
    );
    const r = spawnSync(process.execPath, [cli.bin, "run", "find.harn"], {
      cwd: cli.dir,
      env: harnEnv("plain"),
      encoding: "utf8",
      timeout: 30_000,
      killSignal: "SIGKILL",
    });
    expect({ code: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: `${cli.dir}/tree/runs.txt 2:1 aaaa\n1\n`, stderr: "" });
  });
});
