/**
 * Run-time parameter type checks (spec/semantics.md §7.3).
 *
 * Only "checkable" annotations are checked: primitives, function types (as
 * `closure`), unions of checkable members, literal types, `list<T>`,
 * `dict<string, V>` and shapes. User type names, aliases, generics and
 * iterator types are not checked at run time.
 */
import type { TypeExpr } from "@harn/parser";
import { HarnError } from "../errors";
import { HDict, HFloat, HStruct, type Value, display, equals, normBig, typeOf } from "../values";
import type { Frame } from "./frame";
import { distanceLimit, levenshtein } from "./suggest";

const PRIMITIVES = new Set(["int", "float", "string", "bool", "list", "set", "nil", "closure", "bytes"]);

function actualType(v: Value): string {
  return v instanceof HStruct ? "dict" : typeOf(v);
}

function primOk(name: string, v: Value): boolean {
  const t = typeOf(v);
  if (name === "int" || name === "float") return t === "int" || t === "float";
  return t === name;
}

export function typeToString(t: TypeExpr): string {
  switch (t.kind) {
    case "Named":
      return t.name;
    case "Union":
      return t.types.map(typeToString).join(" | ");
    case "Shape":
      return "{" + t.fields.map((f) => `${f.name}${f.optional ? "?" : ""}: ${typeToString(f.type)}`).join(", ") + "}";
    case "List":
      return `list<${typeToString(t.elem)}>`;
    case "Dict":
      return `dict<${typeToString(t.key)}, ${typeToString(t.value)}>`;
    case "Iter":
      return `iter<${typeToString(t.elem)}>`;
    case "Generator":
      return `Generator<${typeToString(t.elem)}>`;
    case "Stream":
      return `Stream<${typeToString(t.elem)}>`;
    case "Applied":
      return `${t.name}<${t.args.map(typeToString).join(", ")}>`;
    case "FnType":
      return `fn(${t.params.map(typeToString).join(", ")}) -> ${typeToString(t.ret)}`;
    case "Never":
      return "never";
    case "LitString":
      return JSON.stringify(t.value);
    case "LitInt":
      return String(t.value);
  }
}

/** Whether an annotation can be checked at run time. */
function checkable(t: TypeExpr, interfaces: Set<string>): boolean {
  switch (t.kind) {
    case "Named":
      return PRIMITIVES.has(t.name) || t.name === "dict" || interfaces.has(t.name);
    case "FnType":
    case "List":
    case "Dict":
    case "LitString":
    case "LitInt":
      return true;
    case "Union":
      return t.types.some((m) => checkable(m, interfaces));
    case "Shape":
      return t.fields.every((f) => checkable(f.type, interfaces));
    default:
      return false;
  }
}

function label(t: TypeExpr): string {
  if (t.kind === "Named") return t.name;
  if (t.kind === "FnType") return "closure";
  if (t.kind === "Shape" || t.kind === "Dict") return "dict";
  if (t.kind === "List") return "list";
  return typeToString(t);
}

function primFail(name: string, expected: string, v: Value): HarnError {
  return HarnError.runtime(`TypeError: parameter '${name}' expected ${expected}, got ${actualType(v)} (${display(v)})`);
}

/** Quick membership test used by unions (no error construction). */
function passes(t: TypeExpr, v: Value, interfaces: Set<string>): boolean {
  try {
    check(t, v, "_", interfaces);
    return true;
  } catch {
    return false;
  }
}

