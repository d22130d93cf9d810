/**
 * `unhandled-approval-result` (lint.md §3.30): `request_approval(..)` as a
 * statement whose value nobody looks at, except as the final statement of
 * a block whose value is used (a try expression, a closure, spawn or
 * parallel body, a branch of an `if`/`match` used as a value).
 */
import type { Node } from "@harn/parser";
import type { BlockInfo, Rule } from "../types";

function producesValue(b: BlockInfo, statementOwners: ReadonlySet<Node>): boolean {
  switch (b.role) {
    case "tryExpr":
    case "spawn":
    case "parallel":
      return true;
    case "body":
      return b.owner.kind === "Closure";
    case "then":
    case "else":
    case "arm":
    case "try":
    case "catch":
      return !statementOwners.has(b.owner as Node);
    default:
      return false;
  }
}

export const unhandledApprovalResult: Rule = {
  id: "unhandled-approval-result",
  meta: {
    reusable: true,
    severity: "warning",
    description: "`request_approval(..)` used as a statement whose result is discarded",
    triggers: { words: ["request_approval"] },
    fixable: false,
    messages: {
      discarded: {
        message: "approval result from `request_approval` is discarded",
        help: "bind the result, inspect its signed approver receipts, or explicitly assign it to `_`",
      },
    },
  },
  create(ctx) {
    /** if/match/try nodes that are statements (their branches' values are dropped). */
    const statementOwners = new Set<Node>();
    return {
      // made once per run (meta.reusable): a file starts afresh
      Program() {
        statementOwners.clear();
      },
      Block(b) {
        const stmts = b.stmts;
        const isProgram = b.role === "program";
        // valueBlock is worked out only for a block that holds a call
        let valueBlock: boolean | null = null;
        for (let i = 0; i < stmts.length; i++) {
          const s = stmts[i]!;
          if (s.kind === "IfElse" || s.kind === "MatchExpr" || s.kind === "TryCatch") statementOwners.add(s);
          else if (!isProgram && s.kind === "FunctionCall" && s.name === "request_approval") {
            valueBlock ??= producesValue(b, statementOwners);
            if (valueBlock && i === stmts.length - 1) continue;
            ctx.report({
              node: s,
              messageId: "discarded",
            });
          }
        }
      },
    };
  },
};
