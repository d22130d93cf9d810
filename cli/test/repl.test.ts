/**
 * `harn repl` (spec/cli.md §7.1): the session model (repl-session.ts) and
 * a piped session end to end.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { isComplete, ReplSession } from "../src/repl-session";
import { cliSandbox } from "./cli-harness";

const cli = cliSandbox({ prefix: "harn-repl-", harn: "one-file", colour: "inherit", timeout: 30_000 });

describe("isComplete", () => {
  it("waits while brackets are open or a string is unterminated", () => {
    expect(isComplete("fn f() {")).toBe(false);
    expect(isComplete("fn f() {\n  return [1,\n")).toBe(false);
    expect(isComplete("fn f() {\n  return 1\n}")).toBe(true);
    expect(isComplete('let s = "abc')).toBe(false);
    expect(isComplete('let s = """\nmulti')).toBe(false);
    expect(isComplete('let s = """\nmulti\n"""')).toBe(true);
  });

  it("ignores brackets in strings, raw strings and comments", () => {
    expect(isComplete('let s = "{ \\" ("')).toBe(true);
    expect(isComplete('let r = r"\\d{2}("')).toBe(true);
    expect(isComplete("let x = 1 // {")).toBe(true);
    expect(isComplete("let x = 1 /* { */")).toBe(true);
  });
});

describe("ReplSession", () => {
  it("keeps declarations outside the pipeline and shows bare expressions as `let _N`", () => {
    const s = new ReplSession();
    s.programWith("fn sq(n) { return n * n }").commit();
    s.programWith("let x = 3").commit();
    const { source } = s.programWith("sq(x)");
    expect(source).toBe(
      "fn sq(n) { return n * n }\npipeline repl(task) {\nlet x = 3\nlet _1 = sq(x)\nif _1 != nil { println(to_string(_1)) }\n}\n",
    );
  });

  it("drops an entry that is not committed", () => {
    const s = new ReplSession();
    s.programWith("let a = 1").commit();
    s.programWith("boom()"); // failed: not committed
    expect(s.programWith("a").source).toBe("pipeline repl(task) {\nlet a = 1\nlet _1 = a\nif _1 != nil { println(to_string(_1)) }\n}\n");
  });
});

describe("harn repl", () => {
  it("runs a piped session: new output only, errors on stderr, failing entries dropped, Goodbye at the end", () => {
    const input = '1 + 2\nlet x = 5\nfn sq(n) {\n  return n * n\n}\nsq(x)\nprintln("side")\nnope\nx\n';
    const r = spawnSync(process.execPath, [cli.bin, "repl"], { cwd: cli.dir, input, encoding: "utf8", timeout: 30_000 });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      "Harn REPL v0.1.0\nType expressions or statements. Ctrl+C or Ctrl+D to exit.\n3\n25\nside\n5\nGoodbye!\n",
    );
    expect(r.stderr).toMatch(/^Error: Runtime error: Undefined variable: nope/);
  });

  it("exit(n) ends the session with that code", () => {
    const r = spawnSync(process.execPath, [cli.bin, "repl"], { cwd: cli.dir, input: 'println("a")\nexit(3)\nprintln("b")\n', encoding: "utf8", timeout: 30_000 });
    expect(r.status).toBe(3);
    expect(r.stdout).toContain("a\nGoodbye!\n");
    expect(r.stdout).not.toContain("b\n");
  });
});
