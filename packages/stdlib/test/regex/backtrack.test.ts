import { describe, expect, it } from "vitest";
import { BoundedBacktracker, needsLinearEngine } from "../../src/regex/backtrack";
import { findAll, type CompiledRegex } from "../../src/regex/compile";
import { emitRegex } from "../../src/regex/emit";
import { defaultFlags, parseRegex } from "../../src/regex/syntax";
import { raised, rig } from "../core/harness";

/** The same pattern compiled for the RegExp path and for the backtracker. */
function both(pattern: string): [CompiledRegex, CompiledRegex] {
  const parsed = parseRegex(pattern, defaultFlags());
  const e = emitRegex(parsed.node);
  const re = new RegExp(e.source, "g" + e.flags);
  return [
    { re, names: parsed.names, linear: null },
    { re, names: parsed.names, linear: new BoundedBacktracker(parsed.node, parsed.names.length) },
  ];
}

const shape = (c: CompiledRegex, text: string) => findAll(c, text).map((m) => [m.index, ...m]);

const PATTERNS = [
  "a", "a*", "a+?", "(a|ab)(c|bcd)(d*)", "\\bfoo\\b", "(?m)^\\w+$", "x*", "", "(a)|b", "(?i)straße|k",
  "[a-c]{2,3}", "a{0,2}?b", "(?:ab)*?c", "(a|)+b", "\\d+(?:\\.\\d+)?", "é\\b", "(?s).+", ".+",
  "(?<n>x)(y)?", "^", "$", "(?U)a+", "[^\\s,]+", "\\p{Lu}+\\p{Ll}*", "(?m)$", "(?R)^.$", "😀+|x",
  "(a+|b+)*c", "(?i)[a-z]+", "a(?i:b)c", "[[:alpha:]]+\\d?",
];
const TEXTS = [
  "", "a", "aaa", "abcd", "foo bar foo", "foobar", "ab\nbc\r\ndd", "STRASSE ß K k", "aab aaab b", "3.14 and 42",
  "é! ée é", "xy x y", "😀😀x😀", "ABcd Ef", "aabbc bbac", "a\n", "\n\na", "aBc ABC",
];

describe("the bounded backtracker", () => {
  it("finds the same matches and groups as the RegExp path", () => {
    for (const p of PATTERNS) {
      const [js, linear] = both(p);
      for (const t of TEXTS) expect(shape(linear, t), `${p} on ${JSON.stringify(t)}`).toEqual(shape(js, t));
    }
  });

  it("never stops inside a surrogate pair", () => {
    // (V8's own search does: `\B` on this text also "matches" at index 6.)
    const [, linear] = both("\\B");
    expect(shape(linear, "😀😀x😀")).toEqual([[0, ""], [2, ""], [7, ""]]);
  });

  it("keeps the last text a repeated group matched, as Rust does", () => {
    const [, linear] = both("((a)|b)+");
    expect(shape(linear, "ab")).toEqual([[0, "ab", "b", "a"]]);
  });

  it("is chosen for nested repetition and groups inside loops only", () => {
    const chosen = (p: string) => needsLinearEngine(parseRegex(p, defaultFlags()).node);
    expect(["(a+)+$", "(a|aa)*b", "(?:\\w+\\s?)*$", "(?:x{2,})+", "(ab)+", "(?:(a)|b)*"].map(chosen)).toEqual([
      true, true, true, true, true, true,
    ]);
    expect(["a+b+", "(?:ab)+", "(a|b)", "\\w+@\\w+", "(a+)?", "(a)b*"].map(chosen)).toEqual([
      false, false, false, false, false, false,
    ]);
    // partly case-insensitive, with classes the emitter cannot fold by hand
    expect(["a(?i)\\p{Lu}", "x(?i:[[:upper:]])", "a(?i)b", "(?i)\\p{Lu}"].map(chosen)).toEqual([true, true, false, false]);
  });

  it("answers patterns that are exponential for backtracking engines", () => {
    const r = rig();
    const text = "a".repeat(5000) + "b";
    expect(r.call("regex_match", "(a+)+$", text)).toBeNull();
    expect(r.call("regex_match", "(a|aa)+$", "a".repeat(40) + "!")).toBeNull();
    expect(r.call("regex_replace", "(\\w+\\s?)+$", "<$1>", "one two three!")).toBe("one two three!");
    expect(r.call("regex_captures", "(a+)+b", "aaab")).toEqual(r.call("regex_captures", "(a+)b", "aaab"));
  });

  it("rejects patterns that expand beyond Rust's size limit instead of building them", async () => {
    const r = rig();
    const e = await raised(() => r.call("regex_match", "(?:a{1000}){1000}", "a"));
    expect(e.description()).toBe("Thrown: Invalid regex: Compiled regex exceeds size limit of 10485760 bytes.");
  });
});
