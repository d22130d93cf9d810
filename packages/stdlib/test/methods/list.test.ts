import { describe, expect, it } from "vitest";
import { display, float, HBuiltinRef, HDict, HSet, type Value } from "@harn/vm";
import { fn, rig, settle } from "../core/harness";

const show = (v: Value) => display(v);

describe("list methods", () => {
  const r = rig();
  const xs = [3, 1, 2];

  it("map, filter, reduce (init first), find", () => {
    expect(r.method(xs, "map", fn((x) => (x as number) * 10))).toEqual([30, 10, 20]);
    expect(r.method(xs, "filter", fn((x) => (x as number) > 1))).toEqual([3, 2]);
    expect(r.method(xs, "reduce", 100, fn((a, x) => (a as number) + (x as number), ["acc", "x"]))).toBe(106);
    expect(r.method(xs, "find", fn((x) => x === 1))).toBe(1);
    expect(r.method(xs, "find", fn(() => false))).toBe(null);
    expect(r.method(xs, "find_index", fn((x) => x === 2))).toBe(2);
  });

  it("non-callable callbacks give nil/false/true/-1", () => {
    expect(r.method(xs, "map", 1)).toBe(null);
    expect(r.method(xs, "any", null)).toBe(false);
    expect(r.method(xs, "all", null)).toBe(true);
    expect(r.method(xs, "find_index", "x")).toBe(-1);
    expect(r.method([], "none")).toBe(true);
    expect(r.method(xs, "none")).toBe(false);
  });

  it("builtin references work as callbacks", () => {
    expect(r.method([1, float(2)], "map", new HBuiltinRef("to_string"))).toEqual(["1", "2.0"]);
  });

  it("any/all short-circuit", () => {
    const seen: Value[] = [];
    r.method([1, 2, 3], "all", fn((x) => (seen.push(x), x !== 2)));
    expect(seen).toEqual([1, 2]);
  });

  it("sort is stable by §4.3 ordering; sort_by takes a key function", () => {
    expect(show(r.method([3, float(1.5), 2, "b", "a"], "sort"))).toBe("[1.5, 2, 3, a, b]");
    const people = [HDict.of({ n: "x", a: 2 }), HDict.of({ n: "y", a: 1 }), HDict.of({ n: "z", a: 2 })];
    expect(show(r.method(people, "sort_by", fn((p) => (p as HDict).get("a"))))).toBe("[{a: 1, n: y}, {a: 2, n: x}, {a: 2, n: z}]");
    expect(r.method(["é", "z", "😀", "\uffff"], "sort")).toEqual(["z", "é", "\uffff", "😀"]);
  });

  it("enumerate gives {index, value} dicts; zip gives two-element lists", () => {
    expect(show(r.method(["a", "b"], "enumerate"))).toBe("[{index: 0, value: a}, {index: 1, value: b}]");
    expect(show(r.method([1, 2, 3], "zip", ["a", "b"]))).toBe("[[1, a], [2, b]]");
    expect(r.method([1], "zip", "ab")).toEqual([]);
  });

  it("slice, take, skip, first, last", () => {
    expect(r.method([1, 2, 3, 4], "slice", -2)).toEqual([3, 4]);
    expect(r.method([1, 2, 3, 4], "slice", 1, -1)).toEqual([2, 3]);
    expect(r.method([1, 2, 3, 4], "slice", 3, 1)).toEqual([]);
    expect(r.method([1, 2, 3], "take", 2)).toEqual([1, 2]);
    expect(r.method([1, 2, 3], "skip", -1)).toEqual([1, 2, 3]);
    expect(r.method([1, 2, 3], "first")).toBe(1);
    expect(r.method([1, 2, 3], "last", 2)).toEqual([2, 3]);
    expect(r.method([], "last")).toBe(null);
  });

  it("unique is type-sensitive, contains uses ==", () => {
    expect(show(r.method([1, float(1), 1, [2], [2]], "unique"))).toBe("[1, 1.0, [2]]");
    expect(r.method([1, 2], "contains", float(2))).toBe(true);
    expect(r.method([1, 2], "index_of", 3)).toBe(-1);
  });

  it("sum, min, max, min_by, max_by", () => {
    expect(r.method([1, 2, "x", 3], "sum")).toBe(6);
    expect(show(r.method([1, float(0.5)], "sum"))).toBe("1.5");
    expect(r.method([], "sum")).toBe(0);
    expect(r.method([9223372036854775807n, 1], "sum")).toBe(-9223372036854775808n);
    expect(r.method([2, 1, 3], "min")).toBe(1);
    expect(r.method([], "max")).toBe(null);
    expect(r.method(["aa", "b", "cc"], "max_by", fn((s) => (s as string).length))).toBe("aa");
    expect(r.method(["aa", "b", "c"], "min_by", fn((s) => (s as string).length))).toBe("b");
  });

  it("flatten, push, pop, partition, group_by, chunk, window, compact, tally", () => {
    expect(show(r.method([1, [2, [3]]], "flatten"))).toBe("[1, 2, [3]]");
    expect(r.method([1], "push", 2)).toEqual([1, 2]);
    expect(r.method([1, 2], "pop")).toEqual([1]);
    expect(show(r.method([1, 2, 3], "partition", fn((x) => (x as number) % 2)))).toBe("[[1, 3], [2]]");
    expect(show(r.method(["aa", "b", "cc"], "group_by", fn((s) => (s as string).length)))).toBe("{1: [b], 2: [aa, cc]}");
    expect(show(r.method([1, 2, 3], "chunk", 2))).toBe("[[1, 2], [3]]");
    expect(show(r.method([1, 2, 3], "window"))).toBe("[[1, 2], [2, 3]]");
    expect(show(r.method([1, 2, 3, 4, 5, 6], "window", 2, 3))).toBe("[[1, 2], [4, 5]]");
    expect(r.method([1, 2], "window", 3)).toEqual([]);
    expect(r.method([null, 1, null], "compact")).toEqual([1]);
    expect(show(r.method(["b", "a", "b"], "tally"))).toBe("{a: 1, b: 2}");
  });

  it("lists have no len method; unknown names are nil", () => {
    expect(r.method([1], "len")).toBe(null);
    expect(r.method([1], "count")).toBe(1);
  });

  it("switches to async only when a callback suspends", async () => {
    const slow = fn(async (x) => (x as number) * 2);
    const res = r.methodP([1, 2, 3], "map", slow);
    expect(res).toBeInstanceOf(Promise);
    expect(await res).toEqual([2, 4, 6]);
    const mixed = fn((x) => (x === 2 ? Promise.resolve(true) : x === 3));
    expect(await settle(r.methodP([1, 2, 3, 4], "filter", mixed))).toEqual([2, 3]);
    expect(await settle(r.methodP([1, 2, 3], "reduce", 0, fn(async (a, x) => (a as number) + (x as number), ["a", "x"])))).toBe(6);
  });
});

