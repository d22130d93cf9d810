/**
 * The type declarations of one file: aliases, structs, enums, interfaces
 * and impl methods, and alias resolution. A name declared more than once
 * (in two scopes, or as two kinds) is left out: the checker cannot tell
 * which one an annotation means, so it treats the name as unknown.
 */
import type { EnumDecl, FnDecl, InterfaceDecl, Node, StructDecl, TypeDecl } from "@harn/parser";
import { forEachChild } from "@harn/parser";
import { fromTypeExpr, substitute, type Ty } from "./types";

export class TypeEnv {
  readonly aliases = new Map<string, TypeDecl>();
  readonly structs = new Map<string, StructDecl>();
  readonly enums = new Map<string, EnumDecl>();
  readonly interfaces = new Map<string, InterfaceDecl>();
  /** Methods of `impl Name` blocks, by type name (all blocks together). */
  readonly impls = new Map<string, FnDecl[]>();
  private readonly ambiguous = new Set<string>();

  static of(items: readonly Node[]): TypeEnv {
    const env = new TypeEnv();
    const seen = new Map<string, number>();
    const declared = (name: string) => seen.set(name, (seen.get(name) ?? 0) + 1);
    const visit = (n: Node): void => {
      switch (n.kind) {
        case "TypeDecl":
          env.aliases.set(n.name, n);
          declared(n.name);
          return;
        case "StructDecl":
          env.structs.set(n.name, n);
          declared(n.name);
          return;
        case "EnumDecl":
          env.enums.set(n.name, n);
          declared(n.name);
          return;
        case "InterfaceDecl":
          env.interfaces.set(n.name, n);
          declared(n.name);
          return;
        case "ImplBlock": {
          const list = env.impls.get(n.typeName) ?? [];
          list.push(...n.methods);
          env.impls.set(n.typeName, list);
          break;
        }
        default:
          break;
      }
      forEachChild(n, visit);
    };
    for (const item of items) visit(item);
    for (const [name, count] of seen) if (count > 1) env.markAmbiguous(name);
    return env;
  }

  /** Names declared more than once; also names bound as values elsewhere
   * can be added by the caller. */
  markAmbiguous(name: string): void {
    this.ambiguous.add(name);
    this.aliases.delete(name);
    this.structs.delete(name);
    this.enums.delete(name);
    this.interfaces.delete(name);
  }

  isUserType(name: string): boolean {
    return this.structs.has(name) || this.enums.has(name) || this.interfaces.has(name) || this.aliases.has(name) || this.ambiguous.has(name);
  }

  /** Expand aliases at the top of `t` (not inside it). Null when the alias
   * cannot be expanded (generic alias used bare, a cycle). */
  resolve(t: Ty | null, depth = 0): Ty | null {
    if (t === null || depth > 16) return null;
    if (t.k === "name") {
      const alias = this.aliases.get(t.name);
      if (!alias) return t;
      if (alias.typeParams.length > 0) return null;
      return this.resolve(fromTypeExpr(alias.type), depth + 1);
    }
    if (t.k === "app") {
      const alias = this.aliases.get(t.name);
      if (!alias) return t;
      if (alias.typeParams.length !== t.args.length) return null;
      const params = new Set(alias.typeParams.map((p) => p.name));
      const bindings = new Map<string, Ty>();
      alias.typeParams.forEach((p, i) => {
        const a = t.args[i];
        if (a) bindings.set(p.name, a);
      });
      return this.resolve(substitute(fromTypeExpr(alias.type, params), bindings), depth + 1);
    }
    return t;
  }
}
