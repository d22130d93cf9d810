/** `redundant-nil-ternary` (lint.md §3.20): `x == nil ? d : x` is `x ?? d`. */
import type { Node } from "@harn/parser";
import type { Rule } from "../types";

/** Binary operators that bind more loosely than `??` (spec/syntax.md §5.1). */
const LOOSER_THAN_NIL_COALESCE = new Set(["|>", "||", "&&", "==", "!=", "<", ">", "<=", ">=", "in", "not_in", "+", "-"]);

function needsParens(f: Node): boolean {
  return (
    (f.kind === "BinaryOp" && LOOSER_THAN_NIL_COALESCE.has(f.op)) || f.kind === "Ternary" || f.kind === "RangeExpr"
  );
}

export const redundantNilTernary: Rule = {
  id: "redundant-nil-ternary",
  meta: {
    reusable: true,
    severity: "warning",
    description: "`x == nil ? d : x` or `x != nil ? x : d`, which is `x ?? d`",
    fixable: true,
    triggers: { words: ["nil"] },
    messages: {
      nilTernary: {
        message: "ternary nil check over `{name}` can be replaced with `{name} ?? <fallback>`",
        help: "use `{name} ?? <fallback>` instead",
      },
    },
  },
  create(ctx) {
    return {
      Ternary(n) {
        const c = n.condition;
        if (c.kind !== "BinaryOp" || (c.op !== "==" && c.op !== "!=")) return;
        const x = c.left.kind === "NilLiteral" ? c.right : c.right.kind === "NilLiteral" ? c.left : null;
        if (!x || x.kind !== "Identifier") return;
        const [same, fallback] = c.op === "==" ? [n.elseExpr, n.thenExpr] : [n.thenExpr, n.elseExpr];
        if (same.kind !== "Identifier" || same.name !== x.name) return;
        let fix;
        if (ctx.sourceText) {
          const f = ctx.text(fallback);
          fix = [{ span: n.span, replacement: `${x.name} ?? ${needsParens(fallback) ? `(${f})` : f}` }];
        }
        ctx.report({
          node: n,
          messageId: "nilTernary",
          data: { name: x.name },
          ...(fix ? { fix } : {}),
        });
      },
    };
  },
};
