/**
 * Canonical schema → JSON Schema / OpenAPI (spec/stdlib.md §11.6), and the
 * small schema algebra (extend, partial, pick, omit).
 */
import { display, HDict, type Value } from "@harn/vm";
import { canonicalize } from "./canonical";

const JSON_TYPES: Record<string, string> = {
  int: "integer",
  float: "number",
  bool: "boolean",
  list: "array",
  dict: "object",
  nil: "null",
  set: "array",
};

const JSON_KEYS: Record<string, string> = {
  min: "minimum",
  max: "maximum",
  min_length: "minLength",
  max_length: "maxLength",
  min_items: "minItems",
  max_items: "maxItems",
  additional_properties: "additionalProperties",
  union: "oneOf",
  all_of: "allOf",
};

export function toJsonSchema(schema: Value, openapi: boolean): HDict {
  return convert(canonicalize(schema), openapi);
}

function convert(s: HDict, openapi: boolean): HDict {
  const out = new Map<string, Value>();
  const type = s.get("type");
  const nullable = s.get("nullable") === true;
  for (const key of s.keys()) {
    const v = s.get(key);
    switch (key) {
      case "type":
        if (typeof v === "string") {
          if (v === "any") break;
          const t = JSON_TYPES[v] ?? v;
          out.set("type", nullable && !openapi ? [t, "null"] : t);
          if (v === "set") out.set("uniqueItems", true);
        }
        break;
      case "nullable":
        if (openapi) out.set("nullable", v);
        else if (typeof type !== "string" && v === true) out.set("nullable", v);
        break;
      case "properties":
        if (v instanceof HDict) {
          const props = new Map<string, Value>();
          for (const k of v.keys()) props.set(k, v.get(k) instanceof HDict ? convert(v.get(k) as HDict, openapi) : v.get(k));
          out.set("properties", new HDict(props));
        }
        break;
      case "items":
      case "additional_properties":
        out.set(JSON_KEYS[key] ?? key, v instanceof HDict ? convert(v, openapi) : v);
        break;
      case "union":
      case "all_of":
        if (Array.isArray(v)) out.set(JSON_KEYS[key]!, v.map((b) => (b instanceof HDict ? convert(b, openapi) : b)));
        break;
      default:
        out.set(JSON_KEYS[key] ?? key, v);
    }
  }
  if (openapi) collapseNullUnion(out);
  return new HDict(out);
}

/** OpenAPI: `oneOf: [X, {type: null}]` → X plus `nullable: true`. */
function collapseNullUnion(out: Map<string, Value>): void {
  const one = out.get("oneOf");
  if (!Array.isArray(one) || one.length !== 2) return;
  const isNull = (b: Value) => b instanceof HDict && b.get("type") === "null" && b.size === 1;
  const other = isNull(one[0]!) ? one[1] : isNull(one[1]!) ? one[0] : null;
  if (!(other instanceof HDict)) return;
  out.delete("oneOf");
  for (const k of other.keys()) out.set(k, other.get(k));
  out.set("nullable", true);
}

export function extend(base: HDict, over: HDict): HDict {
  return new HDict(new Map([...base.map, ...over.map]));
}

/** Remove `required` everywhere. */
export function partial(v: Value): Value {
  if (Array.isArray(v)) return v.map(partial);
  if (!(v instanceof HDict)) return v;
  const out = new Map<string, Value>();
  for (const k of v.keys()) if (k !== "required") out.set(k, partial(v.get(k)));
  return new HDict(out);
}

/** Keep (`keep`) or drop the listed top-level properties and their
 * `required` entries. */
export function selectProperties(s: HDict, keys: Value[], keep: boolean): HDict {
  const names = new Set(keys.map((k) => (typeof k === "string" ? k : display(k))));
  const out = new Map(s.map);
  const props = s.get("properties");
  if (props instanceof HDict) {
    const m = new Map<string, Value>();
    for (const k of props.keys()) if (names.has(k) === keep) m.set(k, props.get(k));
    out.set("properties", new HDict(m));
  }
  const req = s.get("required");
  if (Array.isArray(req)) out.set("required", req.filter((k) => names.has(typeof k === "string" ? k : display(k)) === keep));
  return new HDict(out);
}
