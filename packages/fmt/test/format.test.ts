import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import fg from "fast-glob";
import { describe, expect, it } from "vitest";
import { DEFAULT_FORMAT_OPTIONS, formatSource, FormatError } from "../src/index";

const fmt = (s: string, o = {}) => formatSource(s, { ...DEFAULT_FORMAT_OPTIONS, ...o });

describe("formatSource", () => {
  it("re-indents with 2 spaces per level and ends with exactly one newline", () => {
    expect(fmt("pipeline default(task){\n    let x=1\nif x>0 {\n        println(x)\n}\n}\n\n\n")).toBe(
      "pipeline default(task) {\n  let x = 1\n  if x>0 {\n    println(x)\n  }\n}\n",
    );
    expect(fmt("println(1)")).toBe("println(1)\n");
    expect(fmt("")).toBe("");
  });

  it("turns `;` separators into newlines", () => {
    expect(fmt("let a = 1; let b = 2;\nprintln(a + b);\n")).toBe("let a = 1\nlet b = 2\nprintln(a + b)\n");
    expect(fmt("let a = 1; // one\nlet b = 2; /* two */ let c = 3\n")).toBe("let a = 1 // one\nlet b = 2\n/* two */ let c = 3\n");
    expect(fmt("let a = 1\r\nlet b = 2\r\n")).toBe("let a = 1\nlet b = 2\n");
  });

  it("keeps the shebang, comments and multi-line strings; trims trailing spaces", () => {
    const src = '#!/usr/bin/env harn\n// note   \nlet s = """\n  a  \n   b"""   \n/* x */ println(s)  // end\n';
    expect(fmt(src)).toBe('#!/usr/bin/env harn\n// note\nlet s = """\n  a  \n   b"""\n/* x */ println(s) // end\n');
  });

  it("normalises spacing where it is unambiguous and keeps the source's choice elsewhere", () => {
    expect(fmt("fn f(a,b)->int{\nreturn a+b }\n")).toBe("fn f(a, b) -> int {\n  return a + b }\n");
    expect(fmt("let v = f( [ 1 ,2 ] , ...xs ).g ?.h\n")).toBe("let v = f([1, 2], ...xs).g?.h\n");
    expect(fmt("let a = -x - y*z\nlet t: list<int> = [1]\nlet c = p ? q : r\nlet d = {...base}\n")).toBe(
      "let a = -x - y*z\nlet t: list<int> = [1]\nlet c = p ? q : r\nlet d = {...base}\n",
    );
    expect(fmt("let b = ! done\n@test\npipeline t() {}\n")).toBe("let b = !done\n@test\npipeline t() {}\n");
  });

  it("indents continuation lines one level, and keeps `\\` continuations", () => {
    expect(fmt("let s = foo\n.bar()\n?.baz()\nlet n = 1 +\n2\nlet z = 1 \\\n      - 2\n")).toBe(
      "let s = foo\n  .bar()\n  ?.baz()\nlet n = 1 +\n  2\nlet z = 1 \\\n  - 2\n",
    );
  });

  it("indents a bracketed list once per line that opened brackets, closers at the opener's level", () => {
    expect(fmt("foo([\n1,\n    2,\n])\nlet m = {\na: 1,\n}\n")).toBe("foo([\n  1,\n  2,\n])\nlet m = {\n  a: 1,\n}\n");
  });

  it("collapses blank lines, and drops them after an opener and before a closer", () => {
    expect(fmt("\n\nlet a = 1\n\n\n\nfn f() {\n\n  return 1\n\n}\n")).toBe("let a = 1\n\nfn f() {\n  return 1\n}\n");
  });

  it("wraps an over-long list one item per line with a trailing comma", () => {
    const src = "let v = call(alpha_alpha, beta_beta, gamma_gamma)\n";
    expect(fmt(src, { lineWidth: 30 })).toBe("let v = call(\n  alpha_alpha,\n  beta_beta,\n  gamma_gamma,\n)\n");
    expect(fmt(src, { lineWidth: 100 })).toBe(src);
  });

  it("wraps an over-long dict literal one entry per line, not a list inside it", () => {
    // Wrapping only the inner list left the dict over several lines without
    // a trailing comma, so `harn lint` warned about the formatter's output.
    const src = 'let opts = {provider: "mock", tools: [deploy, lookup], persistent: true}\n';
    expect(fmt(src, { lineWidth: 40 })).toBe('let opts = {\n  provider: "mock",\n  tools: [deploy, lookup],\n  persistent: true,\n}\n');
    expect(fmt('let p = Point {x: 1, y: 2}\n', { lineWidth: 20 })).toBe("let p = Point {\n  x: 1,\n  y: 2,\n}\n");
    // blocks and closures are not lists
    expect(fmt("let f = { a -> g(a, b) }\n", { lineWidth: 20 })).toBe("let f = { a -> g(\n  a,\n  b,\n) }\n");
  });

  it("writes a trailing comma right before the closing brace of a one-line dict", () => {
    expect(fmt("let x = {a: [1, 2],}\nlet y = {a: 1, }\n")).toBe("let x = {a: [1, 2],}\nlet y = {a: 1,}\n");
  });

  it("sizes separator bars to the separator width, indentation included", () => {
    expect(fmt("// ---\nfn f() {\n  //----------\n}\n", { separatorWidth: 20 })).toBe(
      `// ${"-".repeat(17)}\nfn f() {\n  // ${"-".repeat(15)}\n}\n`,
    );
  });

  it("reports a syntax error with the parser's message", () => {
    expect(() => fmt("let x = )\n")).toThrow(FormatError);
    expect(() => fmt("let x = )\n")).toThrow("Expected expression, got ) at 1:9");
    expect(() => fmt('let s = "abc\n')).toThrow("Unterminated string at 1:9");
  });

  it("is idempotent and keeps every conformance script's tokens (the whole corpus)", () => {
    const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../../conformance");
    let formatted = 0;
    for (const file of fg.sync("**/*.harn", { cwd: root, absolute: true })) {
      const src = readFileSync(file, "utf8");
      let once: string;
      try {
        once = fmt(src);
      } catch (e) {
        // only syntax-error cases may be refused
        expect(file, String(e)).toMatch(/errors[\\/]syntax[\\/]/);
        continue;
      }
      formatted++;
      expect(fmt(once), file).toBe(once);
    }
    expect(formatted).toBeGreaterThan(500);
  });

  it("wraps a 200,000-element list without overflowing the stack", () => {
    const items = Array.from({ length: 200_000 }, (_, i) => String(i));
    const out = fmt(`let xs = [${items.join(", ")}]\n`);
    expect(out).toBe(`let xs = [\n${items.map((i) => `  ${i},\n`).join("")}]\n`);
  });
});
