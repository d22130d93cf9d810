/**
 * Range methods (spec/stdlib.md §22.5, semantics.md §2.9). Ranges answer a
 * few methods themselves; every iterator method name lifts the range into a
 * lazy iterator first, so `(1 to 3).map(f)` is an iterator and
 * `(1 to 3).sum()` is 6.
 */
import { display, HarnError, HRange, type MethodFn, type Runtime, type Value } from "@harn/vm";
import { arg } from "../core/args";
import { iterRange } from "../core/iter";
import { callIterMethod, ITER_METHOD_NAMES } from "./iter";

export function rangeContains(r: HRange, v: Value): boolean {
  return r.includes(v);
}

/** Materialising more values than this is refused with a runtime error
 * rather than exhausting memory. */
const MAX_RANGE_LIST = 1 << 27;

export function rangeToList(r: HRange): Value[] {
  const n = r.length;
  if (n > MAX_RANGE_LIST) throw HarnError.runtime(`to_list: range too large to materialize (${r.exactLength()} values)`);
  const out: Value[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = r.at(i);
  return out;
}

const METHODS: Record<string, (r: HRange, args: Value[]) => Value> = {
  len: (r) => r.count(),
  count: (r) => r.count(),
  empty: (r) => r.length === 0,
  contains: (r, a) => rangeContains(r, arg(a, 0)),
  first: (r) => (r.length > 0 ? r.start : null),
  last: (r) => (r.length > 0 ? r.last : null),
  to_string: (r) => display(r),
  to_list: (r) => rangeToList(r),
  iter: (r) => iterRange(r),
};

export function installRangeMethods(rt: Runtime): void {
  for (const name of ITER_METHOD_NAMES) {
    const fn: MethodFn = (recv, args, ctx) => callIterMethod(iterRange(recv as HRange), name, args, ctx);
    rt.defineMethod("range", name, fn);
  }
  for (const [name, m] of Object.entries(METHODS)) {
    const fn: MethodFn = (recv, args) => m(recv as HRange, args);
    rt.defineMethod("range", name, fn);
  }
}
