/**
 * The checker's type model and its printed form (spec/semantics.md §10.1).
 *
 * `null` everywhere means "not known": the checker never reports anything
 * about a value whose type it does not know. The names `any` and `unknown`
 * are real annotations, not that absence: `unknown` is a type a value must be
 * narrowed from before it can be used as anything else.
 */
import type { TypeExpr } from "@harn/parser";

export type Ty =
  /** Primitive names (`int`, `string`, …), user types, aliases, and names
   * the checker has no rule for (`duration`, `bytes`, `set`, …). */
  | { k: "name"; name: string }
  /** A generic application other than the special forms: `Result<T, E>`. */
  | { k: "app"; name: string; args: (Ty | null)[] }
  | { k: "list"; elem: Ty | null; literal?: boolean }
  | { k: "dict"; key: Ty | null; value: Ty | null }
  | { k: "iter" | "generator" | "stream"; elem: Ty | null }
  | { k: "shape"; fields: ShapeField[]; literal?: boolean }
  | { k: "union"; types: Ty[] }
  | { k: "fn"; params: (Ty | null)[]; ret: Ty | null }
  | { k: "never" }
  | { k: "strlit"; value: string }
  | { k: "intlit"; value: bigint }
  /** A type parameter of the enclosing generic declaration. */
  | { k: "tparam"; name: string };

export interface ShapeField {
  name: string;
  ty: Ty | null;
  optional: boolean;
}

export const named = (name: string): Ty => ({ k: "name", name });
export const INT = named("int");
export const FLOAT = named("float");
export const STRING = named("string");
export const BOOL = named("bool");
export const NIL = named("nil");

/** Convert a parsed annotation. `typeParams` are the names that are type
 * parameters where the annotation appears. */
export function fromTypeExpr(t: TypeExpr, typeParams: ReadonlySet<string> = EMPTY): Ty {
  switch (t.kind) {
    case "Named":
      if (typeParams.has(t.name)) return { k: "tparam", name: t.name };
      if (t.name === "never") return { k: "never" };
      return named(t.name);
    case "Union":
      return { k: "union", types: t.types.map((x) => fromTypeExpr(x, typeParams)) };
    case "Shape":
      return { k: "shape", fields: t.fields.map((f) => ({ name: f.name, ty: fromTypeExpr(f.type, typeParams), optional: f.optional })) };
    case "List":
      return { k: "list", elem: fromTypeExpr(t.elem, typeParams) };
    case "Dict":
      return { k: "dict", key: fromTypeExpr(t.key, typeParams), value: fromTypeExpr(t.value, typeParams) };
    case "Iter":
      return { k: "iter", elem: fromTypeExpr(t.elem, typeParams) };
    case "Generator":
      return { k: "generator", elem: fromTypeExpr(t.elem, typeParams) };
    case "Stream":
      return { k: "stream", elem: fromTypeExpr(t.elem, typeParams) };
    case "Applied":
      return { k: "app", name: t.name, args: t.args.map((x) => fromTypeExpr(x, typeParams)) };
    case "FnType":
      return { k: "fn", params: t.params.map((x) => fromTypeExpr(x, typeParams)), ret: fromTypeExpr(t.ret, typeParams) };
    case "Never":
      return { k: "never" };
    case "LitString":
      return { k: "strlit", value: t.value };
    case "LitInt":
      return { k: "intlit", value: t.value };
  }
}

const EMPTY: ReadonlySet<string> = new Set();

/** The printed form used in messages: `list<int>`, `dict<string, int>`,
 * `{name: string, age?: int}`, `int | nil`, `fn(int) -> int`, `"a"`.
 * A part the checker does not know prints as `any` (bare `list`/`dict`
 * for collections whose contents are unknown). */
export function formatTy(t: Ty | null): string {
  if (t === null) return "any";
  switch (t.k) {
    case "name":
      return t.name;
    case "tparam":
      return t.name;
    case "app":
      return `${t.name}<${t.args.map(formatTy).join(", ")}>`;
    case "list":
      return t.elem === null ? "list" : `list<${formatTy(t.elem)}>`;
    case "dict":
      return t.key === null && t.value === null ? "dict" : `dict<${formatTy(t.key)}, ${formatTy(t.value)}>`;
    case "iter":
      return t.elem === null ? "iter" : `iter<${formatTy(t.elem)}>`;
    case "generator":
      return `Generator<${formatTy(t.elem)}>`;
    case "stream":
      return `Stream<${formatTy(t.elem)}>`;
    case "shape":
      return `{${t.fields.map((f) => `${f.name}${f.optional ? "?" : ""}: ${formatTy(f.ty)}`).join(", ")}}`;
    case "union":
      return t.types.map(formatTy).join(" | ");
    case "fn":
      return `fn(${t.params.map(formatTy).join(", ")}) -> ${formatTy(t.ret)}`;
    case "never":
      return "never";
    case "strlit":
      return JSON.stringify(t.value);
    case "intlit":
      return String(t.value);
  }
}

/** Does the type mention a type parameter anywhere? */
export function hasTypeParam(t: Ty | null): boolean {
  if (t === null) return false;
  switch (t.k) {
    case "tparam":
      return true;
    case "app":
      return t.args.some(hasTypeParam);
    case "list":
    case "iter":
    case "generator":
    case "stream":
      return hasTypeParam(t.elem);
    case "dict":
      return hasTypeParam(t.key) || hasTypeParam(t.value);
    case "shape":
      return t.fields.some((f) => hasTypeParam(f.ty));
    case "union":
      return t.types.some(hasTypeParam);
    case "fn":
      return t.params.some(hasTypeParam) || hasTypeParam(t.ret);
    default:
      return false;
  }
}

/** Replace type parameters by their bindings (unbound ones become unknown). */
export function substitute(t: Ty | null, bindings: ReadonlyMap<string, Ty>): Ty | null {
  if (t === null) return null;
  switch (t.k) {
    case "tparam":
      return bindings.get(t.name) ?? null;
    case "app":
      return { k: "app", name: t.name, args: t.args.map((a) => substitute(a, bindings)) };
    case "list":
      return { k: "list", elem: substitute(t.elem, bindings) };
    case "iter":
    case "generator":
    case "stream":
      return { k: t.k, elem: substitute(t.elem, bindings) };
    case "dict":
      return { k: "dict", key: substitute(t.key, bindings), value: substitute(t.value, bindings) };
    case "shape":
      return { k: "shape", fields: t.fields.map((f) => ({ ...f, ty: substitute(f.ty, bindings) })) };
    case "union": {
      const types = t.types.map((x) => substitute(x, bindings));
      return types.every((x): x is Ty => x !== null) ? { k: "union", types } : null;
    }
    case "fn":
      return { k: "fn", params: t.params.map((p) => substitute(p, bindings)), ret: substitute(t.ret, bindings) };
    default:
      return t;
  }
}
