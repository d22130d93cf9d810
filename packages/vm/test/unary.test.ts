/**
 * Builtins with a one-argument form (`defineBuiltin`'s third argument,
 * called by generated code without an argument list or call context) and
 * the code-point length memo that `len` reads (values.ts CpLengthMemo).
 * Every program runs with HARN_VM_JIT=off, eager and auto (the loops below
 * run long enough to tier up) and must print the same output and fail with
 * the same error and span.
 */
import { parse } from "@harn/parser";
import { describe, expect, it } from "vitest";
import { CpLengthMemo, HarnError, ProgramRunner, Runtime, display, type BuiltinFn, type Value } from "../src/index";

type Mode = "off" | "eager" | "auto";

interface Setup {
  deny?: string[];
  /** `half` starts as a stub without a one-argument form that installs the
   * real builtin (with one) on its first call, as lazy stdlib groups do. */
  lazyHalf?: boolean;
}

interface Outcome {
  out: string;
  error: string | null;
  where: string | null;
  /** Calls that went through the argument-list form of `half`. */
  listCalls: number;
}

function halfOf(v: Value): Value {
  if (typeof v !== "number") throw HarnError.type(`half() expects an int, got ${display(v)}`);
  return Math.trunc(v / 2);
}

async function runIn(mode: Mode, source: string, setup: Setup = {}): Promise<Outcome> {
  const out: string[] = [];
  const rt = new Runtime({ stdout: { write: (t) => void out.push(t) }, stderr: { write: () => undefined }, cwd: "/", env: { HARN_VM_JIT: mode } });
  rt.defineBuiltin("println", (args, ctx) => {
    ctx.out(display(args[0] ?? "") + "\n");
    return null;
  });
  // `len` as the stdlib defines it (core/convert.ts).
  const memo = rt.cpMemo;
  const lengthOf = (v: Value): Value => (typeof v === "string" ? memo.length(v) : Array.isArray(v) ? v.length : 0);
  rt.defineBuiltin("len", (args) => lengthOf(args[0] ?? null), lengthOf);
  rt.defineBuiltin("chr", (args) => String.fromCharCode(args[0] as number));
  let listCalls = 0;
  const half: BuiltinFn = (args) => {
    listCalls++;
    return halfOf(args[0] ?? null);
  };
  if (setup.lazyHalf) {
    rt.defineBuiltin("half", (args, ctx) => {
      rt.defineBuiltin("half", half, halfOf);
      return half(args, ctx);
    });
  } else rt.defineBuiltin("half", half, halfOf);
  for (const d of setup.deny ?? []) rt.denied.add(d);
  const { program, errors } = parse(source);
  expect(errors).toEqual([]);
  try {
    await new ProgramRunner(rt, { file: "t.harn" }).run(program);
    return { out: out.join(""), error: null, where: null, listCalls };
  } catch (e) {
    if (!(e instanceof HarnError)) throw e;
    return { out: out.join(""), error: e.description(), where: `${e.span?.line ?? "?"}:${e.span?.column ?? "?"}`, listCalls };
  }
}

async function same(source: string, setup: Setup = {}): Promise<Outcome> {
  const off = await runIn("off", source, setup);
  const eager = await runIn("eager", source, setup);
  const auto = await runIn("auto", source, setup);
  expect({ ...eager, listCalls: 0 }).toEqual({ ...off, listCalls: 0 });
  expect({ ...auto, listCalls: 0 }).toEqual({ ...off, listCalls: 0 });
  return off;
}

