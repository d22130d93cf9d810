/**
 * Validating values against canonical schemas (spec/stdlib.md §11.6).
 * Errors are collected in document order (not fail-fast), each prefixed
 * `at <location>: `; with defaults enabled, absent properties that declare
 * a `default` are filled in and the normalised value is returned.
 */
import { cpLength, display, equals, HDict, HFloat, HSet, HStruct, isNumeric, toJsNumber, typeOf, type Runtime, type Value } from "@harn/vm";
import { formatPlainFloat } from "../core/json";
import { compileRegex, findFirst, RegexError } from "../regex/compile";
import { canonicalize, SchemaError } from "./canonical";

export interface Validation {
  errors: string[];
  value: Value;
}

interface Ctx {
  rt: Runtime;
  root: HDict;
  defaults: boolean;
  errors: string[];
}

export function validate(rt: Runtime, value: Value, schema: Value, defaults: boolean): Validation {
  const root = canonicalize(schema);
  const ctx: Ctx = { rt, root, defaults, errors: [] };
  const out = check(ctx, value, root, "");
  return { errors: ctx.errors, value: out };
}

function where(path: string): string {
  return path === "" ? "root" : path;
}

function report(ctx: Ctx, path: string, msg: string): void {
  ctx.errors.push(`at ${where(path)}: ${msg}`);
}

function typeMatches(t: string, v: Value): boolean {
  switch (t) {
    case "any":
      return true;
    case "string":
      return typeof v === "string";
    case "int":
      return typeof v === "number" || typeof v === "bigint";
    case "float":
      return v instanceof HFloat;
    case "number":
      return isNumeric(v);
    case "bool":
      return typeof v === "boolean";
    case "nil":
      return v === null;
    case "list":
      return Array.isArray(v);
    case "dict":
      return v instanceof HDict || v instanceof HStruct;
    case "set":
      return v instanceof HSet;
    case "closure":
      return typeOf(v) === "closure" || typeOf(v) === "builtin";
    default:
      return typeOf(v) === t;
  }
}

function num(v: Value): number | null {
  return isNumeric(v) ? toJsNumber(v) : null;
}

/** Follow `$ref` (a JSON pointer into the root schema). */
function deref(ctx: Ctx, schema: HDict): HDict {
  let s = schema;
  for (let hops = 0; hops < 32 && s.has("$ref"); hops++) {
    const ref = s.get("$ref");
    if (typeof ref !== "string") break;
    const target = pointer(ctx.root, ref);
    if (!(target instanceof HDict)) throw new SchemaError(`unresolvable $ref '${ref}'`);
    s = canonicalize(target);
  }
  return s;
}

function pointer(root: HDict, ref: string): Value {
  let p = ref.startsWith("#") ? ref.slice(1) : ref;
  if (p === "") return root;
  if (!p.startsWith("/")) {
    // a bare name: look in the usual definition tables
    for (const table of ["definitions", "$defs"]) {
      const t = root.get(table);
      if (t instanceof HDict && t.has(p)) return t.get(p);
    }
    const comps = root.get("components");
    const schemas = comps instanceof HDict ? comps.get("schemas") : null;
    return schemas instanceof HDict ? schemas.get(p) : null;
  }
  p = p.slice(1);
  let cur: Value = root;
  for (const raw of p.split("/")) {
    const seg = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (cur instanceof HDict) cur = cur.get(seg);
    else if (Array.isArray(cur) && /^(0|[1-9][0-9]*)$/.test(seg)) cur = cur[Number(seg)] ?? null;
    else return null;
  }
  return cur;
}

function check(ctx: Ctx, value: Value, schemaIn: HDict, path: string): Value {
  const schema = deref(ctx, schemaIn);
  // 1. nullable
  if (value === null && schema.get("nullable") === true) return value;
  // 2. const
  if (schema.has("const") && !equals(schema.get("const"), value)) {
    report(ctx, path, `expected constant ${display(schema.get("const"))}, got ${display(value)}`);
  }
  // 3. all_of / union
  const allOf = schema.get("all_of");
  if (Array.isArray(allOf)) {
    for (const branch of allOf) value = check(ctx, value, branch as HDict, path);
  }
  const union = schema.get("union");
  if (Array.isArray(union)) {
    let matched = false;
    for (const branch of union) {
      const trial: Ctx = { ...ctx, errors: [] };
      const v = check(trial, value, branch as HDict, path);
      if (trial.errors.length === 0) {
        value = v;
        matched = true;
        break;
      }
    }
    if (!matched) report(ctx, path, "value did not match any union branch");
  }
  // 4. type
  const t = schema.get("type");
  if (typeof t === "string" && !typeMatches(t, value)) {
    report(ctx, path, `expected type '${t}', got '${typeOf(value)}'`);
    return value;
  }
  // 5. dicts and structs
  if (value instanceof HDict || value instanceof HStruct) value = checkObject(ctx, value, schema, path);
  // 6. lists and sets
  else if (Array.isArray(value) || value instanceof HSet) value = checkItems(ctx, value, schema, path);
  // 7. strings
  else if (typeof value === "string") checkString(ctx, value, schema, path);
  // 8. numbers
  else if (isNumeric(value)) checkNumber(ctx, value, schema, path);
  return value;
}

