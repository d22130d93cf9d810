import { describe, expect, it } from "vitest";
import { display, float, HFloat, type Value } from "@harn/vm";
import { raised, rig } from "./harness";

describe("math", () => {
  const r = rig();
  const show = (v: Value) => display(v);

  it("pi and e are globals", () => {
    expect(show(r.rt.globals.get("pi")!)).toBe("3.141592653589793");
    expect(show(r.rt.globals.get("e")!)).toBe("2.718281828459045");
  });

  it("abs keeps the kind", () => {
    expect(r.call("abs", -3)).toBe(3);
    expect(show(r.call("abs", float(-2.5)))).toBe("2.5");
    expect(show(r.call("abs", -9223372036854775808n))).toBe("9223372036854776000"); // the float 2^63
    expect(r.call("abs", "x")).toBe(null);
  });

  it("floor, ceil, round give ints; round is half away from zero", async () => {
    expect(r.call("floor", float(2.7))).toBe(2);
    expect(r.call("ceil", float(2.1))).toBe(3);
    expect(r.call("round", float(2.5))).toBe(3);
    expect(r.call("round", float(-2.5))).toBe(-3);
    expect(r.call("round", float(0.49999999999999994))).toBe(0);
    expect(r.call("floor", 7)).toBe(7);
    expect((await raised(() => r.call("floor", float(Infinity)))).description()).toBe("Runtime error: cannot convert non-finite float to int");
    expect((await raised(() => r.call("round", float(1e19)))).description()).toBe("Runtime error: float is outside the representable int range");
  });

  it("sqrt, pow, sign", () => {
    expect(show(r.call("sqrt", 16))).toBe("4.0");
    expect(show(r.call("sqrt", -1))).toBe("NaN");
    expect(r.call("pow", 2, 10)).toBe(1024);
    expect(r.call("pow", 3, 39)).toBe(4052555153018976267n);
    expect(show(r.call("pow", 2, 64))).toBe("18446744073709552000");
    expect(show(r.call("pow", 2, -1))).toBe("0.5");
    // powi-style binary exponentiation, not Math.pow (2.5937424601000023)
    expect(show(r.call("pow", float(1.1), 10))).toBe("2.593742460100002");
    expect(show(r.call("pow", 4, float(0.5)))).toBe("2.0");
    expect(r.call("sign", -5)).toBe(-1);
    expect(r.call("sign", float(0.3))).toBe(1);
    expect(show(r.call("sign", float(NaN)))).toBe("NaN");
  });

  it("min/max take two numbers; NaN loses", () => {
    expect(r.call("min", 3, 2)).toBe(2);
    expect(show(r.call("max", 3, float(2)))).toBe("3.0");
    expect(show(r.call("min", float(NaN), 4))).toBe("4.0");
    expect(r.call("min", [1, 2])).toBe(null);
  });

  it("is_nan / is_infinite / trig", () => {
    expect(r.call("is_nan", float(NaN))).toBe(true);
    expect(r.call("is_nan", 1)).toBe(false);
    expect(r.call("is_infinite", float(-Infinity))).toBe(true);
    expect(show(r.call("atan2", 1, 1))).toBe("0.7853981633974483");
    expect(show(r.call("exp", 0))).toBe("1.0");
  });

  it("statistics", async () => {
    expect(show(r.call("mean", [1, 2, 3, 4]))).toBe("2.5");
    expect(show(r.call("mean", []))).toBe("0.0");
    expect(show(r.call("median", [3, 1, 2]))).toBe("2.0");
    expect(show(r.call("variance", [1, 2, 3, 4]))).toBe("1.25");
    expect(show(r.call("stddev", [2, 4, 4, 4, 5, 5, 7, 9]))).toBe("2.0");
    expect(show(r.call("percentile", [1, 2, 3, 4], 50))).toBe("2.5");
    expect((await raised(() => r.call("median", []))).description()).toBe("Runtime error: median: items must not be empty");
    expect((await raised(() => r.call("variance", [1], true))).description()).toBe("Runtime error: sample variance requires at least 2 values");
    expect((await raised(() => r.call("mean", "x"))).description()).toBe("Type error: mean: items must be a list");
    expect((await raised(() => r.call("percentile", [1], 101))).description()).toBe("Runtime error: percentile must be between 0 and 100");
  });

  it("random_int is inclusive and validates bounds; seeded rngs repeat", async () => {
    for (let i = 0; i < 50; i++) {
      const v = r.call("random_int", 1, 3) as number;
      expect(v >= 1 && v <= 3).toBe(true);
    }
    expect(r.call("random_int", 5, 1)).toBe(null);
    expect(r.call("random_int", 5)).toBe(null);
    expect((await raised(() => r.call("random_int", float(1), 2))).description()).toBe("Type error: random_int: min must be an integer");
    const a = r.call("rng_seed", 42);
    const b = r.call("rng_seed", 42);
    expect(r.call("type_of", a)).toBe("rng");
    const seqA = [r.call("random_int", a, 0, 1000), (r.call("random", a) as HFloat).v, r.call("random_shuffle", a, [1, 2, 3, 4, 5])];
    const seqB = [r.call("random_int", b, 0, 1000), (r.call("random", b) as HFloat).v, r.call("random_shuffle", b, [1, 2, 3, 4, 5])];
    expect(seqA).toEqual(seqB);
    expect(r.call("random_choice", [])).toBe(null);
    expect([7, 8]).toContain(r.call("random_choice", [7, 8]));
    expect((await raised(() => r.call("rng_seed", "x"))).description()).toBe("Type error: rng_seed(seed): seed must be an integer");
  });
});
