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

/** Is `n` surely a bool? Only then is `x == false` the same as `!x`
 * (`nil == false` is false, `!nil` true) and `x == true` the same as `x`
 * in a condition. */
export function surelyBool(n: Node): boolean {
  switch (n.kind) {
    case "BoolLiteral":
      return true;
    case "UnaryOp":
      return n.op === "!";
    case "BinaryOp":
      if (n.op === "&&" || n.op === "||") return surelyBool(n.left) && surelyBool(n.right);
      return ["==", "!=", "<", ">", "<=", ">=", "in", "not in"].includes(n.op);
    default:
      return false;
  }
}

/** Is `x == x` surely true for this operand? Not for a float (NaN), a
 * duration or a function, which the language compares otherwise: only for
 * int, string, bool and nil literals. */
function reflexive(n: Node): boolean {
  return n.kind === "IntLiteral" || n.kind === "StringLiteral" || n.kind === "RawStringLiteral" || n.kind === "BoolLiteral" || n.kind === "NilLiteral";
}

/** Operands that need parentheses after a prefix `!`. */
function needsParens(n: Node): boolean {
  return n.kind === "BinaryOp" || n.kind === "Ternary" || n.kind === "RangeExpr";
}

export const comparisonToBool: Rule = {
  id: "comparison-to-bool",
  meta: {
    reusable: true,
    severity: "warning",
    description: "`x == true`, `x != false`, etc.",
    fixable: true,
    triggers: { words: ["true", "false"] },
    messages: {
      eqKeep: { message: "comparison to `{value}` is redundant", help: "remove the comparison, use the expression directly" },
      eqNegate: { message: "comparison to `{value}` is redundant", help: "use `!expr` instead" },
      neKeep: { message: "`!= {value}` is redundant", help: "remove the comparison, use the expression directly" },
      neNegate: { message: "`!= {value}` is redundant", help: "use `!expr` instead" },
    },
  },
  create(ctx) {
    return {
      BinaryOp(n) {
        if (n.op !== "==" && n.op !== "!=") return;
        const lit = n.right.kind === "BoolLiteral" ? n.right : n.left.kind === "BoolLiteral" ? n.left : null;
        if (!lit || lit.kind !== "BoolLiteral" || isSelfComparison(n)) return;
        const other = lit === n.right ? n.left : n.right;
        // `== true` and `!= false` keep the operand; the others negate it
        const keeps = (n.op === "==") === lit.value;
        const messageId = `${n.op === "==" ? "eq" : "ne"}${keeps ? "Keep" : "Negate"}`;
        let fix;
        if (ctx.sourceText && surelyBool(other)) {
          const e = ctx.text(other);
          const replacement = keeps ? e : needsParens(other) ? `!(${e})` : `!${e}`;
          fix = [{ span: n.span, replacement }];
        }
        ctx.report({ node: n, messageId, data: { value: String(lit.value) }, ...(fix ? { fix } : {}) });
      },
    };
  },
};

export const pointlessComparison: Rule = {
  id: "pointless-comparison",
  meta: {
    reusable: true,
    severity: "warning",
    description: "An expression compared with itself, or an `if` on a literal `true`/`false`",
    fixable: true,
    // punctuation counts as a word here: tokens of its own kind
    triggers: { words: ["==", "!=", "true", "false"] },
    messages: {
      self: { message: "expression is compared to itself with `{op}`", help: "replace this comparison with `{value}`" },
      constantIf: { message: "if condition is always `{value}`", help: "remove the constant condition or replace it with real branching" },
    },
  },
  create(ctx) {
    return {
      BinaryOp(n) {
        if (!isSelfComparison(n)) return;
        const value = n.op === "==" ? "true" : "false";
        ctx.report({
          node: n,
          messageId: "self",
          data: { op: n.op, value },
          ...(reflexive(n.left) ? { fix: [{ span: n.span, replacement: value }] } : {}),
        });
      },
      IfElse(n) {
        if (n.condition.kind !== "BoolLiteral") return;
        ctx.report({
          node: n.condition,
          messageId: "constantIf",
          data: { value: String(n.condition.value) },
        });
      },
    };
  },
};