describe("dict methods", () => {
  const r = rig();
  const d = HDict.of({ b: 2, a: 1 });

  it("keys, values, entries in sorted order", () => {
    expect(r.method(d, "keys")).toEqual(["a", "b"]);
    expect(r.method(d, "values")).toEqual([1, 2]);
    expect(show(r.method(d, "entries"))).toBe("[{key: a, value: 1}, {key: b, value: 2}]");
  });

  it("get, has, merge, remove", () => {
    expect(r.method(d, "get", "z", 0)).toBe(0);
    expect(r.method(d, "get", "a")).toBe(1);
    expect(r.method(HDict.of({ "1": "x" }), "has", 1)).toBe(true);
    expect(show(r.method(d, "merge", HDict.of({ a: 9, c: 3 })))).toBe("{a: 9, b: 2, c: 3}");
    expect(r.method(d, "merge", 5)).toBe(d);
    expect(show(r.method(d, "remove", "a"))).toBe("{b: 2}");
    expect(show(d)).toBe("{a: 1, b: 2}");
  });

  it("map_values, map_keys, filter by value", () => {
    expect(show(r.method(d, "map_values", fn((v) => (v as number) * 10)))).toBe("{a: 10, b: 20}");
    expect(show(r.method(d, "rekey", fn((k) => (k as string).toUpperCase())))).toBe("{A: 1, B: 2}");
    expect(show(r.method(d, "filter", fn((v) => v === 2)))).toBe("{b: 2}");
  });
});

describe("set methods and builtins", () => {
  const r = rig();
  it("set() de-duplicates type-sensitively and flattens list arguments", () => {
    expect(show(r.call("set", 3, 1, 3))).toBe("set(3, 1)");
    expect(show(r.call("set", [1, 1, 2]))).toBe("set(1, 2)");
    expect(show(r.call("set", 1, [2, 3]))).toBe("set(1, 2, 3)");
    expect(show(r.call("set", 1, float(1)))).toBe("set(1, 1.0)");
    expect(show(r.call("set"))).toBe("set()");
  });
  it("methods compare with ==", () => {
    const s = r.call("set", 1, 2) as HSet;
    expect(r.method(s, "contains", float(1))).toBe(true);
    expect(show(r.method(s, "add", float(2)))).toBe("set(1, 2)");
    expect(show(r.method(s, "union", r.call("set", 2, 3)))).toBe("set(1, 2, 3)");
    expect(show(r.method(s, "intersect", r.call("set", 2, 3)))).toBe("set(2)");
    expect(show(r.method(s, "intersect", [2]))).toBe("set()");
    expect(show(r.method(s, "symmetric_difference", r.call("set", 2, 3)))).toBe("set(1, 3)");
    expect(r.method(s, "is_subset", r.call("set", 1, 2, 3))).toBe(true);
    expect(r.method(s, "is_disjoint", 5)).toBe(true);
    expect(show(r.method(s, "map", fn(() => 7)))).toBe("set(7)");
    expect(r.method(s, "len")).toBe(2);
  });
  it("set_* builtins", () => {
    const a = r.call("set", 1, 2);
    const b = r.call("set", 2, 3);
    expect(show(r.call("set_union", a, b))).toBe("set(1, 2, 3)");
    expect(show(r.call("set_intersect", a, b))).toBe("set(2)");
    expect(show(r.call("set_difference", a, b))).toBe("set(1)");
    expect(show(r.call("set_symmetric_difference", a, b))).toBe("set(1, 3)");
    expect(r.call("set_contains", a, float(1))).toBe(false);
    expect(r.call("set_contains", [1], 1)).toBe(false);
    expect(() => r.call("set_union", a, [1])).toThrow();
    expect(r.call("set_is_disjoint", 1, 2)).toBe(true);
  });
});
