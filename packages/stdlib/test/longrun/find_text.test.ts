import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { display, equals, HDict, type Value } from "@harn/vm";
import { makeSearcher } from "../../src/longrun/search_core";
import { searchFiles } from "../../src/longrun/search_pool";
import { caught, tempDir, testRuntime, type TestRuntime } from "./helpers";

let dir: ReturnType<typeof tempDir>;
let t: TestRuntime;

beforeEach(() => {
  dir = tempDir();
  const r = dir.path;
  mkdirSync(join(r, "src", "deep"), { recursive: true });
  mkdirSync(join(r, ".git"));
  writeFileSync(join(r, "src", "a.ts"), "const todo = 1;\n// TODO: fix\nlet x = 'TODO';\n");
  writeFileSync(join(r, "src", "deep", "b.md"), "# Notes\r\nsome todo here\r\n");
  writeFileSync(join(r, "src.txt"), "héllo TODO wörld\nlast line without newline TODO");
  writeFileSync(join(r, ".git", "config"), "TODO hidden\n");
  writeFileSync(join(r, ".env"), "TODO=hidden\n");
  writeFileSync(join(r, "bin.dat"), Buffer.concat([Buffer.from("TODO"), Buffer.from([0, 1, 2]), Buffer.from("TODO\n")]));
  t = testRuntime(r);
});
afterEach(async () => {
  await t.rt.shutdown();
  dir.remove();
});

type Match = { path: string; line: number; column: number; text: string; before?: Value; after?: Value };
async function find(...args: Value[]): Promise<{ matches: Match[]; truncated: boolean }> {
  const r = (await t.call("find_text", args)) as HDict;
  expect(r.keys()).toEqual(["matches", "truncated"]);
  const matches = (r.get("matches") as HDict[]).map((m) => ({
    path: (m.get("path") as string).slice(dir.path.length + 1),
    line: m.get("line") as number,
    column: m.get("column") as number,
    text: m.get("text") as string,
    ...(m.has("context_before") ? { before: m.get("context_before") } : {}),
    ...(m.has("context_after") ? { after: m.get("context_after") } : {}),
  }));
  return { matches, truncated: r.get("truncated") as boolean };
}

