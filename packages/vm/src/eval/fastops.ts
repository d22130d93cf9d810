/**
 * Specialised closures for the hot binary operators.
 *
 * A closure-compiled evaluator spends most of its time in calls between
 * node closures, and a call site shared by every instance of one closure
 * literal is megamorphic, so V8 cannot inline through it. For the common
 * shapes `slot OP slot`, `slot OP 123`, `expr OP 123`, … this module
 * generates one closure literal per (operator, left kind, right kind) whose
 * operand reads are inline (`fr.s[3]`, a constant) and whose int fast path
 * needs no call at all (optable.ts). Everything else goes to `slow(a, b)`,
 * the general operator with the error location attached.
 *
 * The factories are generated with `new Function` on first use of each
 * shape (they are plain functions of their parameters, with no free
 * variables, so no state is shared between runtimes).
 */
import type { Value } from "../values";
import type { ExprEv, Frame } from "./frame";
import { emitBinary, hasIntPath } from "./optable";

export type Operand = { kind: "slot"; slot: number } | { kind: "int"; value: number } | { kind: "ev"; ev: ExprEv };

type Factory = (l: unknown, r: unknown, slow: (a: Value, b: Value) => Value) => ExprEv;

function read(kind: Operand["kind"], name: "l" | "r"): string {
  switch (kind) {
    case "slot":
      return `fr.s[${name}]`;
    case "int":
      return name;
    case "ev":
      return `${name}(fr)`;
  }
}

function generate(op: string, lk: Operand["kind"], rk: Operand["kind"]): Factory {
  // The promise paths call out to `leftAsync`/`rightAsync` instead of
  // creating arrow functions here: an inner closure would make V8 allocate
  // a context for `fr` on every evaluation, async or not.
  const rightRead = rk === "ev" ? "r" : rk === "slot" ? "(fr) => fr.s[r]" : "() => r";
  const lines = [`const readRight = ${rightRead};`, `return function (fr) {`, `const a = ${read(lk, "l")};`];
  if (lk === "ev") lines.push(`if (a instanceof Promise) return leftAsync(a, fr, readRight, slow);`);
  lines.push(`const b = ${read(rk, "r")};`);
  if (rk === "ev") lines.push(`if (b instanceof Promise) return rightAsync(a, b, slow);`);
  lines.push("let t;", emitBinary(op, "a", "b", "t", "t = slow(a, b);"), "return t;", "};");
  const make = new Function("l", "r", "slow", "leftAsync", "rightAsync", lines.join("\n")) as (...a: unknown[]) => ExprEv;
  return (l, r, slow) => make(l, r, slow, leftAsync, rightAsync);
}

/**
 * The factory of one (operator, left kind, right kind), generated the first
 * time a program uses that shape: generating all ~90 up front cost a few
 * milliseconds of every start-up. Idempotent and shared safely: a factory is
 * a pure function of its parameters, so runtimes cannot observe each other
 * through this memo.
 */
const factories = new Map<string, Factory>();
function factory(op: string, lk: Operand["kind"], rk: Operand["kind"]): Factory {
  const key = `${op}|${lk}|${rk}`;
  let f = factories.get(key);
  if (!f) factories.set(key, (f = generate(op, lk, rk)));
  return f;
}

async function leftAsync(a: Promise<Value>, fr: Frame, readRight: ExprEv, slow: (a: Value, b: Value) => Value): Promise<Value> {
  const x = await a;
  let y = readRight(fr);
  if (y instanceof Promise) y = await y;
  return slow(x, y);
}

async function rightAsync(a: Value, b: Promise<Value>, slow: (a: Value, b: Value) => Value): Promise<Value> {
  return slow(a, await b);
}

function arg(o: Operand): unknown {
  return o.kind === "slot" ? o.slot : o.kind === "int" ? o.value : o.ev;
}

/** A specialised closure for `left OP right`, or null when the operator
 * has no fast path. */
export function fastBinary(op: string, left: Operand, right: Operand, slow: (a: Value, b: Value) => Value): ExprEv | null {
  if (!hasIntPath(op)) return null;
  return factory(op, left.kind, right.kind)(arg(left), arg(right), slow);
}

/** `(a, b, slow) => a OP b` by the operator's int path, else `slow(a, b)`
 * (compound assignment `x OP= v` in the closure tier). Memoised like the
 * factories. */
export function applyFn(op: string): (a: Value, b: Value, slow: (a: Value, b: Value) => Value) => Value {
  const key = `${op}|apply`;
  let f = appliers.get(key);
  if (!f) {
    f = new Function("a", "b", "slow", `let t; ${emitBinary(op, "a", "b", "t", "t = slow(a, b);")} return t;`) as (a: Value, b: Value, slow: (a: Value, b: Value) => Value) => Value;
    appliers.set(key, f);
  }
  return f;
}
const appliers = new Map<string, (a: Value, b: Value, slow: (a: Value, b: Value) => Value) => Value>();
