/**
 * The small computational std modules (spec/stdlib.md §24): `std/json`,
 * `std/text`, `std/collections`, `std/schema`, `std/path`, and the
 * types-only modules. They reuse the global builtins through the runtime,
 * so behaviour (and any mock or seed) is shared with direct calls.
 */
import { display, HarnError, HDict, isHarnError, isNumeric, isPromise, toJsNumber, type CallContext, type Runtime, type Value } from "@harn/vm";
import { defineNativeModule, type NativeFn } from "./module";
import type { Define } from "../registry/define";
import { nowMs } from "../time/clock";

function builtin(ctx: CallContext, name: string, args: Value[]): Value | Promise<Value> {
  const f = ctx.runtime.builtins.get(name);
  if (!f) throw HarnError.undefinedBuiltin(name);
  return f(args, ctx);
}

function str(v: Value): string {
  return typeof v === "string" ? v : display(v);
}

function keyList(v: Value): Set<string> {
  return new Set(Array.isArray(v) ? v.map(str) : []);
}

// ---------------------------------------------------------------------------
// std/json

const JSON_FNS: NativeFn[] = [
  {
    name: "safe_parse",
    params: "text",
    fn: (args, ctx) => {
      try {
        const r = builtin(ctx, "json_parse", [args[0] ?? null]);
        return isPromise(r) ? r.catch(() => null) : r;
      } catch (e) {
        if (isHarnError(e)) return null;
        throw e;
      }
    },
  },
  {
    name: "merge",
    params: "a, b",
    fn: ([a = null, b = null]) => {
      const m = new Map<string, Value>(a instanceof HDict ? a.map : []);
      if (b instanceof HDict) for (const [k, v] of b.map) m.set(k, v);
      return new HDict(m);
    },
  },
  {
    name: "pick",
    params: "d, keys",
    fn: ([d = null, keys = null]) => {
      const ks = keyList(keys);
      const m = new Map<string, Value>();
      if (d instanceof HDict) for (const k of d.keys()) if (ks.has(k) && d.get(k) !== null) m.set(k, d.get(k));
      return new HDict(m);
    },
  },
  {
    name: "omit",
    params: "d, keys",
    fn: ([d = null, keys = null]) => {
      const ks = keyList(keys);
      const m = new Map<string, Value>();
      if (d instanceof HDict) for (const k of d.keys()) if (!ks.has(k)) m.set(k, d.get(k));
      return new HDict(m);
    },
  },
  { name: "pretty", params: "v", fn: (args, ctx) => builtin(ctx, "json_stringify", [args[0] ?? null]) },
];

// ---------------------------------------------------------------------------
// std/text

function convertOr(ctx: CallContext, conv: string, v: Value, fallback: Value, msg: string | null): Value | Promise<Value> {
  const done = (r: Value): Value => {
    if (r !== null) return msg === null ? r : display(r);
    if (msg !== null) throw HarnError.thrown(msg);
    return fallback;
  };
  try {
    const r = builtin(ctx, conv, [v]);
    return isPromise(r) ? r.then(done) : done(r);
  } catch (e) {
    if (!isHarnError(e)) throw e;
    if (msg !== null) throw HarnError.thrown(msg);
    return fallback;
  }
}

