/**
 * Rendering a parsed template (spec/stdlib.md §20) against bindings:
 * template truthiness, the `loop` variable, filters, includes with cycle
 * and depth checks.
 */
import {
  compareStrings,
  cpArray,
  cpLength,
  display,
  equals,
  HDict,
  HFloat,
  HRange,
  HSet,
  HStruct,
  isNumeric,
  toJsNumber,
  typeOf,
  type Value,
} from "@harn/vm";
import { trim } from "../core/text";
import { toJson } from "./json";
import { TemplateError, type Expr, type Pos, type Template, type TNode } from "./parser";

const MISSING = Symbol("missing");
type Val = Value | typeof MISSING;

const MAX_INCLUDE_DEPTH = 32;

/** What rendering needs from its surroundings (file access lives in the
 * builtins, which know the asset roots). */
export interface RenderHost {
  /** Resolve an include path against the including template's directory;
   * returns the resolved path, the template and its directory. Throws a
   * TemplateError message string on failure. */
  include(path: string, fromDir: string): { path: string; dir: string; template: Template };
}

export interface RenderState {
  host: RenderHost;
  /** Display path of the template being rendered (null for inline). */
  path: string | null;
  /** Directory includes resolve against. */
  dir: string;
  /** Resolved paths of the templates being rendered, outermost first. */
  stack: string[];
  /** When set, each top-level directive's output range is recorded here
   * (`render_with_provenance`). */
  spans?: Span[];
}

/** Where a piece of rendered text came from. Offsets count UTF-16 units of
 * the output until the builtin converts them to code points. */
export interface Span {
  kind: "text" | "expression" | "if" | "for" | "include";
  start: number;
  end: number;
  line: number;
  col: number;
}

class Scope {
  private readonly frames: Map<string, Value>[];
  constructor(frames: Map<string, Value>[]) {
    this.frames = frames;
  }
  static of(bindings: HDict | null): Scope {
    return new Scope([bindings ? new Map(bindings.map) : new Map()]);
  }
  get(name: string): Val {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const v = this.frames[i]!.get(name);
      if (v !== undefined) return v;
    }
    return MISSING;
  }
  child(vars: Map<string, Value>): Scope {
    return new Scope([...this.frames, vars]);
  }
  flatten(): Map<string, Value> {
    const m = new Map<string, Value>();
    for (const f of this.frames) for (const [k, v] of f) m.set(k, v);
    return m;
  }
}

export function renderTemplate(t: Template, bindings: HDict | null, state: RenderState): string {
  const scope = Scope.of(bindings);
  if (!state.spans) return renderNodes(t.nodes, scope, state);
  // provenance: render node by node at the top level, recording ranges
  let out = "";
  const nested: RenderState = { ...state, spans: undefined };
  for (const n of t.nodes) {
    const piece = renderNodes([n], scope, nested);
    if (piece !== "") {
      const kind = n.k === "out" ? "expression" : n.k;
      const pos = n.k === "text" ? { line: 0, col: 0 } : n.pos;
      state.spans.push({ kind, start: out.length, end: out.length + piece.length, line: pos.line, col: pos.col });
    }
    out += piece;
  }
  return out;
}

function fail(state: RenderState, pos: Pos, what: string): never {
  throw new TemplateError(pos, what, state.path);
}

function renderNodes(nodes: TNode[], scope: Scope, state: RenderState): string {
  let out = "";
  for (const n of nodes) {
    switch (n.k) {
      case "text":
        out += n.text;
        break;
      case "out": {
        const v = evaluate(n.expr, scope, state);
        if (v === MISSING) {
          if (n.expr.k === "var") out += `{{${n.expr.name}}}`;
        } else if (v !== null) {
          out += display(v);
        }
        break;
      }
      case "if": {
        let done = false;
        for (const b of n.branches) {
          if (truthy(evaluate(b.cond, scope, state))) {
            out += renderNodes(b.body, scope, state);
            done = true;
            break;
          }
        }
        if (!done && n.otherwise) out += renderNodes(n.otherwise, scope, state);
        break;
      }
      case "for":
        out += renderFor(n, scope, state);
        break;
      case "include":
        out += renderInclude(n, scope, state);
        break;
    }
  }
  return out;
}

