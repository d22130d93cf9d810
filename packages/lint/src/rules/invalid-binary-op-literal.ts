/**
 * `invalid-binary-op-literal` (lint.md §3.12): arithmetic on `true`,
 * `false` or `nil`, which always fails at run time. For `"text" + nil` the
 * fix folds the literal into the string as an interpolation.
 */
import type { BinaryOp, Node } from "@harn/parser";
import type { FixEdit, Rule, RuleContext } from "../types";

const ARITHMETIC = new Set(["+", "-", "*", "/", "%"]);

const isBoolOrNil = (n: Node): boolean => n.kind === "BoolLiteral" || n.kind === "NilLiteral";

export const invalidBinaryOpLiteral: Rule = {
  id: "invalid-binary-op-literal",
  severity: "warning",
  description: "Arithmetic with a `true`/`false`/`nil` literal operand",
  fixable: true,
  create(ctx) {
    return {
      BinaryOp(n) {
        if (!ARITHMETIC.has(n.op) || !(isBoolOrNil(n.left) || isBoolOrNil(n.right))) return;
        const fix = interpolationFix(ctx, n);
        ctx.report({
          node: n,
          message: `operator '${n.op}' used with boolean or nil literal \u2014 this will cause a runtime error`,
          help: "use to_string() or string interpolation to convert values explicitly",
          ...(fix ? { fix: [fix] } : {}),
        });
      },
    };
  },
};

/** A plain double-quoted, single-line string literal's source text. */
function plainString(ctx: RuleContext, n: Node): string | null {
  if (n.kind !== "StringLiteral") return null;
  const t = ctx.text(n);
  if (!t.startsWith('"') || t.startsWith('"""') || t.length < 2 || !t.endsWith('"')) return null;
  return t;
}

function interpolationFix(ctx: RuleContext, n: BinaryOp): FixEdit | null {
  if (n.op !== "+" || !ctx.sourceText) return null;
  const leftStr = plainString(ctx, n.left);
  const rightStr = plainString(ctx, n.right);
  let text: string;
  if (leftStr !== null && isBoolOrNil(n.right)) {
    text = `${leftStr.slice(0, -1)}\${${ctx.text(n.right)}}"`;
  } else if (rightStr !== null && isBoolOrNil(n.left)) {
    text = `"\${${ctx.text(n.left)}}${rightStr.slice(1)}`;
  } else {
    return null;
  }
  return { span: n.span, replacement: text };
}
