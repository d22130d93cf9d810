/**
 * The generated-code tier (src/eval/jit.ts) against the closure tier: every
 * program runs with HARN_VM_JIT=off (closures only), eager (every body and
 * loop generated on first use) and auto (generated once hot; the programs
 * below run long enough to tier up), and must print the same output and
 * fail with the same error, span and frame notes. The cases aim at what the
 * generator does on its own: suspension in the middle of a statement, the
 * rest of a block after it, loop phases, control signals from closures,
 * speculated calls (guard misses, recursion, captures, defers, tail calls),
 * the depth limit, preemption.
 */
import { describe, expect, it } from "vitest";
import { same } from "./tiers";

describe("generated code agrees with the closure tier", () => {
  it("runs arithmetic, comparisons, strings and int overflow into bigints", async () => {
    const r = await same(`
var total = 0
var big = 9007199254740990
var s = ""
var i = 0
while i < 2000 {
  total = total + (i + 3) * 2 - 1
  if i % 7 >= 3 && i % 5 <= 2 { total = total - 1 }
  if i % 11 == 0 || i == 5 { total = total + 2 }
  big = big + 1
  s = "\${s}\${i % 10}"
  if len(s) >= 64 { s = "" }
  i = i + 1
}
println(total)
println(big)
println(s)
println(-i)
println(7 / 2)
println(2 ** 10)
println(nil ?? "dflt")
println(!false)
`);
    expect(r.out).toBe("4007682\n9007199254742990\n4567890123456789\n-2000\n3\n1024\ndflt\ntrue\n");
  });

  it("finishes a statement that suspends in the middle of an expression", async () => {
    const r = await same(`
var total = 0
var i = 0
while i < 600 {
  total = total + later(i) * 2 + later(1)
  i = i + 1
}
println(total)
`);
    expect(r.out).toBe(`${600 * 599 + 600}\n`);
  });

  it("continues the enclosing blocks after a suspension inside an if", async () => {
    const r = await same(`
fn f(n) {
  var acc = []
  if n > 0 {
    acc = acc + [later(n)]
    acc = acc + [n + 1]
  } else {
    acc = acc + [0]
  }
  acc = acc + ["end"]
  return acc
}
var i = 0
var out = []
while i < 300 {
  out = f(i % 3)
  i = i + 1
}
println(out)
println(f(0))
`);
    expect(r.out).toBe('[2, 3, end]\n[0, end]\n');
  });

  it("suspends in a loop condition and in the right operand of && and ||", async () => {
    const r = await same(`
var i = 0
var hits = 0
while later(i) < 700 {
  if i % 2 == 0 && later(i % 3 == 0) { hits = hits + 1 }
  if i % 5 == 0 || later(i % 7 == 0) { hits = hits + 10 }
  let label = "\${later(i)}-\${i + 1}"
  if label == "699-700" { println(label) }
  i = i + 1
}
println(hits)
`);
    expect(r.out).toBe("699-700\n2317\n");
  });

  it("handles break, continue and return from closures inside generated loops", async () => {
    const r = await same(`
fn first_over(xs, limit) {
  var i = 0
  while i < len(xs) {
    let x = xs[i]
    i = i + 1
    if x < limit { continue }
    if x == 99 { break }
    for y in [x] { if y > limit { return y } }
  }
  return -1
}
var n = 0
var t = 0
while n < 400 {
  t = t + first_over([1, 5, 9, 12], n % 10)
  n = n + 1
}
println(t)
println(first_over([1, 99, 200], 50))
`);
    expect(r.out).toBe("2760\n-1\n");
  });

  it("calls speculated closures correctly when the callee changes", async () => {
    const r = await same(`
fn twice(v) { return v * 2 }
fn thrice(v) { return v * 3 }
var f = twice
var total = 0
var i = 0
while i < 1200 {
  if i == 800 { f = thrice }
  total = total + f(i)
  i = i + 1
}
println(total)
let k = 5
let add_k = { x -> x + k }
var j = 0
var acc = 0
while j < 600 {
  acc = add_k(acc)
  j = j + 1
}
println(acc)
`);
    expect(r.out).toBe(`${(2 * (799 * 800)) / 2 + 3 * ((1199 * 1200) / 2 - (799 * 800) / 2)}\n3000\n`);
  });

  it("late-binds recursive names per call site, as the closure tier does", async () => {
    const r = await same(`
fn countdown(n) {
  if n == 0 { return 0 }
  return 1 + countdown(n - 1)
}
var total = 0
var i = 0
while i < 300 {
  total = total + countdown(40)
  i = i + 1
}
println(total)
fn outer() {
  let countdown = { n -> 1000 }
  return countdown(3)
}
println(outer())
fn helper() { return which() }
fn caller() {
  let a = which()
  let which = { -> "local" }
  return a + "/" + helper()
}
fn which() { return "global" }
var k = 0
var seen = ""
while k < 300 {
  seen = caller()
  k = k + 1
}
println(seen)
`);
    expect(r.out).toBe("12000\n1000\nglobal/local\n");
  });

  it("runs defers and tail calls of callees entered by generated code", async () => {
    const r = await same(`
fn with_defer(x) {
  defer { println("defer \${x}") }
  return x + 1
}
fn loop_tail(n, acc) {
  if n == 0 { return acc }
  return loop_tail(n - 1, acc + n)
}
var i = 0
var t = 0
while i < 3 {
  t = t + with_defer(i)
  i = i + 1
}
println(t)
var j = 0
var u = 0
while j < 300 {
  u = u + loop_tail(600, 0)
  j = j + 1
}
println(u)
`);
    expect(r.out).toBe("defer 0\ndefer 1\ndefer 2\n6\n" + `${300 * 180300}\n`);
  });

  it("reports runtime errors with the same span and frames", async () => {
    const r = await same(`
fn inner(x) {
  let y = x + 1
  return y / (x - 250)
}
fn outer(x) {
  return 1 + inner(x)
}
var i = 0
var t = 0
while i < 1000 {
  t = t + outer(i)
  i = i + 1
}
`);
    expect(r.error).toMatch(/division by zero|divide by zero/i);
    expect(r.where?.startsWith("4:")).toBe(true);
  });

  it("generates valid code for member access and subscripts on int literals", async () => {
    // `5.x` and `5[0]` must not reach JS as `5.get(…)` / `5.length`, which
    // do not parse (semantics.md §4.7: property access on an int raises;
    // §4.9: indexing an int raises; §7.7: a method on an int is nil).
    const r = await same(`
fn m() { return 5.abs() }
fn p() { return 5.x }
fn i() { return 5[0] }
fn n() { return (-3).x }
println(m() == nil)
println(try { p() })
println(try { i() })
println(try { n() })
`);
    expect(r.out).toBe(
      "true\nResult.Err(Type error: cannot access property `x` on int)\nResult.Err(Type error: cannot index into int with int)\nResult.Err(Type error: cannot access property `x` on int)\n",
    );
  });

  it("stops runaway recursion at the frame limit with the same error", async () => {
    const r = await same(`
fn down(n) { return 1 + down(n + 1) }
var i = 0
while i < 2 {
  println(down(0))
  i = i + 1
}
`);
    expect(r.error).toMatch(/stack overflow/i);
  });

  it("recurses 500 deep through generated calls (stack hops)", async () => {
    const r = await same(`
fn depth(n) {
  if n == 0 { return 0 }
  return 1 + depth(n - 1)
}
var i = 0
var t = 0
while i < 50 {
  t = t + depth(500)
  i = i + 1
}
println(t)
`);
    expect(r.out).toBe("25000\n");
  });

  it("keeps a CPU-bound generated loop interruptible", async () => {
    const r = await same(`
var i = 0
while true {
  i = i + 1
}
`, { timeoutMs: 200 });
    expect(r.error).toBe("Thrown: timed out");
  });
});