function renderFor(n: Extract<TNode, { k: "for" }>, scope: Scope, state: RenderState): string {
  const src = value(evaluate(n.iterable, scope, state));
  const pairs: [Value, Value][] = [];
  const two = n.names.length === 2;
  if (src === null) {
    // nil iterates as empty
  } else if (Array.isArray(src) || src instanceof HSet) {
    const items = Array.isArray(src) ? src : src.items;
    items.forEach((x, i) => pairs.push([i, x]));
  } else if (src instanceof HDict) {
    for (const k of src.keys()) pairs.push([k, two ? src.get(k) : HDict.of({ key: k, value: src.get(k) })]);
  } else if (src instanceof HRange) {
    const len = src.length;
    for (let i = 0; i < len; i++) pairs.push([i, src.at(i)]);
  } else {
    fail(state, n.pos, `cannot iterate over ${typeOf(src)} — expected list, dict, set, or range`);
  }
  if (pairs.length === 0) return n.otherwise ? renderNodes(n.otherwise, scope, state) : "";
  let out = "";
  const length = pairs.length;
  pairs.forEach(([k, v], i) => {
    const vars = new Map<string, Value>();
    if (two) {
      vars.set(n.names[0]!, k);
      vars.set(n.names[1]!, v);
    } else {
      vars.set(n.names[0]!, v);
    }
    vars.set("loop", HDict.of({ index: i + 1, index0: i, first: i === 0, last: i === length - 1, length }));
    out += renderNodes(n.body, scope.child(vars), state);
  });
  return out;
}

function renderInclude(n: Extract<TNode, { k: "include" }>, scope: Scope, state: RenderState): string {
  const p = value(evaluate(n.path, scope, state));
  const rel = typeof p === "string" ? p : display(p);
  let extra: Map<string, Value> | null = null;
  if (n.with) {
    const w = value(evaluate(n.with, scope, state));
    if (w instanceof HDict) extra = new Map(w.map);
    else if (w !== null) fail(state, n.pos, `include \`with\` expects a dict (got ${typeOf(w)})`);
  }
  if (state.stack.length >= MAX_INCLUDE_DEPTH) fail(state, n.pos, `include depth exceeds ${MAX_INCLUDE_DEPTH}`);
  let inc: { path: string; dir: string; template: Template };
  try {
    inc = state.host.include(rel, state.dir);
  } catch (e) {
    if (typeof e === "string") fail(state, n.pos, e);
    throw e;
  }
  if (state.stack.includes(inc.path)) {
    const chain = [...state.stack.slice(state.stack.indexOf(inc.path)), inc.path];
    fail(state, n.pos, `circular include detected: ${chain.join(" → ")}`);
  }
  const vars = scope.flatten();
  if (extra) for (const [k, v] of extra) vars.set(k, v);
  const child: RenderState = { host: state.host, path: inc.path, dir: inc.dir, stack: [...state.stack, inc.path] };
  return renderNodes(inc.template.nodes, new Scope([vars]), child);
}

// ---------------------------------------------------------------------------
// Expressions

function value(v: Val): Value {
  return v === MISSING ? null : v;
}

/** Template truthiness: nil, false, 0, 0.0, blank strings, empty lists and
 * dicts are false. "Blank" and the `trim` filter use Rust's whitespace set
 * (U+0085 is whitespace, U+FEFF is not), like the string methods. */
export function truthy(v: Val): boolean {
  if (v === MISSING || v === null || v === false) return false;
  if (typeof v === "number") return v !== 0;
  if (typeof v === "string") return trim(v) !== "";
  if (v instanceof HFloat) return v.v !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof HDict) return v.size > 0;
  return true;
}

function evaluate(e: Expr, scope: Scope, state: RenderState): Val {
  switch (e.k) {
    case "lit": {
      const v = e.value;
      return v !== null && typeof v === "object" ? new HFloat(v.float) : v;
    }
    case "var":
      return scope.get(e.name);
    case "get": {
      const o = value(evaluate(e.obj, scope, state));
      if (o instanceof HDict) return o.get(e.key);
      if (o instanceof HStruct) return o.fields.get(e.key) ?? null;
      return null;
    }
    case "index": {
      const o = value(evaluate(e.obj, scope, state));
      const i = value(evaluate(e.index, scope, state));
      if (Array.isArray(o) && typeof i === "number") {
        const at = i < 0 ? o.length + i : i;
        return at >= 0 && at < o.length ? o[at]! : null;
      }
      if (typeof o === "string" && typeof i === "number") {
        const cps = cpArray(o);
        const at = i < 0 ? cps.length + i : i;
        return at >= 0 && at < cps.length ? cps[at]! : null;
      }
      if (o instanceof HDict && typeof i === "string") return o.get(i);
      if (o instanceof HStruct && typeof i === "string") return o.fields.get(i) ?? null;
      return null;
    }
    case "not":
      return !truthy(evaluate(e.expr, scope, state));
    case "neg": {
      const v = value(evaluate(e.expr, scope, state));
      if (typeof v === "number") return -v;
      if (v instanceof HFloat) return new HFloat(-v.v);
      return null;
    }
    case "and": {
      const l = evaluate(e.left, scope, state);
      return truthy(l) ? evaluate(e.right, scope, state) : l;
    }
    case "or": {
      const l = evaluate(e.left, scope, state);
      return truthy(l) ? l : evaluate(e.right, scope, state);
    }
    case "bin":
      return compareValues(e.op, value(evaluate(e.left, scope, state)), value(evaluate(e.right, scope, state)));
    case "filter": {
      const input = value(evaluate(e.expr, scope, state));
      const args = e.args.map((a) => value(evaluate(a, scope, state)));
      return applyFilter(e.name, input, args, e.pos, state);
    }
    case "dict": {
      const m = new Map<string, Value>();
      for (const [k, x] of e.entries) m.set(k, value(evaluate(x, scope, state)));
      return new HDict(m);
    }
    case "list":
      return e.items.map((x) => value(evaluate(x, scope, state)));
  }
}

