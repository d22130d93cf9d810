/**
 * Number helpers for the stdlib beyond the vm's int arithmetic (`ops`):
 * checked powers and the int/float promotion of running sums
 * (spec/semantics.md §4.4).
 */
import { HFloat, normBig, ops, type Int, type Value } from "@harn/vm";

function big(v: Int): bigint {
  return typeof v === "bigint" ? v : BigInt(v);
}

/** Exact `base ** exp` for 0 <= exp, or null when it overflows i64. */
export function intPowChecked(base: Int, exp: number): Int | null {
  if (typeof base === "number") {
    const r = Math.pow(base, exp);
    if (Number.isSafeInteger(r)) return r;
  }
  const b = big(base);
  if (b === 0n || b === 1n) return normBig(b);
  if (b === -1n) return exp % 2 === 0 ? 1 : -1;
  if (exp > 64) return null;
  const r = b ** BigInt(exp);
  if (r < -(2n ** 63n) || r > 2n ** 63n - 1n) return null;
  return normBig(r);
}

/**
 * Running sum of numbers: ints wrap; the total becomes a float as soon as a
 * float is added. `add` returns false for non-numbers so callers choose
 * between ignoring them (list `sum`) and raising (iterator `sum`).
 */
export class NumberSum {
  private int: Int = 0;
  private flt: number | null = null;

  add(v: Value): boolean {
    if (typeof v === "number" || typeof v === "bigint") {
      if (this.flt === null) this.int = ops.intAdd(this.int, v);
      else this.flt += Number(v);
      return true;
    }
    if (v instanceof HFloat) {
      if (this.flt === null) this.flt = Number(this.int) + v.v;
      else this.flt += v.v;
      return true;
    }
    return false;
  }

  get value(): Value {
    return this.flt === null ? this.int : new HFloat(this.flt);
  }
}