function checkObject(ctx: Ctx, value: HDict | HStruct, schema: HDict, path: string): Value {
  const fields = value instanceof HDict ? value.map : value.fields;
  const has = (k: string) => fields.has(k);
  const props = schema.get("properties");
  const properties = props instanceof HDict ? props : null;
  const required = schema.get("required");
  const out = new Map(fields);
  let changed = false;
  if (Array.isArray(required)) {
    for (const r of required) {
      const k = typeof r === "string" ? r : display(r);
      if (has(k)) continue;
      const prop = properties?.get(k);
      if (ctx.defaults && prop instanceof HDict && prop.has("default")) continue;
      report(ctx, path, `missing required key '${k}'`);
    }
  }
  if (properties) {
    for (const k of properties.keys()) {
      const sub = properties.get(k);
      if (!(sub instanceof HDict)) continue;
      const childPath = path === "" ? k : `${path}.${k}`;
      if (has(k)) {
        const before = fields.get(k)!;
        const after = check(ctx, before, sub, childPath);
        if (after !== before) {
          out.set(k, after);
          changed = true;
        }
      } else if (ctx.defaults && sub.has("default")) {
        out.set(k, sub.get("default"));
        changed = true;
      }
    }
  }
  const extra = schema.get("additional_properties");
  if (extra === false || extra instanceof HDict) {
    const keys = value instanceof HDict ? value.keys() : [...value.fields.keys()].sort();
    for (const k of keys) {
      if (properties?.has(k)) continue;
      const childPath = path === "" ? k : `${path}.${k}`;
      if (extra === false) report(ctx, path, `unexpected key '${k}'`);
      else {
        const before = fields.get(k)!;
        const after = check(ctx, before, extra, childPath);
        if (after !== before) {
          out.set(k, after);
          changed = true;
        }
      }
    }
  }
  if (!changed) return value;
  return value instanceof HDict ? new HDict(out) : new HStruct(value.name, out);
}

function checkItems(ctx: Ctx, value: Value[] | HSet, schema: HDict, path: string): Value {
  const items = Array.isArray(value) ? value : value.items;
  const min = num(schema.get("min_items"));
  const max = num(schema.get("max_items"));
  if (min !== null && items.length < min) report(ctx, path, `expected at least ${min} items, got ${items.length}`);
  if (max !== null && items.length > max) report(ctx, path, `expected at most ${max} items, got ${items.length}`);
  const sub = schema.get("items");
  if (!(sub instanceof HDict)) return value;
  let changed = false;
  const out = items.map((x, i) => {
    const y = check(ctx, x, sub, `${path}[${i}]`);
    if (y !== x) changed = true;
    return y;
  });
  if (!changed) return value;
  return Array.isArray(value) ? out : new HSet(out);
}

function checkString(ctx: Ctx, value: string, schema: HDict, path: string): void {
  const len = cpLength(value);
  const min = num(schema.get("min_length"));
  const max = num(schema.get("max_length"));
  if (min !== null && len < min) report(ctx, path, `expected length >= ${min}, got ${len}`);
  if (max !== null && len > max) report(ctx, path, `expected length <= ${max}, got ${len}`);
  const pattern = schema.get("pattern");
  if (typeof pattern === "string") {
    try {
      const re = compileRegex(ctx.rt, pattern);
      if (findFirst(re, value) === null) report(ctx, path, `value does not match pattern '${pattern}'`);
    } catch (e) {
      if (!(e instanceof RegexError)) throw e;
      report(ctx, path, `invalid regex pattern '${pattern}': ${e.detail}`);
    }
  }
  checkEnum(ctx, value, schema, path);
}

function checkNumber(ctx: Ctx, value: Value, schema: HDict, path: string): void {
  const v = num(value)!;
  const min = num(schema.get("min"));
  const max = num(schema.get("max"));
  if (min !== null && v < min) report(ctx, path, `expected value >= ${formatPlainFloat(min)}, got ${formatPlainFloat(v)}`);
  if (max !== null && v > max) report(ctx, path, `expected value <= ${formatPlainFloat(max)}, got ${formatPlainFloat(v)}`);
  checkEnum(ctx, value, schema, path);
}

function checkEnum(ctx: Ctx, value: Value, schema: HDict, path: string): void {
  const e = schema.get("enum");
  if (!Array.isArray(e)) return;
  if (!e.some((x) => equals(x, value))) report(ctx, path, `value must be one of [${e.map((x) => display(x)).join(", ")}]`);
}
