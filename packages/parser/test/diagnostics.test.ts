/** The shared renderer's exact layout (spec/lint.md §5.3). */
import { describe, expect, it } from "vitest";
import { parse, renderDiagnostic, syntaxDiagnostic, type Diagnostic, type DiagnosticStyle } from "../src/index";

const source = ["fn main() {", "  let x = )", "}"].join("\n");

describe("renderDiagnostic", () => {
  it("renders a syntax error with gutter, source line, carets and label", () => {
    const r = parse(source);
    expect(r.errors).toHaveLength(1);
    const text = renderDiagnostic(syntaxDiagnostic(r.errors[0]!), "demo.harn", source);
    expect(text).toBe(
      [
        "error: expected expression, found )",
        "  --> demo.harn:2:11",
        "   |",
        " 2 |   let x = )",
        "   |           ^ unexpected token",
        "",
      ].join("\n"),
    );
  });

  it("pads the gutter to the width of the line number", () => {
    const src = "\n".repeat(10) + "  let handle = walk_dir(\"docs\")\n";
    const d: Diagnostic = {
      code: "rule",
      severity: "warning",
      message: "something",
      span: { start: 23, end: 41, line: 11, column: 16, endLine: 11, endColumn: 34 },
      label: "lint[rule]",
      help: "do the thing",
    };
    expect(renderDiagnostic(d, "jobs/index.harn", src)).toBe(
      [
        "warning: something",
        "   --> jobs/index.harn:11:16",
        "    |",
        " 11 |   let handle = walk_dir(\"docs\")",
        "    |                ^^^^^^^^^^^^^^^^ lint[rule]",
        "    = help: do the thing",
        "",
      ].join("\n"),
    );
  });

  it("caps carets at the end of the first line of a multi-line span", () => {
    const src = "let x = [\n  1,\n]\n";
    const d: Diagnostic = {
      code: "syntax",
      severity: "error",
      message: "m",
      span: { start: 8, end: 17, line: 1, column: 9, endLine: 3, endColumn: 2 },
      label: "here",
    };
    expect(renderDiagnostic(d, "a.harn", src).split("\n")[4]).toBe("   |         ^ here");
  });

  it("omits the caret line without a label and the source lines past the end", () => {
    const d: Diagnostic = { code: "type", severity: "error", message: "m", span: { start: 0, end: 0, line: 9, column: 1, endLine: 9, endColumn: 1 } };
    expect(renderDiagnostic(d, "a.harn", "x\n")).toBe("error: m\n  --> a.harn:9:1\n   |\n");
  });

  it("prints a spanless diagnostic on one line", () => {
    expect(renderDiagnostic({ code: "io", severity: "error", message: "no span", span: null }, "a.harn", "")).toBe("error: no span\n");
  });

  it("adds the missing-closer help and the end-of-file label", () => {
    const src = "fn f() {\n  log(1)\n";
    const r = parse(src);
    expect(r.errors[0]!.message).toBe("Unexpected end of file, expected }");
    const text = renderDiagnostic(syntaxDiagnostic(r.errors[0]!), "f.harn", src);
    expect(text).toContain("error: unexpected end of file, expected }\n");
    expect(text).toContain("^ file ends here\n");
    expect(text).toContain("= help: add a closing `}` to finish this block\n");
  });

  it("uses the line-break label when a newline is the offending token", () => {
    const r = parse("let x = -\n1");
    expect(r.errors[0]!.label).toBe("line break not allowed here");
    expect(r.errors[0]!.pretty).toBe("expected expression, found \\n");
  });

  it("colours through the style functions", () => {
    const tag = (name: string) => (s: string) => `<${name}>${s}</${name}>`;
    const style: DiagnosticStyle = { bold: tag("b"), red: tag("r"), yellow: tag("y"), blue: tag("bl"), cyan: tag("c") };
    const text = renderDiagnostic(
      { code: "c", severity: "error", message: "m", span: { start: 0, end: 1, line: 1, column: 1, endLine: 1, endColumn: 2 }, label: "l", help: "h" },
      "a.harn",
      "x",
      style,
    );
    expect(text).toContain("<b><r>error</r></b>: m");
    expect(text).toContain("<b><bl>--></bl></b> a.harn:1:1");
    expect(text).toContain("<b><r>^</r></b> <r>l</r>");
    expect(text).toContain("= <b><c>help</c></b>: h");
  });

  /** The diagnostic of `needle` in `src` (one line), rendered. */
  function at(src: string, needle: string, extra: Partial<Diagnostic> = {}): string[] {
    const start = src.indexOf(needle);
    const before = Array.from(src.slice(0, start));
    const column = before.length - before.lastIndexOf("\n");
    const span = { start, end: start + needle.length, line: 1, column, endLine: 1, endColumn: column + Array.from(needle).length };
    return renderDiagnostic({ code: "c", severity: "warning", message: "m", span, label: "l", ...extra }, "a.harn", src).split("\n");
  }

  it("puts a tab under each tab before the span, so the carets line up however wide tabs are", () => {
    expect(at("\t\tlet x = 1", "x")[4]).toBe("   | \t\t    ^ l");
  });

  it("puts two columns under each wide (CJK, emoji) character", () => {
    expect(at('log("中文", bad)', "bad")[4]).toBe(`   | ${" ".repeat(12)}^^^ l`);
    expect(at('log("😀", bad)', "bad")[4]).toBe(`   | ${" ".repeat(10)}^^^ l`);
    // a wide span gets two carets per character; a combining mark none
    expect(at('log("中文")', "中文")[4]).toBe("   |      ^^^^ l");
    expect(at('log("e\u0301", bad)', "bad")[4]).toBe(`   | ${" ".repeat(9)}^^^ l`);
  });

  it("an empty label draws the carets alone", () => {
    expect(at("let x = 1", "x", { label: "" })[4]).toBe("   |     ^");
  });

  it("draws secondary labels with dashes, on their own lines", () => {
    const src = "let h = start()\nlog(1)\nreturn 2\n";
    const span = (needle: string, line: number) => {
      const start = src.indexOf(needle);
      const column = start - src.lastIndexOf("\n", start - 1);
      return { start, end: start + needle.length, line, column, endLine: line, endColumn: column + needle.length };
    };
    const d: Diagnostic = { code: "c", severity: "warning", message: "m", span: span("start()", 1), label: "l", labels: [{ span: span("return", 3), text: "leaves here" }] };
    expect(renderDiagnostic(d, "a.harn", src)).toBe(
      ["warning: m", "  --> a.harn:1:9", "   |", " 1 | let h = start()", "   |         ^^^^^^^ l", " 3 | return 2", "   | ------ leaves here", ""].join("\n"),
    );
  });
});
