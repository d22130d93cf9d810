/** Declarations: spec/syntax.md §3 and types §8. */
import { describe, expect, it } from "vitest";
import { parse } from "../src/index";
import { firstError, one, shapes } from "./helpers";

const PUB = "Expected fn, tool, skill, eval_pack, struct, enum, pipeline, or import after pub, got";

describe("pipelines (§3.1)", () => {
  it.each([
    ["pipeline default(task) { log(task) }", "(pipeline default(task) {(call log task)})"],
    ["pipeline p() { }", "(pipeline p() {})"],
    ["pipeline p(a b) { }", "(pipeline p(a, b) {})"],
    ["pipeline p(\n  a,\n  b,\n) { }", "(pipeline p(a, b) {})"],
    ["pipeline p(\n) { }", "(pipeline p() {})"],
    ["pipeline build(task) -> string extends base { }", "(pipeline build(task) -> string extends base {})"],
    ["pub pipeline p() { }", "(pub pipeline p() {})"],
    ["pipeline\np\n(a)\n{ }", "(pipeline p(a) {})"],
  ])("%s", (src, want) => {
    expect(one(src)).toBe(want);
  });
  it.each([
    ["pipeline p(a: int) { }", "Expected parameter name, got : at 1:13"],
    ["pipeline p(\n  a,\n  b\n) { }", "Expected parameter name, got ) at 4:1"],
    ["pipeline 1() { }", "Expected pipeline name, got int(1) at 1:10"],
    ["pipeline p() extends { }", "Expected parent pipeline name, got { at 1:22"],
    ["pipeline p()\n-> int { }", "Expected {, got -> at 2:1"],
  ])("%s", (src, want) => {
    expect(firstError(src)).toBe(want);
  });
});

describe("functions (§3.2, §3.3)", () => {
  it.each([
    ["fn f() { }", "(fn f() {})"],
    ["fn f(a, b: int, c = 1, d: string = \"x\") -> int { }", '(fn f(a, b: int, c = 1, d: string = "x") -> int {})'],
    ["fn f(a b) { }", "(fn f(a, b) {})"],
    ["fn f(a,) { }", "(fn f(a) {})"],
    ["fn f(\n  a,\n  b,\n) { }", "(fn f(a, b) {})"],
    ["fn f(a, ...rest: list<int>) { }", "(fn f(a, ...rest: [int]) {})"],
    ["fn f(a = 1, ...rest) { }", "(fn f(a = 1, ...rest) {})"],
    ["fn id<T>(x: T) -> T { return x }", "(fn id<T>(x: T) -> T {(return x)})"],
    ["fn f<in T, out U, out>(x) { }", "(fn f<in T, out U, out>(x) {})"],
    ["fn max<T>(a: T, b: T) -> T where T: Comparable { }", "(fn max<T>(a: T, b: T) -> T where T: Comparable {})"],
    ["fn f<T, U>(a: T) where T: Show, U: Eq\n{ }", "(fn f<T, U>(a: T) where T: Show, U: Eq {})"],
    ["gen fn nums() { emit 1 }", "(gen fn nums() {(emit 1)})"],
    ["pub gen fn nums() { }", "(pub gen fn nums() {})"],
    ["pub fn f(self) { }", "(pub fn f(self) {})"],
    ["fn outer() { fn inner() { } }", "(fn outer() {(fn inner() {})})"],
  ])("%s", (src, want) => {
    expect(one(src)).toBe(want);
  });
  it("`gen` is only special directly before `fn`", () => {
    expect(shapes("let gen = 1\ngen\nfn g() { }")).toEqual(["(let gen 1)", "gen", "(fn g() {})"]);
  });
  it.each([
    ["fn(x) { x }", "Expected function name, got ( at 1:3"],
    ["fn match() { }", "Expected function name, got 'match' (reserved keyword) at 1:4"],
    ["fn f(in) { }", "Expected parameter name, got 'in' (reserved keyword) at 1:6"],
    ["fn f({a}) { }", "Expected parameter name, got { at 1:6"],
    ["fn f(\n  a,\n  b\n) { }", "Expected parameter name, got ) at 4:1"],
    ["fn f(a = 1, b) { }", "Expected Required parameter cannot follow a parameter with a default value, got ) at 1:14"],
    ["fn f(a = 1, b, c) { }", "Expected Required parameter cannot follow a parameter with a default value, got , at 1:14"],
    ["fn f(...a, b) { }", "Expected Rest parameter must be the last parameter, got , at 1:10"],
    ["fn f(...a,) { }", "Expected Rest parameter must be the last parameter, got , at 1:10"],
    ["fn f(\n  ...a\n) { }", "Expected Rest parameter must be the last parameter, got \\n at 2:7"],
    ["fn f(a\n: int) { }", "Expected parameter name, got : at 2:1"],
    ["fn f(a\n= 1) { }", "Expected parameter name, got = at 2:1"],
    ["fn f()\n-> int { }", "Expected {, got -> at 2:1"],
    ["fn f<\n  T\n>() { }", "Expected type parameter name, got > at 3:1"],
    ["fn f() where T Show { }", "Expected :, got id(Show) at 1:16"],
  ])("%s", (src, want) => {
    expect(firstError(src)).toBe(want);
  });
});

