import { describe, expect, it } from "vitest";
import { display, HDict, type Value } from "@harn/vm";
import { raised, rig } from "../core/harness";

function setup() {
  const r = rig();
  return r;
}

const show = (v: Value) => display(v);

describe("regex_match", () => {
  const r = setup();
  it("returns every non-overlapping match, nil when none", () => {
    expect(r.call("regex_match", "[0-9]+", "a1 b22 c333")).toEqual(["1", "22", "333"]);
    expect(r.call("regex_match", "x", "abc")).toBeNull();
    expect(r.call("regex_match", "x")).toBeNull();
  });
  it("follows Rust's empty-match iteration", () => {
    expect(r.call("regex_match", "", "abc")).toEqual(["", "", "", ""]);
    expect(r.call("regex_match", "a*", "baaa")).toEqual(["", "aaa"]);
    expect(r.call("regex_match", "a*", "aab")).toEqual(["aa", ""]);
    expect(r.call("regex_match", "", "😀é")).toEqual(["", "", ""]);
  });
  it("takes i/m/s/x flags and rejects others", async () => {
    expect(r.call("regex_match", "abc", "ABC abc", "i")).toEqual(["ABC", "abc"]);
    expect(r.call("regex_match", "^\\w+$", "one\ntwo", "m")).toEqual(["one", "two"]);
    expect(r.call("regex_match", "a.b", "a\nb", "s")).toEqual(["a\nb"]);
    expect(r.call("regex_match", "a b  # comment\n c", "abc", "x")).toEqual(["abc"]);
    const e = await raised(() => r.call("regex_match", "a", "a", "g"));
    expect(e.description()).toBe("Thrown: Invalid regex: unsupported regex flag 'g', expected one of i/m/s/x");
  });
  it("has Unicode-aware perl classes and word boundaries", () => {
    expect(r.call("regex_match", "\\w+", "café naïve_x 日本")).toEqual(["café", "naïve_x", "日本"]);
    expect(r.call("regex_match", "\\d+", "٣4५")).toEqual(["٣4५"]);
    expect(r.call("regex_match", "\\bé\\w*", "été, aé")).toEqual(["été"]);
    expect(r.call("regex_match", "\\Bb", "ab b")).toEqual(["b"]);
    expect(r.call("regex_match", "\\s+", "a\u00a0\u2003b")).toEqual(["\u00a0\u2003"]);
  });
  it("treats only \\n as a line break for . and multi-line anchors", () => {
    expect(r.call("regex_match", "a.b", "a\rb a\nb")).toEqual(["a\rb"]);
    expect(r.call("regex_match", "(?m)^x", "x\rx\nx")).toEqual(["x", "x"]);
    expect(r.call("regex_match", "(?m)x$", "x\rx\nx")).toEqual(["x", "x"]);
    expect(r.call("regex_match", "x$", "x\nx\n")).toBeNull();
    expect(r.call("regex_match", "\\Ax|x\\z", "xax")).toEqual(["x", "x"]);
  });
  it("handles inline and scoped flags", () => {
    expect(r.call("regex_match", "(?i)hello", "HeLLo hello")).toEqual(["HeLLo", "hello"]);
    expect(r.call("regex_match", "a(?i:b)c", "aBc abc ABC aBC")).toEqual(["aBc", "abc"]);
    expect(r.call("regex_match", "(?i)a(?-i)b", "Ab AB ab")).toEqual(["Ab", "ab"]);
    expect(r.call("regex_match", "x(?i)[a-c]+", "xABc Xab")).toEqual(["xABc"]);
    expect(r.call("regex_match", "(?is)A.B", "a\nb")).toEqual(["a\nb"]);
    expect(r.call("regex_match", "(?U)a+", "aaa")).toEqual(["a", "a", "a"]);
    expect(r.call("regex_match", "(?x) a \\  b # c", "a b")).toEqual(["a b"]);
  });
  it("supports classes: ranges, negation, set operations, POSIX, properties", () => {
    expect(r.call("regex_match", "[a-z&&[^aeiou]]+", "hello")).toEqual(["h", "ll"]);
    expect(r.call("regex_match", "[a-z--[b-y]]+", "abz")).toEqual(["a", "z"]);
    expect(r.call("regex_match", "[[:digit:][:upper:]]+", "aB12c")).toEqual(["B12"]);
    expect(r.call("regex_match", "[[:^alpha:]]+", "ab12cd")).toEqual(["12"]);
    expect(r.call("regex_match", "\\p{Greek}+", "abc αβγ")).toEqual(["αβγ"]);
    expect(r.call("regex_match", "\\pL+", "ab1c")).toEqual(["ab", "c"]);
    expect(r.call("regex_match", "\\p{Uppercase_Letter}", "aBc")).toEqual(["B"]);
    expect(r.call("regex_match", "[]a]+", "]a]b")).toEqual(["]a]"]);
    expect(r.call("regex_match", "[-a]+", "-a-")).toEqual(["-a-"]);
    expect(r.call("regex_match", "[^\\w\\s]+", "a, b!")).toEqual([",", "!"]);
    expect(r.call("regex_match", "\\x41\\x{1F600}\\u00e9", "A😀é")).toEqual(["A😀é"]);
  });
  it("escapes punctuation Rust allows to escape", () => {
    expect(r.call("regex_match", '\\"\\-\\#\\&\\~\\ ', '"-#&~ ')).toEqual(['"-#&~ ']);
    expect(r.call("regex_match", "a{2}b{1,}c{0,1}", "aabbc aab")).toEqual(["aabbc", "aab"]);
    expect(r.call("regex_match", "[{}/|]+", "{/}|")).toEqual(["{/}|"]);
  });
});

