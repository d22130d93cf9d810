/**
 * Harn values ↔ plain JSON for the agent layer. Transcripts, requests,
 * yielded loop states and mock records are plain JSON (the provider layer
 * speaks it and `agent_resume` must accept a state that went through
 * `json_stringify` / `json_parse`); scripts see Harn values.
 */
import { display, HBuiltinRef, HClosure, HDict, HDuration, HFloat, isInt, type Value } from "@harn/vm";

import { JsonFloat } from "../core/json";
import { isJsonObject, type Json } from "../longrun/json";

export type { Json };
export type JsonObject = { [key: string]: Json };

/** Harn value → JSON. Dict keys come out sorted (dicts are sorted maps);
 * values JSON cannot hold (closures, sets, …) become their display text.
 * An integral float becomes a `JsonFloat`, so `fromJson` gives the float
 * back (an `llm_mock` tool call's `{x: 2.0}` reaches the handler as `2.0`). */
export function toJson(v: Value): Json {
  if (v === null || typeof v === "string" || typeof v === "boolean" || typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (Array.isArray(v)) return v.map(toJson);
  if (v instanceof HFloat) return floatToJson(v);
  if (v instanceof HDict) {
    const o: JsonObject = {};
    for (const k of v.keys()) o[k] = toJson(v.get(k));
    return o;
  }
  return isInt(v) ? Number(v) : display(v);
}

/** A Harn float as JSON: an integral one as a `JsonFloat`, so it is written
 * `2.0` and read back as a float. */
export function floatToJson(f: HFloat): Json {
  return Number.isInteger(f.v) ? new JsonFloat(f.v) : f.v;
}

/** JSON → Harn value; integral numbers become ints. */
export { jsonToValue as fromJson } from "../longrun/json";

/** A JSON object (not a list, not a `JsonFloat`). */
export const isObject: (x: unknown) => x is JsonObject = isJsonObject;

/** Whole-number JS value of an int-or-float option, or undefined. */
export function numberOf(v: Value): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof HFloat) return v.v;
  return undefined;
}

/** Data-only copy of an options dict (closures dropped), for a yielded
 * state or a daemon's metadata that must survive `json_stringify`. A
 * duration becomes its milliseconds, which every option taking one reads. */
export function dataOnly(v: Value): Json | undefined {
  if (v instanceof HClosure || v instanceof HBuiltinRef) return undefined;
  if (v instanceof HDuration) return v.ms;
  if (Array.isArray(v)) return v.map((x) => dataOnly(x) ?? null);
  if (v instanceof HDict) {
    const o: JsonObject = {};
    for (const k of v.keys()) {
      const d = dataOnly(v.get(k));
      if (d !== undefined) o[k] = d;
    }
    return o;
  }
  return toJson(v);
}
