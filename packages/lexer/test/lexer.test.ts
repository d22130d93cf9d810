/** The lexer against spec/syntax.md §1. */
import { describe, expect, it } from "vitest";
import { displayToken, formatFloatPlain, tokenize, type Token } from "../src/index";

function lex(src: string, comments = false): Token[] {
  const r = tokenize(src, { comments });
  expect(r.error).toBeNull();
  return r.tokens;
}

/** `kind:image` of every token but EOF. */
function kinds(src: string): string[] {
  return lex(src)
    .filter((t) => t.kind !== "EOF")
    .map((t) => (t.kind === t.image ? t.kind : `${t.kind}:${t.image}`));
}

function lexError(src: string): string {
  const r = tokenize(src);
  expect(r.error).not.toBeNull();
  return r.error!.message;
}

function value(src: string): unknown {
  return lex(src)[0]!.value;
}

describe("whitespace, newlines and continuation (§1.1–§1.3)", () => {
  it("emits a NL token for every line feed and skips spaces, tabs and CR", () => {
    expect(kinds("a \t\r\n\nb")).toEqual(["Ident:a", "NL:\n", "NL:\n", "Ident:b"]);
  });
  it("an empty file or a file of comments is only EOF", () => {
    expect(lex("").map((t) => t.kind)).toEqual(["EOF"]);
    expect(kinds("// a\n/* b */")).toEqual(["NL:\n"]);
  });
  it("rejects other whitespace", () => {
    expect(lexError("a\u00a0b")).toBe("Unexpected character '\u00a0' at 1:2");
    expect(lexError("a\fb")).toBe("Unexpected character '\f' at 1:2");
  });
  it("joins lines at a backslash-newline but keeps counting lines", () => {
    const toks = lex("let total = 10 \\\n  - 3");
    expect(toks.map((t) => t.kind)).toEqual(["let", "Ident", "=", "Int", "-", "Int", "EOF"]);
    expect(toks[4]!.line).toBe(2);
  });
  it("a backslash before anything else is an error", () => {
    expect(lexError("a \\ \nb")).toBe("Unexpected character '\\' at 1:3");
    expect(lexError("a \\\r\nb")).toBe("Unexpected character '\\' at 1:3");
  });
  it("skips a shebang only at offset 0", () => {
    expect(kinds("#!/usr/bin/env harn\nlog(1)")).toEqual(["NL:\n", "Ident:log", "(", "Int:1", ")"]);
    expect(lexError(" #!x")).toBe("Unexpected character '#' at 1:2");
  });
});

describe("comments (§1.4)", () => {
  it("line comments end before the newline", () => {
    expect(kinds("a // c\nb")).toEqual(["Ident:a", "NL:\n", "Ident:b"]);
  });
  it("block comments nest and swallow newlines", () => {
    expect(kinds("a /* x /* y */ z \n */ b")).toEqual(["Ident:a", "Ident:b"]);
  });
  it("`/` followed by `/` or `*` always starts a comment", () => {
    expect(kinds("a//b")).toEqual(["Ident:a"]);
    expect(kinds("a/b")).toEqual(["Ident:a", "/", "Ident:b"]);
  });
  it("reports an unterminated block comment at its opening", () => {
    expect(lexError("x\n  /* a /* b */")).toBe("Unterminated block comment at 2:3");
  });
  it("keeps comments as tokens with the doc flag on request", () => {
    const toks = lex("/// doc\n//// not\n// plain\n/** doc */ /*** no */ /**/ /* no */ x", true).filter((t) => t.kind === "Comment");
    expect(toks.map((t) => [t.image, t.isDoc])).toEqual([
      ["/// doc", true],
      ["//// not", false],
      ["// plain", false],
      ["/** doc */", true],
      ["/*** no */", false],
      ["/**/", false],
      ["/* no */", false],
    ]);
  });
  it("interleaves comment tokens in source order", () => {
    expect(lex("a // x\nb", true).map((t) => t.kind)).toEqual(["Ident", "Comment", "NL", "Ident", "EOF"]);
  });
});

