import { describe, expect, it } from "vitest";
import { display, float, HDict, HGenerator, HIter, HRange, type IterStep, type Value } from "@harn/vm";
import { item } from "../../src/core/iter";
import { fn, raised, rig, settle } from "../core/harness";

describe("lazy iterators", () => {
  const r = rig();
  const iterOf = (v: Value) => r.call("iter", v) as HIter;

  it("iter lifts lists, strings, dicts (as pairs), sets and ranges", () => {
    expect(display(r.method(iterOf([1, 2]), "to_list"))).toBe("[1, 2]");
    expect(display(r.method(iterOf("a😀"), "to_list"))).toBe("[a, 😀]");
    expect(display(r.method(iterOf(HDict.of({ b: 2, a: 1 })), "to_list"))).toBe("[(a, 1), (b, 2)]");
    expect(display(r.method(iterOf(r.call("set", 3, 1)), "to_list"))).toBe("[3, 1]");
    expect(display(r.method(iterOf(new HRange(1, 3, true)), "to_list"))).toBe("[1, 2, 3]");
    const i = iterOf([1]);
    expect(iterOf(i)).toBe(i);
  });

  it("iter of a non-iterable is a type error", async () => {
    expect((await raised(() => r.call("iter", 5))).description()).toBe("Type error: iter: value of type int is not iterable");
    expect((await raised(() => r.call("iter"))).description()).toBe("Type error: iter: expected 1 argument");
  });

  it("combinators are lazy and take(n) pulls exactly n items", () => {
    const seen: Value[] = [];
    const mapped = r.method(iterOf([5, 6, 7, 8]), "map", fn((x) => (seen.push(x), (x as number) * 10))) as HIter;
    expect(seen).toEqual([]);
    expect(r.method(r.method(mapped, "take", 2), "to_list")).toEqual([50, 60]);
    expect(seen).toEqual([5, 6]);
    expect(r.method(mapped, "to_list")).toEqual([70, 80]);
  });

  it("is fused and displays as exhausted only after a pull found it empty", () => {
    const i = iterOf([1, 2]);
    expect(display(i)).toBe("<iter>");
    r.method(r.method(i, "take", 2), "to_list");
    expect(display(i)).toBe("<iter>");
    expect(r.method(i, "to_list")).toEqual([]);
    expect(display(i)).toBe("<iter (exhausted)>");
    expect(r.method(i, "first")).toBe(null);
  });

  it("filter, flat_map, skip, take_while (drops the failing item), skip_while", () => {
    expect(r.method(r.method(iterOf([1, 2, 3, 4]), "filter", fn((x) => (x as number) % 2 === 0)), "to_list")).toEqual([2, 4]);
    expect(r.method(r.method(iterOf([1, 2]), "flat_map", fn((x) => [x, x])), "to_list")).toEqual([1, 1, 2, 2]);
    expect(r.method(r.method(iterOf([1, 2, 3]), "skip", 1), "to_list")).toEqual([2, 3]);
    const src = iterOf([1, 2, 3, 4]);
    expect(r.method(r.method(src, "take_while", fn((x) => (x as number) < 2)), "to_list")).toEqual([1]);
    expect(r.method(src, "to_list")).toEqual([3, 4]);
    expect(r.method(r.method(iterOf([1, 2, 1]), "skip_while", fn((x) => (x as number) < 2)), "to_list")).toEqual([2, 1]);
  });

  it("zip, enumerate yield pairs; chain, chunks, windows", () => {
    expect(display(r.method(r.method(iterOf([1, 2, 3]), "zip", ["a", "b"]), "to_list"))).toBe("[(1, a), (2, b)]");
    expect(display(r.method(r.method(iterOf(["x", "y"]), "enumerate"), "to_list"))).toBe("[(0, x), (1, y)]");
    expect(r.method(r.method(iterOf([1]), "chain", new HRange(2, 3, true)), "to_list")).toEqual([1, 2, 3]);
    expect(display(r.method(r.method(iterOf([1, 2, 3, 4, 5]), "chunks", 2), "to_list"))).toBe("[[1, 2], [3, 4], [5]]");
    expect(display(r.method(r.method(iterOf([1, 2, 3, 4]), "windows", 3), "to_list"))).toBe("[[1, 2, 3], [2, 3, 4]]");
    expect(r.method(r.method(iterOf([1, 2]), "windows", 3), "to_list")).toEqual([]);
  });

  it("argument errors are type errors", async () => {
    const e = async (name: string, ...a: Value[]) => (await raised(() => r.method(iterOf([1]), name, ...a))).description();
    expect(await e("map", 1)).toBe("Type error: iter.map: expected callable");
    expect(await e("take", -1)).toBe("Type error: iter.take: expected non-negative int");
    expect(await e("zip", 3)).toBe("Type error: iter.zip: expected iterable argument");
    expect(await e("chunks", 0)).toBe("Type error: iter.chunks: chunk size must be positive");
    expect(await e("windows", 0)).toBe("Type error: iter.windows: window size must be positive");
    expect(await e("reduce", 1)).toBe("Type error: iter.reduce: expected (init, fn)");
    expect(await e("reduce", 1, 2)).toBe("Type error: iter.reduce: second arg must be callable");
    expect((await raised(() => r.method(iterOf(["a"]), "sum"))).description()).toBe("Type error: iter.sum: expected number, got string");
    expect((await raised(() => r.method(iterOf([1]), "to_dict"))).description()).toBe("Type error: iter.to_dict: expected pair, got int");
    expect(
      (await raised(() => r.method(r.method(iterOf([1]), "flat_map", fn(() => 3)), "to_list"))).description(),
    ).toBe("Type error: flat_map: expected iterable result");
  });

  it("sinks", () => {
    expect(display(r.method(iterOf([1, float(1), 2]), "to_set"))).toBe("set(1, 2)");
    expect(display(r.method(iterOf(HDict.of({ a: 1 })), "to_dict"))).toBe("{a: 1}");
    expect(r.method(iterOf([1, 2, 3]), "count")).toBe(3);
    expect(r.method(iterOf([]), "sum")).toBe(0);
    expect(display(r.method(iterOf([1, float(2.5)]), "sum"))).toBe("3.5");
    expect(r.method(iterOf([3, 1, 2]), "min")).toBe(1);
    expect(r.method(iterOf([]), "max")).toBe(null);
    expect(r.method(iterOf([1, 2, 3]), "reduce", 0, fn((a, x) => (a as number) + (x as number), ["a", "x"]))).toBe(6);
    expect(r.method(iterOf([1, 2, 3]), "last")).toBe(3);
    const src = iterOf([1, 2, 3, 4]);
    expect(r.method(src, "any", fn((x) => x === 2))).toBe(true);
    expect(r.method(src, "to_list")).toEqual([3, 4]);
    expect(r.method(iterOf([1, 2]), "all", fn((x) => (x as number) > 0))).toBe(true);
    expect(r.method(iterOf([1, 2]), "find", fn((x) => x === 2))).toBe(2);
    const seen: Value[] = [];
    expect(r.method(iterOf([1, 2]), "for_each", fn((x) => (seen.push(x), null)))).toBe(null);
    expect(seen).toEqual([1, 2]);
  });

  it("ranges answer their own methods and lift to iterators for the rest", () => {
    const rg = new HRange(1, 3, true);
    expect(r.method(rg, "sum")).toBe(6);
    expect(display(r.method(rg, "map", fn((x) => x)))).toBe("<iter>");
    expect(r.method(rg, "to_list")).toEqual([1, 2, 3]);
    expect(r.method(rg, "contains", 3)).toBe(true);
    expect(r.method(new HRange(1, 3, false), "contains", 3)).toBe(false);
    expect(r.method(new HRange(5, 1, true), "first")).toBe(null);
    expect(r.method(new HRange(0, 5, false), "last")).toBe(4);
    expect(r.method(rg, "len")).toBe(3);
    expect(r.method(rg, "to_string")).toBe("1 to 3");
  });

  it("generators: next() and lifting, with async pulls", async () => {
    let n = 0;
    const gen = new HGenerator(false, (): IterStep | Promise<IterStep> => (n < 2 ? Promise.resolve(item(++n)) : { done: true, value: null }), null);
    expect(display(await settle(r.methodP(gen, "next")))).toBe("{done: false, value: 1}");
    const rest = r.call("iter", gen) as HIter;
    expect(await settle(r.methodP(rest, "to_list"))).toEqual([2]);
    expect(display(await settle(r.methodP(gen, "next")))).toBe("{done: true, value: nil}");
  });

  it("async callbacks in lazy combinators", async () => {
    const res = r.methodP(r.method(iterOf([1, 2, 3]), "filter", fn(async (x) => (x as number) !== 2)), "to_list");
    expect(await settle(res)).toEqual([1, 3]);
  });
});

describe("iterating channels", () => {
  /** A stand-in for the evaluator's channel state (the interface iter uses). */
  class Queue {
    queue: Value[] = [];
    closed = false;
    private waiters: (() => void)[] = [];
    tryTake() {
      return this.queue.length > 0 ? { v: this.queue.shift()! } : null;
    }
    changed(): Promise<void> {
      return new Promise((res) => this.waiters.push(res));
    }
    push(v: Value) {
      this.queue.push(v);
      this.wake();
    }
    close() {
      this.closed = true;
      this.wake();
    }
    private wake() {
      const w = this.waiters;
      this.waiters = [];
      for (const f of w) f();
    }
  }

  it("yields received items (nil included) until closed and drained, waiting for late sends", async () => {
    const { HChannel } = await import("@harn/vm");
    const r = rig();
    const q = new Queue();
    q.push(1);
    q.push(null);
    const it = r.call("iter", new HChannel("c", q)) as HIter;
    const all = r.methodP(it, "to_list");
    setTimeout(() => {
      q.push(3);
      q.close();
    }, 10);
    expect(await settle(all)).toEqual([1, null, 3]);
    expect(display(it)).toBe("<iter (exhausted)>");
  });
});