describe("find_text", () => {
  it("finds a literal line by line in walk order, skipping hidden and binary files", async () => {
    const r = await find("TODO");
    expect(r.truncated).toBe(false);
    expect(r.matches).toEqual([
      { path: "src/a.ts", line: 2, column: 4, text: "// TODO: fix" },
      { path: "src/a.ts", line: 3, column: 10, text: "let x = 'TODO';" },
      { path: "src.txt", line: 1, column: 7, text: "héllo TODO wörld" },
      { path: "src.txt", line: 2, column: 27, text: "last line without newline TODO" },
    ]);
  });

  it("searches hidden files with include_hidden, and honours case_insensitive and CRLF lines", async () => {
    const hidden = await find("TODO", HDict.of({ include_hidden: true }));
    expect(hidden.matches.map((m) => m.path)).toEqual([".env", ".git/config", "src/a.ts", "src/a.ts", "src.txt", "src.txt"]);
    const ci = await find("todo", HDict.of({ path: "src", case_insensitive: true }));
    expect(ci.matches.map((m) => [m.path, m.line, m.column, m.text])).toEqual([
      ["src/a.ts", 1, 7, "const todo = 1;"],
      ["src/a.ts", 2, 4, "// TODO: fix"],
      ["src/a.ts", 3, 10, "let x = 'TODO';"],
      ["src/deep/b.md", 2, 6, "some todo here"],
    ]);
  });

  it("takes the root first, and the pattern first only with an options dict", async () => {
    const root = await find(".", "TODO");
    expect(root.matches).toHaveLength(4);
    expect((await find("TODO", HDict.of({ path: "." }))).matches).toEqual(root.matches);
    expect((await find("TODO", HDict.of({ base: "src" }))).matches.map((m) => m.path)).toEqual(["src/a.ts", "src/a.ts"]);
  });

  it("treats the pattern as a regex unless fixed_strings is set", async () => {
    expect((await find("src", "^let .*=")).matches.map((m) => m.text)).toEqual(["let x = 'TODO';"]);
    expect((await find("src", "x = '", HDict.of({ fixed_strings: true }))).matches).toHaveLength(1);
    expect((await find(".", "TODO.", HDict.of({ fixed_strings: true }))).matches).toEqual([]);
    expect((await find("src", "(?:TO)DO:")).matches.map((m) => m.column)).toEqual([4]);
  });

  it("filters files by a glob on the root-relative path", async () => {
    expect((await find("TODO", HDict.of({ glob: "**/*.ts" }))).matches.map((m) => m.path)).toEqual(["src/a.ts", "src/a.ts"]);
    expect((await find("TODO", HDict.of({ glob: "*.txt" }))).matches.map((m) => m.path)).toEqual(["src.txt", "src.txt"]);
  });

  it("stops at max_matches and says truncated only when more matches exist", async () => {
    const capped = await find("TODO", HDict.of({ max_matches: 2 }));
    expect(capped.matches.map((m) => m.line)).toEqual([2, 3]);
    expect(capped.truncated).toBe(true);
    const exact = await find("TODO", HDict.of({ max_matches: 4 }));
    expect(exact.matches).toHaveLength(4);
    expect(exact.truncated).toBe(false);
  });

  it("adds context lines only when asked", async () => {
    const r = await find("src/a.ts", "fix", HDict.of({ context_before: 1, context_after: 5 }));
    expect(r.matches).toEqual([
      { path: "src/a.ts", line: 2, column: 10, text: "// TODO: fix", before: ["const todo = 1;"], after: ["let x = 'TODO';"] },
    ]);
    const first = await find("src/a.ts", "const", HDict.of({ context_before: 2 }));
    expect(first.matches[0]!.before).toEqual([]);
    expect(first.matches[0]!.after).toBeUndefined();
  });

  it("gives the same matches in the foreground as in the background, with and without context lines", async () => {
    const variants: Record<string, Value>[] = [{}, { context_before: 1 }, { context_after: 1 }, { context_before: 2, context_after: 1 }];
    for (const opts of variants) {
      const fg = ((await t.call("find_text", ["TODO", HDict.of(opts)])) as HDict).get("matches") as HDict[];
      const env = await t.call("find_text", ["TODO", HDict.of({ ...opts, long_running: true })]);
      const bg = (((await t.call("handle_wait", [env])) as HDict).get("result") as HDict).get("matches") as HDict[];
      expect(fg).toHaveLength(4);
      expect(fg.map((m) => m.keys())).toEqual(bg.map((m) => m.keys()));
      expect(display(fg)).toBe(display(bg));
      expect(equals(fg, bg)).toBe(true);
    }
  });

  it("searches a single file root", async () => {
    expect((await find("src.txt", "wörld")).matches).toEqual([{ path: "src.txt", line: 1, column: 12, text: "héllo TODO wörld" }]);
  });

  it("throws the specified errors", async () => {
    expect(await caught(() => t.call("find_text", [""]))).toBe("find_text: pattern is required");
    expect(await caught(() => t.call("find_text", ["(unclosed"]))).toMatch(/^find_text: invalid pattern: /);
    expect(await caught(() => t.call("find_text", [".", ""]))).toBe("find_text: pattern is required");
    expect(await caught(() => t.call("find_text", [".", "(unclosed"]))).toMatch(/^find_text: invalid pattern: /);
  });

  it("says what to write instead of finding nothing", async () => {
    const root = "find_text: the first argument is the root directory, the second the pattern";
    expect(await caught(() => t.call("find_text", ["TODO", "src"]))).toBe(root);
    expect(await caught(() => t.call("find_text", ["TODO", ".", HDict.of({ long_running: true })]))).toBe(root);
    // a file first, a directory second is the old order as well
    expect(await caught(() => t.call("find_text", ["src.txt", "src"]))).toBe(root);
    expect(await caught(() => t.call("find_text", ["no/such/dir", "TODO"]))).toBe("find_text: no such directory: no/such/dir");
    expect(await caught(() => t.call("find_text", ["TODO", HDict.of({ path: "nowhere", long_running: true })]))).toBe("find_text: no such directory: nowhere");
    expect(await caught(() => t.call("find_text", [42, "TODO"]))).toBe("find_text: the root directory must be a string, got int (find_text(root, pattern, options?))");
    expect(await caught(() => t.call("find_text", ["TODO", HDict.of({ path: 42 })]))).toBe("find_text: path must be a string, got int");
    // a pattern that happens to name a directory is fine after a real root
    expect((await find(".", "src")).matches).toEqual([]);
  });

  it("runs in the background with the find_text descriptor", async () => {
    const env = (await t.call("find_text", ["fix", HDict.of({ path: "src", long_running: true })])) as HDict;
    expect(env.get("operation")).toBe("find_text");
    expect(env.get("command_or_op_descriptor")).toBe(`find_text fix in ${join(dir.path, "src")}`);
    const payload = (await t.call("handle_wait", [env])) as HDict;
    const result = payload.get("result") as HDict;
    expect((result.get("matches") as HDict[]).map((m) => m.get("line"))).toEqual([2]);
    expect(result.get("truncated")).toBe(false);
  });
});

