/**
 * The reference's glob dialect (agents.md §1.5, a Rust glob set with
 * default settings): the separator is not literal, so `*`, `?` and negated
 * classes all match `/`.
 */
import { describe, expect, it } from "vitest";
import { compileGlob, literalDirectoryPrefix, requiredSuffix } from "../../src/longrun/glob_pattern";

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

describe("literalDirectoryPrefix", () => {
  it("is the whole segments of the pattern's leading literal text", () => {
    expect(literalDirectoryPrefix("docs/api/*.md")).toBe("docs/api/");
    expect(literalDirectoryPrefix("src/ma*")).toBe("src/");
    expect(literalDirectoryPrefix("src/**")).toBe("src/");
    expect(literalDirectoryPrefix("a/b")).toBe("a/");
    expect(literalDirectoryPrefix("a/{b,c}/d")).toBe("a/");
    expect(literalDirectoryPrefix("a/[b]/c")).toBe("a/");
    expect(literalDirectoryPrefix("a/b\\*/c")).toBe("a/");
    expect(literalDirectoryPrefix("**/*.md")).toBe("");
    expect(literalDirectoryPrefix("x.md")).toBe("");
    expect(literalDirectoryPrefix("{a,b}/c")).toBe("");
  });

  it("is empty when a segment is one a walk never produces", () => {
    for (const p of ["./x/*", "a/./b/*", "../x/*", "a/../b", "a//b/*", "/abs/*"]) expect(literalDirectoryPrefix(p), p).toBe("");
  });

  it("is a head of every path the pattern matches", () => {
    const patterns = ["docs/api/*.md", "src/ma*", "src/**", "a/b", "a/{b,c}/d", "a/[b]/c", "c/d*", "a/b?", "a/**/x"];
    const paths = ["docs/api/x.md", "docs/apix.md", "src/main.ts", "src/ma/in", "src", "src/a", "a/b", "a/c/d", "a/b/c", "a/bc", "c/d", "c/d/e", "a/x", "a/q/x", "b/x"];
    let matched = 0;
    for (const p of patterns) {
      for (const path of paths) {
        if (!compileGlob(p)(path)) continue;
        matched++;
        expect(path.startsWith(literalDirectoryPrefix(p)), `${p} ~ ${path}`).toBe(true);
      }
    }
    expect(matched).toBeGreaterThan(10);
  });
});
