/**
 * Schema canonicalisation (spec/stdlib.md §11.6): schemas are plain dicts;
 * JSON Schema / OpenAPI spellings are rewritten to Harn's canonical keys
 * and type names before validation. Unknown keys pass through untouched.
 */
import { HDict, type Value } from "@harn/vm";

export class SchemaError {
  constructor(readonly message: string) {}
}

const TYPE_NAMES: Record<string, string> = {
  object: "dict",
  array: "list",
  integer: "int",
  number: "float",
  boolean: "bool",
  null: "nil",
};

const KEY_NAMES: Record<string, string> = {
  oneOf: "union",
  anyOf: "union",
  allOf: "all_of",
  minLength: "min_length",
  maxLength: "max_length",
  minItems: "min_items",
  maxItems: "max_items",
  minimum: "min",
  maximum: "max",
  additionalProperties: "additional_properties",
};

export function canonicalize(schema: Value): HDict {
  if (!(schema instanceof HDict)) throw new SchemaError("schema must be a dict");
  const out = new Map<string, Value>();
  for (const key of schema.keys()) {
    const v = schema.get(key);
    const name = KEY_NAMES[key] ?? key;
    switch (name) {
      case "type":
        if (Array.isArray(v)) {
          const branches = v.map((t) => HDict.of({ type: typeName(t) }));
          out.set("union", branches);
        } else {
          out.set("type", typeName(v));
        }
        break;
      case "properties": {
        if (v instanceof HDict) {
          const props = new Map<string, Value>();
          for (const k of v.keys()) props.set(k, canonicalize(v.get(k)));
          out.set("properties", new HDict(props));
        } else {
          out.set("properties", v);
        }
        break;
      }
      case "items":
        out.set("items", v instanceof HDict ? canonicalize(v) : v);
        break;
      case "additional_properties":
        out.set("additional_properties", v instanceof HDict ? canonicalize(v) : v);
        break;
      case "union":
      case "all_of":
        if (Array.isArray(v)) {
          const prev = out.get(name);
          const list = v.map(canonicalize);
          out.set(name, Array.isArray(prev) ? [...prev, ...list] : list);
        } else {
          out.set(name, v);
        }
        break;
      case "definitions":
      case "$defs": {
        if (v instanceof HDict) {
          const defs = new Map<string, Value>();
          for (const k of v.keys()) defs.set(k, v.get(k) instanceof HDict ? canonicalize(v.get(k)) : v.get(k));
          out.set(name, new HDict(defs));
        } else out.set(name, v);
        break;
      }
      case "uniqueItems":
        out.set(name, v);
        break;
      default:
        out.set(name, v);
    }
  }
  // `uniqueItems: true` on a list marks it as a set
  if (out.get("uniqueItems") === true && out.get("type") === "list") {
    out.set("type", "set");
    out.delete("uniqueItems");
  }
  return new HDict(out);
}

function typeName(t: Value): string {
  const s = typeof t === "string" ? t : String(t);
  return TYPE_NAMES[s] ?? s;
}
