/**
 * Mapping between Harn values and the plain JS structures the YAML/TOML
 * libraries work with. Ints travel as `bigint` (both libraries can be told
 * to produce them), so ints and floats stay distinct in both directions.
 */
import { float, HDict, HFloat, HSet, HStruct, normBig, type Value } from "@harn/vm";

export type Plain = null | boolean | number | bigint | string | Plain[] | { [k: string]: Plain };

/** A parsed document → Harn: bigint → int, number → float. */
export function fromPlain(v: unknown, convertOther: (x: object) => Value = (x) => String(x)): Value {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case "boolean":
    case "string":
      return v;
    case "bigint":
      return normBig(v);
    case "number":
      return float(v);
  }
  if (Array.isArray(v)) return v.map((x) => fromPlain(x, convertOther));
  if (v instanceof Map) {
    const m = new Map<string, Value>();
    for (const [k, x] of v) m.set(String(k), fromPlain(x, convertOther));
    return new HDict(m);
  }
  if (typeof v === "object" && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)) {
    const m = new Map<string, Value>();
    for (const [k, x] of Object.entries(v as object)) m.set(k, fromPlain(x, convertOther));
    return new HDict(m);
  }
  return convertOther(v as object);
}

/** Harn → plain JS for serialisers. `onFloat` (and `onString`) may replace
 * floats and string values to control their formatting; `onOther` maps
 * values with no plain form. */
export function toPlain(
  v: Value,
  onFloat: (x: number) => unknown,
  onOther: (v: Value) => unknown,
  onString: (s: string) => unknown = (s) => s,
): unknown {
  const again = (x: Value) => toPlain(x, onFloat, onOther, onString);
  switch (typeof v) {
    case "boolean":
      return v;
    case "string":
      return onString(v);
    case "number":
      return BigInt(v);
    case "bigint":
      return v;
  }
  if (v === null) return null;
  if (Array.isArray(v)) return v.map(again);
  if (v instanceof HFloat) return onFloat(v.v);
  if (v instanceof HSet) return v.items.map(again);
  if (v instanceof HDict) {
    const o: Record<string, unknown> = {};
    for (const k of v.keys()) o[k] = again(v.get(k));
    return o;
  }
  if (v instanceof HStruct) {
    const o: Record<string, unknown> = {};
    for (const k of [...v.fields.keys()].sort()) o[k] = again(v.fields.get(k)!);
    return o;
  }
  return onOther(v);
}