function compareValues(op: string, a: Value, b: Value): boolean {
  if (op === "==") return equals(a, b);
  if (op === "!=") return !equals(a, b);
  let c: number;
  if (isNumeric(a) && isNumeric(b)) {
    const x = toJsNumber(a);
    const y = toJsNumber(b);
    if (Number.isNaN(x) || Number.isNaN(y)) return false;
    c = x < y ? -1 : x > y ? 1 : 0;
  } else if (typeof a === "string" && typeof b === "string") {
    c = compareStrings(a, b);
  } else {
    return false;
  }
  switch (op) {
    case "<":
      return c < 0;
    case "<=":
      return c <= 0;
    case ">":
      return c > 0;
    default:
      return c >= 0;
  }
}

// ---------------------------------------------------------------------------
// Filters

const ARITY: Record<string, [number, number]> = {
  upper: [0, 0],
  lower: [0, 0],
  trim: [0, 0],
  capitalize: [0, 0],
  title: [0, 0],
  length: [0, 0],
  first: [0, 0],
  last: [0, 0],
  reverse: [0, 0],
  join: [0, 1],
  default: [1, 1],
  json: [0, 1],
  indent: [1, 2],
  lines: [0, 0],
  escape_md: [0, 0],
  replace: [2, 2],
};

function text(v: Value): string {
  return typeof v === "string" ? v : v === null ? "" : display(v);
}

function capitalizeWord(w: string): string {
  const cps = cpArray(w);
  if (cps.length === 0) return "";
  return cps[0]!.toUpperCase() + cps.slice(1).join("").toLowerCase();
}

function applyFilter(name: string, v: Value, args: Value[], pos: Pos, state: RenderState): Value {
  const arity = ARITY[name];
  if (!arity) fail(state, pos, `unknown filter \`${name}\``);
  if (args.length < arity[0] || args.length > arity[1]) fail(state, pos, `filter \`${name}\` got wrong number of arguments`);
  switch (name) {
    case "upper":
      return text(v).toUpperCase();
    case "lower":
      return text(v).toLowerCase();
    case "trim":
      return trim(text(v));
    case "capitalize":
      return capitalizeWord(text(v));
    case "title":
      return text(v).replace(/[^\s]+/g, capitalizeWord);
    case "length":
      if (v === null) return 0;
      if (typeof v === "string") return cpLength(v);
      if (Array.isArray(v)) return v.length;
      if (v instanceof HSet) return v.items.length;
      if (v instanceof HDict) return v.size;
      if (v instanceof HRange) return v.length;
      fail(state, pos, `\`length\` not defined for ${typeOf(v)}`);
    // falls through (fail never returns)
    case "first":
      if (Array.isArray(v)) return v.length > 0 ? v[0]! : null;
      if (typeof v === "string") return cpArray(v)[0] ?? null;
      if (v instanceof HSet) return v.items[0] ?? null;
      return null;
    case "last":
      if (Array.isArray(v)) return v.length > 0 ? v[v.length - 1]! : null;
      if (typeof v === "string") {
        const cps = cpArray(v);
        return cps[cps.length - 1] ?? null;
      }
      if (v instanceof HSet) return v.items[v.items.length - 1] ?? null;
      return null;
    case "reverse":
      if (Array.isArray(v)) return [...v].reverse();
      if (typeof v === "string") return cpArray(v).reverse().join("");
      return v;
    case "join": {
      const sep = args.length > 0 ? text(args[0]!) : "";
      if (Array.isArray(v)) return v.map((x) => display(x)).join(sep);
      if (v instanceof HSet) return v.items.map((x) => display(x)).join(sep);
      if (typeof v === "string") return v;
      fail(state, pos, `\`join\` requires a list (got ${typeOf(v)})`);
    }
    // falls through (fail never returns)
    case "default":
      return truthy(v) ? v : args[0]!;
    case "json":
      return toJson(v, args.length > 0 && truthy(args[0]!));
    case "indent": {
      const n = typeof args[0] === "number" ? Math.max(0, args[0]) : 0;
      const all = args.length > 1 && truthy(args[1]!);
      const padText = " ".repeat(n);
      return text(v)
        .split("\n")
        .map((line, i) => ((i > 0 || all) && line !== "" ? padText + line : line))
        .join("\n");
    }
    case "lines":
      return text(v).split("\n");
    case "escape_md":
      return text(v).replace(/[\\`*_{}[\]()#+\-.!|<>]/g, (c) => "\\" + c);
    case "replace":
      return text(v).replaceAll(text(args[0]!), () => text(args[1]!));
  }
  return null;
}
