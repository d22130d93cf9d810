/** Atomics (spec/stdlib.md §18.1): int cells shared between tasks. */
import { equals, HAtomic, HFloat, ops, type Int, type Value } from "@harn/vm";
import { builtinModule } from "../registry/define";
import { truncToInt } from "./convert";

const isInt = (v: Value | undefined): v is Int => typeof v === "number" || typeof v === "bigint";

export const ATOMIC_BUILTINS = builtinModule("core/atomics", (def) => {
  def("atomic", (args) => {
    const v = args[0] ?? null;
    let n: Int = 0;
    if (isInt(v)) n = v;
    else if (v instanceof HFloat) n = truncToInt(v.v);
    else if (typeof v === "boolean") n = v ? 1 : 0;
    return new HAtomic(n);
  });
  def("atomic_get", (args) => (args[0] instanceof HAtomic ? args[0].value : null));
  def("atomic_set", (args) => {
    const a = args[0];
    const v = args[1];
    if (!(a instanceof HAtomic) || !isInt(v)) return null;
    const prev = a.value;
    a.value = v;
    return prev;
  });
  def("atomic_add", (args) => {
    const a = args[0];
    const d = args.length > 1 ? args[1]! : 1;
    if (!(a instanceof HAtomic) || !isInt(d)) return null;
    const prev = a.value;
    a.value = ops.intAdd(prev, d);
    return prev;
  });
  def("atomic_cas", (args) => {
    const [a, expected, next] = args;
    // ints only, like atomic_set/atomic_add: `expected: 1.0` is a bad argument, not a match
    if (!(a instanceof HAtomic) || !isInt(expected) || !isInt(next)) return false;
    if (!equals(a.value, expected)) return false;
    a.value = next;
    return true;
  });
});
