import { describe, expect, it } from "vitest";
import { float, HBytes, HDict, HFloat, HPair, HRange, HSet, display } from "@harn/vm";
import { raised, rig } from "./harness";

describe("conversion and inspection", () => {
  const r = rig();

  it("type_of names every kind", () => {
    expect(r.call("type_of", 1)).toBe("int");
    expect(r.call("type_of", float(1))).toBe("float");
    expect(r.call("type_of", null)).toBe("nil");
    expect(r.call("type_of")).toBe("nil");
    expect(r.call("type_of", new HRange(0, 1, true))).toBe("range");
  });

  it("to_int parses strictly and truncates floats", () => {
    expect(r.call("to_int", "42")).toBe(42);
    expect(r.call("to_int", "+7")).toBe(7);
    expect(r.call("to_int", "-3")).toBe(-3);
    for (const bad of [" 4", "4.0", "", "0x1", "1_000"]) expect(r.call("to_int", bad)).toBe(null);
    expect(r.call("to_int", "9223372036854775807")).toBe(9223372036854775807n);
    expect(r.call("to_int", "9223372036854775808")).toBe(null);
    expect(r.call("to_int", float(3.9))).toBe(3);
    expect(r.call("to_int", float(-2.7))).toBe(-2);
    expect(r.call("to_int", float(NaN))).toBe(0);
    expect(r.call("to_int", float(1e300))).toBe(9223372036854775807n);
    expect(r.call("to_int", true)).toBe(null);
  });

  it("to_float follows Rust float syntax", () => {
    const f = (s: string) => {
      const v = r.call("to_float", s);
      return v === null ? null : (v as HFloat).v;
    };
    expect(f("2.5")).toBe(2.5);
    expect(f(".5")).toBe(0.5);
    expect(f("5.")).toBe(5);
    expect(f("1e3")).toBe(1000);
    expect(f("-inf")).toBe(-Infinity);
    expect(f("Infinity")).toBe(Infinity);
    expect(Number.isNaN(f("NaN"))).toBe(true);
    expect(f(" 1")).toBe(null);
    expect(f("abc")).toBe(null);
    expect(display(r.call("to_float", 10) as HFloat)).toBe("10.0");
    expect(r.call("to_float", null)).toBe(null);
  });

  it("len counts code points and elements, 0 otherwise", () => {
    expect(r.call("len", "😀")).toBe(1);
    expect(r.call("len", "café")).toBe(4);
    expect(r.call("len", [1, 2])).toBe(2);
    expect(r.call("len", HDict.of({ a: 1 }))).toBe(1);
    expect(r.call("len", new HSet([1, 2, 3]))).toBe(3);
    expect(r.call("len", new HRange(1, 5, true))).toBe(5);
    expect(r.call("len", new HRange(5, 1, true))).toBe(0);
    expect(r.call("len", new HBytes(new Uint8Array(3)))).toBe(3);
    expect(r.call("len", null)).toBe(0);
    expect(r.call("len", 12)).toBe(0);
  });

  it("to_string and to_list", () => {
    expect(r.call("to_string", [1, float(2)])).toBe("[1, 2.0]");
    expect(r.call("to_list", new HSet([2, 1]))).toEqual([2, 1]);
    expect(r.call("to_list", null)).toEqual([null]);
  });

  it("pair and range validate their arguments", async () => {
    expect(display(r.call("pair", "k", 1))).toBe("(k, 1)");
    expect((await raised(() => r.call("pair", 1))).description()).toBe("Type error: pair: expected 2 arguments, got 1");
    expect(display(r.call("range", 3))).toBe("0 to 3 exclusive");
    expect(display(r.call("range", 2, 5))).toBe("2 to 5 exclusive");
    expect((await raised(() => r.call("range", "a"))).description()).toBe("Type error: range(n): expected integer argument");
    expect((await raised(() => r.call("range", 1, float(2)))).description()).toBe(
      "Type error: range(a, b): expected integer arguments",
    );
    expect((await raised(() => r.call("range"))).description()).toBe("Type error: range expects 1 or 2 integer arguments, got 0");
  });

  it("unreachable raises a runtime error", async () => {
    expect((await raised(() => r.call("unreachable"))).description()).toBe("Runtime error: unreachable code was reached");
    expect((await raised(() => r.call("unreachable", [1]))).description()).toBe(
      "Runtime error: unreachable code was reached: [1]",
    );
  });

  it("identity helpers", () => {
    const xs = [1];
    expect(r.call("is_same", xs, xs)).toBe(true);
    expect(r.call("is_same", xs, [1])).toBe(false);
    expect(r.call("is_same", "a", "a")).toBe(true);
    expect(r.call("hash_value", [1, "a"])).toBe(r.call("hash_value", [1, "a"]));
    expect(r.call("hash_value", 1)).not.toBe(r.call("hash_value", float(1)));
    expect(r.call("addr_of", xs)).toBe(r.call("addr_of", xs));
    expect(r.call("addr_of", [1])).not.toBe(r.call("addr_of", xs));
    expect(r.call("addr_of", 5)).toBe("int@5");
    expect(display(new HPair(1, 2))).toBe("(1, 2)");
  });
});
