/**
 * `fn-value-discarded` [extension]: a named `fn` returns nil unless it
 * says `return` (semantics.md §11 item 2; closures return their last
 * expression, named functions do not). Users coming from Rust or Ruby
 * write `fn total(xs) -> int { xs.sum() }`-style bodies and get nil.
 *
 * Reported when a named function's last statement is
 * - a pure expression (lint.md §3.11's definition) other than `nil`: it
 *   has no effect, so its value was meant to be returned; or
 * - a `match`, when the function declares a return type other than nil:
 *   the arms' values are thrown away.
 * Calls are not reported (a trailing `println(x)` is a side effect).
 * No fix: `return` changes what the program does, so the author decides.
 */
import type { FnDecl, Node, TypeExpr } from "@harn/parser";
import { isPure } from "../ast-util";
import type { Rule } from "../types";

const returnsValue = (t: TypeExpr | null): boolean => t !== null && !(t.kind === "Named" && (t.name === "nil" || t.name === "void"));

function discarded(fn: FnDecl): Node | null {
  if (fn.isStream) return null;
  const last = fn.body[fn.body.length - 1];
  if (last === undefined) return null;
  if (isPure(last) && last.kind !== "NilLiteral") return last;
  if (last.kind === "MatchExpr" && returnsValue(fn.returnType)) return last;
  return null;
}

export const fnValueDiscarded: Rule = {
  id: "fn-value-discarded",
  meta: {
    reusable: true,
    severity: "warning",
    description: "A named fn ends in a value it does not return (it returns nil)",
    fixable: false,
    messages: {
      discarded: {
        message: "`fn {name}` returns nil: the value of its last {what} is discarded",
        help: "a named fn returns only what `return` gives it; write `return` before the value (closures, unlike named fns, return their last expression)",
      },
    },
  },
  create(ctx) {
    return {
      FnDecl(n) {
        const last = discarded(n);
        if (last === null) return;
        ctx.report({
          node: last,
          messageId: "discarded",
          data: { name: n.name, what: last.kind === "MatchExpr" ? "`match`" : "expression" },
        });
      },
    };
  },
};
