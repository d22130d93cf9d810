/** HarnError descriptions (spec/semantics.md §8.1). */
import { describe, expect, it } from "vitest";
import { HarnError, type Value } from "../src/index";

describe("HarnError.description", () => {
  it("describes a thrown value nested deeper than the host stack instead of failing itself", () => {
    // Found by bench/fuzz: `throw x` of a 10^5-deep list ended `harn run`
    // with `internal error: Maximum call stack size exceeded`.
    let deep: Value = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const e = HarnError.thrown(deep);
    expect(e.description()).toBe("Thrown: <list nested too deeply to display>");
    expect(e.caughtValue()).toBe(deep);
  });

  it("still displays an ordinary thrown value", () => {
    expect(HarnError.thrown([1, [2, "x"]]).description()).toBe("Thrown: [1, [2, x]]");
  });
});
