/**
 * The reference's glob dialect (agents.md §1.5, a Rust glob set with
 * default settings): the separator is not literal, so `*`, `?` and negated
 * classes all match `/`.
 */
import { describe, expect, it } from "vitest";
import { compileGlob, requiredSuffix } from "../../src/longrun/glob_pattern";

const matches = (pattern: string, path: string) => compileGlob(pattern)(path);

describe("compileGlob", () => {
  it("lets `?` match exactly one character, `/` included", () => {
    expect(matches("a?b", "a/b")).toBe(true);
    expect(matches("a?b", "axb")).toBe(true);
    expect(matches("a?b", "ab")).toBe(false);
    expect(matches("a?b", "axxb")).toBe(false);
    expect(matches("docs?guide", "docs/guide")).toBe(true);
    expect(matches("??", "a/")).toBe(true);
  });

  it("counts a character outside the BMP as one for `?`", () => {
    expect(matches("a?b", "a😀b")).toBe(true);
    expect(matches("a??b", "a😀b")).toBe(false);
  });

  it("keeps `?` working inside alternations and next to stars", () => {
    expect(matches("{x?,y}.md", "x/.md")).toBe(true);
    expect(matches("{x?,y}.md", "y.md")).toBe(true);
    expect(matches("*?.md", "a/b.md")).toBe(true);
    expect(matches("**/?.md", "deep/er/c.md")).toBe(true);
    expect(matches("**/?.md", "deep/er/cc.md")).toBe(false);
  });

  it("reads a brace group without a comma as a one-branch alternation", () => {
    // the reference's glob set: `{a}` is an alternation of one, `{}` of none
    expect(matches("{a}", "a")).toBe(true);
    expect(matches("{a}", "{a}")).toBe(false);
    expect(matches("{*.md}", "docs/a.md")).toBe(true);
    expect(matches("x{}y", "xy")).toBe(true);
    expect(matches("x{}y", "x{}y")).toBe(false);
    expect(matches("{a,{b}}.ts", "b.ts")).toBe(true);
  });

  it("lets `**/` opening an alternation branch match no directory too", () => {
    expect(matches("{**/x,y}", "x")).toBe(true);
    expect(matches("{**/x,y}", "a/b/x")).toBe(true);
    expect(matches("{**/x,y}", "ax")).toBe(false);
    expect(matches("{y,**/x.md}", "x.md")).toBe(true);
    expect(matches("{y,a**/x}", "ab/x")).toBe(true);
    expect(matches("\\{a\\}", "{a}")).toBe(true);
    expect(matches("[{]a[}]", "{a}")).toBe(true);
  });

  it("lets a negated class match `/` unless it excludes it", () => {
    expect(matches("a[!x]b", "a/b")).toBe(true);
    expect(matches("a[!x]b", "axb")).toBe(false);
    expect(matches("a[!x]b", "ayb")).toBe(true);
    expect(matches("a[!/]b", "a/b")).toBe(false);
    expect(matches("a[!.-0]b", "a/b")).toBe(false);
    expect(matches("a[^x]b", "a/b")).toBe(true);
    expect(matches("a[/]b", "a/b")).toBe(true);
  });

  it("leaves an escaped `?` literal", () => {
    expect(matches("a\\?b", "a?b")).toBe(true);
    expect(matches("a\\?b", "axb")).toBe(false);
    expect(matches("a[?]b", "a?b")).toBe(true);
    expect(matches("a[?]b", "a/b")).toBe(false);
  });
});

describe("requiredSuffix", () => {
  it("is the trailing run of plain name characters", () => {
    expect(requiredSuffix("**/*.md")).toBe(".md");
    expect(requiredSuffix("docs/**/x-1_a.md")).toBe("x-1_a.md");
    expect(requiredSuffix("*.{md,txt}")).toBe("");
    expect(requiredSuffix("a[bc]")).toBe("");
    expect(requiredSuffix("**")).toBe("");
    expect(requiredSuffix("src/")).toBe("");
    expect(requiredSuffix("a?")).toBe("");
  });

  it("is a tail of every path the pattern matches", () => {
    const patterns = ["**/*.md", "*.md", "a\\.md", "a\\\\md", "*.{md,txt}", "**/x.md", "[!x].md", "a*b", "{a,b}c", "?.md", "docs/**"];
    const paths = ["a.md", "x.md", "d/x.md", "a\\md", "amd", "b.txt", "ab", "a/b", "ac", "bc", "docs/a", "docs", ".md", "a/b.md.bak"];
    for (const p of patterns) {
      for (const path of paths) {
        if (compileGlob(p)(path)) expect(path.endsWith(requiredSuffix(p)), `${p} ~ ${path}`).toBe(true);
      }
    }
  });
});
