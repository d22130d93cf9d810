/**
 * Collection algorithms shared by the function-form builtins (§7–§9) and
 * the method tables (§22). Two notions of "same" exist (spec/semantics.md
 * §2.5): structural identity keys (type-sensitive: `1` ≠ `1.0`) for `set()`,
 * the `set_*` builtins and `unique`; and `==` for `contains` and set
 * methods.
 */
import { display, equals, HDict, HSet, identityKey, type Value } from "@harn/vm";

/** De-duplicate by structural identity key, keeping first occurrences.
 * Values without structural identity (closures, handles) de-duplicate by
 * reference. */
export function uniqueByKey(xs: Iterable<Value>): Value[] {
  const seenKeys = new Set<string>();
  const seenRefs = new Set<Value>();
  const out: Value[] = [];
  for (const v of xs) {
    const k = identityKey(v);
    if (k === null) {
      if (seenRefs.has(v)) continue;
      seenRefs.add(v);
    } else {
      if (seenKeys.has(k)) continue;
      seenKeys.add(k);
    }
    out.push(v);
  }
  return out;
}

export function hasEqual(xs: Value[], v: Value): boolean {
  for (let i = 0; i < xs.length; i++) if (equals(xs[i]!, v)) return true;
  return false;
}

export function indexOfEqual(xs: Value[], v: Value): number {
  if (typeof v === "string" || typeof v === "boolean") {
    // only an identical primitive is == to a string or bool
    for (let i = 0; i < xs.length; i++) if (xs[i] === v) return i;
    return -1;
  }
  for (let i = 0; i < xs.length; i++) if (equals(xs[i]!, v)) return i;
  return -1;
}

/** Consecutive chunks of `size` (min 1); the last may be shorter. */
export function chunk(xs: Value[], size: number): Value[][] {
  if (!(size >= 1)) size = 1;
  const out: Value[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}

/** Full sliding windows of `size` advancing by `step` (both min 1). */
export function windows(xs: Value[], size: number, step: number): Value[][] {
  if (!(size >= 1)) size = 1;
  if (!(step >= 1)) step = 1;
  const out: Value[][] = [];
  for (let i = 0; i + size <= xs.length; i += step) out.push(xs.slice(i, i + size));
  return out;
}

/** Group items under display(key), keys sorted like any dict. */
export function groupBy(xs: Value[], keys: Value[]): HDict {
  const m = new Map<string, Value[]>();
  for (let i = 0; i < xs.length; i++) {
    const k = display(keys[i]!);
    const g = m.get(k);
    if (g) g.push(xs[i]!);
    else m.set(k, [xs[i]!]);
  }
  return new HDict(m as Map<string, Value>);
}

export function tally(xs: Value[]): HDict {
  const m = new Map<string, number>();
  for (const x of xs) {
    const k = display(x);
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return new HDict(m as Map<string, Value>);
}

/** One level of flattening: list items are spliced, others appended. */
export function flattenOnce(xs: Value[]): Value[] {
  const out: Value[] = [];
  for (const x of xs) {
    if (Array.isArray(x)) for (const y of x) out.push(y);
    else out.push(x);
  }
  return out;
}

/** Build a set from constructor-style arguments: lists and sets contribute
 * their members. */
export function setOf(args: Value[]): HSet {
  const members: Value[] = [];
  for (const a of args) {
    if (Array.isArray(a)) members.push(...a);
    else if (a instanceof HSet) members.push(...a.items);
    else members.push(a);
  }
  return new HSet(uniqueByKey(members));
}

/** Dicts `{key, value}` in key order (`entries`). */
export function entries(d: HDict): Value[] {
  return d.keys().map((k) => HDict.of({ key: k, value: d.map.get(k)! }));
}

export function values(d: HDict): Value[] {
  return d.keys().map((k) => d.map.get(k)!);
}
