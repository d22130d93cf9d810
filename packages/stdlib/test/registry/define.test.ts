/**
 * The builtin registry (src/registry/define.ts): one definition per name,
 * checked when a runtime installs the stdlib.
 */
import { readFileSync } from "node:fs";
import { Runtime, type Value } from "@harn/vm";
import { describe, expect, it } from "vitest";
import { builtinModule, installModule, installStdlib, preloadBuiltins } from "../../src/index";
import { generateFromRegistry } from "../../src/registry/generate";
import { rig } from "../core/harness";

function stdlibRuntime(): Runtime {
  const sink = { write: () => undefined };
  const rt = new Runtime({ stdout: sink, stderr: sink, cwd: process.cwd(), env: {} });
  installStdlib(rt);
  return rt;
}

const answer = (v: Value) => builtinModule("test/answer", (def) => def("println", () => v, { replaces: true }));

describe("the builtin registry", () => {
  it("refuses a second definition of a name, naming both modules", () => {
    const rt = stdlibRuntime();
    const again = builtinModule("test/again", (def) => def("println", () => null));
    expect(() => installModule(rt, again)).toThrow("builtin `println` is defined twice, by core/output and by test/again");
  });

  it("refuses a name a lazy group will define, before the group has loaded", () => {
    const rt = stdlibRuntime();
    const clash = builtinModule("test/clash", (def) => def("http_get", () => null));
    expect(() => installModule(rt, clash)).toThrow("builtin `http_get` is defined twice, by lazy:http and by test/clash");
  });

  it("lets a definition that says `replaces` take the place of the earlier one", () => {
    const r = rig();
    installModule(r.rt, answer(42));
    expect(r.call("println", "x")).toBe(42);
  });

  it("refuses `replaces` when nothing was defined before", () => {
    const rt = stdlibRuntime();
    const orphan = builtinModule("test/orphan", (def) => def("no_such_builtin_yet", () => null, { replaces: true }));
    expect(() => installModule(rt, orphan)).toThrow("builtin `no_such_builtin_yet` of test/orphan says `replaces: true` but no module installed before it defines `no_such_builtin_yet`");
  });

  it("keeps each runtime's definitions apart", () => {
    const a = rig();
    installModule(a.rt, answer(1));
    const b = rig();
    installModule(b.rt, answer(2));
    expect([a.call("println", "x"), b.call("println", "x")]).toEqual([1, 2]);
  });

  it("lets a lazy group's modules replace its own stubs when it loads", async () => {
    const rt = stdlibRuntime();
    const stub = rt.builtins.get("regex_match");
    await preloadBuiltins(rt, ["regex_match"]);
    expect(rt.builtins.get("regex_match")).not.toBe(stub);
  });
});

describe("what the build generates from it", () => {
  const generated = generateFromRegistry();

  it("writes the lazy groups' names as committed (`pnpm build` regenerates them)", () => {
    expect(generated.groupNamesSource).toBe(readFileSync(new URL("../../src/lazy/group-names.ts", import.meta.url), "utf8"));
  });

  it("describes every public builtin once, with its group and whether it can run long", () => {
    const rows = new Map(generated.table.map((r) => [r.name, r]));
    expect(rows.size).toBe(generated.table.length);
    expect(rows.get("walk_dir")).toMatchObject({ group: "longrun", module: "longrun/tree", longRunning: true });
    expect(rows.get("channel")).toMatchObject({ group: "core", module: "core/channels", longRunning: false });
    expect([...rows.keys()].filter((n) => n.startsWith("__"))).toEqual([]);
    expect(generated.knowledge.builtins).toContain("__std_math_mean");
  });

  it("has a signature and a doc for every public builtin (each domain's docs.ts)", () => {
    const undocumented = generated.table.filter((r) => r.signature === null || r.doc === null).map((r) => `${r.module}: ${r.name}`);
    expect(undocumented).toEqual([]);
    expect(generated.table.find((r) => r.name === "sleep")).toMatchObject({ signature: "sleep(d)", group: "core" });
  });
});