describe("tools (§3.4)", () => {
  it.each([
    ['tool search(q: string) -> string { description "Search"\n  return q }', '(tool search(q: string) -> string description="Search" {(return q)})'],
    ['tool t() {\n  description\n    "d"\n  log(1)\n}', '(tool t() description="d" {(call log 1)})'],
    ['tool t() { description "d"; log(1) }', '(tool t() description="d" {(call log 1)})'],
    ["tool t() { description = 1 }", "(tool t() {(= description 1)})"],
    ['tool t() { log(1)\n description "x" }', "(tool t() {(call log 1); description; \"x\"})"],
    ['tool deploy() {\n  description "Deploy"\n  long_running true\n  start()\n}', '(tool deploy() description="Deploy" long_running {(call start)})'],
    ['@long_running\ntool deploy() { start() }', "(@long_running (tool deploy() long_running {(call start)}))"],
    ["pub tool t() { }", "(pub tool t() {})"],
  ])("%s", (src, want) => {
    const r = parse(src);
    if (want.includes('description; "x"')) {
      expect(r.errors[0]!.message).toBe("Expected statement separator (`;` or newline), got str(x) at 2:14");
      return;
    }
    expect(one(src)).toBe(want);
  });
  it("needs a separator after the description", () => {
    expect(firstError('tool t() { description "d" log(1) }')).toBe("Expected tool body item separator, got id(log) at 1:28");
  });
});

describe("structs and enums (§3.5, §3.6)", () => {
  it.each([
    ["struct P { x: int, y: int }", "(struct P x: int, y: int)"],
    ["struct P {\n  x: int\n  y\n  port?: int,\n}", "(struct P x: int, y, port?: int)"],
    ["struct Box<T> { value: T }", "(struct Box<T> value: T)"],
    ["struct E { }", "(struct E )"],
    ["pub struct P { x }", "(struct P x)"],
    ["enum Color { Red, Green, Blue }", "(enum Color Red, Green, Blue)"],
    ["enum Shape {\n  Circle(r: float)\n  Rect(w: float, h: float),\n}", "(enum Shape Circle(r: float), Rect(w: float, h: float))"],
    ["enum Opt<T> { Some(value: T) None }", "(enum Opt<T> Some(value: T), None)"],
    ["enum E { Circle(float) }", "(enum E Circle(float))"],
  ])("%s", (src, want) => {
    expect(one(src)).toBe(want);
  });
  it.each([
    ["struct S { label: string? }", "Expected field name, got ? at 1:25"],
    ["struct S { type: string }", "Expected field name, got 'type' (reserved keyword) at 1:12"],
    ["struct S { a: int;\n}", "Expected field name, got ; at 1:18"],
    ["enum E { A;\n}", "Expected variant name, got ; at 1:11"],
    ["struct s", "Unexpected end of file, expected {"],
  ])("%s", (src, want) => {
    expect(firstError(src)).toBe(want);
  });
});

