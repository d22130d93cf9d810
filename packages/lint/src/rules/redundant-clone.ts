/** `redundant-clone` (lint.md §3.22): `f(v.clone())`. */
import type { Node } from "@harn/parser";
import type { Rule, RuleContext } from "../types";

export const redundantClone: Rule = {
  id: "redundant-clone",
  meta: {
    reusable: true,
    severity: "warning",
    description: "`f(v.clone())`: a clone passed straight to a call",
    fixable: true,
    triggers: { words: ["clone"] },
    messages: {
      dropped: { message: "cloned value is immediately dropped", help: "drop the original value directly" },
      passed: {
        message: "cloned value is immediately passed by value",
        help: "pass the original value directly unless a distinct snapshot is required",
      },
    },
  },
  create(ctx) {
    return {
      FunctionCall(n) {
        check(ctx, n.name, n.args);
      },
      MethodCall(n) {
        check(ctx, n.method, n.args);
      },
      OptionalMethodCall(n) {
        check(ctx, n.method, n.args);
      },
    };
  },
};

function check(ctx: RuleContext, callee: string, args: Node[]): void {
  for (const a of args) {
    if (a.kind !== "MethodCall" || a.method !== "clone" || a.args.length > 0) continue;
    const drop = callee === "drop";
    ctx.report({
      node: a,
      messageId: drop ? "dropped" : "passed",
      ...(ctx.sourceText ? { fix: [{ span: a.span, replacement: ctx.text(a.object) }] } : {}),
    });
  }
}
