import { describe, expect, it } from "vitest";
import { display } from "@harn/vm";
import { rig } from "../core/harness";

describe("string methods", () => {
  const r = rig();
  const m = (s: string, name: string, ...a: Parameters<typeof r.method> extends [unknown, unknown, ...infer R] ? R : never) =>
    r.method(s, name, ...a);

  it("length, emptiness and containment count code points", () => {
    expect(m("héllo😀", "count")).toBe(6);
    expect(m("", "empty")).toBe(true);
    expect(m("abc", "contains", "")).toBe(true);
    expect(m("a1", "contains", 1)).toBe(true);
  });

  it("split defaults to a comma and keeps empty pieces; the builtin defaults to a space", () => {
    expect(m("a,,b", "split")).toEqual(["a", "", "b"]);
    expect(m("", "split", ",")).toEqual([""]);
    expect(m("ab", "split", "")).toEqual(["", "a", "b", ""]);
    expect(r.call("split", "a b")).toEqual(["a", "b"]);
  });

  it("replace needs two arguments", () => {
    expect(m("aaa", "replace", "a")).toBe(null);
    expect(m("a.b.c", "replace", ".", "-")).toBe("a-b-c");
    expect(r.call("replace", "ab", "", "-")).toBe("-a-b-");
  });

  it("trim strips Unicode White_Space but not U+FEFF", () => {
    expect(m("\u0085 x\u3000", "trim")).toBe("x");
    expect(m("\ufeffx", "trim")).toBe("\ufeffx");
    expect(m("  x  ", "trim_start")).toBe("x  ");
    expect(m("  x  ", "trim_end")).toBe("  x");
  });

  it("substring takes an end index, clamped, negative end = to the end", () => {
    expect(m("abcdef", "substring", 2, 4)).toBe("cd");
    expect(m("abcdef", "substring", 4, 2)).toBe("");
    expect(m("abcdef", "substring", -3)).toBe("abcdef");
    expect(m("abcdef", "substring", 2, -1)).toBe("cdef");
    expect(m("a😀c", "substring", 1, 2)).toBe("😀");
    expect(r.call("substring", "abcdef", 2, 3)).toBe("cde");
    expect(r.call("substring", "abcdef", 4, 99)).toBe("ef");
  });

  it("index_of and last_index_of are code-point offsets", () => {
    expect(m("😀ab😀ab", "index_of", "ab")).toBe(1);
    expect(m("😀ab😀ab", "last_index_of", "ab")).toBe(4);
    expect(m("abc", "index_of", "z")).toBe(-1);
    expect(m("", "index_of", "")).toBe(0);
  });

  it("case mapping is full Unicode", () => {
    expect(m("ß", "upper")).toBe("SS");
    expect(m("ÀB", "to_lower")).toBe("àb");
    expect(r.call("uppercase", "straße")).toBe("STRASSE");
  });

  it("chars, repeat, reverse, pad, lines, char_at", () => {
    expect(m("a😀", "chars")).toEqual(["a", "😀"]);
    expect(m("ab", "repeat", 3)).toBe("ababab");
    expect(m("ab", "repeat", -1)).toBe("");
    expect(m("a😀b", "reverse")).toBe("b😀a");
    expect(m("7", "pad_left", 3, "0")).toBe("007");
    expect(m("7", "pad_right", 3)).toBe("7  ");
    expect(m("long", "pad_left", 2)).toBe("long");
    expect(m("a\r\nb\n\nc\n", "lines")).toEqual(["a", "b", "", "c"]);
    expect(m("", "lines")).toEqual([]);
    expect(m("a😀", "char_at", 1)).toBe("😀");
    expect(m("ab", "char_at", 2)).toBe(null);
    expect(m("ab", "char_at", -1)).toBe(null);
  });

  it("refuses results longer than a JS string can hold with a runtime error", () => {
    expect(() => m("ab", "repeat", 9999999999)).toThrow();
    try {
      m("ab", "repeat", 9999999999);
    } catch (e) {
      expect((e as { description(): string }).description()).toBe("Runtime error: repeat: result would be too large (19999999998 characters)");
    }
    expect(() => m("a", "pad_left", 2 ** 40)).toThrow();
    expect(() => r.call("str_pad", "a", 2 ** 40)).toThrow();
  });

  it("unknown methods are nil and iter yields code points", () => {
    expect(m("ab", "frobnicate")).toBe(null);
    expect(display(r.method(m("a😀", "iter"), "to_list"))).toBe("[a, 😀]");
  });
});

describe("string builtins", () => {
  const r = rig();
  it("contains on strings, lists and others", () => {
    expect(r.call("contains", "abc", "b")).toBe(true);
    expect(r.call("contains", [1, 2], 2)).toBe(true);
    expect(r.call("contains", [[1]], [1])).toBe(true);
    expect(r.call("contains", r.call("set", 1), 1)).toBe(false);
  });
  it("join displays items, non-list gives empty string", () => {
    expect(r.call("join", [1, "a", null], "-")).toBe("1-a-nil");
    expect(r.call("join", ["a", "b"])).toBe("ab");
    expect(r.call("join", "ab", ",")).toBe("");
  });
  it("format in positional and named modes", () => {
    expect(r.call("format", "{}-{}", 1, "x")).toBe("1-x");
    expect(r.call("format", "{} {} {}", 1)).toBe("1 {} {}");
    expect(r.call("format", "{a} {b} {", r.call("json_parse", '{"a": 1}'))).toBe("1 {b} {");
  });
  it("str_pad measures graphemes", async () => {
    expect(r.call("str_pad", "ab", 5, "*", "both")).toBe("*ab**");
    expect(r.call("str_pad", "e\u0301", 3, "-", "LEFT")).toBe("--e\u0301");
    expect(r.call("str_pad", "abc", 2)).toBe("abc");
    expect(() => r.call("str_pad", "a", 3, " ", "up")).toThrow();
  });
  it("case converters", () => {
    expect(r.call("snake_to_camel", "hello_big_world")).toBe("helloBigWorld");
    expect(r.call("snake_to_pascal", "_a__b_")).toBe("AB");
    expect(r.call("camel_to_snake", "HTTPServerError")).toBe("http_server_error");
    expect(r.call("camel_to_kebab", "parseJSON2Data")).toBe("parse-json2-data");
    expect(r.call("kebab_to_snake", "a-b-c")).toBe("a_b_c");
    expect(r.call("pascal_to_camel", "HelloWorld")).toBe("helloWorld");
    expect(r.call("title_case", "hELLO  wORLD")).toBe("Hello  World");
  });
  it("unicode helpers", () => {
    expect(r.call("unicode_normalize", "e\u0301")).toBe("é");
    expect(r.call("unicode_normalize", "é", "nfd")).toBe("e\u0301");
    expect(r.call("unicode_graphemes", "e\u0301a")).toEqual(["e\u0301", "a"]);
  });
});
