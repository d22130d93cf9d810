/**
 * `harn fmt` end to end (spec/cli.md §6): a bundled `harn` run as a child
 * process against files in a temp dir.
 */
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliSandbox } from "./cli-harness";

const cli = cliSandbox({ prefix: "harn-fmt-", harn: "one-file", colour: "inherit", timeout: 30_000 });
const { harn, file } = cli;

const read = (name: string) => readFileSync(join(cli.dir, name), "utf8");

const MESSY = "fn f(a,b){\nreturn a+b;}\n";
const TIDY = "fn f(a, b) {\n  return a + b\n}\n";

describe("harn fmt", () => {
  it("--check names the files that would change, writes nothing, exits 1", () => {
    file("c/a.harn", MESSY);
    file("c/b.harn", TIDY);
    const r = harn(["fmt", "--check", "c"]);
    expect(r).toMatchObject({ code: 1, stdout: "", stderr: `${join("c", "a.harn")}: would be reformatted\n` });
    expect(read("c/a.harn")).toBe(MESSY);
    expect(harn(["fmt", "--check", "c/b.harn"])).toMatchObject({ code: 0, stdout: "", stderr: "" });
  });

  it("rewrites changed files (keeping their mode, through symlinks), prints `formatted {path}`, and is then clean", () => {
    file("w/a.harn", MESSY);
    file("w/b.harn", TIDY);
    chmodSync(join(cli.dir, "w/a.harn"), 0o640);
    symlinkSync(join(cli.dir, "w/a.harn"), join(cli.dir, "w/link.harn"));
    const r = harn(["fmt", "w/link.harn", "w"]);
    expect(r).toMatchObject({ code: 0, stdout: "formatted w/link.harn\n", stderr: "" });
    expect(read("w/a.harn")).toBe(TIDY);
    expect(statSync(join(cli.dir, "w/a.harn")).mode & 0o777).toBe(0o640);
    expect(harn(["fmt", "--check", "w"])).toMatchObject({ code: 0, stderr: "" });
  });

  it("never enters node_modules or .git", () => {
    file("nm/node_modules/dep/x.harn", MESSY);
    file("nm/.git/hooks/y.harn", MESSY);
    file("nm/own.harn", MESSY);
    expect(harn(["fmt", "nm"])).toMatchObject({ code: 0, stdout: `formatted ${join("nm", "own.harn")}\n` });
    expect(read("nm/node_modules/dep/x.harn")).toBe(MESSY);
    // named as the target itself, it is formatted
    expect(harn(["fmt", "nm/node_modules/dep"])).toMatchObject({ code: 0, stdout: `formatted ${join("nm/node_modules/dep", "x.harn")}\n` });
  });

  it("leaves a file that is not UTF-8 untouched and says why, instead of writing U+FFFD over its bytes", () => {
    // Found by bench/fuzz: the file was read lossily, formatted, and written back.
    const bytes = Buffer.from('fn f() {\nprintln("a\xff")\n}\n', "latin1");
    mkdirSync(join(cli.dir, "u"), { recursive: true });
    writeFileSync(join(cli.dir, "u/bad.harn"), bytes);
    file("u/ok.harn", MESSY);
    const r = harn(["fmt", "u"]);
    expect(r).toMatchObject({ code: 1, stdout: `formatted ${join("u", "ok.harn")}\n`, stderr: `Error reading ${join("u", "bad.harn")}: stream did not contain valid UTF-8\n` });
    expect(readFileSync(join(cli.dir, "u/bad.harn"))).toEqual(bytes);
  });

  it("reports a file that does not parse as `{path}: {error}` and goes on with the others", () => {
    file("p/a_bad.harn", "let x = )\n");
    file("p/b.harn", MESSY);
    const r = harn(["fmt", "p"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`${join("p", "a_bad.harn")}: Expected expression, got ) at 1:9\n`);
    expect(r.stdout).toBe(`formatted ${join("p", "b.harn")}\n`);
    expect(read("p/a_bad.harn")).toBe("let x = )\n");
  });

  it("no .harn files: `No .harn files found`, exit 1; a missing target: `Error reading`; no target: usage error", () => {
    mkdirSync(join(cli.dir, "none"), { recursive: true });
    expect(harn(["fmt", "none"])).toMatchObject({ code: 1, stderr: "No .harn files found\n" });
    file("m/ok.harn", TIDY);
    const missing = harn(["fmt", "m", "nope.harn"]);
    expect(missing).toMatchObject({ code: 1, stderr: "Error reading nope.harn: No such file or directory (os error 2)\n" });
    expect(harn(["fmt"]).code).toBe(2);
    expect(harn(["fmt", "--line-width", "wide", "m"]).code).toBe(2);
  });

  it("takes [fmt] line_width from the nearest harn.toml of the first target; the flag wins; a broken harn.toml warns", () => {
    const long = "let v = call(alpha_alpha, beta_beta, gamma_gamma)\n";
    const wrapped = "let v = call(\n  alpha_alpha,\n  beta_beta,\n  gamma_gamma,\n)\n";
    file("cfg/.git/HEAD", "");
    file("cfg/harn.toml", "[fmt]\nline-width = 30\n");
    file("cfg/a.harn", long);
    expect(harn(["fmt", "--check", "--line-width", "100", "cfg/a.harn"]).code).toBe(0);
    expect(harn(["fmt", "cfg/a.harn"]).code).toBe(0);
    expect(read("cfg/a.harn")).toBe(wrapped);
    file("cfg/harn.toml", "[fmt\n");
    file("cfg/a.harn", long);
    const r = harn(["fmt", "--check", "cfg/a.harn"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^warning: .*harn\.toml.*\n$/);
  });

  it("--check exits 1 for files that need formatting and 2 when a file could not be checked", () => {
    file("k/a.harn", MESSY);
    expect(harn(["fmt", "--check", "k"]).code).toBe(1);
    file("k/b.harn", "let x = )\n");
    const r = harn(["fmt", "--check", "k"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("would be reformatted");
    expect(harn(["fmt", "--check", "k/nope.harn"]).code).toBe(2);
    mkdirSync(join(cli.dir, "k2"), { recursive: true });
    expect(harn(["fmt", "--check", "k2"])).toMatchObject({ code: 2, stderr: "No .harn files found\n" });
  });

  it("ends on a symlink loop and formats a file reached twice once", () => {
    file("loop/d/a.harn", MESSY);
    symlinkSync("..", join(cli.dir, "loop/d/up"));
    symlinkSync("a.harn", join(cli.dir, "loop/d/again.harn"));
    const r = harn(["fmt", "loop"]);
    expect(r).toMatchObject({ code: 0, stdout: `formatted ${join("loop", "d", "a.harn")}\n`, stderr: "" });
  });

  it("reads long flat chains (10,000 `+` terms, 2,000 `else if` arms) and still rejects 5,000 nested parentheses", () => {
    file("deep/chain.harn", `let x = ${Array.from({ length: 10_000 }, () => "1").join(" + ")}\nlog(x)\n`);
    const arms = Array.from({ length: 1999 }, (_, i) => ` else if v == ${i + 1} { log(${i}) }`).join("");
    file("deep/elif.harn", `let v = 3\nif v == 0 { log(0) }${arms} else { log(-1) }\n`);
    expect(harn(["fmt", "--check", "deep"])).toMatchObject({ code: 0, stderr: "" });
    file("deep/parens.harn", `log(${"(".repeat(5000)}1${")".repeat(5000)})\n`);
    const r = harn(["fmt", "--check", "deep/parens.harn"]);
    expect(r).toMatchObject({ code: 2, stderr: `${join("deep", "parens.harn")}: Nesting too deep at 1:503\n` });
  });
});