describe("identifiers and keywords (§1.5, §1.6)", () => {
  it("lexes Unicode letters and digits", () => {
    expect(kinds("café _x x1 名前 ñ٣")).toEqual(["Ident:café", "Ident:_x", "Ident:x1", "Ident:名前", "Ident:ñ٣"]);
  });
  it("lexes reserved words as keywords and contextual words as identifiers", () => {
    expect(kinds("let eval_pack exclusive gen each settle not self")).toEqual([
      "let",
      "eval_pack",
      "exclusive",
      "Ident:gen",
      "Ident:each",
      "Ident:settle",
      "Ident:not",
      "Ident:self",
    ]);
  });
  it("`_` alone is an identifier", () => {
    expect(kinds("_")).toEqual(["Ident:_"]);
  });
  it("emoji are not letters", () => {
    expect(lexError("x = 😀")).toBe("Unexpected character '😀' at 1:5");
  });
});

describe("numbers (§1.7)", () => {
  it("ints are i64 bigints; floats need a digit after the dot", () => {
    expect(value("42")).toBe(42n);
    expect(value("1.5")).toBe(1.5);
    expect(kinds("42.abs()")).toEqual(["Int:42", ".", "Ident:abs", "(", ")"]);
    expect(kinds("1.5.round()")).toEqual(["Float:1.5", ".", "Ident:round", "(", ")"]);
    expect(kinds("1..2")).toEqual(["Int:1", ".", ".", "Int:2"]);
    expect(kinds("1.")).toEqual(["Int:1", "."]);
  });
  it("keeps the i64 range exact and turns larger digit runs into floats", () => {
    expect(value("9223372036854775807")).toBe(9223372036854775807n);
    const big = lex("9223372036854775808")[0]!;
    expect(big.kind).toBe("Float");
    expect(big.value).toBe(9223372036854775808);
  });
  it("has no separators, hex, exponents or leading dots", () => {
    expect(kinds("1_000 0x1F 1e3 .5 3abc")).toEqual([
      "Int:1",
      "Ident:_000",
      "Int:0",
      "Ident:x1F",
      "Int:1",
      "Ident:e3",
      ".",
      "Int:5",
      "Int:3",
      "Ident:abc",
    ]);
  });
});

describe("durations (§1.8)", () => {
  it("converts every unit to milliseconds", () => {
    expect(["5ms", "5s", "2m", "3h", "1d", "2w"].map(value)).toEqual([5n, 5000n, 120000n, 10800000n, 86400000n, 1209600000n]);
  });
  it("ms always wins; other units need a non-alphanumeric follower", () => {
    expect(kinds("5msx")).toEqual(["Duration:5ms", "Ident:x"]);
    expect(kinds("5s_x")).toEqual(["Duration:5s", "Ident:_x"]);
    expect(kinds("5sec 5min 2hours")).toEqual(["Int:5", "Ident:sec", "Int:5", "Ident:min", "Int:2", "Ident:hours"]);
    expect(kinds("1.5s")).toEqual(["Float:1.5", "Ident:s"]);
    expect(kinds("5sé")).toEqual(["Int:5", "Ident:sé"]);
    expect(kinds("(5s)")).toEqual(["(", "Duration:5s", ")"]);
  });
  it("keeps durations beyond i64 exact (the checker rejects them)", () => {
    expect(value("99999999999999999w")).toBe(99999999999999999n * 604800000n);
  });
});

describe("plain strings (§1.9.1)", () => {
  it("processes the five escapes and keeps unknown ones with their backslash", () => {
    expect(value(String.raw`"a\nb\tc\\d\"e\$f"`)).toBe('a\nb\tc\\d"e$f');
    expect(value(String.raw`"\r\u{41}\'\0\x"`)).toBe(String.raw`\r\u{41}\'\0\x`);
  });
  it("a literal $ without { is text", () => {
    expect(lex('"costs $5"')[0]!.kind).toBe("String");
  });
  it("reports an unterminated string at its opening quote", () => {
    expect(lexError('x\n  let s = "abc\n"')).toBe("Unterminated string at 2:11");
    expect(lexError('"abc')).toBe("Unterminated string at 1:1");
  });
  it("a backslash before a line feed continues the string ([quirk])", () => {
    expect(value('"a\\\nb"')).toBe("a\\\nb");
  });
  it("the empty string", () => {
    expect(value('""')).toBe("");
  });
});

