/**
 * Collection builtins, function form (spec/stdlib.md §7): chunk, window,
 * group_by, partition, dedup_by, flat_map, keys, values, entries.
 */
import { HarnError, HDict, identityKey, typeOf, type Value } from "@harn/vm";
import { arg, isCallableValue, smallIntArg } from "./args";
import { chunk, entries, flattenOnce, groupBy, values, windows } from "./collections";
import { andThen } from "./maybe";
import { builtinModule } from "../registry/define";
import { mapList, partitionList } from "../methods/list";

/** The checks shared by the callback helpers (§7 "Errors for these five"). */
function listAndCallback(name: string, args: Value[]): [Value[], Value] {
  if (args.length === 0) throw HarnError.runtime(`${name}: first argument must be a list`);
  const xs = args[0]!;
  if (!Array.isArray(xs)) throw HarnError.type(`${name}: first argument must be a list, got ${typeOf(xs)}`);
  if (args.length < 2) throw HarnError.runtime(`${name}: callback is required`);
  const f = args[1]!;
  if (!isCallableValue(f)) throw HarnError.type(`${name}: callback must be callable, got ${typeOf(f)}`);
  return [xs, f];
}

function listOnly(name: string, args: Value[]): Value[] {
  if (args.length === 0) throw HarnError.runtime(`${name}: first argument must be a list`);
  const xs = args[0]!;
  if (!Array.isArray(xs)) throw HarnError.type(`${name}: first argument must be a list, got ${typeOf(xs)}`);
  return xs;
}

export const LISTS_BUILTINS = builtinModule("core/lists", (def) => {
  def("chunk", (args) => chunk(listOnly("chunk", args), smallIntArg(args, 1) ?? 1));
  def("window", (args) => windows(listOnly("window", args), smallIntArg(args, 1) ?? 2, smallIntArg(args, 2) ?? 1));

  def("group_by", (args, ctx) => {
    const [xs, f] = listAndCallback("group_by", args);
    return andThen(mapList(xs, f, ctx), (keys) => groupBy(xs, keys));
  });

  def("partition", (args, ctx) => {
    const [xs, f] = listAndCallback("partition", args);
    return andThen(partitionList(xs, f, ctx), ([yes, no]) => HDict.of({ match: yes, no_match: no }));
  });

  def("dedup_by", (args, ctx) => {
    const [xs, f] = listAndCallback("dedup_by", args);
    return andThen(mapList(xs, f, ctx), (keys) => {
      const seen = new Set<string | Value>();
      const out: Value[] = [];
      for (let i = 0; i < xs.length; i++) {
        const k = identityKey(keys[i]!) ?? keys[i]!;
        if (seen.has(k)) continue;
        seen.add(k);
        out.push(xs[i]!);
      }
      return out;
    });
  });

  def("flat_map", (args, ctx) => {
    const [xs, f] = listAndCallback("flat_map", args);
    return andThen(mapList(xs, f, ctx), flattenOnce);
  });

  def("keys", (args) => {
    const d = arg(args, 0);
    return d instanceof HDict ? d.keys().slice() : [];
  });
  def("values", (args) => {
    const d = arg(args, 0);
    return d instanceof HDict ? values(d) : [];
  });
  def("entries", (args) => {
    const d = arg(args, 0);
    return d instanceof HDict ? entries(d) : [];
  });
});
