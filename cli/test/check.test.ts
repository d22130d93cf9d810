/**
 * `harn check` end to end: builds the real bundle once, then runs
 * `cli/bin/harn.cjs check` as a child process against files in a temp dir.
 */
import { mkdirSync, chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliSandbox } from "./cli-harness";

const cli = cliSandbox({ prefix: "harn-check-", harn: "built", colour: "unset", timeout: 30_000 });
const { harn, file } = cli;

describe("harn check", () => {
  it("prints `{path}: ok` on stdout for a file without any diagnostic and exits 0", () => {
    file("ok.harn", 'pipeline default(task) {\n  let x = 1 + 2\n  log("x=${x}")\n}\n');
    const r = harn(["check", "ok.harn"]);
    expect(r).toMatchObject({ code: 0, stdout: "ok.harn: ok\n", stderr: "" });
  });

  it("runs the linter: findings carry the `lint[rule]` label, warnings alone exit 0, no ok line for that file", () => {
    file("lw/warn.harn", "pipeline default(task) {\n  let unused = 1\n}\n");
    file("lw/fine.harn", 'println("x")\n');
    const r = harn(["check", "lw"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${join("lw", "fine.harn")}: ok\n`);
    expect(r.stderr).toBe(
      [
        "warning: variable `unused` is declared but never used",
        `  --> ${join("lw", "warn.harn")}:2:3`,
        "   |",
        " 2 |   let unused = 1",
        "   |   ^^^^^^^^^^^^^^ lint[unused-variable]",
        "   = help: prefix with underscore: `_unused`",
        "",
      ].join("\n"),
    );
  });

  it("type errors show carets and a help line, and exit 1", () => {
    file("typ.harn", 'pipeline default(task) {\n  let _a: int = "s"\n}\n');
    const r = harn(["check", "typ.harn"]);
    expect(r).toMatchObject({ code: 1, stdout: "" });
    expect(r.stderr).toBe(
      [
        "error: '_a' declared as int, but assigned string",
        "  --> typ.harn:2:17",
        "   |",
        ' 2 |   let _a: int = "s"',
        "   |                 ^^^",
        "   = help: assign a value of type int, or change the type annotation of '_a'",
        "",
      ].join("\n"),
    );
  });

  it("a type error the linter can fix shows the fix in its help, carets under tabs and wide characters lined up", () => {
    file("fix.harn", 'pipeline default(task) {\n\tlog("中文" + 1)\n}\n');
    const r = harn(["check", "fix.harn"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(' 2 | \tlog("中文" + 1)\n   | \t    ^^^^^^^^^^\n   = help: write it as `"中文${1}"`\n');
  });

  it("honours [check] strict (warnings fail) and [check].disable_rules, not [lint].disabled", () => {
    file("proj/.git/HEAD", "");
    file("proj/w.harn", "pipeline default(task) {\n  let unused = 1\n}\n");
    file("proj/harn.toml", "[check]\nstrict = true\n[lint]\ndisabled = [\"unused-variable\"]\n");
    const strict = harn(["check", "proj/w.harn"]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain("lint[unused-variable]");
    file("proj/harn.toml", "[check]\nstrict = true\ndisable_rules = [\"unused-variable\"]\n");
    expect(harn(["check", "proj/w.harn"])).toMatchObject({ code: 0, stdout: "proj/w.harn: ok\n", stderr: "" });
  });

  it("follows handles along every path by default; --checked-handles and checked_handles are accepted and change nothing", () => {
    file("ch/.git/HEAD", "");
    // the handle goes back to the caller, which cancels it: clean; the
    // caller that only prints it leaks it
    file("ch/tool.harn", 'fn start(dir) {\n  return walk_dir(dir, {long_running: true})\n}\n\nlet h = start(".")\ndefer { cancel_handle(h) }\nprintln(h)\n');
    file("ch/leak.harn", 'fn start(dir) {\n  return walk_dir(dir, {long_running: true})\n}\n\nlet h = start(".")\nprintln(h)\n');
    expect(harn(["check", "ch/tool.harn"])).toMatchObject({ code: 0, stdout: "ch/tool.harn: ok\n", stderr: "" });
    expect(harn(["check", "--checked-handles", "ch/tool.harn"])).toMatchObject({ code: 0, stdout: "ch/tool.harn: ok\n", stderr: "" });
    const leak = harn(["check", "ch/leak.harn"]);
    expect(leak.stderr).toContain("warning: `start` starts long-running work without a defer/finally cleanup path: `h` is still running when the script ends at line 6");
    file("ch/harn.toml", "[check]\nchecked_handles = true\n");
    expect(harn(["check", "ch/tool.harn"])).toMatchObject({ code: 0, stdout: "ch/tool.harn: ok\n", stderr: "" });
    file("ch/harn.toml", '[check]\nchecked_handles = "yes"\n');
    const bad = harn(["check", "ch/tool.harn"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("[check].checked_handles must be true or false");
  });

  it("--workspace adds [workspace].pipelines of the nearest harn.toml; without one it is a usage error", () => {
    file("ws/.git/HEAD", "");
    file("ws/harn.toml", "[workspace]\npipelines = [\"jobs\"]\n");
    file("ws/jobs/a.harn", 'println("a")\n');
    const r = harn(["check", "--workspace", "ws"]);
    expect(r).toMatchObject({ code: 0, stdout: `${join("ws", "jobs", "a.harn")}: ok\n` });
    file("ws2/.git/HEAD", "");
    file("ws2/harn.toml", "[check]\nstrict = false\n");
    const none = harn(["check", "--workspace", "ws2"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("error: --workspace requires `[workspace].pipelines` in the nearest harn.toml\n");
  });

  it("reports every syntax error of a file with a code frame and exits 1", () => {
    file("bad.harn", "fn main() {\n  let x = )\n}\nlet y = )\n");
    const r = harn(["check", "bad.harn"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      [
        "error: expected expression, found )",
        "  --> bad.harn:2:11",
        "   |",
        " 2 |   let x = )",
        "   |           ^ unexpected token",
        "error: expected expression, found )",
        "  --> bad.harn:4:9",
        "   |",
        " 4 | let y = )",
        "   |         ^ unexpected token",
        "",
      ].join("\n"),
    );
  });

  it("reports lexer errors with the lexer's message", () => {
    file("lex.harn", 'let a = 1\nlet s = "abc\n');
    const r = harn(["check", "lex.harn"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: Unterminated string at 2:9\n  --> lex.harn:2:9\n");
    expect(r.stderr).toContain("^ here");
  });

  it("reports structural errors found after parsing", () => {
    file("loop.harn", "fn f() {\n  break\n}\n");
    const r = harn(["check", "loop.harn"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: break outside of loop\n  --> loop.harn:2:3\n");
  });

  it("plain text without a TTY; colour with FORCE_COLOR, none with NO_COLOR", () => {
    file("c.harn", "let x = )\n");
    expect(harn(["check", "c.harn"]).stderr).not.toContain("\u001b[");
    expect(harn(["check", "c.harn"], { env: { FORCE_COLOR: "1" } }).stderr).toContain("\u001b[");
    expect(harn(["check", "c.harn"], { env: { NO_COLOR: "1" } }).stderr).not.toContain("\u001b[");
  });

  it("walks directories in sorted order, skips .conformance-skip files, and stops at the first file with syntax errors", () => {
    file("tree/b/second.harn", "let x = )\n");
    file("tree/a/first.harn", "let y = ]\n");
    file("tree/a/skipped.harn", "let z = )\n");
    file("tree/a/skipped.conformance-skip", "");
    file("tree/notes.txt", "not harn");
    const r = harn(["check", "tree"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(join("tree", "a", "first.harn") + ":1:9");
    expect(r.stderr).not.toContain("second.harn");
    expect(r.stderr).not.toContain("skipped.harn");
  });

  it("preflight: unresolved imports and missing literal templates, label `preflight`, severity from --preflight", () => {
    file("pf/tpl/there.prompt", "hi\n");
    file("pf/lib.harn", "/** Lib. */\n\n/** One. */\npub fn one() -> int {\n  return 1\n}\n");
    file(
      "pf/main.harn",
      'import { one } from "./lib"\nimport { two } from "./missing"\n\npipeline default() {\n  println(one() + two())\n  println(render("tpl/there.prompt", {}))\n  println(render("tpl/gone.prompt", {}))\n}\n',
    );
    const r = harn(["check", "pf/main.harn"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'error: Import error: cannot find module "./missing"\n  --> pf/main.harn:2:1\n   |\n 2 | import { two } from "./missing"\n   | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ preflight\n',
    );
    expect(r.stderr).toContain("error: template not found: tpl/gone.prompt\n  --> pf/main.harn:7:18\n");
    expect(r.stderr).not.toContain("there.prompt");
    expect(r.stderr).not.toContain('"./lib"');
    const warn = harn(["check", "--preflight", "warning", "pf/main.harn"]);
    expect(warn.stderr).toContain('warning: Import error: cannot find module "./missing"');
    expect(harn(["check", "--preflight", "off", "pf/main.harn"]).stderr).not.toContain("preflight");
    expect(harn(["check", "--preflight", "loud", "pf/main.harn"]).code).toBe(2);
    expect(harn(["check", "--bundle-root", join(cli.dir, "pf", "tpl"), "pf/main.harn"]).stderr).toContain("template not found: tpl/there.prompt");
  });

  it("exits 1 with a one-line reason for a missing file (cli.md §0.6)", () => {
    const r = harn(["check", "missing.harn"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("Error reading missing.harn: No such file or directory (os error 2)\n");
  });

  it("exits 1 for a file that is not UTF-8, as `harn run` and `harn lint` do", () => {
    writeFileSync(join(cli.dir, "latin1.harn"), Buffer.from('log("caf\xe9")\n', "latin1"));
    const r = harn(["check", "latin1.harn"]);
    expect(r).toMatchObject({ code: 1, stdout: "" });
    expect(r.stderr).toBe("Error reading latin1.harn: stream did not contain valid UTF-8\n");
  });

  it.skipIf(process.getuid?.() === 0)("exits 1 for an unreadable file", () => {
    const name = file("secret.harn", "log(1)\n");
    chmodSync(join(cli.dir, name), 0o000);
    const r = harn(["check", name]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Error reading secret\.harn: .+\n$/);
  });

  it("exits 2 for a directory without .harn files, a bad flag, or no target", () => {
    mkdirSync(join(cli.dir, "empty"), { recursive: true });
    expect(harn(["check", "empty"])).toMatchObject({ code: 2, stderr: "error: no .harn files found under the given target(s)\n" });
    const flag = harn(["check", "--bogus", "x.harn"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("unknown option '--bogus'");
    const none = harn(["check"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("error: `harn check` requires at least one target path, or `--workspace` with `[workspace].pipelines`\n");
  });
});
