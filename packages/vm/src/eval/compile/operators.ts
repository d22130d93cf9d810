/**
 * Binary operators (§4).
 */
import type * as A from "@harn/parser";
import * as ops from "../../ops";
import { type Value, equals, normBig, truthy } from "../../values";
import type { Compiler } from "../compile";
import type { Ev, Frame } from "../frame";
import { fastBinary, isFastOp, type Operand } from "../fastops";
import { located, thenMaybe as then } from "../helpers";
import { shaped } from "../shape";
import { pipe } from "./calls";

export function binary(c: Compiler, n: A.BinaryOp): Ev {
  const file = c.file;
  const op = n.op;
  if (op === "|>") return pipe(c, n);
  if (isFastOp(op)) {
    const fn = binaryFn(op);
    const span = n.right.span;
    const slow = (a: Value, b: Value): Value => {
      try {
        return fn(a, b);
      } catch (e) {
        throw located(e, span, file);
      }
    };
    const left = operand(c, n.left);
    const right = operand(c, n.right);
    const fast = fastBinary(op, left, right, slow);
    if (fast) return shaped(fast, { k: "bin", op, l: operandEv(left), r: operandEv(right), slow });
  }
  const l = c.expr(n.left);
  const r = c.expr(n.right);
  const span = n.right.span;
  switch (op) {
    case "&&": {
      const right = (fr: Frame): any => {
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
      const right = (fr: Frame): any => {
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
  const fn = binaryFn(op);
  const slow = (a: Value, b: Value): Value => {
    try {
      return fn(a, b);
    } catch (e) {
      throw located(e, span, file);
    }
  };
  const both = (fr: Frame, a: Promise<Value> | Value): any => then(a, (x) => then(r(fr), (y) => slow(x, y)));
  switch (op) {
    case "+":
      return (fr) => {
        const a = l(fr);
        if (a instanceof Promise) return both(fr, a);
        const b = r(fr);
        if (typeof a === "number" && typeof b === "number") {
          const x = a + b;
          if (Number.isSafeInteger(x)) return x;
        }
        if (b instanceof Promise) return b.then((y) => slow(a, y));
        return slow(a, b);
      };
    case "-":
      return (fr) => {
        const a = l(fr);
        if (a instanceof Promise) return both(fr, a);
        const b = r(fr);
        if (typeof a === "number" && typeof b === "number") {
          const x = a - b;
          if (Number.isSafeInteger(x)) return x;
        }
        if (b instanceof Promise) return b.then((y) => slow(a, y));
        return slow(a, b);
      };
    case "*":
      return (fr) => {
        const a = l(fr);
        if (a instanceof Promise) return both(fr, a);
        const b = r(fr);
        if (typeof a === "number" && typeof b === "number") {
          const x = a * b;
          if (Number.isSafeInteger(x)) return x + 0;
        }
        if (b instanceof Promise) return b.then((y) => slow(a, y));
        return slow(a, b);
      };
    case "%":
      return (fr) => {
        const a = l(fr);
        if (a instanceof Promise) return both(fr, a);
        const b = r(fr);
        if (typeof a === "number" && typeof b === "number" && b !== 0) return (a % b) + 0;
        if (b instanceof Promise) return b.then((y) => slow(a, y));
        return slow(a, b);
      };
    case "==":
    case "!=": {
      const neq = op === "!=";
      return (fr) => {
        const a = l(fr);
        if (a instanceof Promise) return a.then((x) => then(r(fr), (y) => equals(x, y) !== neq));
        const b = r(fr);
        if (typeof a === "number" && typeof b === "number") return (a === b) !== neq;
        if (b instanceof Promise) return b.then((y) => equals(a, y) !== neq);
        return equals(a, b) !== neq;
      };
    }
    case "<":
      return (fr) => {
        const a = l(fr);
        if (a instanceof Promise) return both(fr, a);
        const b = r(fr);
        if (typeof a === "number" && typeof b === "number") return a < b;
        if (b instanceof Promise) return b.then((y) => ops.lt(a, y));
        return ops.lt(a, b);
      };
    case ">":
      return (fr) => {
        const a = l(fr);
        if (a instanceof Promise) return both(fr, a);
        const b = r(fr);
        if (typeof a === "number" && typeof b === "number") return a > b;
        if (b instanceof Promise) return b.then((y) => ops.gt(a, y));
        return ops.gt(a, b);
      };
    case "<=":
      return (fr) => {
        const a = l(fr);
        if (a instanceof Promise) return both(fr, a);
        const b = r(fr);
        if (typeof a === "number" && typeof b === "number") return a <= b;
        if (b instanceof Promise) return b.then((y) => ops.le(a, y));
        return ops.le(a, b);
      };
    case ">=":
      return (fr) => {
        const a = l(fr);
        if (a instanceof Promise) return both(fr, a);
        const b = r(fr);
        if (typeof a === "number" && typeof b === "number") return a >= b;
        if (b instanceof Promise) return b.then((y) => ops.ge(a, y));
        return ops.ge(a, b);
      };
  }
  return shaped((fr) => {
    const a = l(fr);
    if (a instanceof Promise) return both(fr, a);
    const b = r(fr);
    if (b instanceof Promise) return b.then((y) => slow(a, y));
    return slow(a, b);
  }, { k: "op", l, r, slow });
}

/** How a binary operand is read (fastops.ts). */
export function operand(c: Compiler, n: A.Node): Operand {
  if (n.kind === "Identifier" && n.name !== "_") {
    const b = c.scope.resolve(n.name);
    if (b) return { kind: "slot", slot: b.slot };
  }
  if (n.kind === "IntLiteral") {
    const v = normBig(n.value);
    if (typeof v === "number") return { kind: "int", value: v };
  }
  return { kind: "ev", ev: c.expr(n) };
}

/** A closure reading a binary operand (for the operand's shape). */
function operandEv(o: Operand): Ev {
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

export function binaryFn(op: string): (a: Value, b: Value) => Value {
  switch (op) {
    case "+":
      return ops.add;
    case "-":
      return ops.sub;
    case "*":
      return ops.mul;
    case "/":
      return ops.div;
    case "%":
      return ops.mod;
    case "**":
      return ops.pow;
    case "==":
      return (a, b) => equals(a, b);
    case "!=":
      return (a, b) => !equals(a, b);
    case "<":
      return ops.lt;
    case ">":
      return ops.gt;
    case "<=":
      return ops.le;
    case ">=":
      return ops.ge;
    case "in":
      return (a, b) => ops.contains(b, a);
    case "not_in":
      return (a, b) => !ops.contains(b, a);
  }
  throw new Error(`unknown operator ${op}`);
}
