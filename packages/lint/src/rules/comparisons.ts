/**
 * `comparison-to-bool` and `pointless-comparison` (lint.md §3.15, §3.16).
 */
import type { BinaryOp, Node } from "@harn/parser";
import { isPure, leafEqual } from "../ast-util";
import type { Rule } from "../types";

/** `==`/`!=` of an expression with itself (leaf equality, quirk Q8). */
export function isSelfComparison(n: BinaryOp): boolean {
  return (n.op === "==" || n.op === "!=") && leafEqual(n.left, n.right) && isPure(n.left) && isPure(n.right);
}

/** Operands that need parentheses after a prefix `!`. */
function needsParens(n: Node): boolean {
  return n.kind === "BinaryOp" || n.kind === "Ternary" || n.kind === "RangeExpr";
}

export const comparisonToBool: Rule = {
  id: "comparison-to-bool",
  severity: "warning",
  description: "`x == true`, `x != false`, etc.",
  fixable: true,
  create(ctx) {
    return {
      BinaryOp(n) {
        if (n.op !== "==" && n.op !== "!=") return;
        const lit = n.right.kind === "BoolLiteral" ? n.right : n.left.kind === "BoolLiteral" ? n.left : null;
        if (!lit || lit.kind !== "BoolLiteral" || isSelfComparison(n)) return;
        const other = lit === n.right ? n.left : n.right;
        // `== true` and `!= false` keep the operand; the others negate it
        const keeps = (n.op === "==") === lit.value;
        const message =
          n.op === "==" ? `comparison to \`${lit.value}\` is redundant` : `\`!= ${lit.value}\` is redundant`;
        const help = keeps ? "remove the comparison, use the expression directly" : "use `!expr` instead";
        let fix;
        if (ctx.sourceText) {
          const e = ctx.text(other);
          const replacement = keeps ? e : needsParens(other) ? `!(${e})` : `!${e}`;
          fix = [{ span: n.span, replacement }];
        }
        ctx.report({ node: n, message, help, ...(fix ? { fix } : {}) });
      },
    };
  },
};

export const pointlessComparison: Rule = {
  id: "pointless-comparison",
  severity: "warning",
  description: "An expression compared with itself, or an `if` on a literal `true`/`false`",
  fixable: true,
  create(ctx) {
    return {
      BinaryOp(n) {
        if (!isSelfComparison(n)) return;
        const value = n.op === "==" ? "true" : "false";
        ctx.report({
          node: n,
          message: `expression is compared to itself with \`${n.op}\``,
          help: `replace this comparison with \`${value}\``,
          fix: [{ span: n.span, replacement: value }],
        });
      },
      IfElse(n) {
        if (n.condition.kind !== "BoolLiteral") return;
        ctx.report({
          node: n.condition,
          message: `if condition is always \`${n.condition.value}\``,
          help: "remove the constant condition or replace it with real branching",
        });
      },
    };
  },
};
