/** The editor's parse (`recover: true`, used by `harn lsp`): a half-typed
 * line costs that line, not the rest of the file, and the first error is
 * the one `harn run` and `harn check` report. */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import fg from "fast-glob";
import { describe, expect, it } from "vitest";
import { parse, type Node } from "../src/index";

const repo = join(dirname(fileURLToPath(import.meta.url)), "../../..");

function recovered(src: string) {
  const r = parse(src, { recover: true });
  return { errors: r.errors.map((e) => e.message), items: r.program.items };
}

const bodyOf = (n: Node | undefined): Node[] => (n && "body" in n && Array.isArray(n.body) ? (n.body as Node[]) : []);

describe("recovery inside blocks", () => {
  it("keeps the statements around a broken one", () => {
    const src = "pipeline main() {\n  let a = 1\n  let b = )\n  log(a)\n}\nfn g() { return 1 }\n";
    const r = recovered(src);
    expect(r.errors).toEqual(["Expected expression, got ) at 3:11"]);
    expect(r.items.map((i) => i.kind)).toEqual(["Pipeline", "FnDecl"]);
    expect(bodyOf(r.items[0]).map((s) => s.kind)).toEqual(["LetBinding", "FunctionCall"]);
  });

  it("reports every broken statement, in source order", () => {
    const r = recovered("fn f() {\n  let a = )\n  if x {\n    let y = ]\n  }\n  log(a)\n}\nlet z = )");
    expect(r.errors).toEqual(["Expected expression, got ) at 2:11", "Expected expression, got ] at 4:13", "Expected expression, got ) at 8:9"]);
    expect(bodyOf(r.items[0]).map((s) => s.kind)).toEqual(["IfElse", "FunctionCall"]);
  });

  it("an unclosed call at the end of a block ends at the block's brace", () => {
    const r = recovered("pipeline main() {\n  let h = 1\n  log(\n}\nfn later() { }");
    expect(r.errors).toEqual(["Expected expression, got } at 4:1"]);
    expect(r.items.map((i) => i.kind)).toEqual(["Pipeline", "FnDecl"]);
    expect(bodyOf(r.items[0]).map((s) => s.kind)).toEqual(["LetBinding"]);
  });

  it("keeps a statement whose separator is missing", () => {
    const r = recovered("pipeline p() {\n  let x = 1 2\n  log(x)\n}");
    expect(r.errors).toEqual(["Expected statement separator (`;` or newline), got int(2) at 2:13"]);
    expect(bodyOf(r.items[0]).map((s) => s.kind)).toEqual(["LetBinding", "FunctionCall"]);
  });

  it("skips the continuation lines of a broken statement", () => {
    const r = recovered("fn f() {\n  let d = g(1, =,\n      3)\n  log(d)\n}");
    expect(r.errors).toHaveLength(1);
    expect(bodyOf(r.items[0]).map((s) => s.kind)).toEqual(["FunctionCall"]);
  });

  it("a missing top-level separator is one more error, not the only one", () => {
    expect(parse("fn f() { ; log(1) }").errors.map((e) => e.message)).toEqual([
      "Expected top-level item separator (`;` or newline), got } at 1:19",
    ]);
    expect(recovered("let a = 1\nlog(1) log(2)\nlet b = )").errors).toEqual([
      "Expected top-level item separator (`;` or newline), got id(log) at 2:8",
      "Expected expression, got ) at 3:9",
    ]);
  });

  it("a lex error blanks the rest of its line; the rest of the file is parsed", () => {
    const r = recovered('fn f() {\n  let s = "abc\n  log(2)\n}\nlet t = `x`\nlog(t)\nlet u = )');
    expect(r.errors).toEqual(["Unterminated string at 2:11", "Unexpected character '`' at 5:9", "Expected expression, got ) at 7:9"]);
    expect(r.items.map((i) => i.kind)).toEqual(["FnDecl", "LetBinding"]);
  });

  it("nesting past the bound is still one error", () => {
    expect(recovered("fn f() {\n  let x = " + "[".repeat(100_000) + "\n}").errors).toEqual([expect.stringMatching(/^Nesting too deep at 2:\d+$/)]);
  });
});

/** Every script of the repository, cut short at many lines: what a file
 * looks like while it is typed. The editor's parse never throws, finds an
 * error exactly when the plain parse does, and its first error is the
 * plain one (but for the top-level separator quirk, which replaces the
 * plain parse's earlier errors). */
describe("recovery never changes the first error", () => {
  const files = fg.sync(["conformance/**/*.harn", "examples/**/*.harn"], { cwd: repo, absolute: true }).sort();

  it("over every repository script, whole and cut short", () => {
    expect(files.length).toBeGreaterThan(100);
    let compared = 0;
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      const lines = text.split("\n");
      const cuts = [lines.length, ...[1, 2, 3].map((k) => Math.floor((lines.length * k) / 4))];
      for (const cut of cuts) {
        // Cut mid-line too: the last kept line loses its second half.
        const kept = lines.slice(0, cut);
        const last = kept.pop() ?? "";
        const src = [...kept, last.slice(0, Math.ceil(last.length / 2))].join("\n");
        const plain = parse(src).errors.map((e) => e.message);
        const editor = parse(src, { recover: true }).errors.map((e) => e.message);
        expect(editor.length > 0, `${file} cut at ${cut}`).toBe(plain.length > 0);
        if (plain.length === 0) continue;
        compared++;
        if (plain.length === 1 && plain[0]!.startsWith("Expected top-level item separator")) {
          expect(editor, `${file} cut at ${cut}`).toContain(plain[0]);
        } else {
          expect(editor[0], `${file} cut at ${cut}`).toBe(plain[0]);
        }
      }
    }
    expect(compared).toBeGreaterThan(100);
  });
});