describe("regex errors", () => {
  const r = setup();
  const bad = async (pattern: string, detail: string) => {
    const e = await raised(() => r.call("regex_match", pattern, "x"));
    expect(e.kind).toBe("thrown");
    const text = e.caughtValue() as string;
    expect(text.startsWith("Invalid regex: regex parse error:")).toBe(true);
    expect(text).toContain(detail);
  };
  it("rejects what Rust rejects, with Rust's wording", async () => {
    await bad("(?=a)", "look-around, including look-ahead and look-behind, is not supported");
    await bad("(?<!a)b", "look-around");
    await bad("(a)\\1", "backreferences are not supported");
    await bad("(abc", "unclosed group");
    await bad("abc)", "unopened group");
    await bad("[abc", "unclosed character class");
    await bad("*a", "repetition operator missing expression");
    await bad("\\q", "unrecognized escape sequence");
    await bad("[z-a]", "invalid character class range, the start must be <= the end");
    await bad("a{3,1}", "invalid repetition count range");
    await bad("(?P<n>a)(?P<n>b)", "duplicate capture group name");
    await bad("\\p{NotAProperty}", "Unicode property not found");
    await bad("(?z)", "unrecognized flag");
  });
  it("shows the pattern and a caret under the error", async () => {
    const e = await raised(() => r.call("regex_captures", "ab(c", "x"));
    expect(e.caughtValue()).toBe("Invalid regex: regex parse error:\n    ab(c\n      ^\nerror: unclosed group");
  });
});

describe("regex_captures", () => {
  const r = setup();
  it("returns match, positional groups and participating named groups", () => {
    const out = r.call("regex_captures", "(?P<key>\\w+)=(?P<val>\\d+)?(x)?", "a=1 b=") as Value[];
    expect(out.map(show)).toEqual(["{groups: [a, 1, nil], key: a, match: a=1, val: 1}", "{groups: [b, nil, nil], key: b, match: b=}"]);
    expect(out[0]).toBeInstanceOf(HDict);
  });
  it("accepts (?<name>) and Rust-only names", () => {
    const out = r.call("regex_captures", "(?<y>\\d{4})-(?<a.b>\\d\\d)", "2024-05") as Value[];
    expect(out.map(show)).toEqual(["{a.b: 05, groups: [2024, 05], match: 2024-05, y: 2024}"]);
  });
  it("is [] without a match or without enough arguments", () => {
    expect(r.call("regex_captures", "z", "abc")).toEqual([]);
    expect(r.call("regex_captures", "z")).toEqual([]);
  });
});

describe("regex_replace", () => {
  const r = setup();
  it("expands Rust replacement references", () => {
    expect(r.call("regex_replace", "(\\w+)@(\\w+)", "$2 at $1", "me@host you@there")).toBe("host at me there at you");
    expect(r.call("regex_replace", "(?P<first>\\w+) (?P<last>\\w+)", "${last}, $first", "Ada Lovelace")).toBe("Lovelace, Ada");
    expect(r.call("regex_replace", "(\\d)", "$1a|${1}a|$$|$0", "5")).toBe("|5a|$|5");
    expect(r.call("regex_replace", "b", "$", "abc")).toBe("a$c");
    expect(r.call("regex_replace", "b", "${oops", "abc")).toBe("a${oopsc");
    expect(r.call("regex_replace", "(a)|(b)", "[$2]", "ab")).toBe("[][b]");
  });
  it("replaces empty matches like Rust", () => {
    expect(r.call("regex_replace", "", "-", "abc")).toBe("-a-b-c-");
    expect(r.call("regex_replace", "x*", "-", "abc")).toBe("-a-b-c-");
    expect(r.call("regex_replace_all", "a", "b", "aaa")).toBe("bbb");
  });
  it("is nil with fewer than 3 arguments", () => {
    expect(r.call("regex_replace", "a", "b")).toBeNull();
  });
});

describe("regex_split", () => {
  const r = setup();
  it("takes the text first and keeps empty pieces, not groups", () => {
    expect(r.call("regex_split", "a, b,,c,", ",\\s*")).toEqual(["a", "b", "", "c", ""]);
    expect(r.call("regex_split", "a1b22c", "(\\d)+")).toEqual(["a", "b", "c"]);
    expect(r.call("regex_split", "A-b-C", "B", "i")).toEqual(["A-", "-C"]);
    expect(r.call("regex_split", "abc", "")).toEqual(["", "a", "b", "c", ""]);
    expect(r.call("regex_split", "abc")).toBeNull();
  });
});
