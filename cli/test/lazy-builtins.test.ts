/**
 * `harn run` with the stdlib's lazy builtin groups, end to end: builtins
 * whose implementation loads on first use behave like any other — at the
 * top level of imported modules (which must not suspend), when reached only
 * dynamically, under --deny/--allow and in "did you mean" suggestions — and
 * the code they load is kept out of what every `harn run` loads at
 * start-up (the chunks the loader reports, mapped to their sources with the
 * build's metafile), and what it loads comes with a usable code cache.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliSandbox, harnEnv, repoRoot, runCli } from "./cli-harness";

const cli = cliSandbox({ prefix: "harn-lazy-", harn: "built", colour: "plain", timeout: 50_000 });
const { harn, file } = cli;

describe("lazily loaded builtins", () => {
  it("work at the top level of an imported module, which may not suspend", () => {
    file("dates.harn", 'let STAMP = duration_to_human(90s)\nlet WORDS = regex_split("a b", " ")\n');
    file("uses_dates.harn", 'import "dates"\nimport { render_words } from "words"\nprintln(STAMP)\nprintln(render_words())\n');
    file("words.harn", 'import "dates"\npub fn render_words() { return render_string("{{ w }}", {w: len(WORDS)}) }\n');
    expect(harn(["run", "uses_dates.harn"])).toEqual({ code: 0, stdout: "1m 30s\n2\n", stderr: "" });
  });

  it("work when reached only at run time, not by name in the script", () => {
    file("tpl.txt", "hello {{ who }}");
    file("dynamic.harn", 'println(host_call("template.render", {path: "tpl.txt", bindings: {who: "you"}}))\n');
    expect(harn(["run", "dynamic.harn"])).toEqual({ code: 0, stdout: "hello you\n", stderr: "" });
  });

  it("are denied by --deny and left out by --allow like eager ones", () => {
    file("deny.harn", 'println(regex_match("a", "a"))\n');
    const denied = harn(["run", "--deny", "regex_match", "deny.harn"]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain("Tool 'regex_match' is not permitted.");
    const allowed = harn(["run", "--allow", "println", "deny.harn"]);
    expect(allowed.code).toBe(1);
    expect(allowed.stderr).toContain("Tool 'regex_match' is not permitted.");
  });

  it("are suggested for a misspelled name", () => {
    file("typo.harn", 'println(regex_mtch("a", "a"))\n');
    const r = harn(["run", "typo.harn"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("did you mean `regex_match`?");
  });
});

type Metafile = { outputs: Record<string, { inputs: Record<string, unknown> }> };

/** The chunks `harn ARGS` loads (as the chunk loader reports them; by
 * default a `harn run` of an empty script), each with the sources bundled
 * into it (from the build's metafile) and whether V8 accepted its code
 * cache. */
function chunksLoadedByRun(args = ["run", "empty.harn"]): { chunk: string; sources: string[]; cache: string }[] {
  const meta = JSON.parse(readFileSync(join(repoRoot, "cli/dist/meta.json"), "utf8")) as Metafile;
  const sourcesByChunk = new Map(Object.entries(meta.outputs).map(([out, o]) => [basename(out), Object.keys(o.inputs)]));
  file("empty.harn", "");
  const r = runCli(cli.bin, args, { cwd: cli.dir, env: harnEnv("inherit", { HARN_CODE_CACHE: "report" }), timeout: 50_000 });
  expect(r.code, r.stderr).toBe(0);
  const loaded = [...r.stderr.matchAll(/^harn code cache: (\S+) (\w+)$/gm)].map((m) => ({ chunk: m[1]!, cache: m[2]! }));
  expect(loaded.length).toBeGreaterThan(1);
  return loaded.map((c) => ({ ...c, sources: sourcesByChunk.get(c.chunk) ?? [] }));
}

describe("the start-up bundle", () => {
  it("loads every chunk of `harn run` with the code cache the build produced", () => {
    for (const c of chunksLoadedByRun()) expect(`${c.chunk} ${c.cache}`).toBe(`${c.chunk} accepted`);
  });

  it("leaves every lazy group's implementation out of what `harn run` loads up front", () => {
    const eager = new Set(chunksLoadedByRun().flatMap((c) => c.sources));
    expect(eager).toContain("packages/stdlib/src/core/json.ts");
    for (const entry of [
      "packages/stdlib/src/agent/index.ts",
      "packages/stdlib/src/agent/loop/run.ts",
      "packages/stdlib/src/llm/client.ts",
      "packages/stdlib/src/http/builtins.ts",
      "packages/stdlib/src/longrun/index.ts",
      "packages/stdlib/src/template/builtins.ts",
      "packages/stdlib/src/time/builtins.ts",
      "packages/stdlib/src/regex/builtins.ts",
      "packages/stdlib/src/schema/builtins.ts",
      "packages/stdlib/src/formats/builtins.ts",
    ]) {
      expect(eager, entry).not.toContain(entry);
    }
  });
});

describe("commands that run no script", () => {
  // The evaluator and the stdlib are most of the bundle: a static import
  // of the stdlib's index from any command module (init.ts once imported
  // makeDirsSync so) loads them for every command, lint included.
  it.each([["--version"], ["lint", "empty.harn"], ["check", "empty.harn"], ["fmt", "--check", "empty.harn"]])("`harn %s` loads neither the evaluator nor the stdlib", (...args) => {
    const loaded = chunksLoadedByRun(args).flatMap((c) => c.sources);
    expect(loaded).toContain("cli/src/main.ts");
    for (const entry of ["packages/stdlib/src/index.ts", "packages/vm/src/index.ts", "packages/vm/src/eval/interpreter.ts", "cli/src/host.ts"]) {
      expect(loaded, entry).not.toContain(entry);
    }
  });
});

describe("a build replaced under a running harn", () => {
  it("says so when a lazily loaded chunk is gone, instead of a bare ENOENT", () => {
    // a private copy of the build, minus the chunk holding the regex builtins
    const copy = mkdtempSync(join(tmpdir(), "harn-lazy-dist-"));
    try {
      cpSync(join(repoRoot, "cli/dist"), copy, { recursive: true, filter: (src) => !src.endsWith(".v8") });
      const meta = JSON.parse(readFileSync(join(copy, "meta.json"), "utf8")) as Metafile;
      const regexChunk = Object.entries(meta.outputs).find(([, o]) => "packages/stdlib/src/regex/builtins.ts" in o.inputs)![0];
      rmSync(join(copy, "chunks", basename(regexChunk)));
      file("regex.harn", 'println(regex_match("a+", "caat"))\n');
      const r = runCli(join(copy, "harn.cjs"), ["run", "regex.harn"], { cwd: cli.dir, timeout: 50_000 });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("this harn's build was replaced while it ran");
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
