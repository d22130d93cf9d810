/**
 * `harn lint` end to end: builds the real bundle once, then runs
 * `cli/bin/harn.cjs lint` as a child process on files in temp dirs.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { cliSandbox } from "./cli-harness";

// stderr is a pipe, so no colour; neither variable may leak in from the parent
const cli = cliSandbox({ prefix: "harn-lint-", harn: "built", colour: "unset", timeout: 30_000, dirPerTest: true, gitRoot: true });
const { harn, file } = cli;

const CLEAN = "pipeline main() {\n  log(1)\n}\n";
const WARN = 'pipeline main() {\n  let handle = walk_dir("docs", {long_running: true})\n  log(handle)\n}\n';
const ERROR = "pipeline main() {\n  break\n}\n";

describe("exit codes and streams", () => {
  test("a clean file: `no issues found` on stdout, exit 0", () => {
    file("a.harn", CLEAN);
    expect(harn(["lint", "a.harn"])).toEqual({ code: 0, stdout: "a.harn: no issues found\n", stderr: "" });
  });
  test("warnings alone exit 0 and render a code frame on stderr", () => {
    file("w.harn", WARN);
    const r = harn(["lint", "w.harn"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      [
        "warning: `walk_dir` starts long-running work without a defer/finally cleanup path: `handle` is still running when the pipeline ends at line 4",
        "  --> w.harn:2:16",
        "   |",
        ' 2 |   let handle = walk_dir("docs", {long_running: true})',
        "   |                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ lint[long-running-without-cleanup]",
        "   = help: cancel `handle` on every path: `defer { cancel_handle(handle) }` right after it starts, or in a `finally`",
        "",
      ].join("\n"),
    );
  });
  test("trailing-comma points at column 1 of the insertion line, as the reference does", () => {
    file("t.harn", "pipeline main() {\n  log(\n    1,\n    2\n  )\n}\n");
    expect(harn(["lint", "t.harn"]).stderr).toBe(
      [
        "warning: multiline comma-separated list is missing a trailing comma",
        "  --> t.harn:4:1",
        "   |",
        " 4 |     2",
        "   | ^ lint[trailing-comma]",
        "   = help: add a trailing comma after the last item",
        "",
      ].join("\n"),
    );
  });
  test("an error-severity finding exits 1", () => {
    file("e.harn", ERROR);
    const r = harn(["lint", "e.harn"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: `break` used outside of a loop");
  });
  test("--strict and --deny-warnings make warnings fail", () => {
    file("w.harn", WARN);
    expect(harn(["lint", "--strict", "w.harn"]).code).toBe(1);
    expect(harn(["lint", "--deny-warnings", "w.harn"]).code).toBe(1);
  });
  test("--max-warnings N", () => {
    file("w.harn", WARN);
    file("w2.harn", WARN);
    expect(harn(["lint", "--max-warnings", "2", "."]).code).toBe(0);
    const r = harn(["lint", "--max-warnings", "1", "."]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: 2 warning(s) found; --max-warnings allows 1");
  });
  test("usage errors exit 2", () => {
    expect(harn(["lint"]).code).toBe(2);
    expect(harn(["lint", "--format", "xml", "."]).code).toBe(2);
    expect(harn(["lint", "--max-warnings", "-1", "."]).code).toBe(2);
    mkdirSync(join(cli.dir, "empty"));
    const r = harn(["lint", "empty"]);
    expect([r.code, r.stderr]).toEqual([2, "error: no .harn files found under the given target(s)\n"]);
  });
  test("a file that is not UTF-8, or binary, is one diagnostic and the run goes on (exit 1)", () => {
    writeFileSync(join(cli.dir, "a.harn"), Buffer.from([0x6c, 0x6f, 0x67, 0x28, 0xff, 0x29, 0x0a]));
    writeFileSync(join(cli.dir, "b.harn"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0x00, 0x28, 0x0a]));
    file("c.harn", CLEAN);
    expect(harn(["lint", "."])).toEqual({
      code: 1,
      stdout: "./c.harn: no issues found\n",
      stderr: "error: cannot lint ./a.harn: stream did not contain valid UTF-8\nerror: cannot lint ./b.harn: it is a binary file (it contains NUL bytes)\n",
    });
  });
  test("an unreadable file exits 2", () => {
    file("locked.harn", CLEAN);
    chmodSync(join(cli.dir, "locked.harn"), 0o000);
    const r = harn(["lint", "locked.harn"]);
    chmodSync(join(cli.dir, "locked.harn"), 0o644);
    if (process.getuid?.() === 0) return; // root reads anything
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: cannot read locked.harn: Permission denied (os error 13)");
  });
  test("a missing target exits 2", () => {
    const r = harn(["lint", "nope.harn"]);
    expect([r.code, r.stderr]).toEqual([2, "error: cannot read nope.harn: No such file or directory (os error 2)\n"]);
  });
  test("a missing target is a file target: reported in its place, the other files linted", () => {
    file("a.harn", CLEAN);
    file("z.harn", CLEAN);
    const r = harn(["lint", "z.harn", "nope.harn", "a.harn"]);
    expect(r).toEqual({
      code: 2,
      stdout: "a.harn: no issues found\nz.harn: no issues found\n",
      stderr: "error: cannot read nope.harn: No such file or directory (os error 2)\n",
    });
  });
  test("a parse error is that file's diagnostic: exit 1, and the run goes on", () => {
    file("a.harn", "let x = )\n");
    file("b.harn", CLEAN);
    file("c.harn", ERROR);
    const r = harn(["lint", "."]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: expected expression, found )\n  --> ./a.harn:1:9");
    expect(r.stderr).toContain("--> ./c.harn:");
    expect(r.stdout).toBe("./b.harn: no issues found\n");
  });
  test.each(["json", "sarif", "github"])("--format %s lists every file's findings, the unparsable one's too", (format) => {
    file("a.harn", "let x = )\n");
    file("b.harn", ERROR);
    const r = harn(["lint", "--format", format, "."]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("expected expression, found )");
    expect(r.stdout).toContain("`break` used outside of a loop");
  });
});

describe("targets", () => {
  test("directories are walked by real path: a symlink loop ends, a file reached twice is linted once", () => {
    file("loop/d/a.harn", CLEAN);
    symlinkSync("..", join(cli.dir, "loop/d/up"));
    symlinkSync("a.harn", join(cli.dir, "loop/d/again.harn"));
    symlinkSync("d", join(cli.dir, "loop/e"));
    const r = harn(["lint", "loop", "loop/d/a.harn"]);
    expect(r).toEqual({ code: 0, stdout: "loop/d/a.harn: no issues found\n", stderr: "" });
  });
  test("long flat chains lint (10,000 `+` terms, 2,000 `else if` arms, on a deep-stack thread); 5,000 nested parentheses are a diagnostic", () => {
    file("deep/chain.harn", `pipeline main() {\n  let x = ${Array.from({ length: 10_000 }, () => "1").join(" + ")}\n  log(x)\n}\n`);
    const arms = Array.from({ length: 1999 }, (_, i) => ` else if v == ${i + 1} { log(${i}) }`).join("");
    file("deep/elif.harn", `pipeline main() {\n  let v = 3\n  if v == 0 { log(0) }${arms} else { log(-1) }\n}\n`);
    // in a function, whose handle summary the module graph works out too
    file("deep/fn_chain.harn", `/** The sum. */\npub fn total() {\n  return ${Array.from({ length: 10_000 }, () => "1").join(" + ")}\n}\n`);
    file("deep/parens.harn", `pipeline main() {\n  log(${"(".repeat(5000)}1${")".repeat(5000)})\n}\n`);
    const r = harn(["lint", "deep"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("deep/chain.harn: no issues found\ndeep/elif.harn: no issues found\ndeep/fn_chain.harn: no issues found\n");
    expect(r.stderr).toMatch(/^error: nesting too deep\n  --> deep\/parens\.harn:2:\d+\n/);
  });

  test("directories are linted recursively in sorted order, skipping only X.harn beside X.conformance-skip", () => {
    file("src/b.harn", CLEAN);
    file("src/a.harn", CLEAN);
    file("node_modules/x/c.harn", CLEAN);
    file("src/skip.harn", ERROR);
    file("src/skip.conformance-skip", "");
    const r = harn(["lint", "."]);
    // lint.md §5.1: no directory is special, node_modules included
    expect(r).toEqual({
      code: 0,
      stdout: "./node_modules/x/c.harn: no issues found\n./src/a.harn: no issues found\n./src/b.harn: no issues found\n",
      stderr: "",
    });
  });
  test("paths are the target joined with what was found under it, unnormalised, in path-component order", () => {
    // the reference joins with Rust's Path::join and sorts Paths component by component
    file("lib/x.harn", CLEAN);
    file("lib.harn", CLEAN);
    file("lib-a/y.harn", CLEAN);
    expect(harn(["lint", "."]).stdout).toBe("./lib/x.harn: no issues found\n./lib-a/y.harn: no issues found\n./lib.harn: no issues found\n");
    expect(harn(["lint", "lib/", "lib.harn"]).stdout).toBe("lib/x.harn: no issues found\nlib.harn: no issues found\n");
  });
});

describe("harn.toml", () => {
  test("[lint] disabled and [check] disable_rules drop rules, found by walking up", () => {
    file("proj/harn.toml", '[lint]\ndisabled = ["long-running-without-cleanup"]\n');
    file("proj/sub/w.harn", WARN);
    expect(harn(["lint", "proj"]).stdout).toBe("proj/sub/w.harn: no issues found\n");
    file("proj/harn.toml", '[check]\ndisable_rules = ["long-running-without-cleanup"]\n');
    expect(harn(["lint", "proj"]).code).toBe(0);
  });
  test("[check] strict fails on warnings, per file's nearest manifest", () => {
    file("strict/harn.toml", "[check]\nstrict = true\n");
    file("strict/w.harn", WARN);
    file("lax/w.harn", WARN);
    expect(harn(["lint", "lax"]).code).toBe(0);
    expect(harn(["lint", "strict"]).code).toBe(1);
  });
  test("[lint.severity] can turn a warning into an error (exit 1) or off", () => {
    file("harn.toml", '[lint.severity]\nlong-running-without-cleanup = "error"\n');
    file("w.harn", WARN);
    const r = harn(["lint", "w.harn"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: `walk_dir` starts long-running work/);
    file("harn.toml", '[lint.severity]\nlong-running-without-cleanup = "off"\n');
    expect(harn(["lint", "w.harn"]).stdout).toBe("w.harn: no issues found\n");
  });
  test("a manifest that does not parse exits 2", () => {
    file("harn.toml", "[lint\n");
    file("a.harn", CLEAN);
    const r = harn(["lint", "a.harn"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: failed to parse .*harn\.toml: /);
  });
  test("require_file_header and checked_handles switch rules on", () => {
    file("harn.toml", "[lint]\nrequire_file_header = true\nchecked_handles = true\n");
    file("a.harn", 'pipeline main() {\n  walk_dir(".", {long_running: true})\n}\n');
    const r = harn(["lint", "--format", "json", "a.harn"]);
    const rules = JSON.parse(r.stdout)[0].messages.map((m: { ruleId: string }) => m.ruleId);
    expect(rules).toEqual(["require-file-header", "long-running-handle-discarded"]);
  });
});

describe("the module graph", () => {
  test("a function another file imports by name is not unused; wildcard imports make names known", () => {
    file("lib/util.harn", "fn helper() {\n  return 1\n}\n\nfn orphan() {\n  return 2\n}\n");
    file("app.harn", 'import "lib/more"\nimport { helper } from "lib/util"\n\npipeline main() {\n  log(helper())\n  log(extra())\n  log(missing())\n}\n');
    file("lib/more.harn", "pub fn extra() {\n  return 3\n}\n");
    const r = harn(["lint", "--format", "json", "."]);
    const byFile = Object.fromEntries(
      JSON.parse(r.stdout).map((f: { filePath: string; messages: { ruleId: string; message: string }[] }) => [
        f.filePath.slice(cli.dir.length + 1),
        f.messages.map((m) => m.message),
      ]),
    );
    expect(byFile["lib/util.harn"]).toEqual(["function `orphan` is declared but never used"]);
    expect(byFile["app.harn"]).toEqual(["function `missing` is not defined"]);
  });
});

describe("worker threads", () => {
  test("a run split across threads reports exactly what one thread does", () => {
    file("a_lib.harn", "fn shared_helper() {\n  return 1\n}\n");
    for (let i = 0; i < 6; i++) file(`m${i}.harn`, WARN);
    file("z_app.harn", 'import { shared_helper } from "a_lib"\n\npipeline main() {\n  log(shared_helper())\n  break\n}\n');
    const one = harn(["lint", "--format", "json", "."], { env: { HARN_LINT_THREADS: "1" } });
    const two = harn(["lint", "--format", "json", "."], { env: { HARN_LINT_THREADS: "2" } });
    expect(two.code).toBe(1);
    expect(two).toEqual(one);
    // the import in the last file clears the finding of the first file
    expect(JSON.parse(two.stdout)[0].messages).toEqual([]);
  });
  test("a file that does not parse is reported and the others are linted", () => {
    file("a.harn", "let x = )\n");
    for (let i = 0; i < 5; i++) file(`b${i}.harn`, CLEAN);
    const r = harn(["lint", "."], { env: { HARN_LINT_THREADS: "2" } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe([0, 1, 2, 3, 4].map((i) => `./b${i}.harn: no issues found\n`).join(""));
    expect(r.stderr).toContain("error: expected expression, found )");
  });
  test("a run of many files (read ahead on a helper thread) reports each one, in order", () => {
    const names = Array.from({ length: 300 }, (_, i) => `f${String(i).padStart(3, "0")}.harn`);
    names.forEach((n, i) => file(n, i === 150 ? "let x = )\n" : i % 50 === 7 ? WARN : CLEAN));
    const r = harn(["lint", "--format", "json", "."], { env: { HARN_LINT_THREADS: "1" } });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { filePath: string; messages: { ruleId: string | null }[] }[];
    expect(out.map((f) => f.filePath.slice(cli.dir.length + 1))).toEqual(names);
    expect(out.filter((f) => f.messages.length > 0).map((f) => f.filePath.slice(cli.dir.length + 1))).toEqual(
      names.filter((_, i) => i === 150 || i % 50 === 7),
    );
  });
});

describe("suppressions", () => {
  test("an inline suppression silences a finding; an unused one is reported", () => {
    file(
      "a.harn",
      'pipeline main() {\n  // harn-lint-disable-next-line long-running-without-cleanup\n  let h = walk_dir("docs", {long_running: true})\n  log(h)\n  // harn-lint-disable-next-line unused-variable\n  log(2)\n}\n',
    );
    const r = harn(["lint", "a.harn"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("warning: unused suppression: no `unused-variable` diagnostic is reported here");
    expect(r.stderr).toContain("a.harn:5:3");
    expect(r.stderr).not.toContain("long-running");
  });
});

describe("--fix", () => {
  test("applies fixes, reports the count, re-lints the new text, exits 0", () => {
    file("f.harn", "pipeline main() {\n  var count = 0\n  let unused = 1\n  log(count == count)\n}\n");
    const r = harn(["lint", "--fix", "f.harn"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("f.harn: applied 2 fix(es)\n");
    expect(readFileSync(join(cli.dir, "f.harn"), "utf8")).toBe("pipeline main() {\n  let count = 0\n  let _unused = 1\n  log(count == count)\n}\n");
    expect(r.stderr).toContain(" 4 |   log(count == count)");
  });
  test("each file's fix count comes just before its remaining findings (reference order)", () => {
    const text = "pipeline main() {\n  var n = 0\n  log(n == n)\n}\n";
    file("a.harn", text);
    file("b.harn", text);
    // one pipe for both streams shows the order a user sees in a terminal
    const r = spawnSync("sh", ["-c", `"${process.execPath}" "${cli.bin}" lint --fix a.harn b.harn 2>&1`], { cwd: cli.dir, encoding: "utf8" });
    expect(r.status).toBe(0);
    const lines = r.stdout.split("\n").filter((l) => l.includes("applied") || l.includes("-->"));
    expect(lines).toEqual(["a.harn: applied 1 fix(es)", "  --> a.harn:3:7", "b.harn: applied 1 fix(es)", "  --> b.harn:3:7"]);
  });
  test("a file that does not compile is left alone: its errors would change (the checker's fixes are shown by check)", () => {
    const text = 'pipeline main() {\n  var n = 1\n  log("n=" + n + 1)\n  log(2.5 + " x")\n}\n';
    file("t.harn", text);
    const r = harn(["lint", "--fix", "t.harn"]);
    expect([r.code, r.stdout]).toEqual([0, ""]);
    expect(r.stderr).toContain("t.harn: not fixed: it does not compile (`harn check` shows why)\n");
    expect(readFileSync(join(cli.dir, "t.harn"), "utf8")).toBe(text);
    expect(harn(["check", "t.harn"]).stderr).toContain('= help: write it as `"${2.5} x"`');
  });
  test("a top-level name another target imports is reported but not renamed by --fix", () => {
    // the library sorts first: the importer is seen only later in the run
    file("a_lib.harn", "let LIMIT = 3\n");
    file("z_app.harn", 'import { LIMIT } from "a_lib"\n\nlog(LIMIT)\n');
    expect(harn(["lint", "."]).stderr).toContain("variable `LIMIT` is declared but never used");
    const r = harn(["lint", "--fix", "."]);
    expect([r.code, r.stdout]).toEqual([0, ""]);
    expect(readFileSync(join(cli.dir, "a_lib.harn"), "utf8")).toBe("let LIMIT = 3\n");
  });
  test("a file with nothing to fix prints nothing", () => {
    file("w.harn", WARN);
    expect(harn(["lint", "--fix", "w.harn"])).toEqual({ code: 0, stdout: "", stderr: "" });
  });
});

describe("formats", () => {
  test("json, sarif and github print one document on stdout with the same exit codes", () => {
    file("e.harn", ERROR);
    const json = harn(["lint", "--format", "json", "e.harn"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)[0].messages[0]).toMatchObject({ ruleId: "break-outside-loop", severity: 2, line: 2, column: 3 });
    const sarif = harn(["lint", "--format", "sarif", "e.harn"]);
    expect(JSON.parse(sarif.stdout).runs[0].results[0]).toMatchObject({ ruleId: "break-outside-loop", level: "error" });
    const gh = harn(["lint", "--format", "github", "e.harn"]);
    expect(gh.stdout).toMatch(/^::error file=e\.harn,line=2,col=3,/);
    expect(gh.stderr).toBe("");
  });
});
