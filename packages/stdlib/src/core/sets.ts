/**
 * Set builtins (spec/stdlib.md §9). These use structural identity keys
 * (`1` and `1.0` are different members), unlike the set methods.
 */
import { HarnError, HSet, identityKey, type Value } from "@harn/vm";
import { arg } from "./args";
import { setOf, uniqueByKey } from "./collections";
import { builtinModule } from "../registry/define";

function keyOf(v: Value): string | Value {
  return identityKey(v) ?? v;
}

/** Membership by identity key (reference identity for keyless values). */
function keySet(s: HSet): Set<string | Value> {
  return new Set(s.items.map(keyOf));
}

function bothSets(name: string, args: Value[]): [HSet, HSet] {
  const a = arg(args, 0);
  const b = arg(args, 1);
  if (!(a instanceof HSet) || !(b instanceof HSet)) throw HarnError.thrown(`${name}: arguments must be sets`);
  return [a, b];
}

export const SETS_BUILTINS = builtinModule("core/sets", (def) => {
  def("set", (args) => setOf(args));
  def("set_add", (args) => {
    const s = arg(args, 0);
    if (!(s instanceof HSet)) throw HarnError.thrown("set_add: first argument must be a set");
    return new HSet(uniqueByKey([...s.items, arg(args, 1)]));
  });
  def("set_remove", (args) => {
    const s = arg(args, 0);
    if (!(s instanceof HSet)) throw HarnError.thrown("set_remove: first argument must be a set");
    const k = keyOf(arg(args, 1));
    return new HSet(s.items.filter((x) => keyOf(x) !== k));
  });
  def("set_contains", (args) => {
    const s = arg(args, 0);
    if (!(s instanceof HSet)) return false;
    const k = keyOf(arg(args, 1));
    return s.items.some((x) => keyOf(x) === k);
  });
  def("set_union", (args) => {
    const [a, b] = bothSets("set_union", args);
    return new HSet(uniqueByKey([...a.items, ...b.items]));
  });
  def("set_intersect", (args) => {
    const [a, b] = bothSets("set_intersect", args);
    const inB = keySet(b);
    return new HSet(a.items.filter((x) => inB.has(keyOf(x))));
  });
  def("set_difference", (args) => {
    const [a, b] = bothSets("set_difference", args);
    const inB = keySet(b);
    return new HSet(a.items.filter((x) => !inB.has(keyOf(x))));
  });
  def("set_symmetric_difference", (args) => {
    const [a, b] = bothSets("set_symmetric_difference", args);
    const inA = keySet(a);
    const inB = keySet(b);
    return new HSet([...a.items.filter((x) => !inB.has(keyOf(x))), ...b.items.filter((x) => !inA.has(keyOf(x)))]);
  });
  def("set_is_subset", (args) => {
    const a = arg(args, 0);
    const b = arg(args, 1);
    if (!(a instanceof HSet) || !(b instanceof HSet)) return false;
    const inB = keySet(b);
    return a.items.every((x) => inB.has(keyOf(x)));
  });
  def("set_is_superset", (args) => {
    const a = arg(args, 0);
    const b = arg(args, 1);
    if (!(a instanceof HSet) || !(b instanceof HSet)) return false;
    const inA = keySet(a);
    return b.items.every((x) => inA.has(keyOf(x)));
  });
  def("set_is_disjoint", (args) => {
    const a = arg(args, 0);
    const b = arg(args, 1);
    if (!(a instanceof HSet) || !(b instanceof HSet)) return true;
    const inB = keySet(b);
    return !a.items.some((x) => inB.has(keyOf(x)));
  });
});
