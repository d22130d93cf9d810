/**
 * Dict methods (spec/stdlib.md §22.3). Names not in this table fall back,
 * in the evaluator, to calling a callable stored under that key (§7.7).
 */
import { display, HDict, truthy, type CallContext, type MethodFn, type Runtime, type Value } from "@harn/vm";
import { arg, isCallableValue, strArg } from "../core/args";
import { entries, values } from "../core/collections";
import { iterDict } from "../core/iter";
import { loop, andThen } from "../core/maybe";

type DictMethod = (d: HDict, args: Value[], ctx: CallContext) => Value | Promise<Value>;

function keyArg(args: Value[]): string {
  return strArg(args, 0);
}

const METHODS: Record<string, DictMethod> = {
  keys: (d) => d.keys().slice(),
  values: (d) => values(d),
  entries: (d) => entries(d),
  count: (d) => d.size,
  iter: (d) => iterDict(d),
  has: (d, a) => d.has(keyArg(a)),
  get: (d, a) => {
    const k = keyArg(a);
    return d.has(k) ? d.get(k) : arg(a, 1);
  },
  merge: (d, a) => {
    const o = arg(a, 0);
    if (!(o instanceof HDict) || o.size === 0) return d;
    const m = new Map(d.map);
    for (const [k, v] of o.map) m.set(k, v);
    return new HDict(m);
  },
  remove: (d, a) => d.without(keyArg(a)),
  map_values: (d, a, ctx) => {
    const f = arg(a, 0);
    if (!isCallableValue(f)) return null;
    const keys = d.keys();
    const m = new Map<string, Value>();
    return andThen(
      loop(keys.length, (i) =>
        andThen(ctx.call(f, [d.valueAt(i)]), (v) => {
          m.set(keys[i]!, v);
        }),
      ),
      () => new HDict(m),
    );
  },
  map_keys: (d, a, ctx) => {
    const f = arg(a, 0);
    if (!isCallableValue(f)) return null;
    const keys = d.keys();
    const m = new Map<string, Value>();
    return andThen(
      loop(keys.length, (i) =>
        andThen(ctx.call(f, [keys[i]!]), (k) => {
          m.set(typeof k === "string" ? k : display(k), d.valueAt(i));
        }),
      ),
      () => new HDict(m),
    );
  },
  filter: (d, a, ctx) => {
    const f = arg(a, 0);
    if (!isCallableValue(f)) return null;
    const keys = d.keys();
    const m = new Map<string, Value>();
    return andThen(
      loop(keys.length, (i) => {
        const v = d.valueAt(i);
        return andThen(ctx.call(f, [v]), (k) => {
          if (truthy(k)) m.set(keys[i]!, v);
        });
      }),
      () => new HDict(m),
    );
  },
};
METHODS.rekey = METHODS.map_keys!;

export function installDictMethods(rt: Runtime): void {
  for (const [name, m] of Object.entries(METHODS)) {
    const fn: MethodFn = (recv, args, ctx) => m(recv as HDict, args, ctx);
    rt.defineMethod("dict", name, fn);
  }
}
