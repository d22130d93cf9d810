/**
 * `pair-pattern-over-dict` [extension]: a user iterated a dict with
 * `for (k, v) in d` and the loop printed nil for every entry.
 */
import { describe, expect, test } from "vitest";
import { inMain, only } from "./helpers";

const RULE = "pair-pattern-over-dict";

describe(RULE, () => {
  test("fires on a dict literal, with the two spellings that work in the help", () => {
    const src = inMain("  for (k, v) in {a: 1} {\n    println(k)\n    println(v)\n  }");
    const [d] = only(RULE, src);
    expect(d!.severity).toBe("warning");
    expect(d!.message).toBe("`for (k, v)` over a dict binds nil to both names: iterating a dict yields {key, value} dicts, not pairs");
    expect(d!.help).toBe("write `for (k, v) in iter({a: 1})` or `for {key, value} in {a: 1}`");
    expect(src.slice(d!.span!.start, d!.span!.end)).toBe("{a: 1}");
  });

  test.each([
    ["a let bound to a dict literal", "  let d = {a: 1}\n  for (k, v) in d {\n    println(k + v)\n  }"],
    ["a let declared as a dict", "  let d: dict<string, int> = load()\n  for (k, v) in d {\n    println(k + v)\n  }"],
  ])("fires on %s", (_n, body) => {
    expect(only(RULE, inMain(body))).toHaveLength(1);
  });

  test.each([
    ["iter(d)", "  let d = {a: 1}\n  for (k, v) in iter(d) {\n    println(k + v)\n  }"],
    ["the entry pattern", "  let d = {a: 1}\n  for {key, value} in d {\n    println(key + value)\n  }"],
    ["a list of pairs", "  let ps = [pair(1, 2)]\n  for (a, b) in ps {\n    println(a + b)\n  }"],
    ["a name of unknown kind", "  for (a, b) in load() {\n    println(a + b)\n  }"],
    ["a name bound twice", "  let d = {a: 1}\n  if true {\n    let d = [pair(1, 2)]\n    for (a, b) in d {\n      println(a + b)\n    }\n  }\n  println(d)"],
    ["a parameter", "  let f = { d -> d }\n  let d = {a: 1}\n  for (a, b) in d {\n    println(a + b)\n  }\n  println(f)"],
  ])("does not fire on %s", (_n, body) => {
    expect(only(RULE, inMain(body))).toEqual([]);
  });
});
