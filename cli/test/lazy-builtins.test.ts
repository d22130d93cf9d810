/**
 * `harn run` with the stdlib's lazy builtin groups, end to end: builtins
 * whose implementation loads on first use behave like any other — at the
 * top level of imported modules (which must not suspend), when reached only
 * dynamically, under --deny/--allow and in "did you mean" suggestions — and
 * the code they load is kept out of what every `harn run` parses at
 * start-up (checked on the bundle's own source maps).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const bin = join(root, "cli/bin/harn.mjs");
let dir: string;

function harn(args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  delete env.FORCE_COLOR;
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: dir, encoding: "utf8", env, timeout: 50_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function file(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return name;
}

beforeAll(() => {
  const build = spawnSync(process.execPath, [join(root, "cli/build.mjs")], { encoding: "utf8" });
  expect(build.status, build.stderr).toBe(0);
  dir = mkdtempSync(join(tmpdir(), "harn-lazy-"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

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

/** Input files of a chunk, from its source map. */
function sourcesOf(chunk: string): string[] {
  const map = JSON.parse(readFileSync(`${chunk}.map`, "utf8")) as { sources: string[] };
  return map.sources.map((s) => resolve(dirname(chunk), s));
}

/** Relative chunk paths a bundled file imports, statically or dynamically. */
function importsOf(path: string, dynamic: boolean): string[] {
  const text = readFileSync(path, "utf8");
  const found: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s[^;]*?from\s*"(\.\/[^"]+\.mjs)"|^import\s*"(\.\/[^"]+\.mjs)"/gm)) {
    found.push(join(dirname(path), m[1] ?? m[2]!));
  }
  if (dynamic) for (const m of text.matchAll(/import\("(\.\/[^"]+\.mjs)"\)/g)) found.push(join(dirname(path), m[1]!));
  return found;
}

/** Every chunk `harn run` loads before running anything: the host chunk of
 * the current build (found from the entry, since chunks of earlier builds
 * are kept for `harn` processes still running them) and, transitively, its
 * static imports. */
function eagerChunks(): string[] {
  const entry = join(root, "cli/dist/harn.mjs");
  const reachable = new Set<string>();
  const walk = (path: string) => {
    if (reachable.has(path)) return;
    reachable.add(path);
    for (const next of importsOf(path, true)) walk(next);
  };
  walk(entry);
  const hosts = [...reachable].filter((p) => /\/host-[A-Z0-9]+\.mjs$/.test(p));
  expect(hosts).toHaveLength(1);
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const next of importsOf(path, false)) visit(next);
  };
  visit(hosts[0]!);
  return [...seen];
}

describe("the start-up bundle", () => {
  it("leaves every lazy group's implementation out of what `harn run` loads up front", () => {
    const eager = new Set(eagerChunks().flatMap(sourcesOf).map((s) => s.slice(root.length + 1)));
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