const PATH_WORD = /^[A-Za-z0-9_\-./@~+]*[A-Za-z0-9_]\.[A-Za-z0-9]{1,10}$/;
const PATH_TRIM = /^["'`([{<]+|["'`)\]}>,;:.!?]+$/g;

export function extractPaths(text: string): string[] {
  const found = new Set<string>();
  for (const line of text.split("\n")) {
    if (!line.includes("/")) continue;
    const t = line.trim();
    if (t.startsWith("//") || t.startsWith("#")) continue;
    for (const raw of t.split(/\s+/)) {
      const word = raw.replace(PATH_TRIM, "");
      if (word.includes("://")) continue;
      if (PATH_WORD.test(word)) found.add(word);
    }
  }
  return [...found].sort();
}

export function parseCells(text: string): Value[] {
  const cells: Value[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*(`{3,}|~{3,})\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const info = open[2]!.trim();
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.trim().startsWith(fence)) body.push(lines[j++]!);
    i = j;
    const words = info.split(/\s+/).filter((w) => w !== "");
    const isCall = words[0] === "call";
    const lang = isCall ? (words[1] ?? "") : (words[0] ?? "");
    cells.push(HDict.of({ type: isCall ? "call" : "code", lang, code: body.join("\n") }));
  }
  return cells;
}


const TEXT_FNS: NativeFn[] = [
  { name: "int_to_string", params: "v", fn: ([v = null], ctx) => convertOr(ctx, "to_int", v, null, "int_to_string expects an integer-compatible value") },
  { name: "float_to_string", params: "v", fn: ([v = null], ctx) => convertOr(ctx, "to_float", v, null, "float_to_string expects a float-compatible value") },
  { name: "parse_int_or", params: "v, fallback", fn: ([v = null, f = null], ctx) => convertOr(ctx, "to_int", v, f, null) },
  { name: "parse_float_or", params: "v, fallback", fn: ([v = null, f = null], ctx) => convertOr(ctx, "to_float", v, f, null) },
  { name: "extract_paths", params: "text", fn: ([t = null]) => extractPaths(str(t)) },
  { name: "parse_cells", params: "text", fn: ([t = null]) => parseCells(str(t)) },
  {
    name: "filter_test_cells",
    params: "cells, target_file = nil",
    fn: ([cells = null, target = null]) => {
      if (!Array.isArray(cells)) return [];
      // core-gaps.md §7.4: code cells, and call cells that write a file
      // (the target file, when one is named).
      return cells.filter((c) => {
        if (!(c instanceof HDict)) return false;
        const type = c.get("type");
        if (type === "code") return true;
        if (type !== "call") return false;
        const code = str(c.get("code"));
        return code.includes("write_file") && (target === null || code.includes(str(target)));
      });
    },
  },
  {
    name: "truncate_head_tail",
    params: "text, n",
    fn: ([t = null, nv = null]) => {
      const text = str(t);
      const n = typeof nv === "number" && nv >= 0 ? nv : 0;
      const lines = text.split("\n");
      if (lines.length <= 2 * n) return text;
      const omitted = lines.length - 2 * n;
      return [...lines.slice(0, n), `... (${omitted} lines omitted) ...`, ...lines.slice(lines.length - n)].join("\n");
    },
  },
  {
    name: "detect_compile_error",
    params: "out",
    fn: ([o = null]) =>
      ["SyntaxError", "IndentationError", "ImportError", "ModuleNotFoundError", "compile error", "cannot find"].some((m) => str(o).includes(m)),
  },
  {
    name: "has_got_want",
    params: "out",
    fn: ([o = null]) => ["got:", "Got:", "actual:", "Actual:"].some((m) => str(o).includes(m)) && ["want:", "Want:", "expected:", "Expected:"].some((m) => str(o).includes(m)),
  },
  {
    name: "format_test_errors",
    params: "out",
    fn: ([o = null]) =>
      str(o)
        .split("\n")
        .filter((l) => /FAIL|Error|error|assert/.test(l))
        .slice(0, 20)
        .join("\n"),
  },
];

// ---------------------------------------------------------------------------
// std/collections

const COLLECTIONS_FNS: NativeFn[] = [
  {
    name: "filter_nil",
    params: "d",
    fn: ([d = null]) => {
      const m = new Map<string, Value>();
      if (d instanceof HDict) for (const k of d.keys()) {
        const v = d.get(k);
        if (v !== null && v !== "" && v !== "null") m.set(k, v);
      }
      return new HDict(m);
    },
  },
  {
    name: "store_stale",
    params: "key, max_age_seconds",
    fn: ([key = null, age = null], ctx) => {
      const ts = builtin(ctx, "store_get", [str(key) + "_ts"]);
      const decide = (v: Value): Value => {
        if (!isNumeric(v)) return true;
        const maxAge = isNumeric(age) ? toJsNumber(age) : 0;
        return nowMs(ctx.runtime) / 1000 - toJsNumber(v) > maxAge;
      };
      return isPromise(ts) ? ts.then(decide) : decide(ts);
    },
  },
  {
    name: "store_refresh",
    params: "key",
    fn: ([key = null], ctx) => builtin(ctx, "store_set", [str(key) + "_ts", Math.floor(nowMs(ctx.runtime) / 1000)]),
  },
];

// ---------------------------------------------------------------------------
// std/schema: builders over the schema builtins

function with_(base: Record<string, Value>, opts: Value): HDict {
  const m = new Map<string, Value>(Object.entries(base));
  if (opts instanceof HDict) for (const [k, v] of opts.map) m.set(k, v);
  return new HDict(m);
}

const SCHEMA_FNS: NativeFn[] = [
  ...["any", "string", "int", "float", "bool", "nil"].map((t): NativeFn => ({ name: `schema_${t}`, params: "opts = nil", fn: ([o = null]) => with_({ type: t }, o) })),
  { name: "schema_literal", params: "v", fn: ([v = null]) => HDict.of({ const: v }) },
  { name: "schema_enum", params: "vs", fn: ([v = null]) => HDict.of({ enum: v }) },
  ...["schema_list", "schema_array"].map(
    (name): NativeFn => ({
      name,
      params: "item = nil, opts = nil",
      fn: ([item = null, o = null]) => with_(item === null ? { type: "list" } : { type: "list", items: item }, o),
    }),
  ),
  {
    name: "schema_dict",
    params: "value_schema = nil, opts = nil",
    fn: ([v = null, o = null]) => with_(v === null ? { type: "dict" } : { type: "dict", additional_properties: v }, o),
  },
  {
    name: "schema_field",
    params: "schema, required = true",
    fn: ([s = null, r = null]) => with_({}, s instanceof HDict ? s.with("required", r !== false) : HDict.of({ required: r !== false })),
  },
  {
    name: "schema_object",
    params: "fields, opts = nil",
    fn: ([fields = null, o = null]) => {
      const props = new Map<string, Value>();
      const required: Value[] = [];
      if (fields instanceof HDict) {
        for (const k of fields.keys()) {
          const f = fields.get(k);
          const isOptional = f instanceof HDict && f.get("required") === false;
          props.set(k, f instanceof HDict && typeof f.get("required") === "boolean" ? f.without("required") : f);
          if (!isOptional) required.push(k);
        }
      }
      const base: Record<string, Value> = { type: "dict", properties: new HDict(props) };
      if (required.length > 0) base.required = required;
      return with_(base, o);
    },
  },
  { name: "schema_union", params: "branches", fn: ([b = null]) => HDict.of({ union: b }) },
  { name: "schema_all_of", params: "branches", fn: ([b = null]) => HDict.of({ all_of: b }) },
  { name: "schema_nullable", params: "schema", fn: ([s = null]) => with_({}, s).with("nullable", true) },
  // core-gaps.md §7.9: a field with a default is optional, so schema_object
  // leaves it out of `required`.
  { name: "schema_default", params: "schema, value", fn: ([s = null, v = null], ctx) => builtin(ctx, "schema_extend", [s, HDict.of({ default: v, required: false })]) },
  { name: "schema_pick_keys", params: "schema, keys", fn: (a, ctx) => builtin(ctx, "schema_pick", a) },
  { name: "schema_omit_keys", params: "schema, keys", fn: (a, ctx) => builtin(ctx, "schema_omit", a) },
  { name: "schema_partial_deep", params: "schema", fn: (a, ctx) => builtin(ctx, "schema_partial", a) },
  { name: "schema_json", params: "schema", fn: (a, ctx) => builtin(ctx, "schema_to_json_schema", a) },
  { name: "schema_openapi", params: "schema", fn: (a, ctx) => builtin(ctx, "schema_to_openapi_schema", a) },
  { name: "from_json_schema", params: "schema", fn: (a, ctx) => builtin(ctx, "schema_from_json_schema", a) },
  { name: "from_openapi_schema", params: "schema", fn: (a, ctx) => builtin(ctx, "schema_from_openapi_schema", a) },
  {
    name: "get_typed_result",
    params: "value, schema, apply_defaults = false",
    fn: ([v = null, s = null, d = null], ctx) => builtin(ctx, d === true ? "schema_parse" : "schema_check", [v, s]),
  },
  {
    name: "get_typed_value",
    params: "value, schema, apply_defaults = false",
    fn: ([v = null, s = null, d = null], ctx) => {
      const r = builtin(ctx, d === true ? "schema_parse" : "schema_check", [v, s]);
      const unwrap = (res: Value): Value | Promise<Value> => {
        const e = res as { variant?: string; fields?: Value[] };
        if (e.variant === "Ok") return e.fields![0]!;
        const payload = e.fields?.[0];
        const msg = payload instanceof HDict ? payload.get("message") : "schema validation failed";
        return builtin(ctx, "throw_error", [msg]);
      };
      return isPromise(r) ? r.then(unwrap) : unwrap(r);
    },
  },
  { name: "is_type", params: "value, schema", fn: (a, ctx) => builtin(ctx, "schema_is", a) },
];

// ---------------------------------------------------------------------------
// std/path: conveniences over the path builtins

const PATH_FNS: NativeFn[] = [
  { name: "ext", params: "p", fn: (a, ctx) => builtin(ctx, "path_extension", a) },
  { name: "stem", params: "p", fn: (a, ctx) => builtin(ctx, "path_stem", a) },
  { name: "normalize", params: "p", fn: (a, ctx) => builtin(ctx, "path_normalize", a) },
  { name: "is_absolute", params: "p", fn: (a, ctx) => builtin(ctx, "path_is_absolute", a) },
  {
    name: "workspace_info",
    params: "",
    fn: (_a, ctx) => {
      const root = builtin(ctx, "project_root", []);
      const cwd = builtin(ctx, "cwd", []);
      return HDict.of({ project_root: isPromise(root) ? null : root, cwd: isPromise(cwd) ? null : cwd });
    },
  },
  { name: "workspace_normalize", params: "p", fn: (a, ctx) => builtin(ctx, "path_normalize", a) },
  { name: "list_files", params: "dir", fn: ([d = null], ctx) => listKind(ctx, d, false) },
  { name: "list_dirs", params: "dir", fn: ([d = null], ctx) => listKind(ctx, d, true) },
];

function listKind(ctx: CallContext, dir: Value, dirs: boolean): Value | Promise<Value> {
  const names = builtin(ctx, "list_dir", [dir]);
  const pick = (ns: Value): Value => {
    if (!Array.isArray(ns)) return [];
    const out: Value[] = [];
    for (const n of ns) {
      const full = builtin(ctx, "path_join", [dir, n]);
      const st = isPromise(full) ? null : builtin(ctx, "stat", [full]);
      const isDir = st instanceof HDict && st.get("is_dir") === true;
      if (isDir === dirs) out.push(n);
    }
    return out;
  };
  return isPromise(names) ? names.then(pick) : pick(names);
}

export function installSmallStdModules(def: Define, rt: Runtime): void {
  defineNativeModule(def, rt, "std/json", JSON_FNS);
  defineNativeModule(def, rt, "std/text", TEXT_FNS);
  defineNativeModule(def, rt, "std/collections", COLLECTIONS_FNS);
  defineNativeModule(def, rt, "std/schema", SCHEMA_FNS);
  defineNativeModule(def, rt, "std/path", PATH_FNS);
  // types-only modules: importable, nothing callable
  for (const m of ["std/hitl", "std/waitpoints", "std/postgres"]) rt.stdModules.set(m, `// ${m}: type aliases only\n`);
}
