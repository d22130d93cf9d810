/**
 * The operator table (§4): for each binary operator, the general operation
 * (`slow`, any operands, the spec's error texts) and, for the hot ones, the
 * int fast path as a JS template. The closure tier (fastops.ts), the second
 * tier (jit.ts) and frameless calls (direct.ts) all emit their fast paths
 * from here (`emitBinary`), so an operator's int semantics are written once.
 *
 * Ints are JS numbers while safe (semantics.md; values.ts), so "both
 * operands are numbers" means "both are safe ints".
 */
import * as ops from "../ops";
import { type Value, equals } from "../values";

export interface IntPath {
  /** The result for number operands `a`, `b` (JS expressions, evaluated
   * once each: the emitters pass names or literals). */
  expr: (a: string, b: string) => string;
  /** A further condition on the number operands (a nonzero divisor). */
  when?: (a: string, b: string) => string;
  /** The result may leave the safe-int range: the slow path takes over
   * when it does (ints widen to BigInt there). */
  checked: boolean;
  /** The result is an int (arithmetic), not a bool (a comparison): a
   * generated loop may leave where such a path fails (exits.ts). */
  givesInt: boolean;
}

export interface Operator {
  /** The general operation, throwing the spec's `HarnError`s (unlocated). */
  slow: (a: Value, b: Value) => Value;
  /** The int fast path, when the operator has one. */
  int?: IntPath;
}

const arith = (op: string): IntPath => ({ expr: (a, b) => `${a} ${op} ${b}`, checked: true, givesInt: true });
const compare = (op: string): IntPath => ({ expr: (a, b) => `${a} ${op} ${b}`, checked: false, givesInt: false });
// In int32 range a double quotient truncates exactly; `+ 0` turns -0 into 0.
const int32 = (x: string): string => `(${x} | 0) === ${x}`;

export const OPERATORS: Readonly<Record<string, Operator>> = {
  "+": { slow: ops.add, int: arith("+") },
  "-": { slow: ops.sub, int: arith("-") },
  "*": { slow: ops.mul, int: { expr: (a, b) => `${a} * ${b} + 0`, checked: true, givesInt: true } },
  "/": {
    slow: ops.div,
    int: { expr: (a, b) => `Math.trunc(${a} / ${b}) + 0`, when: (a, b) => `${b} !== 0 && ${int32(a)} && ${int32(b)}`, checked: false, givesInt: true },
  },
  "%": { slow: ops.mod, int: { expr: (a, b) => `${a} % ${b} + 0`, when: (_a, b) => `${b} !== 0`, checked: false, givesInt: true } },
  "**": { slow: ops.pow },
  "==": { slow: (a, b) => equals(a, b), int: compare("===") },
  "!=": { slow: (a, b) => !equals(a, b), int: compare("!==") },
  "<": { slow: ops.lt, int: compare("<") },
  ">": { slow: ops.gt, int: compare(">") },
  "<=": { slow: ops.le, int: compare("<=") },
  ">=": { slow: ops.ge, int: compare(">=") },
  in: { slow: (a, b) => ops.contains(b, a) },
  not_in: { slow: (a, b) => !ops.contains(b, a) },
};

export function operator(op: string): Operator {
  const o = OPERATORS[op];
  if (o === undefined) throw new Error(`unknown operator ${op}`);
  return o;
}

/** Whether `op` has an int fast path. */
export function hasIntPath(op: string): boolean {
  return OPERATORS[op]?.int !== undefined;
}

/** Whether `op` has an int fast path whose result is an int. */
export function intPathGivesInt(op: string): boolean {
  return OPERATORS[op]?.int?.givesInt === true;
}

/** A JS int literal as the emitters write them (`3`, `(-3)`). */
export function isNumLiteral(x: string): boolean {
  return /^\(?-?\d+\)?$/.test(x);
}

/**
 * JS statements setting `t` to `a OP b` (`a`, `b`: names or literals) by
 * the int path when it applies, else running `otherwise` (a statement:
 * `t = slow(a, b);` in the tiers, a bail-out in frameless code).
 */
export function emitBinary(op: string, a: string, b: string, t: string, otherwise: string): string {
  const p = operator(op).int;
  if (p === undefined) return otherwise;
  const conds: string[] = [];
  if (!isNumLiteral(a)) conds.push(`typeof ${a} === "number"`);
  if (!isNumLiteral(b)) conds.push(`typeof ${b} === "number"`);
  if (p.when) conds.push(p.when(a, b));
  const guard = conds.length > 0 ? conds.join(" && ") : "true";
  // The result is assigned inside the condition, not merged with a NaN
  // placeholder: V8 then keeps it an int (or an unboxed double) up to the
  // merge with the slow path, where a `NaN` constant made every result a
  // double (measured in bench/vm README, "the int paths").
  if (p.checked) return `if (${conds.length > 0 ? `${guard} && ` : ""}Number.isSafeInteger(${t} = ${p.expr(a, b)})) {} else { ${otherwise} }`;
  return `if (${guard}) ${t} = ${p.expr(a, b)}; else { ${otherwise} }`;
}
