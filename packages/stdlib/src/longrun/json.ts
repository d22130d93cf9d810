/**
 * The JSON side of long-running work. Completion payloads are built as plain
 * JS objects whose key order *is* the contract (agents.md §0.4, §1.10), so
 * `JSON.stringify` gives the queued text directly; scripts receive the same
 * object converted to Harn values without a parse round trip.
 */
import { float, HDict, intFromNumber, normBig, type Value } from "@harn/vm";

import { JsonFloat } from "../core/json";

/** A JSON-shaped JS value as produced by the payload builders, or parsed by
 * `parseJsonKeepingFloats` (which marks integral floats as `JsonFloat`). */
export type Json = null | boolean | number | JsonFloat | string | Json[] | { [key: string]: Json };

/**
 * JSON-shaped JS value → Harn value. Integral numbers become ints: every
 * number in a payload is an integer (ids, counts, durations, exit codes), and
 * `JSON.parse` cannot tell `1` from `1.0` anyway; a `JsonFloat` becomes a
 * float. The agent layer uses it for transcripts and provider data too
 * (agent/json.ts `fromJson`).
 */
export function jsonToValue(x: unknown): Value {
  if (x === null || x === undefined) return null;
  switch (typeof x) {
    case "string":
    case "boolean":
      return x;
    case "number":
      return Number.isInteger(x) ? intFromNumber(x) : float(x);
    case "bigint":
      return normBig(x);
    case "object": {
      if (Array.isArray(x)) return listToValue(x);
      if (x instanceof JsonFloat) return float(x.valueOf());
      return objectToValue(x as Record<string, unknown>);
    }
    default:
      return null;
  }
}

/** A JSON object (not null, a list or a `JsonFloat`). */
export function isJsonObject(x: unknown): x is Record<string, Json> {
  return x !== null && typeof x === "object" && !Array.isArray(x) && !(x instanceof JsonFloat);
}

function objectToValue(x: Record<string, unknown>): HDict {
  const m = new Map<string, Value>();
  // A key holding undefined is absent, as in the JSON text.
  for (const k of Object.keys(x)) {
    const v = x[k];
    if (v !== undefined) m.set(k, jsonToValue(v));
  }
  return new HDict(m);
}

/**
 * A list; runs of objects with the same keys in the same order (a payload's
 * entries, built by one object literal) become compact records sharing one
 * key array: a long-running walk_dir's 110,000 entries would otherwise be
 * 110,000 `Map`s.
 */
function listToValue(x: unknown[]): Value[] {
  const out: Value[] = new Array(x.length);
  let previous: readonly string[] | null = null;
  let shape: RecordShape | null = null;
  for (let i = 0; i < x.length; i++) {
    const e = x[i];
    if (!isJsonObject(e)) {
      out[i] = jsonToValue(e);
      continue;
    }
    const o = e;
    const names = Object.keys(o);
    if (shape !== null && sameNames(shape.names, names)) out[i] = toRecord(o, shape);
    else if (previous !== null && sameNames(previous, names) && (shape = recordShape(names)) !== null) out[i] = toRecord(o, shape);
    else out[i] = objectToValue(o); // a shape seen once is not worth sorting its keys
    previous = names;
  }
  return out;
}

interface RecordShape {
  /** The keys in the objects' own order. */
  readonly names: readonly string[];
  /** The same keys in `keys()` order, shared by every record of the run. */
  readonly sorted: readonly string[];
}

/** Null when the key set is not worth a record (no keys, or too many for a
 * record's key scan). */
function recordShape(names: string[]): RecordShape | null {
  if (names.length === 0 || names.length > HDict.RECORD_MAX_KEYS) return null;
  return { names, sorted: HDict.recordKeys(...names) };
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function toRecord(o: Record<string, unknown>, shape: RecordShape): HDict {
  const keys = shape.sorted;
  const values: Value[] = new Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const v = o[keys[i]!];
    if (v === undefined) return objectToValue(o); // absent key: not this shape
    values[i] = jsonToValue(v);
  }
  return HDict.record(keys, values);
}
