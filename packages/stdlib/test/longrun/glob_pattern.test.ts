/**
 * The reference's glob dialect (agents.md §1.5, a Rust glob set with
 * default settings): the separator is not literal, so `*`, `?` and negated
 * classes all match `/`.
 */
import { describe, expect, it } from "vitest";
import { compileGlob } from "../../src/longrun/glob_pattern";

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
