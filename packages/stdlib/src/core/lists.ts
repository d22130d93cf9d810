/**
 * Collection builtins, function form (spec/stdlib.md §7): chunk, window,
 * group_by, partition, dedup_by, flat_map, keys, values, entries.
 */
import { HarnError, HDict, identityKey, truthy, typeOf, type CallContext, type Value } from "@harn/vm";
import { arg, isCallableValue, smallIntArg } from "./args";
import { chunk, entries, flattenOnce, groupBy, values, windows } from "./collections";
import { andThen, loop, mapN } from "./maybe";
import { builtinModule } from "../registry/define";

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

function mapAll(xs: Value[], f: Value, ctx: CallContext) {
  return mapN(xs.length, (i) => ctx.call(f, [xs[i]!]));
}

export const LISTS_BUILTINS = builtinModule("core/lists", (def) => {
  def("chunk", (args) => chunk(listOnly("chunk", args), smallIntArg(args, 1) ?? 1));
  def("window", (args) => windows(listOnly("window", args), smallIntArg(args, 1) ?? 2, smallIntArg(args, 2) ?? 1));

  def("group_by", (args, ctx) => {
    const [xs, f] = listAndCallback("group_by", args);
    return andThen(mapAll(xs, f, ctx), (keys) => groupBy(xs, keys));
  });

  def("partition", (args, ctx) => {
    const [xs, f] = listAndCallback("partition", args);
    const yes: Value[] = [];
    const no: Value[] = [];
    return andThen(
      loop(xs.length, (i) =>
        andThen(ctx.call(f, [xs[i]!]), (k) => {
          (truthy(k) ? yes : no).push(xs[i]!);
        }),
      ),
      () => HDict.of({ match: yes, no_match: no }),
    );
  });

  def("dedup_by", (args, ctx) => {
    const [xs, f] = listAndCallback("dedup_by", args);
    return andThen(mapAll(xs, f, ctx), (keys) => {
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
    return andThen(mapAll(xs, f, ctx), flattenOnce);
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