describe("type aliases, interfaces, impls (§3.7–§3.9)", () => {
  it.each([
    ["type Id = int", "(type Id int)"],
    ["type Pair<A, B> = {first: A, second: B}", "(type Pair<A, B> {first: A, second: B})"],
    ["type R = int |\n  string |\n  nil", "(type R (| int string nil))"],
    ["type T\n= int", "(type T int)"],
    ["interface Shape {\n  type Item\n  type Out = int\n  fn area(self) -> float\n  fn name<T>(self, x: T)\n}", "(interface Shape type Item type Out = int fn area(self) -> float fn name(self, x: T))"],
    ["interface I { fn a() fn b() }", "(interface I fn a() fn b())"],
    ["impl Circle {\n  fn area(self) -> float { return 1.0 }\n  pub fn name(self) { }\n}", "(impl Circle (fn area(self) -> float {(return 1f)}) (pub fn name(self) {}))"],
  ])("%s", (src, want) => {
    expect(one(src)).toBe(want);
  });
  it.each([
    ["pub type X = int", `${PUB} type at 1:5`],
    ["pub interface I { }", `${PUB} interface at 1:5`],
    ["pub let x = 1", `${PUB} let at 1:5`],
    ["pub\nfn f() { }", `${PUB} \\n at 1:4`],
    ["interface I { fn a() { } }", "Expected fn, got { at 1:22"],
    ["interface I { let x = 1 }", "Expected fn, got let at 1:15"],
    ["impl X for Y { }", "Expected {, got for at 1:8"],
    ["impl X { let a = 1 }", "Expected fn, got let at 1:10"],
    ["impl X { gen fn a() { } }", "Expected fn, got id(gen) at 1:10"],
  ])("%s", (src, want) => {
    expect(firstError(src)).toBe(want);
  });
  it("pub errors carry the help text", () => {
    expect(parse("pub type X = int").errors[0]!.help).toBe("use `pub fn`, `pub pipeline`, `pub enum`, or `pub struct`");
  });
});

describe("types (§8)", () => {
  it.each([
    ["int", "int"],
    ["list<int>", "[int]"],
    ["[string]", "[string]"],
    ["dict<string, int>", "dict<string, int>"],
    ["iter<int>", "iter<int>"],
    ["Iter<int>", "iter<int>"],
    ["Generator<int>", "Generator<int>"],
    ["generator<int>", "Generator<int>"],
    ["Stream<int>", "Stream<int>"],
    ["stream<int>", "Stream<int>"],
    ["Result<int, string>", "Result<int, string>"],
    ["list<list<int>>", "[[int]]"],
    ["int | string | nil", "(| int string nil)"],
    ["true", "bool"],
    ["nil", "nil"],
    ['"a" | "b"', '(| "a" "b")'],
    ['r"a"', '"a"'],
    ["1 | -1", "(| 1 -1)"],
    ["never", "never"],
    ["fn(int, string) -> bool", "fn(int, string) -> bool"],
    ["fn() -> nil", "fn() -> nil"],
    ["{name: string, age?: int, type: string}", "{name: string, age?: int, type: string}"],
    ["{\n  a: int\n  b: string,\n}", "{a: int, b: string}"],
    ["dict<\n  string,\n  int\n>", "dict<string, int>"],
  ])("%s", (src, want) => {
    const s = one(`let x: ${src} = v`);
    expect(s).toBe(`(let x: ${want} v)`);
  });
  it.each([
    ["let x: (int | string) = 1", "Expected type name, got ( at 1:8"],
    ["let x: int? = 1", "Expected =, got ? at 1:11"],
    ["let x: int || nil = 1", "Expected =, got || at 1:12"],
    ["let x: type = 1", "Expected type name, got 'type' (reserved keyword) at 1:8"],
    ["let x: list<> = 1", "Expected type argument, got > at 1:13"],
    ["let x: 1.5 = 1", "Expected type name, got float(1.5) at 1:8"],
    ["let x: fn(a: int) -> int = f", "Expected type name, got : at 1:12"],
    ["let x: {select: int} = 1", "Expected field name, got select at 1:9"],
    ["let x: int\n| nil = 1", "Expected =, got | at 2:1"],
  ])("%s", (src, want) => {
    expect(firstError(src)).toBe(want);
  });
});

