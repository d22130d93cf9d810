/**
 * `harn test` end to end: golden-file suites written into a temp dir and run
 * through the real bundle. Checks the report lines, the comparison rules
 * (trailing whitespace, CRLF, timer lines, `re:` specs), failure messages,
 * exit codes, timeouts of hanging tests, --filter, --jobs and --junit.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cliSandbox, harnEnv, runCli } from "./cli-harness";

const cli = cliSandbox({ prefix: "harn-test-", harn: "built", colour: "plain", timeout: 50_000 });
const { harn, file } = cli;

beforeAll(() => {
  const c = "conformance/tests/";
  file(c + "a_pass.harn", 'println("one")\nprintln("two  ")\nprintln("")\n');
  // trailing whitespace at the end and CRLF line ends are tolerated
  file(c + "a_pass.expected", "one\r\ntwo  \r\n\n\n");
  file(c + "b_timer.harn", 'println("[timer] load: 17ms")\n');
  file(c + "b_timer.expected", "[timer] load: <ms>\n");
  file(c + "c_mismatch.harn", 'println("same")\nprintln("got")\n');
  file(c + "c_mismatch.expected", "same\nwant\n");
  file(c + "d_fails.harn", 'throw "boom"\n');
  file(c + "d_fails.expected", "anything\n");
  file(c + "helpers/no_sidecar.harn", 'println("skipped")\n');
  file(c + "skipped.harn", 'println("x")\n');
  file(c + "skipped.expected", "y\n");
  file(c + "skipped.conformance-skip", "");
  const e = "conformance/errors/";
  file(e + "e_substring.harn", "let x = 1\nx = 2\n");
  file(e + "e_substring.error", "Cannot assign to immutable binding: x\n");
  file(e + "f_regex.harn", "println(nope)\n");
  file(e + "f_regex.error", "re:Undefined variable: no+pe \\(line \\d\\)\n");
  file(e + "g_wrong_error.harn", 'throw "actual"\n');
  file(e + "g_wrong_error.error", "expected text\n");
  file(e + "h_succeeds.harn", "println(1)\n");
  file(e + "h_succeeds.error", "should fail\n");
  file(e + "i_syntax.harn", "let = 5\n");
  file(e + "i_syntax.error", "re:^Expected .* at 1:5$\n");
});

describe("harn test conformance", () => {
  it("reports each test, the summary and the failures, exit 1", () => {
    const r = harn(["test", "conformance"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      [
        "  FAIL  errors/e_substring.harn".replace("FAIL", "PASS"),
        "  PASS  errors/f_regex.harn",
        "  FAIL  errors/g_wrong_error.harn",
        "  FAIL  errors/h_succeeds.harn",
        "  PASS  errors/i_syntax.harn",
        "  PASS  tests/a_pass.harn",
        "  PASS  tests/b_timer.harn",
        "  FAIL  tests/c_mismatch.harn",
        "  FAIL  tests/d_fails.harn",
        "",
        "5 passed, 4 failed, 9 total",
        "",
        "Failures:",
        "  errors/g_wrong_error.harn:",
        "  expected error containing: expected text",
        "  actual error: Thrown: actual",
        "  errors/h_succeeds.harn: expected error containing 'should fail', but succeeded",
        "  tests/c_mismatch.harn:",
        "  same",
        "- want",
        "+ got",
        "  tests/d_fails.harn: runtime error: Thrown: boom",
        "",
      ].join("\n"),
    );
  });

  it("narrows by selection and --filter; zero selected tests pass", () => {
    const sel = harn(["test", "conformance", "tests"]);
    expect(sel.stdout).toContain("2 passed, 2 failed, 4 total");
    const alt = harn(["test", "conformance", "conformance/tests/a_pass.harn"]);
    expect(alt).toMatchObject({ code: 0 });
    expect(alt.stdout).toContain("1 passed, 0 failed, 1 total");
    expect(harn(["test", "conformance", "--filter", "a_pass|b_timer"]).stdout).toContain("2 passed, 0 failed, 2 total");
    expect(harn(["test", "conformance", "--filter", "tests/*_pass"]).stdout).toContain("1 passed, 0 failed, 1 total");
    expect(harn(["test", "conformance", "--filter", "re:^errors/[ef]_"]).stdout).toContain("2 passed, 0 failed, 2 total");
    const none = harn(["test", "conformance", "--filter", "no-such-test"]);
    expect(none).toMatchObject({ code: 0 });
    expect(none.stdout).toContain("0 passed, 0 failed, 0 total");
  });

  it("warns on stderr about an invalid regex in an .error file and counts it as no match", () => {
    const other = mkdtempSync(join(tmpdir(), "harn-test-re-"));
    mkdirSync(join(other, "conformance/errors"), { recursive: true });
    writeFileSync(join(other, "conformance/errors/bad_re.harn"), 'throw "x"\n');
    writeFileSync(join(other, "conformance/errors/bad_re.error"), "re:(unclosed\n");
    const r = harn(["test", "conformance"], { cwd: other });
    rmSync(other, { recursive: true, force: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("    warning: invalid regex in .error file: (unclosed\n");
    expect(r.stdout).toContain("  FAIL  errors/bad_re.harn\n");
    expect(r.stdout).not.toContain("warning");
  });

  it("rejects selections outside the suite or missing", () => {
    const missing = harn(["test", "conformance", "nowhere"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^Conformance target not found: nowhere\. Expected a file or directory under /);
    const other = mkdtempSync(join(tmpdir(), "harn-test-empty-"));
    const r = harn(["test", "conformance"], { cwd: other });
    rmSync(other, { recursive: true, force: true });
    expect(r).toMatchObject({ code: 1, stderr: "Directory not found: conformance\n" });
  });

  it("writes a JUnit report", () => {
    const out = join(cli.dir, "report.xml");
    const r = harn(["test", "conformance", "tests", "--junit", out]);
    expect(r.stdout).toContain(`JUnit XML written to ${out}`);
    const xml = readFileSync(out, "utf8");
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuite name="harn" tests="4" failures="2" time="\d+\.\d{3}">/);
    expect(xml).toContain('<testcase name="tests/a_pass.harn" time=');
    expect(xml).toContain('<failure message="test failed">tests/d_fails.harn: runtime error: Thrown: boom</failure>');
  });
});

describe("state roots", () => {
  it("gives every test a state root of its own and removes it afterwards", () => {
    const other = mkdtempSync(join(tmpdir(), "harn-test-state-"));
    // the same script name in two directories: checkpoints are named after
    // the script, so only distinct state roots keep them apart
    for (const d of ["one", "two"]) {
      mkdirSync(join(other, "conformance/tests", d), { recursive: true });
      writeFileSync(
        join(other, "conformance/tests", d, "same.harn"),
        `checkpoint("seen", "${d}")\nprintln(checkpoint_list())\nwrite_file("${other}/${d}.txt", env("HARN_STATE_DIR"))\n`,
      );
      writeFileSync(join(other, "conformance/tests", d, "same.expected"), "[seen]\n");
    }
    const r = harn(["test", "conformance", "--jobs", "2"], { cwd: other });
    const roots = ["one", "two"].map((d) => readFileSync(join(other, `${d}.txt`), "utf8"));
    const leftovers = roots.filter((root) => existsSync(root));
    const local = existsSync(join(other, ".harn"));
    rmSync(other, { recursive: true, force: true });
    expect(r.stdout).toContain("2 passed, 0 failed, 2 total");
    expect(roots[0]).not.toBe(roots[1]);
    expect(leftovers).toEqual([]);
    expect(local).toBe(false);
  });
});

describe("report colours (cli.md §0.3)", () => {
  it("plain in a pipe, coloured with FORCE_COLOR", () => {
    const run = (extra: Record<string, string>) =>
      runCli(cli.bin, ["test", "conformance", "--filter", "a_pass"], { cwd: cli.dir, env: harnEnv("unset", extra), timeout: 50_000 }).stdout;
    expect(run({})).toBe("  PASS  tests/a_pass.harn\n\n1 passed, 0 failed, 1 total\n");
    expect(run({ FORCE_COLOR: "1" })).toBe("  \u001b[32mPASS\u001b[39m  tests/a_pass.harn\n\n\u001b[32m1 passed, 0 failed, 1 total\u001b[39m\n");
  });
});

describe("harn test PATH", () => {
  it("runs golden files below the paths and ends with the count line", () => {
    file("suite/ok.harn", "println(2 * 21)\n");
    file("suite/ok.expected", "42\n");
    file("suite/sub/bad.harn", "println(1)\n");
    file("suite/sub/bad.expected", "2\n");
    const r = harn(["test", "suite"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/  PASS  suite\/ok\.harn\n  FAIL  suite\/sub\/bad\.harn\n/);
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe("1 passed, 1 failed");
  });

  it("times out a hanging test cleanly, even a CPU-bound loop", () => {
    file("hang/spin.harn", "var i = 0\nwhile true { i += 1 }\n");
    file("hang/spin.expected", "never\n");
    file("hang/sleepy.harn", "sleep(1h)\n");
    file("hang/sleepy.expected", "never\n");
    file("hang/fine.harn", 'println("fine")\n');
    file("hang/fine.expected", "fine\n");
    const r = harn(["test", "hang", "--timeout", "300", "--jobs", "2"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("  PASS  hang/fine.harn");
    expect(r.stdout).toContain("hang/spin.harn: timed out after 300ms");
    expect(r.stdout).toContain("hang/sleepy.harn: timed out after 300ms");
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe("1 passed, 2 failed");
  });

  it("runs user test pipelines when a path holds no golden files", () => {
    file(
      "user/test_things.harn",
      'fn add(a, b) { return a + b }\npipeline test_add() {\n  assert_eq(add(1, 2), 3)\n}\n@test\npipeline tagged() {\n  assert(true)\n}\npipeline test_broken() {\n  assert_eq(add(1, 1), 3)\n}\npipeline test() {\n  throw "never runs"\n}\n',
    );
    file("user/other.harn", "pipeline main() {}\n");
    const r = harn(["test", "user"]);
    expect(r.code).toBe(1);
    const abs = realpathSync(join(cli.dir, "user/test_things.harn"));
    expect(r.stdout).toMatch(/^Running 3 tests from 1 file\.\.\.\n\n/);
    expect(r.stdout).toMatch(new RegExp(`  PASS  test_add \\[${abs.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}\\] \\(\\d+ ms\\)\n`));
    expect(r.stdout).toContain(`  PASS  tagged [${abs}]`);
    expect(r.stdout).toContain(`  FAIL  test_broken [${abs}]\n        error: Thrown: Assertion failed: expected 3, got 2\n`);
    expect(r.stdout).not.toContain("never runs");
    expect(r.stdout).toMatch(/\n2 passed, 1 failed, 3 total \(\d+ ms\)\n$/);
    const only = harn(["test", "user", "--filter", "add"]);
    expect(only.code).toBe(0);
    expect(only.stdout).toMatch(/\n1 passed, 1 total \(\d+ ms\)\n$/);
    file("nothing/readme.harn", "println(1)\n");
    expect(harn(["test", "nothing"])).toMatchObject({ code: 0, stdout: "No test pipelines found\n" });
  });

  it("a second positional target is a usage error outside `conformance` (cli.md §5)", () => {
    file("two/a.harn", "println(1)\n");
    file("two/a.expected", "1\n");
    const r = harn(["test", "two", "two/a.harn"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: only `harn test conformance` accepts a second positional target\n");
    expect(r.stdout).toBe("");
  });

  it("a --filter that selects no golden test keeps the golden mode", () => {
    file("gold/test_x.harn", "println(1)\n");
    file("gold/test_x.expected", "1\n");
    expect(harn(["test", "gold", "--filter", "nomatch"])).toMatchObject({ code: 0, stdout: "\n0 passed, 0 failed\n" });
  });

  it("a static-check error fails only the test pipeline it is in, rendered with its location (cli.md §5.1)", () => {
    file("typed/test_t.harn", 'pipeline test_fine() {\n  assert(true)\n}\npipeline test_typed() {\n  let _a: int = "s"\n}\n');
    const r = harn(["test", "typed"]);
    expect(r.code).toBe(1);
    const abs = realpathSync(join(cli.dir, "typed/test_t.harn"));
    expect(r.stdout).toContain(`  PASS  test_fine [${abs}]`);
    expect(r.stdout).toContain(`  FAIL  test_typed [${abs}]\n        error: '_a' declared as int, but assigned string\n          --> ${abs}:5:17\n`);
  });

  it("--parallel runs the files concurrently and reports exactly as a sequential run does", () => {
    for (const i of [1, 2, 3]) {
      file(`par/test_${i}.harn`, `pipeline test_a${i}() {\n  sleep(50ms)\n  println("out ${i}")\n}\npipeline test_b${i}() {\n  assert(${i} < 3)\n}\n`);
    }
    const untimed = (s: string) => s.replace(/\(\d+ ms\)/g, "(T)");
    const seq = harn(["test", "par"]);
    const par = harn(["test", "par", "--parallel"]);
    expect(par.code).toBe(1);
    expect(untimed(par.stdout)).toBe(untimed(seq.stdout));
    expect(par.stdout).toMatch(/out 1\n {2}PASS {2}test_a1 .*\n {2}PASS {2}test_b1 .*\nout 2\n/);
  });

  it("reports a missing path", () => {
    expect(harn(["test", "no/such/dir"])).toMatchObject({ code: 1, stderr: "Path not found: no/such/dir\n" });
  });
});
