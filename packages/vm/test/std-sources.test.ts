import { describe, expect, test } from "vitest";
import { Runtime, StdModuleSources } from "../src/index";

describe("StdModuleSources", () => {
  test("builds a lazily defined text once, when it is first read", () => {
    const m = new StdModuleSources();
    let builds = 0;
    m.setLazy("std/a", () => {
      builds++;
      return "pub fn a() { 1 }\n";
    });
    expect(m.has("std/a")).toBe(true);
    expect(m.size).toBe(1);
    expect(builds).toBe(0);
    expect(m.get("std/a")).toBe("pub fn a() { 1 }\n");
    expect(m.get("std/a")).toBe("pub fn a() { 1 }\n");
    expect(builds).toBe(1);
    expect(m.get("std/missing")).toBeUndefined();
  });

  test("every way of listing the entries sees the built texts, in definition order", () => {
    const make = () => {
      const m = new StdModuleSources();
      m.set("std/one", "1");
      m.setLazy("std/two", () => "2");
      m.set("std/three", "3");
      return m;
    };
    const expected: [string, string][] = [["std/one", "1"], ["std/two", "2"], ["std/three", "3"]];
    expect([...make()]).toEqual(expected);
    expect([...make().entries()]).toEqual(expected);
    expect([...make().values()]).toEqual(["1", "2", "3"]);
    expect([...make().keys()]).toEqual(["std/one", "std/two", "std/three"]);
    const seen: [string, string][] = [];
    make().forEach((v, k) => seen.push([k, v]));
    expect(seen).toEqual(expected);
    expect(JSON.stringify([...make()])).toBe(JSON.stringify(expected));
    expect(new Map(make())).toEqual(new Map(expected));
  });

  test("a plain set replaces a pending text, and delete and clear drop it", () => {
    const m = new StdModuleSources();
    m.setLazy("std/a", () => "lazy");
    m.set("std/a", "eager");
    expect(m.get("std/a")).toBe("eager");
    m.setLazy("std/b", () => "b");
    m.delete("std/b");
    expect(m.has("std/b")).toBe(false);
    m.setLazy("std/c", () => "c");
    m.clear();
    expect([...m]).toEqual([]);
  });

  test("is the runtime's stdModules", () => {
    const sink = { write() {} };
    const rt = new Runtime({ stdout: sink, stderr: sink, cwd: "/", env: {}, argv: null });
    expect(rt.stdModules).toBeInstanceOf(StdModuleSources);
  });
});
