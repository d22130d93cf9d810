/**
 * Variance markers (`interface I<out T>`, `type F<in T> = ...`) against the
 * positions where the parameter appears (spec/semantics.md §10.1): method
 * parameters are contravariant, results covariant, and a `fn` type flips
 * its parameters. Only those positions are judged; inside lists, dicts,
 * shapes and applied types the reference's rules are not known, so
 * nothing there is reported.
 */
import type { InterfaceDecl, Node, TypeDecl, TypeExpr, TypeParam } from "@harn/parser";
import type { Diagnostic } from "@harn/parser";
import { forEachChild } from "@harn/parser";
import { typeError } from "./diagnostic";

type Polarity = "covariant" | "contravariant";

const flip = (p: Polarity): Polarity => (p === "covariant" ? "contravariant" : "covariant");

const VARIANCE_HELP = "drop the `in`/`out` marker, or use the type parameter only where the marker allows (`out`: results, `in`: parameters)";

/** Declarations anywhere in the file, nested ones in bodies included
 * (core-gaps.md §9.1). */
export function checkVariance(items: readonly Node[], out: Diagnostic[]): void {
  const visit = (n: Node): void => {
    if (n.kind === "InterfaceDecl") checkInterface(n, out);
    else if (n.kind === "TypeDecl") checkAlias(n, out);
    forEachChild(n, visit);
  };
  for (const item of items) visit(item);
}

function marked(params: readonly TypeParam[]): Map<string, TypeParam["variance"]> {
  const m = new Map<string, TypeParam["variance"]>();
  for (const p of params) if (p.variance !== "invariant") m.set(p.name, p.variance);
  return m;
}

function checkInterface(d: InterfaceDecl, out: Diagnostic[]): void {
  const declared = marked(d.typeParams);
  if (declared.size === 0) return;
  for (const m of d.methods) {
    const scope = new Map(declared);
    for (const own of m.typeParams) scope.delete(own.name);
    const where = `interface '${d.name}'`;
    const found: string[] = [];
    for (const p of m.params) if (p.type !== null) walk(p.type, "contravariant", scope, where, found);
    if (m.returnType !== null) walk(m.returnType, "covariant", scope, where, found);
    for (const message of found) out.push(typeError(message, m.span, VARIANCE_HELP));
  }
}

function checkAlias(d: TypeDecl, out: Diagnostic[]): void {
  const declared = marked(d.typeParams);
  if (declared.size === 0) return;
  const found: string[] = [];
  walk(d.type, "covariant", declared, `type alias '${d.name}'`, found);
  for (const message of found) out.push(typeError(message, d.span, VARIANCE_HELP));
}

function walk(t: TypeExpr, p: Polarity, declared: ReadonlyMap<string, TypeParam["variance"]>, where: string, found: string[]): void {
  switch (t.kind) {
    case "Named": {
      const v = declared.get(t.name);
      if (v === "contravariant" && p === "covariant") {
        found.push(`type parameter '${t.name}' is declared 'in' (contravariant) but appears in a covariant position in ${where}`);
      } else if (v === "covariant" && p === "contravariant") {
        found.push(`type parameter '${t.name}' is declared 'out' (covariant) but appears in a contravariant position in ${where}`);
      }
      return;
    }
    case "Union":
      for (const x of t.types) walk(x, p, declared, where, found);
      return;
    case "FnType":
      for (const x of t.params) walk(x, flip(p), declared, where, found);
      walk(t.ret, p, declared, where, found);
      return;
    default:
      return;
  }
}
