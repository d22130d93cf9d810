/**
 * `invalid-binary-op-literal` (lint.md §3.12): arithmetic on `true`,
 * `false` or `nil`, which always fails at run time. For `"text" + nil` the
 * fix folds the literal into the string as an interpolation.
 */
import type { BinaryOp, Node } from "@harn/parser";
import type { FixEdit, Rule, RuleContext } from "../types";
import { stringConcatFix } from "../string-concat-fix";

const ARITHMETIC = new Set(["+", "-", "*", "/", "%"]);

const isBoolOrNil = (n: Node): boolean => n.kind === "BoolLiteral" || n.kind === "NilLiteral";

export const invalidBinaryOpLiteral: Rule = {
  id: "invalid-binary-op-literal",
  meta: {
    reusable: true,
    severity: "warning",
    description: "Arithmetic with a `true`/`false`/`nil` literal operand",
    fixable: false,
    messages: {
      literal: {
        message: "operator '{op}' used with boolean or nil literal \u2014 this will cause a runtime error",
        help: "use to_string() or string interpolation to convert values explicitly",
      },
      literalInterpolate: {
        message: "operator '{op}' used with boolean or nil literal \u2014 this will cause a runtime error",
        help: "use string interpolation to convert values explicitly: `{suggestion}`",
      },
    },
  },
  create(ctx) {
    return {
      BinaryOp(n) {
        if (!ARITHMETIC.has(n.op) || !(isBoolOrNil(n.left) || isBoolOrNil(n.right))) return;
        // The interpolated form is shown, not applied by --fix: the
        // expression fails at run time, and a fix must not change what a
        // program does (issue 18), failing included.
        const fix = interpolationFix(ctx, n);
        ctx.report({ node: n, messageId: fix ? "literalInterpolate" : "literal", data: { op: n.op, suggestion: fix?.replacement ?? "" } });
      },
    };
  },
};

function interpolationFix(ctx: RuleContext, n: BinaryOp): FixEdit | null {
  return ctx.sourceText ? stringConcatFix(ctx.sourceText.text, n, isBoolOrNil) : null;
}