function check(t: TypeExpr, v: Value, name: string, interfaces: Set<string>): void {
  switch (t.kind) {
    case "Named": {
      if (t.name === "dict") {
        if (!(v instanceof HDict) && !(v instanceof HStruct)) throw HarnError.type(`parameter '${name}': expected dict or struct, got ${typeOf(v)}`);
        return;
      }
      if (interfaces.has(t.name)) {
        if (!(v instanceof HStruct)) throw HarnError.type(`parameter '${name}': expected value satisfying interface '${t.name}', got ${typeOf(v)}`);
        return;
      }
      if (PRIMITIVES.has(t.name) && !primOk(t.name, v)) throw primFail(name, t.name, v);
      return;
    }
    case "FnType":
      if (typeOf(v) !== "closure") throw primFail(name, "closure", v);
      return;
    case "LitString":
    case "LitInt": {
      const base = t.kind === "LitString" ? "string" : "int";
      if (!primOk(base, v) || (base === "int" && v instanceof HFloat)) throw primFail(name, base, v);
      const lit: Value = t.kind === "LitString" ? t.value : normBig(t.value);
      if (!equals(lit, v)) throw HarnError.runtime(`TypeError: parameter '${name}': expected constant ${display(lit)}, got ${display(v)}`);
      return;
    }
    case "Union": {
      const members = t.types.filter((m) => checkable(m, interfaces));
      if (members.length === 0) return;
      const lits = members.every((m) => m.kind === "LitString") ? "string" : members.every((m) => m.kind === "LitInt") ? "int" : null;
      if (lits) {
        if (!primOk(lits, v)) throw primFail(name, lits, v);
        const values = members.map((m) => (m.kind === "LitString" ? m.value : normBig((m as { value: bigint }).value)));
        if (!values.some((x) => equals(x, v))) throw HarnError.runtime(`TypeError: parameter '${name}': value must be one of [${values.map(display).join(", ")}]`);
        return;
      }
      if (members.some((m) => passes(m, v, interfaces))) return;
      throw primFail(name, members.map(label).join("|"), v);
    }
    case "List": {
      if (!Array.isArray(v)) throw primFail(name, "list", v);
      if (!checkable(t.elem, interfaces)) return;
      const fails: string[] = [];
      v.forEach((x, i) => {
        if (!passes(t.elem, x, interfaces)) fails.push(`at root[${i}]: expected type '${typeToString(t.elem)}', got '${typeOf(x)}'`);
      });
      if (fails.length > 0) throw HarnError.runtime(`TypeError: parameter '${name}': ${fails.join("; ")}`);
      return;
    }
    case "Dict": {
      const fields = fieldsOf(v);
      if (!fields) throw HarnError.type(`parameter '${name}': expected dict or struct, got ${typeOf(v)}`);
      if (t.key.kind !== "Named" || t.key.name !== "string" || !checkable(t.value, interfaces)) return;
      for (const k of [...fields.keys()].sort()) {
        const x = fields.get(k)!;
        if (!passes(t.value, x, interfaces)) throw HarnError.type(`parameter '${name}': field '${k}' expected ${typeToString(t.value)}, got ${typeOf(x)}`);
      }
      return;
    }
    case "Shape":
      checkShape(t, v, name, interfaces);
      return;
  }
}

function fieldsOf(v: Value): Map<string, Value> | null {
  if (v instanceof HDict) return v.map;
  if (v instanceof HStruct) return v.fields;
  return null;
}

function checkShape(t: Extract<TypeExpr, { kind: "Shape" }>, v: Value, path: string, interfaces: Set<string>): void {
  const fields = fieldsOf(v);
  if (!fields) throw HarnError.type(`parameter '${path}': expected dict or struct, got ${typeOf(v)}`);
  for (const f of t.fields) {
    if (f.optional || fields.has(f.name)) continue;
    let hint = "";
    const limit = distanceLimit(f.name);
    for (const k of fields.keys()) {
      if (k[0] === f.name[0] && levenshtein(k, f.name) <= limit) {
        hint = `, did you mean '${k}'?`;
        break;
      }
    }
    throw HarnError.type(`parameter '${path}': missing field '${f.name}' (${typeToString(f.type)})${hint}`);
  }
  for (const f of [...t.fields].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (!fields.has(f.name)) continue;
    const x = fields.get(f.name)!;
    if (f.type.kind === "Shape") {
      if (!fieldsOf(x)) throw HarnError.type(`parameter '${path}': field '${f.name}' expected dict or struct, got ${typeOf(x)}`);
      checkShape(f.type, x, `${path}.${f.name}`, interfaces);
      continue;
    }
    if (!passes(f.type, x, interfaces)) throw HarnError.type(`parameter '${path}': field '${f.name}' expected ${typeToString(f.type)}, got ${typeOf(x)}`);
  }
}

/** Check every typed parameter of a freshly bound frame, in order. */
export function checkParams(fr: Frame): void {
  const interfaces = fr.proto.interfaces;
  for (const p of fr.proto.params) {
    if (!p.type || !checkable(p.type, interfaces)) continue;
    const v = fr.s[p.slot]!;
    try {
      check(p.type, v, p.name, interfaces);
    } catch (e) {
      if (e instanceof HarnError && e.span === null) {
        e.span = p.span;
        e.file = fr.proto.file;
      }
      throw e;
    }
  }
}
