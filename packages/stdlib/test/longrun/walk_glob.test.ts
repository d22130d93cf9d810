import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { display, equals, HDict, type Value } from "@harn/vm";
import { longRunState } from "../../src/longrun/state";
import { caught, tempDir, testRuntime, type TestRuntime } from "./helpers";

let dir: ReturnType<typeof tempDir>;
let t: TestRuntime;

/** root/{b.txt, a/{x.md, .hidden}, a.txt, c/d/e.md} */
function makeTree(root: string) {
  mkdirSync(join(root, "a"));
  mkdirSync(join(root, "c", "d"), { recursive: true });
  writeFileSync(join(root, "b.txt"), "b");
  writeFileSync(join(root, "a.txt"), "a");
  writeFileSync(join(root, "a", "x.md"), "x");
  writeFileSync(join(root, "a", ".hidden"), "h");
  writeFileSync(join(root, "c", "d", "e.md"), "e");
}

beforeEach(() => {
  dir = tempDir();
  makeTree(dir.path);
  t = testRuntime(dir.path);
});
afterEach(async () => {
  await t.rt.shutdown();
  dir.remove();
});

const get = (v: Value, k: string) => (v as HDict).get(k);
const rel = (p: Value) => (p as string).slice(dir.path.length);

describe("walk_dir", () => {
  it("lists the root and every entry in pre-order with sorted siblings", async () => {
    const entries = (await t.call("walk_dir", [dir.path])) as HDict[];
    expect(entries.map((e) => [rel(e.get("path")), e.get("depth"), e.get("is_dir"), e.get("is_file")])).toEqual([
      ["", 0, true, false],
      ["/a", 1, true, false],
      ["/a/.hidden", 2, false, true],
      ["/a/x.md", 2, false, true],
      ["/a.txt", 1, false, true],
      ["/b.txt", 1, false, true],
      ["/c", 1, true, false],
      ["/c/d", 2, true, false],
      ["/c/d/e.md", 3, false, true],
    ]);
    expect(entries[0]!.keys()).toEqual(["depth", "is_dir", "is_file", "path"]);
  });

  it("resolves relative paths against the run's directory", async () => {
    const entries = (await t.call("walk_dir", ["c"])) as HDict[];
    expect(entries.map((e) => e.get("path"))).toEqual([join(dir.path, "c"), join(dir.path, "c/d"), join(dir.path, "c/d/e.md")]);
  });

  it("honours max_depth (0 = only the root) and ignores negative or mistyped values", async () => {
    const depth = async (opts: Value) => ((await t.call("walk_dir", [dir.path, opts])) as HDict[]).length;
    expect(await depth(HDict.of({ max_depth: 0 }))).toBe(1);
    expect(await depth(HDict.of({ max_depth: 1 }))).toBe(5);
    expect(await depth(HDict.of({ max_depth: -1 }))).toBe(9);
    expect(await depth(HDict.of({ max_depth: "2" }))).toBe(9);
    expect(await depth("not a dict")).toBe(9);
  });

  it("joins paths under the filesystem root without doubling the slash, in both modes", async () => {
    const fg = ((await t.call("walk_dir", ["/", HDict.of({ max_depth: 1 })])) as HDict[]).map((e) => e.get("path") as string);
    expect(fg[0]).toBe("/");
    expect(fg.length).toBeGreaterThan(1);
    for (const p of fg.slice(1)) expect(p).toMatch(/^\/[^/]+$/);
    const env = await t.call("walk_dir", ["/", HDict.of({ max_depth: 1, long_running: true })]);
    const bg = (((await t.call("handle_wait", [env])) as HDict).get("result") as HDict[]).map((e) => e.get("path"));
    expect(bg).toEqual(fg);
  });

  it("gives [] for a missing root and one entry for a file root", async () => {
    expect(await t.call("walk_dir", [join(dir.path, "missing")])).toEqual([]);
    const one = (await t.call("walk_dir", ["a.txt"])) as HDict[];
    expect(one.map((e) => [e.get("depth"), e.get("is_file")])).toEqual([[0, true]]);
  });

  it("reports unfollowed symlinks as neither file nor dir, and follows them on request without looping", async () => {
    symlinkSync(join(dir.path, "c"), join(dir.path, "link"));
    symlinkSync(dir.path, join(dir.path, "c", "loop"));
    const plain = (await t.call("walk_dir", [dir.path])) as HDict[];
    const link = plain.find((e) => rel(e.get("path")) === "/link")!;
    expect([link.get("is_dir"), link.get("is_file")]).toEqual([false, false]);
    expect(plain.some((e) => rel(e.get("path")).startsWith("/link/"))).toBe(false);

    const followed = (await t.call("walk_dir", [dir.path, HDict.of({ follow_symlinks: true })])) as HDict[];
    const paths = followed.map((e) => rel(e.get("path")));
    expect(paths).toContain("/link/d/e.md");
    expect(followed.find((e) => rel(e.get("path")) === "/link")!.get("is_dir")).toBe(true);
    // c/loop points back at the root: a loop, reported as an unreadable entry
    expect(paths).not.toContain("/c/loop");
  });

  it("lists the same entries in the background (async listing) as in the foreground (sliced listing)", async () => {
    symlinkSync(join(dir.path, "c"), join(dir.path, "link"));
    symlinkSync(dir.path, join(dir.path, "c", "loop"));
    symlinkSync(join(dir.path, "nowhere"), join(dir.path, "broken"));
    for (let i = 0; i < 30; i++) mkdirSync(join(dir.path, "many", `d${i}`, "x"), { recursive: true });
    const variants: Record<string, Value>[] = [{}, { follow_symlinks: true }, { max_depth: 2 }, { follow_symlinks: true, max_depth: 3 }];
    for (const opts of variants) {
      const fg = await t.call("walk_dir", [dir.path, HDict.of(opts)]);
      const env = await t.call("walk_dir", [dir.path, HDict.of({ ...opts, long_running: true })]);
      const bg = (await t.call("handle_wait", [env])) as HDict;
      // as Harn values (a foreground entry is a compact record, a background
      // one is built from JSON: equal dicts, different JS objects)
      expect(display(bg.get("result"))).toBe(display(fg));
      expect(equals(bg.get("result"), fg)).toBe(true);
    }
  });

  it("[extension] hidden, include, exclude and max_results, in both modes", async () => {
    const both = async (opts: Record<string, Value>) => {
      const fg = ((await t.call("walk_dir", [dir.path, HDict.of(opts)])) as HDict[]).map((e) => rel(e.get("path")));
      const env = await t.call("walk_dir", [dir.path, HDict.of({ ...opts, long_running: true })]);
      const bg = (((await t.call("handle_wait", [env])) as HDict).get("result") as HDict[]).map((e) => rel(e.get("path")));
      expect(bg).toEqual(fg);
      return fg;
    };
    expect(await both({ hidden: false })).not.toContain("/a/.hidden");
    expect(await both({ hidden: true })).toContain("/a/.hidden");
    expect(await both({ include: "**/*.md" })).toEqual(["", "/a/x.md", "/c/d/e.md"]);
    expect(await both({ include: ["*.txt", "c"] })).toEqual(["", "/a.txt", "/b.txt", "/c"]);
    expect(await both({ exclude: ["a", "c/d"] })).toEqual(["", "/a.txt", "/b.txt", "/c"]);
    expect(await both({ exclude: "**/*.md", include: "**/*.*" })).toEqual(["", "/a/.hidden", "/a.txt", "/b.txt"]);
    expect(await both({ max_results: 3 })).toEqual(["", "/a", "/a/.hidden"]);
    expect(await both({ max_results: 0 })).toEqual([]);
    expect(await caught(() => t.call("walk_dir", [dir.path, HDict.of({ exclude: ["[x"] })]))).toBe(
      "walk_dir: invalid exclude pattern: error parsing glob '[x': unclosed character class; missing ']'",
    );
  });

  it("throws the reference's error for an empty path", async () => {
    expect(await caught(() => t.call("walk_dir", [""]))).toBe("walk_dir: root path is required");
    expect(await caught(() => t.call("walk_dir", []))).toBe("walk_dir: root path is required");
  });

  it("returns a handle envelope at once and queues the payload with the keys in order", async () => {
    const env = (await t.call("walk_dir", [dir.path, HDict.of({ long_running: true, max_depth: 1 })])) as HDict;
    expect(env.keys()).toEqual(["command_or_op_descriptor", "duration_ms", "ended_at", "handle_id", "operation", "started_at", "status"]);
    expect(get(env, "status")).toBe("running");
    expect(get(env, "operation")).toBe("walk_dir");
    expect(get(env, "command_or_op_descriptor")).toBe(`walk_dir ${dir.path}`);
    expect(get(env, "ended_at")).toBeNull();
    expect(get(env, "duration_ms")).toBe(0);
    expect(get(env, "handle_id")).toMatch(/^hso-[0-9a-f]+-\d+$/);
    expect(get(env, "started_at")).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

    const payload = (await t.call("handle_wait", [env])) as HDict;
    expect(get(payload, "status")).toBe("completed");
    expect((get(payload, "result") as HDict[]).length).toBe(5);
    expect(typeof get(payload, "duration_ms")).toBe("number");
  });

  it("queues the content as compact JSON with the payload keys in contract order", async () => {
    const queued = new Promise((r) => longRunState(t.rt).onFeedback(r));
    await t.call("walk_dir", [dir.path, HDict.of({ background: true, max_depth: 0 })]);
    await queued;
    const [item] = longRunState(t.rt).pending();
    const keys = Object.keys(JSON.parse(item!.content));
    expect(keys).toEqual(["handle_id", "operation", "command_or_op_descriptor", "started_at", "ended_at", "duration_ms", "status", "result"]);
    expect(JSON.parse(item!.content).result).toEqual([{ depth: 0, is_dir: true, is_file: false, path: dir.path }]);
    expect(JSON.stringify(JSON.parse(item!.content))).toBe(item!.content);
  });

  it("long_running wins over background; non-bool flags count as absent", async () => {
    const sync = await t.call("walk_dir", [dir.path, HDict.of({ long_running: false, background: true, max_depth: 0 })]);
    expect(Array.isArray(sync)).toBe(true);
    const alsoSync = await t.call("walk_dir", [dir.path, HDict.of({ long_running: "yes", max_depth: 0 })]);
    expect(Array.isArray(alsoSync)).toBe(true);
  });

  it("a background walk leaves the event loop running while it works", async () => {
    // 400 directories: at least 400 / 32 listing round trips, each a loop turn
    for (let i = 0; i < 200; i++) mkdirSync(join(dir.path, "wide", `d${i}`, "x"), { recursive: true });
    const state = longRunState(t.rt);
    let turns = 0;
    let done = false;
    const finished = new Promise<void>((resolve) => state.onFeedback(() => ((done = true), resolve())));
    const spin = () => {
      if (done) return;
      turns++;
      setImmediate(spin);
    };
    await t.call("walk_dir", [dir.path, HDict.of({ long_running: true })]);
    setImmediate(spin);
    await finished;
    // a walk that blocked would let the loop turn only while the root is stat'ed
    expect(turns).toBeGreaterThan(10);
  });

  it("a cancelled walk never queues a payload", async () => {
    const env = (await t.call("walk_dir", [dir.path, HDict.of({ long_running: true })])) as HDict;
    const r = (await t.call("cancel_handle", [env])) as HDict;
    expect(display(r)).toBe(`{cancelled: true, handle_id: ${get(env, "handle_id")}}`);
    expect(get((await t.call("cancel_handle", [get(env, "handle_id")])) as HDict, "cancelled")).toBe(false);
    await new Promise((r) => setTimeout(r, 50));
    expect(longRunState(t.rt).pending()).toEqual([]);
    expect(await t.call("handle_status", [env])).toBe("cancelled");
    expect(await t.call("handle_wait", [env])).toBeNull();
  });

  it("a walk cancelled with listings in flight drains its reads and leaves no timers, reads or payload behind", async () => {
    for (let i = 0; i < 200; i++) mkdirSync(join(dir.path, "wide", `d${i}`, "x"), { recursive: true });
    const active = (kind: string) => process.getActiveResourcesInfo().filter((r) => r === kind).length;
    const nextTurn = () => new Promise((r) => setImmediate(r));
    const timersBefore = active("Timeout");
    const env = (await t.call("walk_dir", [dir.path, HDict.of({ long_running: true })])) as HDict;
    // past the root stat and the root listing: many listings in flight
    while (active("FSReqCallback") < 2) await nextTurn();
    expect(get((await t.call("cancel_handle", [env])) as HDict, "cancelled")).toBe(true);
    while (active("FSReqCallback") > 0) await nextTurn(); // the reads already issued drain
    for (let i = 0; i < 5; i++) {
      await nextTurn();
      expect(active("FSReqCallback")).toBe(0);
    }
    expect(active("Timeout")).toBeLessThanOrEqual(timersBefore);
    expect(longRunState(t.rt).pending()).toEqual([]);
  });

  it("the synchronous form stops when the calling task is cancelled", async () => {
    const ac = new AbortController();
    ac.abort("cancelled by test");
    await expect(t.call("walk_dir", [dir.path], { signal: ac.signal })).rejects.toBe("cancelled by test");
  });
});