describe("imports (§3.10)", () => {
  it.each([
    ['import "std/strings"', '(import "std/strings")'],
    ['import { a, b } from "lib"', '(import {a, b} "lib")'],
    ['import {\n  a\n  b,\n}\nfrom "lib"', '(import {a, b} "lib")'],
    ['pub import "x"', '(pub import "x")'],
    ['pub import { a } from "x"', '(pub import {a} "x")'],
  ])("%s", (src, want) => {
    expect(one(src)).toBe(want);
  });
  it.each([
    ['import "std/${x}"', "Expected import path string, got istr(...) at 1:8"],
    ['import r"x"', "Expected import path string, got rstr(x) at 1:8"],
    ['import\n"x"', "Expected import path string, got \\n at 1:7"],
    ['import { a } from\n"x"', "Expected import path string, got \\n at 1:18"],
    ['import { type } from "x"', "Expected import name, got 'type' (reserved keyword) at 1:10"],
    ['import { a } "x"', "Expected from, got str(x) at 1:14"],
  ])("%s", (src, want) => {
    expect(firstError(src)).toBe(want);
  });
});

describe("attributes (§3.11)", () => {
  it.each([
    ["@test\npipeline t() { }", "(@test (pipeline t() {}))"],
    ['@meta(name: "x", n: -1, f: -1.5, l: [1, "a"], id: foo, b: true, z: nil)\nfn f() { }', '(@meta(name: "x", n: -1, f: -1.5f, l: [1, "a"], id: foo, b: true, z: nil) (fn f() {}))'],
    ["@a @b(1)\nstruct S { }", "(@a @b(1) (struct S ))"],
    ["@a\n@b\npub fn f() { }", "(@a @b (pub fn f() {}))"],
    ["@a(\n  1,\n  2,\n)\ntype T = int", "(@a(1, 2) (type T int))"],
  ])("%s", (src, want) => {
    expect(one(src)).toBe(want);
  });
  it("attributes before nested declarations", () => {
    expect(one("fn outer() {\n  @inline\n  fn inner() { }\n}")).toBe("(fn outer() {(@inline (fn inner() {}))})");
  });
  it.each([
    ["@a(x y) fn f() { }", "Expected ), got id(y) at 1:6"],
    ["@a let x = 1", "Expected fn/tool/skill/eval_pack/pipeline/struct/enum/type/interface/impl declaration after `@attr`, got non-declaration statement at 1:4"],
    ["@a(f(1)) fn f() { }", "Expected ), got ( at 1:5"],
    ["@a(-x) fn f() { }", "Expected number after '-' in attribute argument, got id(x) at 1:5"],
    ["@a({}) fn f() { }", "Expected attribute argument value (literal or identifier), got { at 1:4"],
    ["@ 1", "Expected attribute name, got int(1) at 1:3"],
  ])("%s", (src, want) => {
    expect(firstError(src)).toBe(want);
  });
});

describe("override, skill, eval_pack (§3.12)", () => {
  it("override", () => {
    expect(one("pipeline p(t) extends base {\n  override step(x) { log(x) }\n}")).toBe(
      "(pipeline p(t) extends base {(override step(x) {(call log x)})})",
    );
  });
  it("skill", () => {
    expect(one('skill review {\n  description "Review"\n  run fn(x) { x }\n  tags\n    ["a"]\n}')).toBe(
      '(skill review description="Review" run=(fn (x) {x}) tags=["a"])',
    );
    expect(firstError("skill s { a 1 b 2 }")).toBe("Expected skill field separator, got id(b) at 1:15");
  });
  it("eval_pack", () => {
    expect(one('eval_pack checks "pack-1" {\n  model: "m"\n  log(1)\n  summarize { done() }\n}')).toBe(
      '(eval_pack checks pack-1 model="m" {(call log 1)} summarize {(call done)})',
    );
    expect(one('eval_pack "id" { }')).toBe("(eval_pack id id {})");
    expect(one('eval_pack "Nightly Evals / v2!" { }')).toBe("(eval_pack nightly_evals_v2 Nightly Evals / v2! {})");
    expect(one('eval_pack "--" { }')).toBe("(eval_pack eval_pack_ -- {})");
    expect(firstError("eval_pack { }")).toBe("Expected eval_pack name, got { at 1:11");
  });
});
