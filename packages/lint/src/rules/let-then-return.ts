/** `let-then-return` (lint.md §3.19). */
import type { Node } from "@harn/parser";
import { joinSpans } from "../ast-util";
import { isBuiltinName } from "../builtins";
import { definitelyExits } from "../walker";
import type { Rule, RuleContext } from "../types";

export const letThenReturn: Rule = {
  id: "let-then-return",
  meta: {
    reusable: true,
    severity: "warning",
    description: "`let x = e` immediately followed by `return x`",
    fixable: true,
    triggers: { words: ["let"] },
    messages: { returned: { message: "binding `{name}` is immediately returned", help: "return the expression assigned to `{name}` directly" } },
  },
  create(ctx) {
    return {
      Block(b) {
        if (b.role === "program") return;
        const s = b.stmts;
        for (let i = 0; i + 1 < s.length; i++) {
          const a = s[i]!;
          const r = s[i + 1]!;
          if (definitelyExits(a)) break; // the rest is unreachable and not walked
          if (a.kind !== "LetBinding" || a.pattern.kind !== "ident" || a.type !== null) continue;
          if (r.kind !== "ReturnStmt" || r.value?.kind !== "Identifier" || r.value.name !== a.pattern.name) continue;
          const name = a.pattern.name;
          const span = joinSpans(a.span, r.span);
          ctx.report({
            span,
            messageId: "returned",
            data: { name },
            ...(ctx.sourceText && !becomesTailCall(ctx, a.value) ? { fix: [{ span, replacement: `return ${ctx.text(a.value)}` }] } : {}),
          });
        }
      },
    };
  },
};

/** `return f(x)` of a user function (and `return v |> f`) is a tail call
 * (semantics.md §7.6): it does not grow the stack, so deep recursion that
 * overflowed through `let r = f(x); return r` would run on. Such a value
 * is reported but not rewritten: a fix must not change what a program
 * does. */
function becomesTailCall(ctx: RuleContext, value: Node): boolean {
  if (value.kind === "BinaryOp") return value.op === "|>";
  if (value.kind !== "FunctionCall") return false;
  return ctx.facts.knownFunctions.has(value.name) || !isBuiltinName(value.name, ctx.project.extraBuiltins);
}
