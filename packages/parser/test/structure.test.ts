/** checkStructure: the structural errors reported before running. */
import { describe, expect, it } from "vitest";
import { checkStructure, parse } from "../src/index";

function structural(src: string): string[] {
  const r = parse(src);
  expect(r.errors).toEqual([]);
  return checkStructure(r.program).map((e) => `${e.message} @${e.span!.line}:${e.span!.column}`);
}

describe("checkStructure", () => {
  it("break and continue need an enclosing for/while in the same function", () => {
    expect(structural("for x in xs { break }\nwhile true { if a { continue } }")).toEqual([]);
    expect(structural("break")).toEqual(["break outside of loop @1:1"]);
    expect(structural("fn f() {\n  continue\n}")).toEqual(["continue outside of loop @2:3"]);
    expect(structural("for x in xs {\n  let f = { -> break }\n}")).toEqual(["break outside of loop @2:16"]);
    expect(structural("while true {\n  fn g() { break }\n}")).toEqual(["break outside of loop @2:12"]);
    expect(structural("parallel each xs { x -> break }")).toEqual(["break outside of loop @1:25"]);
    expect(structural("match x { _ -> { continue } }")).toEqual(["continue outside of loop @1:18"]);
  });
  it("try* needs an enclosing function, tool, pipeline or closure", () => {
    const msg = "try* requires an enclosing function (fn, tool, or pipeline) so the rethrow has a target";
    expect(structural("let v = try* f()")).toEqual([`${msg} @1:9`]);
    expect(structural("if x { try* f() }")).toEqual([`${msg} @1:8`]);
    expect(structural("fn g() { try* f() }\npipeline p() { try* f() }\ntool t() { try* f() }\nlet c = { -> try* f() }")).toEqual([]);
  });
  it("yield is not allowed directly inside a gen fn", () => {
    const msg = "`yield` is not a stream emit; use `emit` inside `gen fn`";
    expect(structural("gen fn g() {\n  yield 1\n}")).toEqual([`${msg} @2:3`]);
    expect(structural("gen fn g() { emit 1 }\nfn h() { yield 1 }")).toEqual([]);
    expect(structural("gen fn g() { let f = { -> yield 1 } }")).toEqual([]);
  });
  it("duration literals must fit in 64 bits", () => {
    expect(structural("sleep(15250284453w)")).toEqual(["duration literal is too large @1:7"]);
    expect(structural("sleep(15250284452w)")).toEqual([]);
  });
  it("looks inside interpolations, defaults and every nested construct", () => {
    expect(structural('log("${ try* f() }")')).toEqual([
      "try* requires an enclosing function (fn, tool, or pipeline) so the rethrow has a target @1:9",
    ]);
    expect(structural("let {a = try* f()} = d")).toHaveLength(1);
    expect(structural("select { m from c { break } }")).toHaveLength(1);
  });
});
