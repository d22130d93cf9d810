/**
 * Tool declarations (spec/agents.md §2.4 "Tool declarations",
 * extensions.md §1.1): `tool name(params) -> T { description "…"; body }`
 * compiles to `tool_define(tool_registry(), name, description, {parameters,
 * handler, returns?, long_running?})` and binds the resulting one-tool
 * registry to the name. The registry builtins belong to the stdlib; this
 * file only builds their arguments, so the VM stays free of the agent
 * layer. Without those builtins (a bare VM) the name is bound to the
 * handler closure itself.
 *
 * Parameter types are lowered to JSON-Schema names (unlike `schema_of`):
 * `int` → `integer`, `float` → `number`, `bool` → `boolean`, shapes →
 * objects with `properties`/`required`, `list<T>` → arrays, `dict<K, V>` →
 * objects with `additionalProperties`, untyped → `{type: "any"}`.
 */
import type * as A from "@harn/parser";
import { isPromise, RuntimeSlot, type CallContext, type Runtime } from "../runtime";
import { float, HClosure, HDict, HDuration, HFloat, normBig, type Value } from "../values";
import { ClosureImpl } from "./frame";

/** Whether a closure is the handler of a `tool` declaration: the agent loop
 * binds tool-call arguments to its parameters by name (agents.md §2.6
 * [TS decision]), where `tool_define` handlers get one arguments dict. */
export function isToolDeclHandler(v: Value): boolean {
  return v instanceof HClosure && v.impl instanceof ClosureImpl && v.impl.proto.isTool;
}

/** The tools a runtime's program declared so far, by name (a later
 * declaration of a name wins): what each declaration bound to its name.
 * `daemon_resume` finds a resumed daemon's tools here by name. */
const DECLARED_TOOLS = new RuntimeSlot<Map<string, Value>>("tools.declared", () => new Map());

export function declaredTools(rt: Runtime): ReadonlyMap<string, Value> {
  return rt.slot(DECLARED_TOOLS);
}

/** The registry a declaration binds to its name (or the handler itself when
 * the stdlib's registry builtins are not installed). */
export function lowerToolDecl(n: A.ToolDecl, handler: HClosure, ctx: CallContext): Value | Promise<Value> {
  const rt = ctx.runtime;
  const registry = rt.builtins.get("tool_registry");
  const define = rt.builtins.get("tool_define");
  if (!registry || !define) return handler;
  const params = new Map<string, Value>();
  for (const p of n.params) {
    let schema = typeSchema(p.type);
    if (p.default !== null) {
      const m = new Map(schema.map);
      m.set("required", false);
      const d = constantValue(p.default);
      if (d !== undefined) m.set("default", d);
      schema = new HDict(m);
    }
    params.set(p.name, schema);
  }
  const config = new Map<string, Value>([
    ["parameters", new HDict(params)],
    ["handler", handler],
  ]);
  if (n.returnType) config.set("returns", typeSchema(n.returnType));
  if (n.longRunning) config.set("long_running", true);
  const reg = registry([], ctx);
  const remember = (v: Value): Value => {
    rt.slot(DECLARED_TOOLS).set(n.name, v);
    return v;
  };
  const call = (r: Value) => {
    const d = define([r, n.name, n.description ?? "", new HDict(config)], ctx);
    return isPromise<Value>(d) ? d.then(remember) : remember(d);
  };
  return isPromise<Value>(reg) ? reg.then(call) : call(reg);
}

const NAMED: Readonly<Record<string, string>> = {
  string: "string",
  int: "integer",
  float: "number",
  bool: "boolean",
  list: "array",
  dict: "object",
  nil: "null",
};

function obj(entries: [string, Value][]): HDict {
  return new HDict(new Map(entries));
}

/** A parameter or return type as a JSON-Schema dict. */
export function typeSchema(t: A.TypeExpr | null): HDict {
  if (t === null) return obj([["type", "any"]]);
  switch (t.kind) {
    case "Named":
      return obj([["type", NAMED[t.name] ?? "any"]]);
    case "List":
    case "Iter":
    case "Generator":
    case "Stream":
      return obj([
        ["type", "array"],
        ["items", typeSchema(t.elem)],
      ]);
    case "Dict":
      return obj([
        ["type", "object"],
        ["additionalProperties", typeSchema(t.value)],
      ]);
    case "Shape": {
      const props = new Map<string, Value>();
      const required: Value[] = [];
      for (const f of t.fields) {
        props.set(f.name, typeSchema(f.type));
        if (!f.optional) required.push(f.name);
      }
      return obj([
        ["type", "object"],
        ["properties", new HDict(props)],
        ["required", required],
      ]);
    }
    case "Union": {
      const members = t.types.filter((m) => !(m.kind === "Named" && m.name === "nil"));
      if (members.length === 1) return typeSchema(members[0]!);
      if (members.length > 0 && members.every((m) => m.kind === "LitString")) {
        return obj([
          ["type", "string"],
          ["enum", members.map((m) => (m as { value: string }).value)],
        ]);
      }
      return obj([["anyOf", members.map((m) => typeSchema(m))]]);
    }
    case "LitString":
      return obj([
        ["type", "string"],
        ["enum", [t.value]],
      ]);
    case "LitInt":
      return obj([
        ["type", "integer"],
        ["enum", [normBig(t.value)]],
      ]);
    case "Applied":
      if (t.name === "list" && t.args.length === 1) return typeSchema({ kind: "List", elem: t.args[0]!, span: t.span });
      if (t.name === "dict" && t.args.length === 2) return typeSchema({ kind: "Dict", key: t.args[0]!, value: t.args[1]!, span: t.span });
      return obj([["type", "any"]]);
    default:
      return obj([["type", "any"]]);
  }
}

/** The value of a constant default expression (literals, lists and dicts
 * of literals, negated numbers); `undefined` for anything that would need
 * evaluation. */
function constantValue(n: A.Node): Value | undefined {
  switch (n.kind) {
    case "IntLiteral":
      return normBig(n.value);
    case "FloatLiteral":
      return float(n.value);
    case "StringLiteral":
    case "RawStringLiteral":
      return n.value;
    case "BoolLiteral":
      return n.value;
    case "NilLiteral":
      return null;
    case "DurationLiteral":
      return new HDuration(Number(n.ms));
    case "UnaryOp": {
      if (n.op !== "-") return undefined;
      const v = constantValue(n.operand);
      if (typeof v === "number") return -v;
      if (typeof v === "bigint") return normBig(-v);
      if (v instanceof HFloat) return float(-v.v);
      return undefined;
    }
    case "ListLiteral": {
      const out: Value[] = [];
      for (const e of n.elements) {
        const v = constantValue(e);
        if (v === undefined) return undefined;
        out.push(v);
      }
      return out;
    }
    case "DictLiteral": {
      const m = new Map<string, Value>();
      for (const e of n.entries) {
        if (e.computed || e.key.kind !== "StringLiteral") return undefined;
        const v = constantValue(e.value);
        if (v === undefined) return undefined;
        m.set(e.key.value, v);
      }
      return new HDict(m);
    }
    default:
      return undefined;
  }
}
