import { describe, expect, it } from "vitest";
import { CodePoints, cpAt, cpSlice } from "@harn/vm";
import { rig } from "./harness";

/** A deterministic mix of ASCII, BMP, astral and lone surrogates. */
function text(len: number, seed: number): string {
  const pieces = ["a", "é", "😀", "👍🏽", "\n", "\ud800", "\udc00", "字", "z"];
  let s = seed;
  let out = "";
  for (let i = 0; i < len; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    out += pieces[s % pieces.length];
  }
  return out;
}

/** Code points as the spec counts them: a pair is one, a lone surrogate one. */
function units(s: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const d = s.charCodeAt(i + 1);
    if (c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) out.push(s.slice(i, ++i + 1));
    else out.push(s[i]!);
  }
  return out;
}

describe("code-point indexing", () => {
  it("slices, measures and locates like a split into code points", () => {
    const cps = new CodePoints();
    for (const len of [0, 5, 300, 2000]) {
      for (let seed = 1; seed <= 4; seed++) {
        const s = text(len, seed);
        const u = units(s);
        expect(cps.length(s)).toBe(u.length);
        for (let k = 0; k < 200; k++) {
          const a = (k * 7919 + seed) % (u.length + 3);
          const b = a + ((k * 31) % 150) - 10;
          const want = u.slice(Math.min(a, u.length), Math.max(Math.min(b, u.length), Math.min(a, u.length))).join("");
          expect(cps.slice(s, a, b)).toBe(want);
          expect(cpSlice(s, Math.min(a, u.length), Math.max(Math.min(b, u.length), Math.min(a, u.length)))).toBe(want);
          const unit = u.slice(0, Math.min(a, u.length)).join("").length;
          expect(cps.indexAt(s, unit)).toBe(Math.min(a, u.length));
          for (const i of [a, -a - 1, a - u.length]) {
            const at = u[i < 0 ? u.length + i : i] ?? null;
            expect(cps.at(s, i)).toBe(at);
            expect(cpAt(s, i)).toBe(at);
          }
        }
      }
    }
  });

  it("string methods and substring index long astral text by code point", () => {
    const r = rig();
    const s = "x😀".repeat(500) + "needle" + "é😀".repeat(500);
    const u = units(s);
    expect(r.method(s, "index_of", "needle")).toBe(1000);
    expect(r.method(s, "last_index_of", "😀")).toBe(u.length - 1);
    expect(r.method(s, "char_at", 1001)).toBe("e");
    expect(r.method(s, "char_at", u.length)).toBe(null);
    expect(r.method(s, "substring", 999, 1006)).toBe("😀needle");
    expect(r.method(s, "substring", 1990, -1)).toBe(u.slice(1990).join(""));
    expect(r.call("substring", s, 1000, 6)).toBe("needle");
    expect(r.call("substring", s, u.length - 2, 100)).toBe("é😀");
    expect(r.method(s, "count")).toBe(u.length);
  });
});