describe("interpolation (§1.9.2)", () => {
  it("splits text and expression segments with their positions", () => {
    const t = lex('x = "a${b + 1}c\\n"')[2]!;
    expect(t.kind).toBe("IString");
    expect(displayToken(t)).toBe("istr(...)");
    expect(t.value).toEqual([
      { kind: "text", text: "a" },
      { kind: "expr", source: "b + 1", start: 8, line: 1, column: 9 },
      { kind: "text", text: "c\n" },
    ]);
  });
  it("pushes only non-empty text segments", () => {
    expect(value('"${a}"')).toEqual([{ kind: "expr", source: "a", start: 3, line: 1, column: 4 }]);
  });
  it("counts raw braces, not strings, inside ${}", () => {
    expect(value('"${ {a: 1}.a }"')).toEqual([{ kind: "expr", source: " {a: 1}.a ", start: 3, line: 1, column: 4 }]);
    expect(value('"${ f("x", {k: 2}) }"')).toEqual([{ kind: "expr", source: ' f("x", {k: 2}) ', start: 3, line: 1, column: 4 }]);
    expect(lexError('"${ "}" }"')).toBe("Unterminated string at 1:10");
  });
  it("an expression may span lines inside a one-line string", () => {
    const toks = lex('"${a +\nb}" x');
    expect(toks[0]!.kind).toBe("IString");
    expect(toks[1]!.line).toBe(2);
  });
  it("rejects an empty interpolation at the character after its brace", () => {
    expect(lexError('log("v: ${}")')).toBe("Unexpected character '}' at 1:12");
    expect(lexError('"${   }"')).toBe("Unexpected character '}' at 1:8");
  });
  it("an unclosed ${ is an unterminated string", () => {
    expect(lexError('"${a')).toBe("Unterminated string at 1:1");
  });
});

describe("raw strings (§1.9.3)", () => {
  it("takes everything literally up to the next quote", () => {
    expect(value('r"a\\n${b}"')).toBe("a\\n${b}");
    expect(displayToken(lex('r"x"')[0]!)).toBe("rstr(x)");
  });
  it("`r` followed by anything else is an identifier", () => {
    expect(kinds("r x")).toEqual(["Ident:r", "Ident:x"]);
  });
  it("reports an unterminated raw string at the r", () => {
    expect(lexError(' r"abc\n"')).toBe("Unterminated string at 1:2");
  });
});

describe("triple-quoted strings (§1.9.4)", () => {
  it("drops the opening newline and dedents by the common indent", () => {
    expect(value('"""\n    alpha\n      beta\n    """')).toBe("alpha\n  beta");
  });
  it("does no escape processing and allows quotes", () => {
    expect(value('"""a\\n "b" ""c"""')).toBe('a\\n "b" ""c');
  });
  it("leaves an all-blank body unchanged", () => {
    expect(value('"""\n   \n  """')).toBe("   \n  ");
  });
  it("with k == 0 only removes one trailing newline and keeps blank lines ([quirk])", () => {
    expect(value('"""\nalpha\n  """')).toBe("alpha\n  ");
    expect(value('"""\nalpha\n"""')).toBe("alpha");
  });
  it("blank lines become empty when dedenting", () => {
    expect(value('"""\n  a\n     \n  b\n"""')).toBe("a\n\nb");
  });
  it("dedents each text segment on its own when interpolating ([quirk])", () => {
    expect(value('"""\n  ${a} and\n  b\n"""')).toEqual([
      { kind: "text", text: "" },
      { kind: "expr", source: "a", start: 8, line: 2, column: 5 },
      { kind: "text", text: "and\nb" },
    ]);
    expect(value('"""\n  x: ${a}\n  ${b}\n"""')).toEqual([
      { kind: "text", text: "x: " },
      { kind: "expr", source: "a", start: 11, line: 2, column: 8 },
      { kind: "text", text: "" },
      { kind: "expr", source: "b", start: 18, line: 3, column: 5 },
      { kind: "text", text: "" },
    ]);
  });
  it("with interpolation and k == 0 drops only a blank last text segment", () => {
    expect(value('"""${a}!\n"""')).toEqual([
      { kind: "expr", source: "a", start: 5, line: 1, column: 6 },
      { kind: "text", text: "!\n" },
    ]);
    expect(value('"""${a}\n"""')).toEqual([{ kind: "expr", source: "a", start: 5, line: 1, column: 6 }]);
  });
  it("skips the empty-interpolation check", () => {
    expect(lex('"""${}"""')[0]!.kind).toBe("IString");
  });
  it("reports an unterminated triple-quoted string at its opening", () => {
    expect(lexError('x = """abc\n"" ')).toBe("Unterminated string at 1:5");
  });
});

