/**
 * The JSON side of long-running work. Completion payloads are built as plain
 * JS objects whose key order *is* the contract (agents.md §0.4, §1.10), so
 * `JSON.stringify` gives the queued text directly; scripts receive the same
 * object converted to Harn values without a parse round trip.
 */
import { float, HDict, intFromNumber, type Value } from "@harn/vm";

/** A JSON-shaped JS value as produced by the payload builders. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * JSON-shaped JS value → Harn value. Integral numbers become ints: every
 * number in a payload is an integer (ids, counts, durations, exit codes), and
 * `JSON.parse` cannot tell `1` from `1.0` anyway. The agent layer uses it
 * for transcripts and provider data too (agent/json.ts `fromJson`).
 */
export function jsonToValue(x: unknown): Value {
  if (x === null || x === undefined) return null;
  switch (typeof x) {
    case "string":
    case "boolean":
      return x;
    case "number":
      return Number.isInteger(x) ? intFromNumber(x) : float(x);
    case "object": {
      if (Array.isArray(x)) {
        const out: Value[] = new Array(x.length);
        for (let i = 0; i < x.length; i++) out[i] = jsonToValue(x[i]);
        return out;
      }
      const m = new Map<string, Value>();
      // A key holding undefined is absent, as in the JSON text.
      for (const k of Object.keys(x)) {
        const v = (x as Record<string, unknown>)[k];
        if (v !== undefined) m.set(k, jsonToValue(v));
      }
      return new HDict(m);
    }
    default:
      return null;
  }
}
