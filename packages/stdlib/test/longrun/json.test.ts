/**
 * fromJson turns runs of same-keyed objects in a list into compact
 * records (HDict.record); the values must be the dicts a key-by-key
 * conversion gives, whatever the mix of shapes.
 */
import { describe, expect, it } from "vitest";
import { display, equals, HDict, identityKey, type Value } from "@harn/vm";
import { fromJson } from "../../src/core/json";

/** The conversion without records: every object a Map-built dict. */
function plain(x: unknown): Value {
  if (x === null || x === undefined) return null;
  if (Array.isArray(x)) return x.map(plain);
  if (typeof x === "object") {
    const m = new Map<string, Value>();
    for (const [k, v] of Object.entries(x)) if (v !== undefined) m.set(k, plain(v));
    return new HDict(m);
  }
  return fromJson(x);
}

function same(x: unknown): Value[] {
  const got = fromJson(x) as Value[];
  const want = plain(x) as Value[];
  expect(display(got)).toBe(display(want));
  expect(equals(got, want)).toBe(true);
  expect(identityKey(got)).toBe(identityKey(want));
  for (let i = 0; i < want.length; i++) {
    const [g, w] = [got[i]!, want[i]!];
    if (w instanceof HDict) {
      expect(g).toBeInstanceOf(HDict);
      const d = g as HDict;
      expect(d.keys()).toEqual(w.keys());
      expect(d.size).toBe(w.size);
      for (const k of [...w.keys(), "absent"]) {
        expect(d.has(k)).toBe(w.has(k));
        expect(equals(d.get(k), w.get(k))).toBe(true);
      }
    }
  }
  return got;
}

describe("fromJson on lists of objects", () => {
  it("converts a run of same-keyed objects (keys not in sorted order) to equal dicts", () => {
    const entries = Array.from({ length: 50 }, (_, i) => ({ path: `/r/${i}`, is_dir: i % 3 === 0, depth: i, é: [i, { n: i }] }));
    const got = same(entries);
    expect(display(got[1])).toBe("{depth: 1, is_dir: false, path: /r/1, é: [1, {n: 1}]}");
  });

  it("handles mixed shapes, a shape change mid-run, undefined values and non-objects", () => {
    same([
      { a: 1, b: 2 },
      { a: 3, b: 4 },
      { b: 5, a: 6 }, // same keys, other order
      { a: 7, b: undefined }, // absent b
      { a: 8, b: 9 },
      { a: 10, b: 11, c: 12 },
      { a: 13, b: 14, c: 15 },
      [1, { a: 2 }],
      null,
      "text",
      {},
      {},
      { a: 16, b: 17 },
      { a: 18, b: 19 },
    ]);
  });

  it("keeps objects with very many keys as they were", () => {
    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
    same([wide, { ...wide }, { ...wide }]);
  });
});
