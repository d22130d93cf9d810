import { describe, expect, test } from "vitest";
import { plainCheck, plainRun } from "../src/plain-run";

// `harn run FILE [-- ARGS]` and `harn check TARGET...` start without
// commander (src/plain-run.ts);
// every other command line must still reach commander, which owns the
// help texts and usage errors (run.test.ts and global.test.ts check those
// end to end).
describe("plainRun", () => {
  test("takes `run FILE` and `run FILE -- ARGS`, the script's argv being everything after the first `--`", () => {
    expect(plainRun(["run", "a.harn"])).toEqual({ file: "a.harn", argv: [] });
    expect(plainRun(["run", "a.harn", "--"])).toEqual({ file: "a.harn", argv: [] });
    expect(plainRun(["run", "a.harn", "--", "-x", "--y", "--", "z"])).toEqual({ file: "a.harn", argv: ["-x", "--y", "--", "z"] });
  });

  test("leaves options, help, extra arguments and other commands to commander", () => {
    for (const argv of [
      [],
      ["run"],
      ["run", "-e", "println(1)"],
      ["run", "--help"],
      ["run", "--deny", "exec", "a.harn"],
      ["run", "a.harn", "--stream"],
      ["run", "a.harn", "extra"],
      ["run", "--", "a.harn"],
      ["check", "a.harn"],
      ["a.harn"],
    ]) {
      expect(plainRun(argv), argv.join(" ")).toBeNull();
    }
  });
});

describe("plainCheck", () => {
  test("takes `check TARGET...` without options", () => {
    expect(plainCheck(["check", "a.harn"])).toEqual(["a.harn"]);
    expect(plainCheck(["check", "a.harn", "dir", "b.harn"])).toEqual(["a.harn", "dir", "b.harn"]);
  });

  test("leaves options, help, a missing target and other commands to commander", () => {
    for (const argv of [[], ["check"], ["check", "--help"], ["check", "a.harn", "-x"], ["check", "--", "a.harn"], ["check", "-"], ["run", "a.harn"], ["lint", "a.harn"]]) {
      expect(plainCheck(argv), argv.join(" ")).toBeNull();
    }
  });
});