describe("tiering", () => {
  it("gives a value to a hot closure body that ends in an expression", async () => {
    const r = await same(`
let pick = { x -> if x > 2 { "big" } else { "small" } }
var i = 0
var s = ""
while i < 300 {
  s = pick(i % 5)
  i = i + 1
}
println(s)
println(pick(1))
`);
    expect(r.out).toBe("big\nsmall\n");
  });

  it("leaves functions and loops that run once in the closure tier unchanged", async () => {
    const r = await same(`
fn once(a, b) { return a + b }
println(once(1, 2))
var i = 0
while i < 3 { i = i + 1 }
println(i)
`);
    expect(r.out).toBe("3\n3\n");
  });
});

describe("what a user observes is the same in every tier", () => {
  it("suffixes an escaping runtime error with the line of the function that failed", async () => {
    const r = await same(`
fn inner(x) {
  let y = x + 1
  return y / (x - 250)
}
var i = 0
var t = 0
while i < 1000 {
  t = t + inner(i)
  i = i + 1
}
`);
    expect(r.error).toBe("Runtime error: Division by zero (line 4)");
    expect(r.where).toBe("4:15 pipeline@9");
  });

  it("names the frame limit with the line of the call that exceeded it", async () => {
    const r = await same(`
fn down(n) {
  return 1 + down(n + 1)
}
var i = 0
while i < 300 { i = i + 1 }
println(down(0))
`);
    expect(r.error).toBe("Runtime error: Stack overflow: too many nested calls (line 3)");
  });

  it("finishes statements around a sleep and a spawn inside a hot loop", async () => {
    const r = await same(`
fn slow(x) {
  if x % 150 == 0 { sleep(1) }
  return x
}
var total = 0
var i = 0
while i < 600 {
  total = total + slow(i) * 2 + 1
  if i % 100 == 0 {
    total = total + await(spawn { i * 3 }) + 1
  }
  i = i + 1
}
println(total)
println(i)
`);
    // sum(2i + 1) over 0..599, plus (3i + 1) for i = 0, 100, ..., 500.
    expect(r.out).toBe(`${600 * 599 + 600 + 3 * 1500 + 6}\n600\n`);
  });

  it("runs defers of a hot function on every exit, in reverse order", async () => {
    const r = await same(`
fn work(x) {
  defer { if x < 2 || x == 399 { println("a\${x}") } }
  defer { if x < 2 || x == 399 { println("b\${x}") } }
  if x % 2 == 0 { return x }
  throw "odd \${x}"
}
var i = 0
var ok = 0
var failed = 0
while i < 400 {
  try {
    ok = ok + work(i)
  } catch (e) {
    failed = failed + 1
  }
  i = i + 1
}
println(ok)
println(failed)
`);
    expect(r.out).toBe(`b0\na0\nb1\na1\nb399\na399\n${199 * 200}\n200\n`);
  });

  it("wraps int arithmetic at 64 bits inside generated loops", async () => {
    const r = await same(`
var x = 9223372036854775000
var y = -9223372036854775000
var p = 3037000499
var i = 0
while i < 1000 {
  x = x + 1
  y = y - 1
  i = i + 1
}
println(x)
println(y)
println(p * p * 2)
println(9223372036854775807 + i)
`);
    const wrap = (v: bigint) => BigInt.asIntN(64, v).toString();
    expect(r.out).toBe(
      [
        wrap(9223372036854775000n + 1000n),
        wrap(-9223372036854775000n - 1000n),
        wrap(3037000499n * 3037000499n * 2n),
        wrap(9223372036854775807n + 1000n),
      ].join("\n") + "\n",
    );
    expect(r.out.startsWith("-9223372036854775")).toBe(true);
  });

  it("calls prepared callbacks that suspend, fail or are leaves", async () => {
    const r = await same(`
var xs = []
var i = 0
while i < 300 {
  xs = xs + [i]
  i = i + 1
}
let doubled = each(xs, { x -> later(x) * 2 })
println(doubled[299])
let k = 5
let plus = each(xs, { x -> x + k })
println(plus[299])
var n = 0
while n < 3 {
  println(each(xs, { x -> if x % 100 == 0 { later(x) } else { x } })[200])
  n = n + 1
}
println(each(xs, { x -> 100 / (x - 250) })[0])
`);
    expect(r.out).toBe("598\n304\n200\n200\n200\n");
    expect(r.error).toBe("Runtime error: Division by zero (line 18)");
  });
});

