/** The fix algorithm of lint.md §5.5 on hand-made edits. */
import { describe, expect, test } from "vitest";
import { applyFixes, type Diagnostic } from "../src/index";

function edit(start: number, end: number, replacement: string): Diagnostic {
  const span = { start, end, line: 1, column: start + 1, endLine: 1, endColumn: end + 1 };
  return { code: "r", severity: "warning", message: "m", span, fix: [{ span, replacement }] };
}

describe("applyFixes", () => {
  test("applies non-overlapping edits right to left and counts edits", () => {
    expect(applyFixes("abcdef", [edit(0, 1, "X"), edit(4, 6, "YZW")])).toEqual({ text: "XbcdYZW", applied: 2 });
  });
  test("of overlapping edits the one with the later start wins", () => {
    expect(applyFixes("abcdef", [edit(0, 3, "1"), edit(2, 4, "2")])).toEqual({ text: "ab2ef", applied: 1 });
  });
  test("identical edits collapse to one", () => {
    expect(applyFixes("abc", [edit(0, 2, ""), edit(0, 2, "")])).toEqual({ text: "c", applied: 1 });
  });
  test("insertions at the same offset do not overlap; nor does one at the edge of a replacement", () => {
    expect(applyFixes("ab", [edit(1, 1, "x"), edit(1, 1, "y"), edit(0, 1, "A")]).applied).toBe(3);
  });
  test("an insertion and a replacement at the same start both land intact, whatever the emission order", () => {
    // blank-line-between-items inserts "\n" where legacy-doc-comment rewrites the comment run
    const src = "let x = 1\n// doc\nfn f() {}\n";
    const insert = edit(10, 10, "\n");
    const rewrite = edit(10, 16, "/** doc */");
    const want = { text: "let x = 1\n\n/** doc */\nfn f() {}\n", applied: 2 };
    expect(applyFixes(src, [insert, rewrite])).toEqual(want);
    expect(applyFixes(src, [rewrite, insert])).toEqual(want);
  });
  test("nothing to fix", () => {
    expect(applyFixes("abc", [])).toEqual({ text: "abc", applied: 0 });
  });
});
