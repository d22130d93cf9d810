/**
 * `eager-collection-conversion` (lint.md §3.31): an iterator chain where a
 * list/set/dict is declared. Closures do not check `return` against the
 * enclosing fn's type (they return from themselves; FIX of the quirk).
 */
import type { Node, TypeExpr } from "@harn/parser";
import { insertAfter } from "../fix-edits";
import type { Rule, RuleContext } from "../types";
import { clearArray } from "../reuse";

const ITERATOR_METHODS = new Set([
  "iter",
  "map",
  "filter",
  "flat_map",
  "take",
  "skip",
  "take_while",
  "skip_while",
  "zip",
  "enumerate",
  "chain",
  "chunks",
  "windows",
]);

type Collection = "list" | "set" | "dict";

export function expectedCollection(t: TypeExpr | null): Collection | null {
  if (!t) return null;
  switch (t.kind) {
    case "List":
      return "list";
    case "Dict":
      return "dict";
    case "Named":
    case "Applied":
      return t.name === "list" || t.name === "set" || t.name === "dict" ? t.name : null;
    default:
      return null;
  }
}

function isIteratorExpr(n: Node): boolean {
  if (n.kind === "MethodCall" || n.kind === "OptionalMethodCall") return ITERATOR_METHODS.has(n.method);
  return n.kind === "FunctionCall" && n.name === "iter";
}

function check(ctx: RuleContext, value: Node, coll: Collection | null): void {
  if (!coll || !isIteratorExpr(value)) return;
  const sink = `to_${coll}`;
  ctx.report({
    node: value,
    messageId: "iterator",
    data: { coll, sink },
    fix: [insertAfter(value.span, `.${sink}()`)],
  });
}

export const eagerCollectionConversion: Rule = {
  id: "eager-collection-conversion",
  meta: {
    reusable: true,
    severity: "warning",
    description: "An iterator chain assigned or returned where a list/set/dict is declared",
    fixable: true,
    triggers: { words: [...ITERATOR_METHODS] },
    messages: {
      iterator: {
        message: "expression is an iterator; expected {coll}. Add .{sink}() to materialize.",
        help: "append `.{sink}()` to materialize the iterator",
      },
    },
  },
  create(ctx) {
    const returnTypes: (TypeExpr | null)[] = [];
    const push = (n: { returnType: TypeExpr | null }): void => {
      returnTypes.push(n.returnType);
    };
    const pop = (): void => {
      returnTypes.pop();
    };
    return {
      // made once per run (meta.reusable): a file starts afresh
      Program() {
        clearArray(returnTypes);
      },
      FnDecl: push,
      "FnDecl:exit": pop,
      ToolDecl: push,
      "ToolDecl:exit": pop,
      Closure() {
        returnTypes.push(null);
      },
      "Closure:exit": pop,
      LetBinding(n) {
        check(ctx, n.value, expectedCollection(n.type));
      },
      VarBinding(n) {
        check(ctx, n.value, expectedCollection(n.type));
      },
      ReturnStmt(n) {
        if (!n.value || returnTypes.length === 0) return;
        check(ctx, n.value, expectedCollection(returnTypes[returnTypes.length - 1]!));
      },
    };
  },
};
