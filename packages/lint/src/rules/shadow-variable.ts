/**
 * `shadow-variable` (lint.md §3.9) over the scope model of §1.7: a stack
 * of name sets, pushed for bodies and nested blocks (not `defer`).
 */
import type { Node, Span } from "@harn/parser";
import { patternNames } from "../ast-util";
import type { BlockRole, Rule } from "../types";
import { clearArray } from "../reuse";

/** Block roles that open a scope (lint.md §1.7). */
const SCOPED: ReadonlySet<BlockRole> = new Set<BlockRole>([
  "then",
  "else",
  "loop",
  "try",
  "catch",
  "finally",
  "tryExpr",
  "arm",
  "guardElse",
  "deadline",
  "mutex",
  "retry",
  "parallel",
  "selectCase",
  "selectTimeout",
  "selectDefault",
  "spawn",
]);

/** Owners whose `body` block opens a scope. */
const SCOPED_BODIES: ReadonlySet<string> = new Set(["Pipeline", "FnDecl", "ToolDecl", "Closure"]);

export const shadowVariable: Rule = {
  id: "shadow-variable",
  meta: {
    reusable: true,
    severity: "warning",
    description: "Redeclaring an immutable name in the same scope, or shadowing an outer-scope name",
    fixable: false,
    messages: {
      redeclared: {
        message: "cannot redeclare immutable variable `{name}` in the same scope",
        help: "use `var {name}` for a mutable binding, or choose a different name",
      },
      shadows: { message: "variable `{name}` shadows a variable in an outer scope", help: "consider renaming to avoid shadowing `{name}`" },
    },
  },
  create(ctx) {
    // a scope's set is created on its first declaration: most blocks
    // declare nothing
    const scopes: (Set<string> | null)[] = [new Set()];
    const pushed: boolean[] = [];

    const declare = (name: string, span: Span, immutable: boolean, checked: boolean): void => {
      if (name === "_") return;
      const inner = (scopes[scopes.length - 1] ??= new Set());
      if (checked) {
        if (immutable && inner.has(name)) {
          ctx.report({
            span,
            messageId: "redeclared",
            data: { name },
          });
        }
        for (let i = 0; i < scopes.length - 1; i++) {
          if (!scopes[i]?.has(name)) continue;
          ctx.report({
            span,
            messageId: "shadows",
            data: { name },
          });
          break;
        }
      }
      inner.add(name);
    };

    return {
      // made once per run (meta.reusable): a file starts afresh
      Program() {
        clearArray(scopes);
        scopes.push(new Set());
        clearArray(pushed);
      },
      Block(b) {
        const opens = SCOPED.has(b.role) || (b.role === "body" && SCOPED_BODIES.has(b.owner.kind));
        pushed.push(opens);
        if (!opens) return;
        scopes.push(null);
        const o = b.owner;
        switch (b.role) {
          case "body":
            if (o.kind === "Pipeline") for (const p of o.params) declare(p, o.span, false, true);
            if (o.kind === "FnDecl" || o.kind === "ToolDecl" || o.kind === "Closure") {
              for (const p of o.params) declare(p.name, p.span, false, true);
            }
            break;
          case "loop":
            if (o.kind === "ForIn") {
              if (o.pattern.kind === "ident") declare(o.pattern.name, o.span, false, false);
              else for (const n of patternNames(o.pattern)) declare(n, o.span, false, true);
            }
            break;
          case "catch":
            if (o.kind === "TryCatch" && o.errorVar) declare(o.errorVar, o.span, false, false);
            break;
          case "parallel":
            if (o.kind === "Parallel" && o.variable) declare(o.variable, o.span, false, false);
            break;
          case "selectCase":
            if (o.kind === "SelectExpr") {
              const c = o.cases.find((x) => x.body === b.stmts);
              if (c) declare(c.variable, c.span, false, true);
            }
            break;
        }
      },
      "Block:exit"() {
        if (pushed.pop()) scopes.pop();
      },
      LetBinding(n) {
        declareBinding(n, true);
      },
      VarBinding(n) {
        declareBinding(n, false);
      },
    };

    function declareBinding(n: Node & { pattern: import("@harn/parser").Pattern }, immutable: boolean): void {
      for (const name of patternNames(n.pattern)) declare(name, n.span, immutable, true);
    }
  },
};
