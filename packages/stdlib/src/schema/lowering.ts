/**
 * Type alias → schema dict (spec/stdlib.md §11.6 "Type-alias → schema
 * lowering"), installed as `runtime.typeSchema` for the compiler.
 */
import type { TypeExpr } from "@harn/parser";
import { HDict, normBig, type Value } from "@harn/vm";

const PRIMITIVES = new Set(["string", "int", "float", "bool", "nil", "list", "dict", "set", "closure", "bytes", "any"]);

export function lowerType(type: TypeExpr, aliases: (name: string) => TypeExpr | null, seen: Set<string> = new Set()): Value | null {
  switch (type.kind) {
    case "Named": {
      if (PRIMITIVES.has(type.name)) return HDict.of({ type: type.name });
      const target = seen.has(type.name) ? null : aliases(type.name);
      if (!target) return null;
      return lowerType(target, aliases, new Set([...seen, type.name]));
    }
    case "Shape": {
      const props = new Map<string, Value>();
      const required: Value[] = [];
      for (const f of type.fields) {
        props.set(f.name, lowerType(f.type, aliases, seen) ?? HDict.empty());
        if (!f.optional) required.push(f.name);
      }
      const out: Record<string, Value> = { type: "dict", properties: new HDict(props) };
      if (required.length > 0) out.required = required;
      return HDict.of(out);
    }
    case "List":
      return HDict.of({ type: "list", items: lowerType(type.elem, aliases, seen) ?? HDict.empty() });
    case "Dict":
      return HDict.of({ type: "dict", additional_properties: lowerType(type.value, aliases, seen) ?? HDict.empty() });
    case "FnType":
      return HDict.of({ type: "closure" });
    case "LitString":
      return HDict.of({ type: "string", const: type.value });
    case "LitInt":
      return HDict.of({ type: "int", const: normBig(type.value) });
    case "Union": {
      if (type.types.every((t) => t.kind === "LitString")) {
        return HDict.of({ type: "string", enum: type.types.map((t) => (t as { value: string }).value) });
      }
      if (type.types.every((t) => t.kind === "LitInt")) {
        return HDict.of({ type: "int", enum: type.types.map((t) => normBig((t as { value: bigint }).value)) });
      }
      return HDict.of({ union: type.types.map((t) => lowerType(t, aliases, seen) ?? HDict.empty()) });
    }
    default:
      return null;
  }
}
