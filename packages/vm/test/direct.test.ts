/**
 * Frameless calls (src/eval/direct.ts) and fused filter/map loops against
 * the closure tier: every program runs in all three modes (tiers.ts) and
 * must print the same output and fail with the same error, span and frame
 * notes; anything the frameless code does not handle gives way to the
 * framed tier.
 */
import { describe, expect, it } from "vitest";
import { runIn, same } from "./tiers";

describe("frameless calls (direct.ts) give way to the framed tier", () => {
  it("when an operand is not an int or leaves the safe range", async () => {
    const r = await same(`
fn build(n) {
  if n == 0 { return "" }
  return build(n - 1) + "x"
}
fn grow(n) {
  if n == 0 { return 9007199254740990 }
  return grow(n - 1) + 1
}
fn count(n) {
  if n <= 0 { return 0 }
  return 1 + count(n - 1)
}
var i = 0
var t = 0
var b = ""
var g = 0
var c = 0
while i < 400 {
  t = t + count(i % 50)
  b = build(5)
  g = grow(20)
  c = count(2.5)
  i = i + 1
}
println(t)
println(b)
println(g)
println(c)
`);
    expect(r.out).toBe(`${8 * 1225 * 1}\nxxxxx\n9007199254741010\n3\n`);
  });

  it("reports an error inside the recursion with its line, frames and the framed tier's text", async () => {
    const r = await same(`
fn m(n, d) {
  if n == 0 { return 1 % d }
  return m(n - 1, d) + 1
}
var i = 0
var t = 0
while i < 300 {
  if i < 299 { t = t + m(40, 1) } else { t = t + m(40, 0) }
  i = i + 1
}
`);
    expect(r.error).toBe("Runtime error: Division by zero (line 3)");
    expect(r.where).toBe(`3:26 ${"m@4 ".repeat(40)}pipeline@9`);
  });

  it("resolves the recursive name through the caller chain at every entry", async () => {
    const r = await same(`
fn count(n) {
  if n == 0 { return 0 }
  return 1 + count(n - 1)
}
fn with_shadow(f) {
  let count = { n -> 1000 }
  return f(3) + 0
}
var i = 0
var plain = 0
var shadowed = 0
while i < 300 {
  plain = plain + count(3)
  shadowed = shadowed + with_shadow(count)
  i = i + 1
}
println(plain)
println(shadowed)
`);
    expect(r.out).toBe(`${300 * 3}\n${300 * 1001}\n`);
  });

  it("runs a self tail call as a jump, with the framed tier's values and errors", async () => {
    const r = await same(`
fn sum_to(n, acc) {
  if n == 0 { return acc }
  let k = n * 2
  return sum_to(n - 1, acc + k / 2)
}
fn down(n, d) {
  if n == 0 { return 10 % d }
  return down(n - 1, d)
}
var i = 0
var t = 0
while i < 400 {
  t = t + sum_to(i % 70, 0)
  i = i + 1
}
println(t)
println(sum_to(100000, 0))
println(sum_to(3, 9007199254740990))
println(sum_to(3, "s"))
println(down(500, 0))
`);
    expect(r.out).toBe(`${[...Array(400).keys()].reduce((a, i) => a + ((i % 70) * ((i % 70) + 1)) / 2, 0)}\n5000050000\n9007199254740996\n`);
    expect(r.error).toBe("Type error: Cannot add string and int (line 5)");
  });

  it("runs a hot body frameless for callers that are not generated (callbacks, tail calls)", async () => {
    const r = await same(`
fn count(n) {
  if n == 0 { return 0 }
  return 1 + count(n - 1)
}
fn apply(f, x) { return f(x) }
fn with_shadow(f) {
  let count = { n -> 1000 }
  return apply(f, 3) + 0
}
var i = 0
var t = 0
var s = 0
while i < 300 {
  t = t + apply(count, i % 40)
  s = s + with_shadow(count)
  i = i + 1
}
println(t)
println(s)

println(apply(count, 600))
`);
    expect(r.out).toBe(`${[...Array(300).keys()].reduce((a, i) => a + (i % 40), 0)}\n${300 * 1001}\n`);
    expect(r.error).toBe("Runtime error: Stack overflow: too many nested calls (line 4)");
  });

  it("gives way alike at even and odd depths (the body's two copies, D and D2)", async () => {
    // The recursive body is generated twice, each copy calling the other;
    // every bail-out must work from either copy.
    const r = await same(`
fn grow(n, top) {
  if n == 0 { return top }
  return grow(n - 1, top) + 1
}
fn tag(n, x) {
  if n == 0 { return x + 1 }
  return tag(n - 1, x) + 1
}
var i = 0
var t = 0
while i < 300 {
  t = t + grow(i % 3, 1) + tag(i % 4, 0)
  i = i + 1
}
println(t)
println(grow(40, 9007199254740960))
println(grow(41, 9007199254740960))
println(grow(40, 9007199254740970))
println(grow(41, 9007199254740970))
println(tag(40, 1.5))
println(tag(41, 1.5))
println(grow(510, 0))
println(grow(511, 0))
println(tag(41, "s"))
`);
    expect(r.out).toBe(
      `${[...Array(300).keys()].reduce((a, i) => a + (i % 3) + 1 + (i % 4) + 1, 0)}\n9007199254741000\n9007199254741001\n9007199254741010\n9007199254741011\n42.5\n43.5\n510\n`,
    );
    expect(r.error).toBe("Runtime error: Stack overflow: too many nested calls (line 4)");
  });

  it("stays interruptible in a long recursion", async () => {
    // Where the cancellation lands depends on timing, so only the error is
    // compared.
    const source = `
fn spin(n) {
  if n == 0 { return 0 }
  return spin(n - 1) + spin(n - 1)
}
var i = 0
while i < 300 {
  i = i + 1 + spin(3)
}
println(i)
println(spin(60))
`;
    for (const mode of ["off", "eager", "auto"] as const) {
      const r = await runIn(mode, source, { timeoutMs: 300 });
      expect(r.out).toBe("300\n");
      expect(r.error).toBe("Thrown: timed out");
    }
  });
});

