/**
 * The control-flow graph the flow rules share: what elements a body
 * yields, in which order, and which edges join them.
 */
import { describe, expect, test } from "vitest";
import { parse, type FnDecl } from "@harn/parser";
import { buildCfg, type Cfg, type CfgElem } from "../src/index";

function fnCfg(src: string): Cfg {
  const r = parse(src);
  expect(r.errors).toEqual([]);
  return buildCfg(r.program.items[0] as FnDecl);
}

/** Element labels per reachable path element, in block order. */
function labels(g: Cfg): string[] {
  const out: string[] = [];
  const seen = new Set<number>();
  const visit = (b: number): void => {
    if (seen.has(b)) return;
    seen.add(b);
    for (const e of g.blocks[b]!.elems) out.push(label(e));
    for (const s of g.blocks[b]!.succs) visit(s.to);
  };
  visit(g.entry);
  return out;
}

function label(e: CfgElem): string {
  switch (e.k) {
    case "call":
      return `call ${e.node.kind === "FunctionCall" ? e.node.name : e.node.method}:${e.dest.k}`;
    case "exit":
      return `exit ${e.reason}@${e.line}`;
    case "scopeEnd":
      return `end ${e.reason}@${e.line}`;
    default:
      return e.k;
  }
}

describe("buildCfg", () => {
  test("arguments come before their call; values carry where they go", () => {
    const g = fnCfg("fn f() {\n  let h = outer(inner(1))\n  log(h)\n}\n");
    expect(labels(g)).toEqual(["call inner:arg", "call outer:bind", "bind", "call log:discard", "exit end@4"]);
  });

  test("a finally body is copied onto the normal, the return and the exception path", () => {
    const g = fnCfg("fn f(x) {\n  try {\n    if x { return 1 }\n    work()\n  } finally {\n    cleanup()\n  }\n}\n");
    const cleanups = g.blocks.flatMap((b) => b.elems).filter((e) => e.k === "call" && label(e).startsWith("call cleanup"));
    expect(cleanups).toHaveLength(3);
    const exits = g.blocks.flatMap((b) => b.elems).filter((e) => e.k === "exit").map(label);
    // `work()` failing inside a try without catch leaves through finally
    expect(exits.sort()).toEqual(["exit end@8", "exit exception@2", "exit return@3"]);
  });

  test("calls fail only inside a try: an exceptional edge leaves before the call", () => {
    const outside = fnCfg("fn f() {\n  work()\n}\n");
    expect(outside.blocks.flatMap((b) => b.succs).some((s) => s.kind === "exception")).toBe(false);
    const inside = fnCfg("fn f() {\n  try {\n    work()\n  } catch (e) {\n    log(e)\n  }\n}\n");
    const exceptional = inside.blocks.filter((b) => b.succs.some((s) => s.kind === "exception"));
    expect(exceptional.length).toBeGreaterThan(0);
    // the block the exceptional edge leaves does not contain the call itself
    for (const b of exceptional) expect(b.elems.map(label)).not.toContain("call work:discard");
  });

  test("break leaves the loop body's scope; retry may be skipped (retrySkip edge)", () => {
    const g = fnCfg("fn f(xs) {\n  for x in xs {\n    let h = 1\n    break\n  }\n  retry 2 { work() }\n}\n");
    expect(labels(g)).toContain("end break@4");
    expect(g.blocks.flatMap((b) => b.succs).filter((s) => s.kind === "retrySkip")).toHaveLength(1);
  });

  test("closures are opaque captures; defer registers; cleanup cancels are listed", () => {
    const g = fnCfg("fn f(h) {\n  let c = { -> cancel_handle(h) }\n  defer { cancel_handle(h) }\n}\n");
    expect(labels(g)).toEqual(["capture", "bind", "defer", "exit end@4"]);
    expect(g.cleanupCancels.map((c) => c.line)).toEqual([3]);
  });
});