describe("glob", () => {
  const globRel = async (pattern: string, ...rest: Value[]) => ((await t.call("glob", [pattern, ...rest])) as string[]).map(rel);

  it("matches root-relative paths where * crosses / and returns sorted full paths", async () => {
    expect(await globRel("*.md", dir.path)).toEqual(["/a/x.md", "/c/d/e.md"]);
    expect(await globRel("**/*.md", dir.path)).toEqual(["/a/x.md", "/c/d/e.md"]);
    expect(await globRel("*.txt", HDict.of({ base: dir.path }))).toEqual(["/a.txt", "/b.txt"]);
  });

  it("lets **/x match a top-level x, matches directories, and includes hidden entries", async () => {
    expect(await globRel("**/a.txt", dir.path)).toEqual(["/a.txt"]);
    expect(await globRel("c*", dir.path)).toEqual(["/c", "/c/d", "/c/d/e.md"]);
    expect(await globRel("**/.hidden", dir.path)).toEqual(["/a/.hidden"]);
  });

  it("supports classes, negated classes, alternation; is case-sensitive", async () => {
    expect(await globRel("[ab].txt", dir.path)).toEqual(["/a.txt", "/b.txt"]);
    expect(await globRel("[!a].txt", dir.path)).toEqual(["/b.txt"]);
    expect(await globRel("{a,c/d}/*.md", dir.path)).toEqual(["/a/x.md", "/c/d/e.md"]);
    expect(await globRel("*.TXT", dir.path)).toEqual([]);
  });

  it("treats a trailing /** as 'below', not the directory itself", async () => {
    expect(await globRel("c/**", dir.path)).toEqual(["/c/d", "/c/d/e.md"]);
    expect(await globRel("c/**/*.md", dir.path)).toEqual(["/c/d/e.md"]);
  });

  it("starts below a literal directory prefix without changing what matches", async () => {
    expect(await globRel("c/d/*.md", dir.path)).toEqual(["/c/d/e.md"]);
    expect(await globRel("c/d*", dir.path)).toEqual(["/c/d", "/c/d/e.md"]);
    expect(await globRel("c/d", dir.path)).toEqual(["/c/d"]);
    expect(await globRel("a/x.md", dir.path)).toEqual(["/a/x.md"]);
    expect(await globRel("c/missing/*", dir.path)).toEqual([]);
    expect(await globRel("b.txt/*", dir.path)).toEqual([]);
    // no symlink is followed below the base, so nothing lies below a linked prefix
    symlinkSync(join(dir.path, "c"), join(dir.path, "link-to-c"));
    expect(await globRel("link-to-c/**", dir.path)).toEqual([]);
    expect(await globRel("link-to-c/d/*.md", dir.path)).toEqual([]);
    expect(await globRel("link-to-c*", dir.path)).toEqual(["/link-to-c"]);
    const bg = (await t.call("glob", ["c/**", dir.path, HDict.of({ long_running: true })])) as HDict;
    expect(bg.get("status")).toBe("running");
  });

  it("treats parentheses, pipes and a leading ! literally", async () => {
    writeFileSync(join(dir.path, "(x)|y"), "");
    writeFileSync(join(dir.path, "!z"), "");
    expect(await globRel("(x)|y", dir.path)).toEqual(["/(x)|y"]);
    expect(await globRel("!z", dir.path)).toEqual(["/!z"]);
  });

  it("defaults the base to the run directory; nil and empty bases mean '.'", async () => {
    expect(await globRel("*.txt")).toEqual(["/a.txt", "/b.txt"]);
    expect(await globRel("*.txt", null)).toEqual(["/a.txt", "/b.txt"]);
    expect(await globRel("*.txt", "")).toEqual(["/a.txt", "/b.txt"]);
    expect(await globRel("*.md", "c")).toEqual(["/c/d/e.md"]);
    expect(await t.call("glob", ["*", "missing-dir"])).toEqual([]);
  });

  it("throws the reference's errors, in both modes, at the call site", async () => {
    expect(await caught(() => t.call("glob", [""]))).toBe("glob: pattern is required");
    expect(await caught(() => t.call("glob", ["[abc"]))).toBe("glob: error parsing glob '[abc': unclosed character class; missing ']'");
    expect(await caught(() => t.call("glob", ["{a,b", HDict.of({ long_running: true })]))).toBe(
      "glob: error parsing glob '{a,b': unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)",
    );
    expect(await caught(() => t.call("glob", ["a}"]))).toMatch(/^glob: error parsing glob 'a}': unopened alternate group/);
    expect(await caught(() => t.call("glob", ["a\\"]))).toBe("glob: error parsing glob 'a\\': dangling '\\'");
    expect(await caught(() => t.call("glob", ["[z-a]"]))).toBe("glob: error parsing glob '[z-a]': invalid range; 'z' > 'a'");
  });

  it("sorts by code unit whatever order the directories were listed in, and agrees with walk_dir", async () => {
    // names whose full-path order differs from a pre-order walk ("a.x" < "a/b"), non-ASCII and astral names
    for (const d of ["a-", "a.x", "é", "z", "\u{1F600}", "Z"]) mkdirSync(join(dir.path, d, "in"), { recursive: true });
    for (let i = 0; i < 120; i++) mkdirSync(join(dir.path, "many", `d${(i * 37) % 120}`, "sub"), { recursive: true });
    for (const f of ["a-/in/n.md", "a.x/in/n.md", "é/in/ü.md", "\u{1F600}/in/n.md", "Z/n.md", "many/d7/sub/k.md", "many/d70/k.md"]) writeFileSync(join(dir.path, f), "");
    const got = (await t.call("glob", ["**/*.md", dir.path])) as string[];
    const walked = ((await t.call("walk_dir", [dir.path])) as HDict[]).map((e) => e.get("path") as string).filter((p) => p.endsWith(".md"));
    const byCodeUnit = [...walked].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(got).toEqual(byCodeUnit);
    expect(got.map(rel)).toContain("/a.x/in/n.md");
    expect(got.indexOf(join(dir.path, "a.x/in/n.md"))).toBeLessThan(got.indexOf(join(dir.path, "a/x.md")));
  });

  it("lists through a symlinked base but never follows symlinks below it", async () => {
    symlinkSync(join(dir.path, "c"), join(dir.path, "link-to-c"));
    symlinkSync(dir.path, join(dir.path, "c", "loop"));
    expect(await globRel("**/*.md", dir.path)).toEqual(["/a/x.md", "/c/d/e.md"]);
    expect(await globRel("link-to-c*", dir.path)).toEqual(["/link-to-c"]);
    const viaLink = (await t.call("glob", ["**/*.md", join(dir.path, "link-to-c")])) as string[];
    expect(viaLink).toEqual([join(dir.path, "link-to-c", "d", "e.md")]);
    expect(await t.call("glob", ["*", join(dir.path, "b.txt")])).toEqual([]);
  });

  it("a glob cancelled with listings in flight drains its reads and queues nothing", async () => {
    for (let i = 0; i < 200; i++) mkdirSync(join(dir.path, "wide", `d${i}`, "x"), { recursive: true });
    const active = (kind: string) => process.getActiveResourcesInfo().filter((r) => r === kind).length;
    const nextTurn = () => new Promise((r) => setImmediate(r));
    const env = (await t.call("glob", ["**/*.md", dir.path, HDict.of({ long_running: true })])) as HDict;
    while (active("FSReqCallback") < 2) await nextTurn();
    expect(get((await t.call("cancel_handle", [env])) as HDict, "cancelled")).toBe(true);
    while (active("FSReqCallback") > 0) await nextTurn();
    await nextTurn();
    expect(longRunState(t.rt).pending()).toEqual([]);
    expect(await t.call("handle_status", [env])).toBe("cancelled");
  });

  it("the synchronous form stops when the calling task is cancelled", async () => {
    const ac = new AbortController();
    ac.abort("cancelled by test");
    await expect(t.call("glob", ["**/*.md", dir.path], { signal: ac.signal })).rejects.toBe("cancelled by test");
    const late = new AbortController();
    const pending = t.call("glob", ["**/*.md", dir.path], { signal: late.signal });
    late.abort("cancelled while listing");
    await expect(pending).rejects.toBe("cancelled while listing");
  });

  it("runs in the background with the positional and the dict form", async () => {
    const a = (await t.call("glob", ["*.md", dir.path, HDict.of({ long_running: true })])) as HDict;
    const b = (await t.call("glob", ["*.txt", HDict.of({ base: dir.path, background: true })])) as HDict;
    expect(get(a, "command_or_op_descriptor")).toBe(`glob *.md in ${dir.path}`);
    expect(get(a, "operation")).toBe("glob");
    expect((get((await t.call("handle_wait", [a])) as HDict, "result") as string[]).map(rel)).toEqual(["/a/x.md", "/c/d/e.md"]);
    expect((get((await t.call("handle_wait", [b])) as HDict, "result") as string[]).map(rel)).toEqual(["/a.txt", "/b.txt"]);
  });
});