describe("a loop that keeps its slots in JS locals", () => {
  it("leaves them in the frame at every exit: end, break, an error caught in the same function, a struct read", async () => {
    const r = await same(`
struct P {
  x: int
  y: int
}
fn run(limit) {
  let p = P { x: 2, y: 3 }
  var i = 0
  var t = 0
  var big = 9007199254740000
  try {
    while i < 2000 {
      t = t + p.x * p.y
      big = big + 1
      if i == limit { t = t + "boom" }
      i = i + 1
    }
  } catch (e) {
    println("caught at \${i} with \${t} and \${big}: \${e}")
  }
  var j = 0
  while true {
    j = j + 3
    if j > 700 { break }
  }
  return "\${i} \${t} \${j} \${big}"
}
println(run(5000))
println(run(1200))
`);
    expect(r.out).toBe(
      "2000 12000 702 9007199254742000\n" + "caught at 1200 with 7206 and 9007199254741201: Type error: Cannot add int and string\n" + "1200 7206 702 9007199254741201\n",
    );
  });
});

describe("calls from a generated loop to a function that calls nothing", () => {
  it("run its frameless code, and framed when it gives up: other types, bigints, a rebinding, an error", async () => {
    const r = await same(`
fn step(v) { return v + 1 }
fn twice(v) { return v * 2 }
var f = step
var i = 0
var t = 0
var u = 0.5
var big = 9007199254740990
while i < 3000 {
  t = t + f(i)
  if i == 1000 { f = twice }
  if i % 500 == 0 { u = step(u) }
  big = step(big)
  i = i + 1
}
println("\${t} \${u} \${big}")
var j = 0
var w = 0
while j < 3000 {
  w = w + step(if j == 2500 { "x" } else { j })
  j = j + 1
}
`);
    expect(r.out).toBe(`${1001 * 1002 / 2 + 2 * (3000 * 2999 / 2 - 1000 * 1001 / 2)} 6.5 9007199254743990\n`);
    expect(r.error).toBe("Type error: Cannot add string and int (line 2)");
    expect(r.where).toBe("2:25 pipeline@20");
  });

  it("hit the frame limit as the framed call does", async () => {
    const r = await same(`
fn step(v) { return v + 1 }
fn deep(n) {
  if n > 0 { return deep(n - 1) + 0 }
  var i = 0
  var t = 0
  while i < 1000 {
    t = step(t)
    i = i + 1
  }
  return t
}
println(deep(500))
println(deep(508))
println(deep(509))
println(deep(510))
`);
    expect(r.out).toBe("1000\n1000\n1000\n");
    expect(r.error).toBe("Runtime error: Stack overflow: too many nested calls (line 8)");
  });
});

