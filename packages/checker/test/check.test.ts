/** Each message template: where it fires, and look-alikes where it must not. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkSource, messages } from "./helpers";

describe("call target `NAME` is not defined or imported", () => {
  const dir = mkdtempSync(join(tmpdir(), "harn-checker-"));
  mkdirSync(join(dir, "lib"));
  writeFileSync(join(dir, "lib", "util.harn"), 'import "./deep"\npub fn helper(x) { return x }\nfn private_one() { 1 }\nlet table = {}\n');
  writeFileSync(join(dir, "lib", "deep.harn"), "pub fn deep_fn() { 2 }\n");
  const main = join(dir, "main.harn");
  const run = (src: string) => checkSource(src, main).map((d) => d.message);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("fires for an unknown name in a file whose imports resolve, with the nearest name", () => {
    expect(run('import "./lib/util"\nprintln(helpr(1))\n')).toEqual(["call target `helpr` is not defined or imported — did you mean `helper`?"]);
    expect(run('import "./lib/util"\nzzqqxx_unknown()\n')).toEqual(["call target `zzqqxx_unknown` is not defined or imported"]);
    expect(run('import { helper } from "./lib/util"\nprintlnx(len([1]))\n')).toEqual([
      "call target `printlnx` is not defined or imported — did you mean `println`?",
    ]);
  });

  it("points at the called name", () => {
    const [d] = checkSource('import "./lib/util"\nlet x = 1\nprintln(nope_fn(x))\n', main);
    expect(d!.span).toMatchObject({ line: 3, column: 9 });
  });

  it("does not fire for anything a script can call", () => {
    const ok = [
      // builtins, interpreter specials, constructors, prefixes
      'import "./lib/util"\nprintln(len([1]))\nlet t = spawn { 1 }\nawait(t)\nlet c = channel("x")\nlet a = atomic(0)\n',
      'import "./lib/util"\nlet r = Ok(1)\nlet e = Err("x")\nlet s = Some(1)\n__internal_thing()\nhostlib_fs_read("x")\n',
      // wildcard imports bring every top-level name, transitively
      'import "./lib/util"\nhelper(1)\nprivate_one()\ndeep_fn()\n',
      'import "std/text"\nimport { helper } from "./lib/util"\nhelper(1)\n',
      // declarations, before or after the call; closures in variables
      'import "./lib/util"\nlater(1)\nfn later(x) { return x }\nstruct Point { x: int }\nlet p = Point({x: 1})\nenum Shape { Circle(r) }\nlet s = Shape.Circle(1)\n',
      'import "./lib/util"\nlet double = { x -> x * 2 }\nprintln(double(2))\nfn apply(f, x) { return f(x) }\n',
      'import "./lib/util"\npipeline default() { go() }\nfn go() { inner() }\nfn inner() { 1 }\n',
      'import "./lib/util"\nfor cb in [{ -> 1 }] { cb() }\ntry { throw "x" } catch (handler) { }\nparallel each [1] { item -> item }\n',
      'import "./lib/util"\nlet r = Ok(1)\nmatch r { Ok(v) -> { println(v) } Err(e) -> { println(e) } }\n',
      'import "./lib/util"\ntool search(q: string) { description "d"\n return q }\nsearch("x")\n',
      'import "./lib/util"\nfn id<T>(x: T) -> T { return x }\nid(1)\n',
      // short-circuited right operands never run
      'import "./lib/util"\nprintln(false && missing_thing())\n',
    ];
    for (const src of ok) expect(run(src), src).toEqual([]);
  });

  it("gives up when an import cannot be resolved", () => {
    expect(run('import "./no/such/module"\nmissing_fn()\n')).toEqual([]);
  });

  it("checks a file without imports too (core-gaps.md §9.6)", () => {
    expect(run("missing_fn()\n")).toEqual(["call target `missing_fn` is not defined or imported"]);
  });
});

describe("Non-exhaustive match on enum", () => {
  const decl = "enum Color { Red, Green, Blue }\n";

  it("fires on a parameter annotated with the enum and on .variant of one", () => {
    expect(messages(decl + "fn f(c: Color) {\n  match c {\n    Color.Red -> { 1 }\n  }\n}\n")).toEqual([
      'Non-exhaustive match on enum Color: missing variants "Green", "Blue"',
    ]);
    expect(messages(decl + 'fn f(c: Color) {\n  match c { Color.Red -> { 1 } Color.Blue -> { 2 } }\n}\n')).toEqual([
      'Non-exhaustive match on enum Color: missing variants "Green"',
    ]);
    expect(messages(decl + 'fn f(c: Color) {\n  match c.variant { "Red" -> { 1 } "Green" -> { 2 } }\n}\n')).toEqual([
      'Non-exhaustive match on enum Color: missing variants "Blue"',
    ]);
  });

  it("does not fire when covered, with a wildcard or binding arm, or when the type is not certain", () => {
    const ok = [
      decl + "fn f(c: Color) { match c { Color.Red -> { 1 } Color.Green -> { 2 } Color.Blue -> { 3 } } }\n",
      // a let initialiser may narrow the declared type in the reference
      decl + "let c: Color = Color.Red\nmatch c { Color.Red -> { 1 } }\n",
      decl + 'let c = Color.Green\nmatch c.variant { "Green" -> { 2 } }\n',
      decl + "let c: Color = Color.Red\nmatch c { Color.Red -> { 1 } _ -> { 2 } }\n",
      decl + "let c: Color = Color.Red\nmatch c { Color.Red -> { 1 } other -> { 2 } }\n",
      decl + "let c: Color = Color.Red\nmatch c { Color.Red | Color.Green -> { 1 } Color.Blue -> { 2 } }\n",
      decl + "fn f(c) { match c { Color.Red -> { 1 } } }\n",
      decl + "var c = Color.Red\nmatch c { Color.Red -> { 1 } }\n",
      decl + "let c: Color = Color.Red\nfn g(c) { match c { Color.Red -> { 1 } } }\n",
      decl + "let c: Color = Color.Red\nfor c in [1] { match c { 1 -> { 1 } } }\n",
      decl + 'let c: Color = Color.Red\ntry { match c { Color.Red -> { 1 } } } catch (e) { println(e) }\n',
    ];
    for (const src of ok) expect(messages(src), src).toEqual([]);
  });
});

describe("'NAME' declared as T, but assigned U", () => {
  it("fires for a literal of a certainly different type", () => {
    expect(messages('let n: int = "five"\n')).toEqual(["'n' declared as int, but assigned string"]);
    expect(messages("var flag: bool = 1\n")).toEqual(["'flag' declared as bool, but assigned int"]);
    expect(messages("let xs: list<int> = 3\n")).toEqual(["'xs' declared as list<int>, but assigned int"]);
    expect(messages('let u: {name: string} = "x"\n')).toEqual(["'u' declared as {name: string}, but assigned string"]);
    expect(messages("let v: string | bool = 1.5\n")).toEqual(["'v' declared as string | bool, but assigned float"]);
  });

  it("does not fire when the value can fit or its type is not certain", () => {
    const ok = [
      "let f: float = 1\n",
      "let i: int = 2.5\n",
      'type Id = int\nlet i: Id = "x"\n',
      "let n: int = -3\n",
      'let s: string = "a${1}"\n',
      "let x: int | nil = nil\n",
      "let x: int = nil\n",
      'let m: "a" | "b" = "a"\n',
      'let a: any = "x"\nlet u: unknown = 1\n',
      "let d: duration = 5\n",
      'struct Name { v: string }\nlet n: Name = "x"\n',
      "fn f() -> int { return 1 }\nlet n: string = f()\n",
      'try { let n: int = "x" } catch (e) { println(e) }\n',
    ];
    for (const src of ok) expect(messages(src), src).toEqual([]);
  });
});

describe("binary operators on literals", () => {
  it("fires with the reference's texts", () => {
    expect(messages("println(false + 1)\n")).toEqual(["can't add bool and int"]);
    expect(messages('println("n=" + 5)\n')).toEqual(["can't add string and int"]);
    expect(messages('println("10" / 2)\n')).toEqual(["can't use '/' on string and int (needs numeric operands)"]);
    expect(messages('println(2 - "x")\n')).toEqual(["can't use '-' on int and string (needs numeric operands)"]);
    expect(messages('println("x" * 1.5)\n')).toEqual(["can't multiply string and float (try string * int)"]);
  });

  it("does not fire for valid operand types, non-literals, nil, try bodies or dead operands", () => {
    const ok = [
      'println(1 + 2.5)\nprintln("a" + "b")\nprintln("ab" * 3)\nprintln(3 * "ab")\nprintln(2 ** 3)\nprintln(7 % 2)\n',
      'let n = 5\nfn f() { return "a" + n }\n',
      "println([1] + [2])\nprintln({a: 1} + {b: 2})\nprintln(1s + 1s)\n",
      "fn f() { return nil + 1 }\n",
      'println(try { "a" * "b" })\ntry { let x = "a" + 1 } catch (e) { println(e) }\n',
      'println(true || "a" + 1)\n',
      'println(1 == "a")\nprintln("a" < "b")\n',
    ];
    for (const src of ok) expect(messages(src), src).toEqual([]);
  });
});

describe("return type doesn't match", () => {
  it("fires for a literal returned from a fn or pipeline declared with another type", () => {
    expect(messages('fn count() -> int {\n  return "text"\n}\n')).toEqual(["return type doesn't match: expected int, got string"]);
    expect(messages("pipeline default() -> string {\n  return true\n}\n")).toEqual(["return type doesn't match: expected string, got bool"]);
    expect(messages("fn names() -> list<string> {\n  if true { return 1 }\n  return []\n}\n")).toEqual([
      "return type doesn't match: expected list<string>, got int",
    ]);
  });

  it("does not fire for fitting, unknown or closure returns", () => {
    const ok = [
      "fn f() -> float { return 1 }\n",
      "fn f() -> int | nil { return nil }\n",
      'fn f() -> int { let g = { -> return "s" }\n return 1 }\n',
      'fn f() -> int { let g = fn() { return "s" }\n return 1 }\n',
      'fn f() { return "s" }\n',
      'fn f<T>(x: T) -> T { return "s" }\n',
      'fn f() -> Result<int, string> { return "s" }\n',
      'gen fn f() -> Stream<int> { emit 1\n return "done" }\n',
      'fn f() -> int { try { return "s" } catch (e) { return 0 } }\n',
      'tool t() -> int { description "d"\n return "s" }\n',
    ];
    for (const src of ok) expect(messages(src), src).toEqual([]);
  });
});

describe("typed parameters", () => {
  it("report a literal argument its parameter's type cannot hold, statically (core-gaps.md §9.4)", () => {
    expect(messages('fn f(a: int) { return a }\nf("hello")\n')).toEqual(["Argument 1 ('a'): expected int, got string"]);
  });

  it("leave arguments the checker cannot type, and int for float, to the runtime", () => {
    expect(messages('fn f(a: int) { return a }\nlet v = json_parse("1")\nf(v)\nfn g(x: float) { return x }\ng(1)\n')).toEqual([]);
  });
});

describe("type parameter 'T' was inferred as both A and B", () => {
  it("fires when two literal arguments bind one type parameter differently", () => {
    expect(messages('fn pair<T>(a: T, b: T) { return [a, b] }\npair(1, "x")\n')).toEqual(["type parameter 'T' was inferred as both int and string"]);
  });

  it("does not fire for agreeing, numeric or unknown bindings", () => {
    const ok = [
      "fn pair<T>(a: T, b: T) { return [a, b] }\npair(1, 2)\npair(1, 2.5)\npair(1, nil)\nlet y = 3\npair(\"a\", y)\n",
      'fn two<A, B>(a: A, b: B) { return a }\ntwo(1, "x")\n',
    ];
    for (const src of ok) expect(messages(src), src).toEqual([]);
  });
});

describe("'NAME' declared as T, but assigned U: shapes, lists, unknown", () => {
  it("fires for a dict literal missing a required field", () => {
    expect(messages('let u: {name: string, age: int} = {name: "Ann"}\n')).toEqual([
      "'u' declared as {name: string, age: int}, but assigned {name: string} (missing field 'age' (int))",
    ]);
  });

  it("fires for a list binding of another element type (lists are invariant)", () => {
    expect(messages("let xs: list<int> = [1, 2]\nlet ys: list<float> = xs\n")).toEqual(["'ys' declared as list<float>, but assigned list<int>"]);
  });

  it("fires for an unknown binding not yet narrowed", () => {
    expect(messages('let u: unknown = json_parse("1")\nlet s: string = u\n')).toEqual(["'s' declared as string, but assigned unknown"]);
  });

  it("does not fire when the value can fit or may have been narrowed", () => {
    const ok = [
      'let u: {name: string, age?: int} = {name: "Ann"}\n',
      'let u: {name: string} = {name: "Ann", extra: 1}\n',
      'let base = {age: 1}\nlet u: {name: string, age: int} = {name: "Ann", ...base}\n',
      'type User = {name: string, age: int}\nlet u: User = {name: "Ann"}\n',
      "let xs: list<int> = [1]\nlet ys: list<int> = xs\nlet zs: list = xs\n",
      "var xs: list<int> = [1]\nxs = []\nlet ys: list<float> = xs\n",
      'let u: unknown = json_parse("1")\nif type_of(u) == "string" {\n  let s: string = u\n}\n',
      'let u: unknown = json_parse("1")\nguard type_of(u) == "string" else { return }\nlet s: string = u\n',
      'let u: unknown = json_parse("1")\nlet a: any = u\nlet v: unknown = u\n',
    ];
    for (const src of ok) expect(messages(src), src).toEqual([]);
  });
});

describe("Non-exhaustive match on tagged shape union", () => {
  const decl = 'type Msg = {kind: "ping"} | {kind: "pong", n: int} | {kind: "quit"}\n';

  it("fires when a tag is not covered", () => {
    expect(messages(decl + 'fn handle(m: Msg) {\n  match m.kind {\n    "ping" -> { 1 }\n    "quit" -> { 2 }\n  }\n}\n')).toEqual([
      'Non-exhaustive match on tagged shape union: missing variants "pong"',
    ]);
  });

  it("does not fire when covered, with a wildcard, after a read, or for other shapes", () => {
    const ok = [
      decl + 'fn h(m: Msg) { match m.kind { "ping" -> { 1 } "pong" -> { 2 } "quit" -> { 3 } } }\n',
      decl + 'fn h(m: Msg) { match m.kind { "ping" -> { 1 } _ -> { 2 } } }\n',
      decl + 'fn h(m: Msg) {\n  if m.kind == "pong" { return 0 }\n  match m.kind { "ping" -> { 1 } "quit" -> { 3 } }\n}\n',
      decl + 'fn h(m: Msg) { match m.other { "ping" -> { 1 } } }\n',
      'type M = {kind: string} | {kind: "a"}\nfn h(m: M) { match m.kind { "a" -> { 1 } } }\n',
      decl + 'fn h(m) { match m.kind { "ping" -> { 1 } } }\n',
    ];
    for (const src of ok) expect(messages(src), src).toEqual([]);
  });

  it("an enum match after a read of the subject is left alone too", () => {
    expect(messages("enum C { A, B }\nfn f(c: C) {\n  if c == C.A { return 0 }\n  match c { C.B -> { 1 } }\n}\n")).toEqual([]);
  });
});

describe("variance markers", () => {
  it("fires for a marker contradicted by a method signature or an alias body", () => {
    expect(messages("interface Source<in T> {\n  fn next(self) -> T\n}\n")).toEqual([
      "type parameter 'T' is declared 'in' (contravariant) but appears in a covariant position in interface 'Source'",
    ]);
    expect(messages("interface Sink<out T> {\n  fn put(self, x: T)\n}\n")).toEqual([
      "type parameter 'T' is declared 'out' (covariant) but appears in a contravariant position in interface 'Sink'",
    ]);
    expect(messages("type Handler<out T> = fn(T) -> nil\n")).toEqual([
      "type parameter 'T' is declared 'out' (covariant) but appears in a contravariant position in type alias 'Handler'",
    ]);
  });

  it("does not fire where the marker fits, without markers, or in positions it does not judge", () => {
    const ok = [
      "interface Source<out T> {\n  fn next(self) -> T\n}\ninterface Sink<in T> {\n  fn put(self, x: T)\n}\n",
      "interface Box<T> {\n  fn get(self) -> T\n  fn set(self, x: T)\n}\n",
      "type Handler<in T> = fn(T) -> nil\ntype Maker<out T> = fn() -> T\ntype Twice<in T> = fn(fn() -> T) -> nil\n",
      "interface Coll<out T> {\n  fn all(self) -> list<T>\n  fn add(self, xs: list<T>)\n}\n",
      "interface Mapper<out T> {\n  fn map<T>(self, x: T) -> T\n}\n",
    ];
    for (const src of ok) expect(messages(src), src).toEqual([]);
  });
});

describe("did-you-mean ties", () => {
  it("prefer the nearest length, then sorted order", async () => {
    const { closestName } = await import("@harn/parser");
    expect(closestName("prinltn", ["print", "println"])).toBe("println");
    expect(closestName("cat", ["bat", "car"])).toBe("bat");
    expect(closestName("abcdef", ["xyz"])).toBe(null);
    expect(closestName("abcd", ["wxyz"])).toBe(null);
  });
});

describe("'NAME' declared as T, but assigned U: iterators and streams", () => {
  it("fires for a list annotation given an iterator chain", () => {
    expect(messages("let xs: list<int> = [1, 2, 3].iter().filter({ x -> x > 1 })\n")).toEqual(["'xs' declared as list<int>, but assigned iter<int>"]);
    // the builtin and the non-element-preserving combinators give a bare iter (core-gaps.md §5.3)
    expect(messages('let xs: list<string> = iter(["a"])\n')).toEqual(["'xs' declared as list<string>, but assigned iter"]);
    expect(messages("let xs: list<int> = [1, 2].iter().map({ x -> x })\n")).toEqual(["'xs' declared as list<int>, but assigned iter"]);
    expect(messages("fn nums() { return [1] }\nlet xs: list<int> = iter(nums()).filter({ x -> x > 1 })\n")).toEqual(["'xs' declared as list<int>, but assigned iter"]);
    expect(messages("let xs: list<int> = [1].iter().chunks(2)\n")).toEqual(["'xs' declared as list<int>, but assigned iter<list<int>>"]);
    expect(messages("let xs: list<int> = [1].iter().zip([2])\n")).toEqual(["'xs' declared as list<int>, but assigned iter<Pair<int, any>>"]);
  });

  it("fires for a Generator annotation given a gen fn call", () => {
    expect(messages("gen fn nums() {\n  emit 1\n  emit 2\n}\nlet g: Generator<int> = nums()\n")).toEqual([
      "'g' declared as Generator<int>, but assigned Stream<int>",
    ]);
    expect(messages("gen fn nums() -> Stream<string> {\n  emit \"a\"\n}\nlet g: Generator<string> = nums()\n")).toEqual([
      "'g' declared as Generator<string>, but assigned Stream<string>",
    ]);
  });

  it("does not fire for sinks, unknown elements or other callees", () => {
    const ok = [
      "let xs: list<int> = [1, 2].iter().filter({ x -> x > 1 }).to_list()\n",
      "let xs: list<int> = [1, 2].iter().map({ x -> x }).to_list()\n",
      "let xs: list<int> = [].iter()\n",
      'fn iter(x) { return x }\nlet xs: list<int> = iter([1])\n',
      "let it: iter<int> = [1].iter()\n",
      "gen fn nums() { emit 1\n emit \"a\" }\nlet g: Generator<int> = nums()\n",
      "fn nums() { return 1 }\nlet g: Generator<int> = nums()\n",
      "gen fn nums() { emit 1 }\nlet s: Stream<int> = nums()\n",
    ];
    for (const src of ok) expect(messages(src), src).toEqual([]);
  });
});

describe("where-bounds on generic calls", () => {
  const iface = "interface Shape {\n  fn area(self) -> int\n}\nfn total<T>(s: T) -> int where T: Shape {\n  return s.area()\n}\n";

  it("fires when the struct's impl method has another return or parameter type", () => {
    expect(messages(iface + 'struct Sq { side: int }\nimpl Sq {\n  fn area(self) -> string { return "big" }\n}\ntotal(Sq { side: 2 })\n')).toEqual([
      "Type 'Sq' does not satisfy interface 'Shape': method 'area' returns 'string', expected 'int' (required by constraint `where T: Shape`)",
    ]);
    const named = "interface Named {\n  fn rename(self, label: string) -> nil\n}\nfn go<T>(x: T) where T: Named { return x }\n";
    expect(messages(named + "struct P { n: int }\nimpl P {\n  fn rename(self, label: int) -> nil { return nil }\n}\ngo(P({n: 1}))\n")).toEqual([
      "Type 'P' does not satisfy interface 'Named': method 'rename' parameter 1 has type 'int', expected 'string' (required by constraint `where T: Named`)",
    ]);
  });

  it("reports an associated type that resolves to another type", () => {
    const src =
      "interface Container {\n  type Item = int\n  fn first(self) -> Item\n}\nfn head<C>(c: C) where C: Container { return c.first() }\n" +
      'struct Words { ws: list }\nimpl Words {\n  fn first(self) -> string { return "a" }\n}\nhead(Words { ws: [] })\n';
    expect(messages(src)[0]).toContain("associated type 'Item' resolves to 'string', expected 'int'");
  });

  it("does not fire when the impl fits, is unannotated, or the argument is not certainly the struct", () => {
    const ok = [
      iface + "struct Sq { side: int }\nimpl Sq {\n  fn area(self) -> int { return self.side * self.side }\n}\ntotal(Sq { side: 2 })\n",
      iface + "struct Sq { side: int }\nimpl Sq {\n  fn area(self) { return 1 }\n}\ntotal(Sq { side: 2 })\n",
      iface + "struct Sq { side: int }\nimpl Sq {\n  fn area(self) -> float { return 1.5 }\n}\ntotal(Sq { side: 2 })\n",
      iface + 'struct Sq { side: int }\nimpl Sq {\n  fn area(self) -> string { return "x" }\n}\nlet s = make()\nfn make() { return 1 }\ntotal(s)\n',
    ];
    for (const src of ok) expect(messages(src), src).toEqual([]);
  });
});

describe("Non-exhaustive match on literal union", () => {
  it("fires when a member is not covered", () => {
    expect(messages('type Mode = "fast" | "slow" | "off"\nfn run(m: Mode) {\n  match m { "fast" -> { 1 } "off" -> { 2 } }\n}\n')).toEqual([
      'Non-exhaustive match on literal union: missing variants "slow"',
    ]);
    expect(messages("fn lvl(n: 1 | 2 | 3) {\n  match n { 1 -> { 1 } 2 | 3 -> { 2 } }\n}\nfn half(n: 1 | 2) {\n  match n { 1 -> { 1 } }\n}\n")).toEqual([
      "Non-exhaustive match on literal union: missing variants 2",
    ]);
  });

  it("does not fire when covered, with a wildcard, after a read, or for mixed unions", () => {
    const ok = [
      'fn f(m: "a" | "b") { match m { "a" -> { 1 } "b" -> { 2 } } }\n',
      'fn f(m: "a" | "b") { match m { "a" -> { 1 } _ -> { 2 } } }\n',
      'fn f(m: "a" | "b") {\n  if m == "b" { return 0 }\n  match m { "a" -> { 1 } }\n}\n',
      'fn f(m: "a" | nil) { match m { "a" -> { 1 } } }\n',
      'fn f(m: "a" | string) { match m { "a" -> { 1 } } }\n',
    ];
    for (const src of ok) expect(messages(src), src).toEqual([]);
  });
});

describe("call targets: more programs that must pass", () => {
  it("the std import these cases use resolves (so the check is live)", () => {
    expect(messages('import "std/text"\nnope_zz_unknown()\n')).toEqual(["call target `nope_zz_unknown` is not defined or imported"]);
  });

  it("accepts builtins as values, closures in dicts, spawn and parallel bodies", () => {
    const ok = [
      'import "std/text"\nlet f = len\nprintln(f([1]))\nlet d = {go: { x -> x }}\nprintln(d.go(1))\n',
      'import "std/text"\nfn work(n) { return n }\nlet t = spawn { work(1) }\nprintln(await(t))\nlet r = parallel each [1, 2] { n -> work(n) }\n',
      'import "std/text"\npipeline default() {\n  helper()\n}\nfn helper() { return later_one() }\nfn later_one() { 1 }\n',
      'import "std/text"\nlet ops = [{ x -> x + 1 }]\nfor op in ops { println(op(1)) }\nlet tbl = {}\nlet r = Ok(1)\nprintln(r.map({ v -> v + 1 }))\n',
    ];
    for (const src of ok) expect(messages(src), src).toEqual([]);
  });
});
