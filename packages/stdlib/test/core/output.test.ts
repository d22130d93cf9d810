import { describe, expect, it } from "vitest";
import { float, HDict, HRange, HSet, ok } from "@harn/vm";
import { rig } from "./harness";

describe("output builtins", () => {
  it("println writes the display form of the first argument only", () => {
    const r = rig();
    r.call("println", [1, "a", true, null]);
    r.call("println", "a", "b");
    r.call("println");
    r.call("println", HDict.of({ b: 2, a: [1, HDict.of({ c: "d" })] }));
    expect(r.stdout()).toBe("[1, a, true, nil]\na\n\n{a: [1, {c: d}], b: 2}\n");
  });

  it("log prefixes once, print adds no newline, eprint goes to stderr", () => {
    const r = rig();
    r.call("log", "a\nb");
    r.call("log");
    r.call("print", float(2));
    r.call("print", new HSet([3, 1]));
    r.call("eprintln", "oops");
    expect(r.stdout()).toBe("[harn] a\nb\n[harn] \n2.0set(3, 1)");
    expect(r.err.join("")).toBe("oops\n");
  });

  it("displays results and ranges", () => {
    const r = rig();
    r.call("println", ok(null));
    r.call("println", new HRange(0, 3, false));
    expect(r.stdout()).toBe("Result.Ok(nil)\n0 to 3 exclusive\n");
  });
});