describe("a yield due inside frameless code is taken by the framed caller", () => {
  // Frameless calls and fused loops do not give up when a preemption yield
  // falls due in them (interpreter.ts directTick); the framed code around
  // them must then yield at its next tick, or a loop of short frameless
  // calls would never let the timer that cancels it fire. 61 frameless
  // ticks per iteration plus one of the loop: the framed tick is not the
  // one that reaches any fixed multiple of the threshold.
  it("a loop of short frameless recursions stays cancellable", async () => {
    const source = `
fn countdown(n) {
  if n == 0 { return 0 }
  return 1 + countdown(n - 1)
}
var total = 0
while true { total = total + countdown(60) }
`;
    for (const mode of ["off", "eager", "auto"] as const) {
      const r = await runIn(mode, source, { timeoutMs: 250 });
      expect(r.error).toBe("Thrown: timed out");
    }
  });

  it("a loop of fused filter/map calls stays cancellable", async () => {
    const source = `
let items = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61]
var total = 0
while true {
  let kept = items.filter(fn(x) { x % 2 == 0 })
  total = total + len(kept)
}
`;
    for (const mode of ["off", "eager", "auto"] as const) {
      const r = await runIn(mode, source, { timeoutMs: 250 });
      expect(r.error).toBe("Thrown: timed out");
    }
  });
});

describe("filter and map with closure literals (fused loops) give way to the method", () => {
  it("computes the same lists, with captures taken when the closure is made", async () => {
    const r = await same(`
let items = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
var total = 0
var round = 0
var last = []
while round < 700 {
  let limit = round % 8
  let picked = items.filter({ x -> x > limit }).map({ x -> x * 2 + limit })
  total = total + len(picked)
  last = picked
  round = round + 1
}
println(total)
println(last)
println(items.map({ x -> x % 3 == 0 }))
println(items.filter({ x -> x }))
`);
    // limit cycles 0..7: kept 9+8+…+2 per cycle of 8 rounds; 700 = 87*8 + 4.
    expect(r.out).toBe(`${87 * 44 + (9 + 8 + 7 + 6)}\n[11, 13, 15, 17, 19, 21]\n` + "[true, false, false, true, false, false, true, false, false, true]\n[1, 2, 3, 4, 5, 6, 7, 8, 9]\n");
  });

  it("lets the method produce values and errors the plain function cannot", async () => {
    const r = await same(`
var round = 0
var out = []
while round < 600 {
  let xs = if round == 599 { [1, "a", 3] } else { [1, 2, 3] }
  out = xs.map({ x -> x + 1 })
  round = round + 1
}
println(out)
`);
    expect(r.out).toBe("");
    expect(r.error).toMatch(/\(line 6\)$/);
  });

  it("stops at the frame limit through a fused callback", async () => {
    const r = await same(`
fn deep(n) {
  return [n].map({ x -> x + 1 })[0] + deep(n + 1)
}
println(deep(0))
`);
    expect(r.error).toBe("Runtime error: Stack overflow: too many nested calls (line 3)");
  });
});