describe("list.contains in generated code", () => {
  it("finds ints, equal floats, and leaves other arguments and receivers to the method", async () => {
    const r = await same(`
let items = [1, 3, 5.0, "7", 9]
var i = 0
var hits = 0
var other = 0
while i < 2000 {
  if items.contains(i % 12) { hits = hits + 1 }
  if items.contains("7") && !items.contains(7) && items.contains(3.0) { other = other + 1 }
  i = i + 1
}
println("\${hits} \${other}")
var j = 0
var d = items
while j < 2000 {
  if j == 1500 { d = {a: 1} }
  if d.contains(1) { j = j + 1 } else { j = j + 3 }
}
println(j)
`);
    // i % 12 in 1, 3, 5, 9: 166 rounds of 12, then 1, 3 and 5 of 0..7.
    // From 1500 on the receiver is a dict: the method answers (nil here).
    expect(r.out).toBe("667 2000\n2001\n");
  });
});

describe("field reads in generated code", () => {
  it("read struct fields through the field record, a field named like it, dicts and a missing field", async () => {
    const r = await same(`
struct P {
  x: int
  y: int
}
struct Q {
  rec: int
}
fn read(v) { return v.x }
let p = P { x: 2, y: 3 }
let q = Q { rec: 7 }
let d = {x: 5, rec: 1}
var i = 0
var t = 0
while i < 2000 {
  t = t + p.x * p.y + q.rec + d.x + d.rec
  i = i + 1
}
println(t)
var j = 0
var u = 0
while j < 2000 {
  u = u + read(if j % 3 == 0 { d } else { p })
  j = j + 1
}
println(u)
var k = 0
var w = q
while k < 2000 {
  if k == 1000 { println(w.x == nil) }
  if k == 1500 { w = k }
  u = u + w.rec
  k = k + 1
}
`);
    expect(r.out).toBe(`${2000 * (6 + 7 + 5 + 1)}\n${667 * 5 + 1333 * 2}\ntrue\n`);
    expect(r.error).toBe("Type error: cannot access property `rec` on int (line 32)");
    expect(r.where?.startsWith("32:")).toBe(true);
  });
});

describe("for over a range of ints runs as a counted loop", () => {
  it("with the stepper's values, break, continue, captures, the largest safe end and errors", async () => {
    const r = await same(`
var t = 0
for v in 0 to 1999 {
  if v % 7 == 0 { continue }
  if v == 1900 { break }
  t = t + v
}
println(t)
for v in 3 to 1 { println("never") }
for v in 9007199254740989 to 9007199254740991 { println(v) }
var fs = []
for v in 0 to 2 { fs = fs + [{ -> v * 10 }] }
for f in fs { println(f()) }
for v in 0 to 999 {
  if v == 900 { println(v + "x") }
}
`);
    expect(r.out).toBe("1546058\n9007199254740989\n9007199254740990\n9007199254740991\n0\n10\n20\n");
    expect(r.error).toBe("Type error: Cannot add int and string (line 15)");
  });
});