describe("the search pool", () => {
  it("gives the same results from worker threads as from the main thread, in file order", async () => {
    const files: string[] = [];
    for (let i = 0; i < 40; i++) {
      const f = join(dir.path, `f${String(i).padStart(2, "0")}.txt`);
      writeFileSync(f, i % 3 === 0 ? `x\nneedle ${i}\nneedle again\n` : "nothing\n");
      files.push(f);
    }
    const base = { files, contextBefore: 0, contextAfter: 1, signal: new AbortController().signal };
    for (const spec of [{ kind: "literal", text: "needle" } as const, { kind: "regex", source: "ne+dle \\d+", flags: "u" } as const]) {
      for (const maxMatches of [1000, 5]) {
        const main = await searchFiles({ ...base, spec, maxMatches, workerThreshold: Infinity });
        const workers = await searchFiles({ ...base, spec, maxMatches, workerThreshold: 0 });
        expect(workers).toEqual(main);
        expect(main!.files.length).toBeGreaterThan(0);
      }
    }
  });

  it("reads files longer than the probe whole, and skips long binary files, on both paths", async () => {
    const long = join(dir.path, "long.txt");
    writeFileSync(long, "x".repeat(100_000) + "\nneedle at the end\n");
    const bin = join(dir.path, "long.bin");
    writeFileSync(bin, Buffer.concat([Buffer.from([0]), Buffer.alloc(100_000, 0x61), Buffer.from("\nneedle\n")]));
    const base = { files: [long, bin], spec: { kind: "literal", text: "needle" } as const, contextBefore: 0, contextAfter: 0, maxMatches: 10, signal: new AbortController().signal };
    for (const workerThreshold of [Infinity, 0]) {
      const r = await searchFiles({ ...base, workerThreshold });
      expect(r!.files.map((f) => [f.file, f.matches.map((m) => [m.line, m.text])])).toEqual([[long, [[2, "needle at the end"]]]]);
    }
  });

  it("keeps a line matcher (a function) on the main thread whatever the threshold", async () => {
    const files = [join(dir.path, "src.txt"), join(dir.path, "src", "a.ts")];
    const started: unknown[] = [];
    const spec = { kind: "line", firstMatch: (line: string) => line.indexOf("TODO") } as const;
    const r = await searchFiles({ files, spec, contextBefore: 0, contextAfter: 0, maxMatches: 10, signal: new AbortController().signal, workerThreshold: 0, onWorker: (w) => started.push(w) });
    expect(started).toEqual([]);
    expect(r!.files.map((f) => [f.file.slice(dir.path.length), f.matches.map((m) => [m.line, m.column])])).toEqual([
      ["/src.txt", [[1, 7], [2, 27]]],
      ["/src/a.ts", [[2, 4], [3, 10]]],
    ]);
  });

  it("resolves to null when aborted", async () => {
    const ac = new AbortController();
    const p = searchFiles({ files: [join(dir.path, "src.txt")], spec: { kind: "literal", text: "x" }, contextBefore: 0, contextAfter: 0, maxMatches: 10, signal: ac.signal, workerThreshold: 0 });
    ac.abort();
    expect(await p).toBeNull();
  });
});

describe("makeSearcher", () => {
  const lit = (text: string, content: string) => makeSearcher({ kind: "literal", text }, 0, 0)(Buffer.from(content), 100);
  it("reports one match per line at its first occurrence, with code-point columns", () => {
    expect(lit("a", "aaa\nba\n")).toEqual([
      { line: 1, column: 1, text: "aaa" },
      { line: 2, column: 2, text: "ba" },
    ]);
    expect(lit("😀", "x😀y😀\n")).toEqual([{ line: 1, column: 2, text: "x😀y😀" }]);
  });
  it("counts lines correctly across many non-matching lines and at the very start", () => {
    expect(lit("z", "z\n\n\n\nz")).toEqual([
      { line: 1, column: 1, text: "z" },
      { line: 5, column: 1, text: "z" },
    ]);
  });
  it("skips binary content", () => {
    expect(lit("a", "a\u0000")).toBeNull();
  });
});
