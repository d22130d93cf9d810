/**
 * Binary operators (§4), from the operator table (optable.ts). An
 * operation on literals is folded here, at compile time.
 */
import type * as A from "@harn/parser";
import { type Value, truthy } from "../../values";
import type { Compiler } from "../compile";
import type { Async, ExprEv, Frame } from "../frame";
import { fastBinary, type Operand } from "../fastops";
import { located } from "../helpers";
import { operator } from "../optable";
import { shaped, shapeOf } from "../shape";
import { NIL_EV } from "./base";
import { pipe } from "./calls";

export function binary(c: Compiler, n: A.BinaryOp): ExprEv {
  const file = c.file;
  const op = n.op;
  if (op === "|>") return pipe(c, n);
  const l = c.expr(n.left);
  const r = c.expr(n.right);
  switch (op) {
    case "&&": {
      const right = (fr: Frame): Async<boolean> => {
        const b = r(fr);
        return b instanceof Promise ? b.then(truthy) : truthy(b);
      };
      return shaped((fr) => {
        const a = l(fr);
        if (a instanceof Promise) return a.then((x) => (truthy(x) ? right(fr) : false));
        return truthy(a) ? right(fr) : false;
      }, { k: "and", l, r });
    }
    case "||": {
      const right = (fr: Frame): Async<boolean> => {
        const b = r(fr);
        return b instanceof Promise ? b.then(truthy) : truthy(b);
      };
      return shaped((fr) => {
        const a = l(fr);
        if (a instanceof Promise) return a.then((x) => (truthy(x) ? true : right(fr)));
        return truthy(a) ? true : right(fr);
      }, { k: "or", l, r });
    }
    case "??":
      return shaped((fr) => {
        const a = l(fr);
        if (a instanceof Promise) return a.then((x) => (x !== null ? x : r(fr)));
        return a !== null ? a : r(fr);
      }, { k: "coalesce", l, r });
  }
  const fn = operator(op).slow;
  const folded = fold(fn, l, r);
  if (folded !== undefined) return folded;
  const span = n.right.span;
  const slow = (a: Value, b: Value): Value => {
    try {
      return fn(a, b);
    } catch (e) {
      throw located(e, span, file);
    }
  };
  const left = operand(c, n.left, l);
  const right = operand(c, n.right, r);
  const fast = fastBinary(op, left, right, slow);
  if (fast) return shaped(fast, { k: "bin", op, l: operandEv(left), r: operandEv(right), slow });
  return shaped((fr) => {
    const a = l(fr);
    if (a instanceof Promise) return a.then((x) => then2(r(fr), x, slow));
    const b = r(fr);
    if (b instanceof Promise) return b.then((y) => slow(a, y));
    return slow(a, b);
  }, { k: "op", l, r, slow });
}

function then2(b: Async<Value>, a: Value, slow: (a: Value, b: Value) => Value): Async<Value> {
  return b instanceof Promise ? b.then((y) => slow(a, y)) : slow(a, b);
}

/** The value of a literal operand (`nil` included), or undefined. */
function literalOf(ev: ExprEv): Value | undefined {
  if (ev === NIL_EV) return null;
  const sh = shapeOf(ev);
  return sh?.k === "lit" ? sh.v : undefined;
}

/** `lit OP lit` as a literal, computed once. An operation that fails is
 * left to run time, which reports it where it is (and only if it runs). */
function fold(fn: (a: Value, b: Value) => Value, l: ExprEv, r: ExprEv): ExprEv | undefined {
  const a = literalOf(l);
  const b = literalOf(r);
  if (a === undefined || b === undefined) return undefined;
  let v: Value;
  try {
    v = fn(a, b);
  } catch {
    return undefined;
  }
  if (v === null) return NIL_EV;
  return shaped(() => v, { k: "lit", v });
}

/** How a binary operand is read (fastops.ts). */
function operand(c: Compiler, n: A.Node, ev: ExprEv): Operand {
  if (n.kind === "Identifier" && n.name !== "_") {
    const b = c.scope.resolve(n.name);
    if (b) return { kind: "slot", slot: b.slot };
  }
  const v = literalOf(ev);
  if (typeof v === "number") return { kind: "int", value: v };
  return { kind: "ev", ev };
}

/** A closure reading a binary operand (for the operand's shape). */
function operandEv(o: Operand): ExprEv {
  switch (o.kind) {
    case "slot": {
      const slot = o.slot;
      return shaped((fr) => fr.s[slot]!, { k: "slot", slot });
    }
    case "int": {
      const v = o.value;
      return shaped(() => v, { k: "lit", v });
    }
    case "ev":
      return o.ev;
  }
}