describe("builtins called through their one-argument form", () => {
  it("give the builtin's values, and generated code skips the argument list", async () => {
    const src = `
var total = 0
var i = 0
while i < 1500 {
  total = total + half(i)
  i = i + 1
}
println(total)
`;
    const r = await same(src);
    expect(r.out).toBe("561750\n");
    // The closure tier calls the argument-list form; generated code (from
    // the second iteration in eager mode, once the call site has seen the
    // builtin; after 500 iterations in auto mode) the one-argument form.
    expect((await runIn("off", src)).listCalls).toBe(1500);
    expect((await runIn("eager", src)).listCalls).toBeLessThanOrEqual(1);
    expect((await runIn("auto", src)).listCalls).toBeLessThanOrEqual(501);
  });

  it("report the builtin's error at the call site", async () => {
    const r = await same(`
var i = 0
var t = 0
while i < 1000 {
  let v = if i == 700 { "x" } else { i }
  t = t + half(v)
  i = i + 1
}
`);
    expect(r.error).toBe("Type error: half() expects an int, got x (line 6)");
    expect(r.where).toBe("6:11");
  });

  it("are refused when the builtin is denied", async () => {
    const r = await same(
      `
var i = 0
var t = 0
while i < 1000 {
  t = t + len("ab")
  if i == 600 { t = t + half(i) }
  i = i + 1
}
`,
      { deny: ["half"] },
    );
    expect(r.error).toBe("Error [tool_rejected]: Tool 'half' is not permitted.");
    expect(r.where).toBe("6:25");
  });

  it("are not used for a builtin replaced after the call site was generated", async () => {
    const r = await same(
      `
var i = 0
var t = 0
while i < 1000 {
  t = t + half(i)
  i = i + 1
}
println(t)
`,
      { lazyHalf: true },
    );
    expect(r.out).toBe("249500\n");
  });

  it("lose their one-argument form when redefined without one", () => {
    const rt = new Runtime({ stdout: { write: () => undefined }, stderr: { write: () => undefined }, cwd: "/", env: {} });
    const a: BuiltinFn = () => 1;
    const b: BuiltinFn = () => 2;
    rt.defineBuiltin("f", a, () => 1);
    expect(rt.unaryForms.get(rt.builtins.get("f")!)).toBeDefined();
    rt.defineBuiltin("f", b);
    expect(rt.unaryForms.get(rt.builtins.get("f")!)).toBeUndefined();
  });

  it("give way to a user function of the same name, bound late or declared", async () => {
    const r = await same(`
fn count(s) { return len(s) + half(4) }
fn shadowing(s) {
  let len = fn(x) { return 100 }
  let half = fn(x) { return 1000 }
  return count(s)
}
var i = 0
var a = 0
var b = 0
while i < 800 {
  a = a + count("abc")
  b = b + shadowing("abc")
  i = i + 1
}
println(a)
println(b)
`);
    expect(r.out).toBe(`${800 * 5}\n${800 * 1100}\n`);
    const declared = await same(`
fn len(x) { return 7 }
var i = 0
var t = 0
while i < 800 {
  t = t + len("abcd")
  i = i + 1
}
println(t)
println(len("abcd"))
`);
    expect(declared.out).toBe(`${800 * 7}\n7\n`);
  });
});

describe("code-point lengths of strings built piece by piece", () => {
  it("count pairs split across pieces and reset strings in every tier", async () => {
    const r = await same(`
var s = ""
var seen = []
var i = 0
while i < 900 {
  let piece = if i % 3 == 0 { chr(55357) } else if i % 3 == 1 { chr(56832) } else { "é" }
  s = "\${s}\${piece}"
  if len(s) >= 30 {
    seen = seen + [len(s)]
    s = "\${i % 10}"
  }
  i = i + 1
}
println(len(s))
println(seen[0])
println(len(seen))
`);
    // Every three pieces are one emoji (a pair) and one "é": the string
    // reaches 30 code points at 45 pieces after the first reset.
    expect(r.out).toBe(`${expectedLastLen()}\n${simulate().seen[0]}\n${expectedResets()}\n`);
    expect(simulate().seen[0]).toBe(30);
  });

  it("memo agrees with a fresh count for any sequence of pieces", () => {
    const memo = new CpLengthMemo();
    const pieces = ["a", "\ud83d", "\ude00", "", "é", "\ud83d\ude00", "\ude00", "\ud83d", "x\ud83d", "\ude00y", "日本"];
    let s = "";
    for (let round = 0; round < 400; round++) {
      // In order (a high surrogate piece, then a low one), then shuffled.
      const p = pieces[round < 200 ? round % pieces.length : (round * 7) % pieces.length]!;
      s = memo.concat(s, p);
      expect(memo.length(s)).toBe([...s].length);
      if (round % 37 === 0) {
        // A string equal to the remembered one but built separately, then a
        // different one: both measured exactly.
        expect(memo.length(s.split("").join(""))).toBe([...s].length);
        expect(memo.length("\ude00" + s)).toBe([...("\ude00" + s)].length);
      }
      if (round % 50 === 0) s = "";
    }
  });
});

/** The Harn program above, in JS. */
function simulate(): { s: string; seen: number[] } {
  let s = "";
  const seen: number[] = [];
  for (let i = 0; i < 900; i++) {
    const piece = i % 3 === 0 ? "\ud83d" : i % 3 === 1 ? "\ude00" : "é";
    s = `${s}${piece}`;
    if ([...s].length >= 30) {
      seen.push([...s].length);
      s = `${i % 10}`;
    }
  }
  return { s, seen };
}
function expectedLastLen(): number {
  return [...simulate().s].length;
}
function expectedResets(): number {
  return simulate().seen.length;
}
