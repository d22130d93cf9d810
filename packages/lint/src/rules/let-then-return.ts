/** `let-then-return` (lint.md §3.19). */
import { joinSpans } from "../ast-util";
import { definitelyExits } from "../walker";
import type { Rule } from "../types";

export const letThenReturn: Rule = {
  id: "let-then-return",
  meta: {
    severity: "warning",
    description: "`let x = e` immediately followed by `return x`",
    fixable: true,
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
            ...(ctx.sourceText ? { fix: [{ span, replacement: `return ${ctx.text(a.value)}` }] } : {}),
          });
        }
      },
    };
  },
};
