/**
 * Lazy builtin groups (src/lazy): the stub lists match what the groups
 * really install, `installStdlib` defines exactly what the eager install
 * defines (in the same order), and a stub behaves like the real builtin —
 * asynchronously only on a first call that has to load.
 */
import { parse } from "@harn/parser";
import { HarnError, isPromise, Runtime, type CallContext, type Value } from "@harn/vm";
import { describe, expect, it } from "vitest";
import { GROUP_MODULES, installStdlibEagerly } from "../../src/eager";
import { installModules } from "../../src/registry/define";
import { builtinNamesIn, installStdlib, isGroupLoaded, LAZY_GROUPS, preloadAllBuiltins, preloadBuiltins } from "../../src/index";

function runtime(): Runtime {
  const sink = { write: () => undefined };
  return new Runtime({ stdout: sink, stderr: sink, cwd: process.cwd(), env: {} });
}

function ctxFor(rt: Runtime): CallContext {
  return {
    runtime: rt,
    call: () => {
      throw new Error("no callbacks here");
    },
    prepare: () => {
      throw new Error("no callbacks here");
    },
    out: () => undefined,
    err: () => undefined,
    signal: new AbortController().signal,
    span: null,
    task: null,
  };
}

function call(rt: Runtime, name: string, ...args: Value[]): Value | Promise<Value> {
  return rt.builtins.get(name)!(args, ctxFor(rt));
}

describe("lazy group lists", () => {
  for (const group of LAZY_GROUPS) {
    it(`lists exactly the builtins the ${group.name} group installs, in order`, () => {
      const rt = runtime();
      installModules(rt, GROUP_MODULES[group.name]!);
      // a mismatch means src/lazy/group-names.ts is stale: `pnpm build` regenerates it
      expect(group.builtins).toEqual([...rt.builtins.keys()]);
    });
  }

  it("has an installer for every group and no name in two groups", () => {
    expect(Object.keys(GROUP_MODULES).sort()).toEqual(LAZY_GROUPS.map((g) => g.name).sort());
    const all = LAZY_GROUPS.flatMap((g) => g.builtins);
    expect(new Set(all).size).toBe(all.length);
  });

  it("loads through each group's dynamic import the modules the eager install uses", async () => {
    for (const group of LAZY_GROUPS) expect(await group.load()).toBe(GROUP_MODULES[group.name]);
  });
});

describe("installStdlib", () => {
  it("defines the same builtins, in the same order, as the eager install", () => {
    const lazy = runtime();
    const eager = runtime();
    installStdlib(lazy);
    installStdlibEagerly(eager);
    expect([...lazy.builtins.keys()]).toEqual([...eager.builtins.keys()]);
    expect([...lazy.globals.keys()]).toEqual([...eager.globals.keys()]);
    expect([...lazy.stdModules]).toEqual([...eager.stdModules]);
    for (const [kind, table] of eager.methods) expect([...lazy.methods.get(kind)!.keys()]).toEqual([...table.keys()]);
    expect(lazy.typeSchema).not.toBeNull();
  });

  it("keeps the builtin order once every group has loaded", async () => {
    const rt = runtime();
    installStdlib(rt);
    const before = [...rt.builtins.keys()];
    await preloadAllBuiltins(rt);
    expect([...rt.builtins.keys()]).toEqual(before);
    for (const group of LAZY_GROUPS) expect(isGroupLoaded(rt, group.name)).toBe(true);
  });
});

describe("a lazy builtin", () => {
  it("answers its first call with a promise of the real result, later calls synchronously", async () => {
    const rt = runtime();
    installStdlib(rt);
    expect(isGroupLoaded(rt, "regex")).toBe(false);
    const first = call(rt, "regex_match", "a+", "caab");
    expect(isPromise(first)).toBe(true);
    expect(await first).toEqual(["aa"]);
    expect(isGroupLoaded(rt, "regex")).toBe(true);
    expect(call(rt, "regex_split", "a,b", ",")).toEqual(["a", "b"]);
  });

  it("fails like the real builtin", async () => {
    const rt = runtime();
    installStdlib(rt);
    const r = call(rt, "regex_match", "(", "x");
    await expect(r).rejects.toBeInstanceOf(HarnError);
  });

  it("is synchronous from the first call after preloadBuiltins", async () => {
    const rt = runtime();
    installStdlib(rt);
    const p = preloadBuiltins(rt, ["println", "duration_ms", "nothing_like_a_builtin"]);
    expect(p).not.toBeNull();
    await p;
    expect(isGroupLoaded(rt, "time")).toBe(true);
    expect(isGroupLoaded(rt, "agent")).toBe(false);
    expect(call(rt, "duration_seconds", 2)).not.toBeInstanceOf(Promise);
    expect(preloadBuiltins(rt, ["duration_ms", "println"])).toBeNull();
  });

  it("leaves a builtin the host redefined alone when its group loads", async () => {
    const rt = runtime();
    installStdlib(rt);
    rt.defineBuiltin("regex_split", () => "host's own");
    expect(await call(rt, "regex_match", "b", "abc")).toEqual(["b"]);
    expect(call(rt, "regex_split", "a,b", ",")).toBe("host's own");
  });

  it("loads into one runtime only", async () => {
    const a = runtime();
    const b = runtime();
    installStdlib(a);
    installStdlib(b);
    await preloadBuiltins(a, ["regex_match"]);
    expect(isGroupLoaded(a, "regex")).toBe(true);
    expect(isGroupLoaded(b, "regex")).toBe(false);
    expect(isPromise(call(b, "regex_match", "a", "a"))).toBe(true);
  });
});

describe("builtinNamesIn", () => {
  it("finds called and referenced names anywhere in a program", () => {
    const src = [
      "fn f(x = date_now()) { return [1].map({ v -> render_string(v) }) }",
      'let s = "n=${len(regex_split(t, sep))}"',
      "let g = http_get",
      "pipeline default() { if true { parallel each [1] { i -> walk_dir(i) } } }",
    ].join("\n");
    const { program, errors } = parse(src);
    expect(errors).toEqual([]);
    const names = builtinNamesIn(program);
    for (const n of ["date_now", "render_string", "len", "regex_split", "http_get", "walk_dir", "v"]) expect(names).toContain(n);
  });

  it("counts a tool declaration as a use of the tool registry", () => {
    const { program, errors } = parse('tool greet(name: string) -> string {\n  description "Greets"\n  return "hi " + name\n}\n');
    expect(errors).toEqual([]);
    expect(builtinNamesIn(program)).toContain("tool_define");
  });
});
