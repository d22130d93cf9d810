import { describe, expect, it } from "vitest";
import { display, equals, float, HDict, HPair, HRange, HSet, type Value } from "@harn/vm";
import { fn, rig } from "../core/harness";

/** A deterministic pool of members where `==` and type-sensitive identity
 * disagree: ints and equal floats, -0.0, NaN, nested lists/dicts/sets with
 * numerically equal contents, sets in different orders, pairs and ranges. */
function pool(): Value[] {
  return [
    1,
    float(1),
    0,
    float(-0),
    float(NaN),
    2n ** 60n,
    float(2 ** 60),
    "1",
    true,
    null,
    [1, 2],
    [float(1), 2],
    HDict.of({ a: 1 }),
    HDict.of({ a: float(1) }),
    new HSet([1, 2]),
    new HSet([2, float(1)]),
    new HSet([1, float(1)]),
    new HPair(1, "x"),
    new HPair(float(1), "x"),
    new HRange(1, 3, true),
    fn((x) => x),
  ];
}

/** A pseudo-random sample of `n` members (xorshift; no Math.random in tests). */
function sample(n: number, seed: number): Value[] {
  const p = pool();
  let s = seed;
  const out: Value[] = [];
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out.push(p[Math.abs(s) % p.length]!);
  }
  return out;
}

const has = (xs: Value[], v: Value) => xs.some((x) => equals(x, v));
const dedup = (xs: Value[]) => xs.reduce<Value[]>((out, x) => (has(out, x) ? out : [...out, x]), []);

describe("set methods compare members with ==", () => {
  const r = rig();

  it("agree with a plain == scan on sets large enough to be indexed", () => {
    for (let seed = 1; seed <= 25; seed++) {
      const a = new HSet(dedup(sample(40, seed)));
      const b = new HSet(dedup(sample(30, seed * 7919)));
      const naive: Record<string, Value> = {
        union: new HSet([...a.items, ...b.items.filter((x) => !has(a.items, x))]),
        intersect: new HSet(a.items.filter((x) => has(b.items, x))),
        difference: new HSet(a.items.filter((x) => !has(b.items, x))),
        symmetric_difference: new HSet([...a.items.filter((x) => !has(b.items, x)), ...b.items.filter((x) => !has(a.items, x))]),
        is_subset: a.items.every((x) => has(b.items, x)),
        is_superset: b.items.every((x) => has(a.items, x)),
        is_disjoint: !a.items.some((x) => has(b.items, x)),
      };
      for (const [name, want] of Object.entries(naive)) {
        expect(display(r.method(a, name, b)), `${name} (seed ${seed})`).toBe(display(want));
      }
    }
  });

  it("map and iter.to_set keep the first of each == group", () => {
    const xs = [1, float(1), [1], [float(1)], new HSet([1, 2]), new HSet([2, 1]), float(NaN), float(NaN)];
    const big = [...xs, ...Array.from({ length: 30 }, (_, i) => i + 10)];
    expect(display(r.method(new HSet(big), "map", fn((x) => x)))).toBe(display(new HSet(dedup(big))));
    expect(display(r.method(r.call("iter", big), "to_set"))).toBe(display(new HSet(dedup(big))));
    expect(display(r.method(r.call("iter", xs), "to_set"))).toBe("set(1, [1], set(1, 2), NaN, NaN)");
  });

  it("set equality is mutual membership, also for large sets", () => {
    const xs = Array.from({ length: 40 }, (_, i) => i);
    const ys = xs.map((i) => float(39 - i));
    expect(equals(new HSet(xs), new HSet(ys))).toBe(true);
    expect(equals(new HSet(xs), new HSet([...ys.slice(1), float(0.5)]))).toBe(false);
  });
});
