/**
 * `empty-block` (lint.md §3.11). The delete-the-statement fix is offered
 * only for a statement (never for an `if` used as a value), and only when
 * nothing with an effect would disappear with it.
 */
import { isPure } from "../ast-util";
import { deleteStatement } from "../fix-edits";
import type { Report, Rule } from "../types";

export const emptyBlock: Rule = {
  id: "empty-block",
  meta: {
    reusable: true,
    severity: "warning",
    description: "An `if`, `for`, `while` or `try` with an empty body",
    fixable: true,
    messages: {
      if: { message: "if block has an empty body", help: "remove the empty if or add a body" },
      for: { message: "for loop has an empty body", help: "remove the empty for loop or add a body" },
      while: { message: "while loop has an empty body", help: "remove the empty while loop or add a body" },
      try: { message: "try block has an empty body", help: "remove the empty try/catch or add a body" },
    },
  },
  create(ctx) {
    const report = (r: Report, deletable: boolean): void => {
      const src = ctx.sourceText;
      if (deletable && src && r.node && ctx.isStatement(r.node)) r.fix = [deleteStatement(src, r.node.span)];
      ctx.report(r);
    };
    return {
      IfElse(n) {
        if (n.thenBody.length > 0) return;
        report(
          { node: n, messageId: "if" },
          n.elseBody === null && isPure(n.condition),
        );
      },
      ForIn(n) {
        if (n.body.length > 0) return;
        report(
          { node: n, messageId: "for" },
          isPure(n.iterable),
        );
      },
      WhileLoop(n) {
        if (n.body.length > 0) return;
        report({ node: n, messageId: "while" }, false);
      },
      TryCatch(n) {
        if (n.body.length > 0) return;
        report({ node: n, messageId: "try" }, false);
      },
    };
  },
};
