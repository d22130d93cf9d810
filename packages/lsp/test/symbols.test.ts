/** The name index (symbols.ts): which declaration each use of a name
 * resolves to, through Harn's scopes. */
import { parse } from "@harn/parser";
import { describe, expect, it } from "vitest";
import { indexFile, occurrenceAt, visibleAt, type FileIndex } from "../src/symbols";

function index(src: string): FileIndex {
  const r = parse(src, { recover: true });
  return indexFile(r.program, r.tokens, src.length);
}

/** For each use of `name`: the line of the declaration it resolves to
 * (null: not declared in the file). */
function resolved(src: string, name: string): (number | null)[] {
  return index(src)
    .occurrences.filter((o) => o.name === name && !o.declaration)
    .map((o) => o.def?.nameSpan.line ?? null);
}

describe("resolution through scopes", () => {
  it("a let shadows an outer name from its own line on, and only in its block", () => {
    const src = ["let x = 1", "fn f() {", "  log(x)", "  let x = 2", "  log(x)", "  if true {", "    let x = 3", "    log(x)", "  }", "  log(x)", "}", "log(x)"].join("\n");
    expect(resolved(src, "x")).toEqual([1, 4, 7, 4, 1]);
  });

  it("functions are visible before their declaration; parameters inside their body only", () => {
    const src = ["log(g(1))", "fn g(n) {", "  return n", "}", "log(n)"].join("\n");
    expect(resolved(src, "g")).toEqual([2]);
    expect(resolved(src, "n")).toEqual([2, null]);
  });

  it("loop, catch, match and closure bindings", () => {
    const src = [
      "pipeline main(task) {",
      "  for item in [1, 2] { log(item) }",
      "  try { log(1) } catch (e) { log(e) }",
      "  match task { {kind: k} -> { log(k) } _ -> { log(0) } }",
      "  let f = { v -> v + 1 }",
      "  log(item)",
      "}",
    ].join("\n");
    expect(resolved(src, "item")).toEqual([2, null]);
    expect(resolved(src, "e")).toEqual([3]);
    expect(resolved(src, "k")).toEqual([4]);
    expect(resolved(src, "v")).toEqual([5]);
    expect(resolved(src, "task")).toEqual([1]);
  });

  it("type annotations refer to the declared types", () => {
    const src = ["struct Point {", "  x: int", "}", "fn f(p: Point) -> list<Point> {", "  return [p]", "}"].join("\n");
    expect(resolved(src, "Point")).toEqual([1, 1]);
  });

  it("selective imports declare names; wildcard imports are remembered", () => {
    const ix = index('import { a, b } from "./m"\nimport "./n"\nlog(a(b))');
    expect(ix.occurrences.filter((o) => !o.declaration && o.name !== "log").map((o) => o.def?.kind)).toEqual(["import", "import"]);
    expect(ix.wildcardImports).toEqual(["./n"]);
  });
});

describe("lookups by position", () => {
  it("finds the name under (or just after) the cursor", () => {
    const src = "let total = 1\nlog(total)";
    const ix = index(src);
    const at = src.lastIndexOf("total");
    expect(occurrenceAt(ix, at)?.name).toBe("total");
    expect(occurrenceAt(ix, at + 5)?.name).toBe("total");
    expect(occurrenceAt(ix, src.indexOf("=") + 1)).toBeNull();
  });

  it("knows what is visible where, on a file with a half-typed line", () => {
    const src = "fn f(a) {\n  let b = 1\n  let c = foo(\n\n}\nlet d = 2";
    const ix = index(src);
    const names = (offset: number) => visibleAt(ix, offset).map((d) => d.name).sort();
    expect(names(src.indexOf("\n\n") + 1)).toEqual(["a", "b", "f"]);
    expect(names(src.length)).toEqual(["d", "f"]);
  });
});