describe("operators and punctuation (§1.11)", () => {
  it("lexes two-character operators by maximal munch", () => {
    expect(kinds("== != && || |> ?? ** ?. -> <= >= += -= *= /= %=")).toEqual(
      "== != && || |> ?? ** ?. -> <= >= += -= *= /= %=".split(" "),
    );
  });
  it("has no ..., ?[, **= or => tokens", () => {
    expect(kinds("...x ?[ **= =>")).toEqual([".", ".", ".", "Ident:x", "?", "[", "**", "=", "=", ">"]);
    expect(kinds("list<list<int>>")).toEqual(["Ident:list", "<", "Ident:list", "<", "Ident:int", ">", ">"]);
  });
  it("rejects characters that are not tokens", () => {
    for (const c of ["&", "^", "~", "$", "`", "'", "#"]) expect(lexError(`a ${c} b`)).toBe(`Unexpected character '${c}' at 1:3`);
  });
});

describe("positions (§0.3)", () => {
  it("counts columns in code points, not UTF-16 units", () => {
    const toks = lex('let s = "😀😀" ; x');
    const x = toks.find((t) => t.kind === "Ident" && t.value === "x")!;
    expect([x.line, x.column]).toEqual([1, 16]);
    expect(x.start).toBe(17);
    const s = toks[3]!;
    expect([s.column, s.endColumn]).toEqual([9, 13]);
  });
  it("gives each token its end position", () => {
    const t = lex('"""\nab\n"""')[0]!;
    expect([t.line, t.column, t.endLine, t.endColumn]).toEqual([1, 1, 3, 4]);
  });
  it("positions the lexer error after astral characters correctly", () => {
    expect(lexError('"😀" `')).toBe("Unexpected character '`' at 1:5");
  });
});

describe("token display (§1.12)", () => {
  it("prints every token class as the reference does", () => {
    const shown = lex('else x "s" 42 1.5 3.0 5s == \n').map(displayToken);
    expect(shown).toEqual(["else", "id(x)", "str(s)", "int(42)", "float(1.5)", "float(3)", "duration(5000ms)", "==", "\\n", "end of file"]);
  });
  it("formats floats without exponents", () => {
    // shortest round-trip digits, zero-padded (Rust prints u64::MAX as f64 as 18446744073709552000)
    expect(formatFloatPlain(9223372036854775808)).toBe("9223372036854776000");
    expect(formatFloatPlain(1e21)).toBe("1000000000000000000000");
    expect(formatFloatPlain(1e-7)).toBe("0.0000001");
    expect(formatFloatPlain(1.5e-7)).toBe("0.00000015");
  });
});

describe("code-point columns on lines with astral characters", () => {
  // The scanner counts columns on from the previous token of the line
  // (fuzzing found a 40 KB line with one astral character taking seconds
  // when every token recounted from the line start); the columns must be
  // the same as counting from the start.
  it("counts each astral character once, across tokens, lines and interpolations", () => {
    const src = 'let 𝒳a = "😀${x} ${𝒳y}" + 𝒳\n  b.c𝒳 + "${\n𝒳}" 𝒳z';
    const got = lex(src)
      .filter((t) => t.kind !== "NL" && t.kind !== "EOF")
      .map((t) => `${t.image}@${t.line}:${t.column}-${t.endLine}:${t.endColumn}`);
    expect(got).toEqual([
      "let@1:1-1:4",
      "𝒳a@1:5-1:7",
      "=@1:8-1:9",
      '"😀${x} ${𝒳y}"@1:10-1:23',
      "+@1:24-1:25",
      "𝒳@1:26-1:27",
      "b@2:3-2:4",
      ".@2:4-2:5",
      "c𝒳@2:5-2:7",
      "+@2:8-2:9",
      '"${\n𝒳}"@2:10-3:4',
      "𝒳z@3:5-3:7",
    ]);
    const segs = lex(src)[3]!.value as { kind: string; column?: number }[];
    expect(segs.filter((s) => s.kind === "expr").map((s) => s.column)).toEqual([14, 19]);
  });

  it("reports the column of an unexpected character far along a long line", () => {
    const long = "x" + " + x".repeat(5000);
    expect(lexError(`${long} "😀" ~`)).toBe(`Unexpected character '~' at 1:${Array.from(long).length + 6}`);
  });
});
