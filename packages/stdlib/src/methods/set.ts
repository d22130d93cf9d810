/**
 * Set methods (spec/stdlib.md §22.4). Unlike `set()` and the `set_*`
 * builtins, set methods compare members with `==` (semantics.md §2.5), so
 * `set(1).contains(1.0)` is true. Operations between two sets look members
 * up in an EqualityIndex, so they stay linear in the set sizes.
 */
import { EqualityIndex, equals, HSet, type CallContext, type MethodFn, type Runtime, type Value } from "@harn/vm";
import { arg, isCallableValue } from "../core/args";
import { hasEqual } from "../core/collections";
import { iterList } from "../core/iter";
import { andThen } from "../core/maybe";
import { filterList, findIndex, mapList } from "./list";

type SetMethod = (s: HSet, args: Value[], ctx: CallContext) => Value | Promise<Value>;

function dedupEqual(xs: Value[]): Value[] {
  const seen = new EqualityIndex();
  return xs.filter((x) => seen.add(x));
}

/** The members of `xs` that are (`keep`) or are not (`!keep`) `==` to a
 * member of `o`. */
function membersIn(xs: Value[], o: HSet, keep: boolean): Value[] {
  const index = new EqualityIndex(o.items);
  return xs.filter((x) => index.has(x) === keep);
}

const METHODS: Record<string, SetMethod> = {
  count: (s) => s.items.length,
  empty: (s) => s.items.length === 0,
  iter: (s) => iterList(s.items),
  to_list: (s) => s.items.slice(),
  contains: (s, a) => hasEqual(s.items, arg(a, 0)),
  add: (s, a) => {
    const v = arg(a, 0);
    return hasEqual(s.items, v) ? s : new HSet([...s.items, v]);
  },
  remove: (s, a) => {
    const v = arg(a, 0);
    return new HSet(s.items.filter((x) => !equals(x, v)));
  },
  union: (s, a) => {
    const o = arg(a, 0);
    if (!(o instanceof HSet)) return s;
    const seen = new EqualityIndex(s.items);
    return new HSet([...s.items, ...o.items.filter((x) => seen.add(x))]);
  },
  intersect: (s, a) => {
    const o = arg(a, 0);
    if (!(o instanceof HSet)) return new HSet([]);
    return new HSet(membersIn(s.items, o, true));
  },
  difference: (s, a) => {
    const o = arg(a, 0);
    if (!(o instanceof HSet)) return s;
    return new HSet(membersIn(s.items, o, false));
  },
  symmetric_difference: (s, a) => {
    const o = arg(a, 0);
    if (!(o instanceof HSet)) return s;
    return new HSet([...membersIn(s.items, o, false), ...membersIn(o.items, s, false)]);
  },
  is_subset: (s, a) => {
    const o = arg(a, 0);
    return o instanceof HSet && membersIn(s.items, o, false).length === 0;
  },
  is_superset: (s, a) => {
    const o = arg(a, 0);
    return o instanceof HSet && membersIn(o.items, s, false).length === 0;
  },
  is_disjoint: (s, a) => {
    const o = arg(a, 0);
    return !(o instanceof HSet) || membersIn(s.items, o, true).length === 0;
  },
  map: (s, a, ctx) => {
    const f = arg(a, 0);
    if (!isCallableValue(f)) return null;
    return andThen(mapList(s.items, f, ctx), (ys) => new HSet(dedupEqual(ys)));
  },
  filter: (s, a, ctx) => {
    const f = arg(a, 0);
    if (!isCallableValue(f)) return null;
    return andThen(filterList(s.items, f, ctx), (ys) => new HSet(ys));
  },
  any: (s, a, ctx) => {
    const f = arg(a, 0);
    if (!isCallableValue(f)) return false;
    return andThen(findIndex(s.items, f, ctx), (i) => i >= 0);
  },
  all: (s, a, ctx) => {
    const f = arg(a, 0);
    if (!isCallableValue(f)) return true;
    return andThen(findIndex(s.items, f, ctx, false), (i) => i < 0);
  },
};
METHODS.len = METHODS.count!;
METHODS.delete = METHODS.remove!;
METHODS.intersection = METHODS.intersect!;
METHODS.every = METHODS.all!;

export function installSetMethods(rt: Runtime): void {
  for (const [name, m] of Object.entries(METHODS)) {
    const fn: MethodFn = (recv, args, ctx) => m(recv as HSet, args, ctx);
    rt.defineMethod("set", name, fn);
  }
}
