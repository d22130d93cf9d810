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
  severity: "warning",
  description: "`request_approval(..)` used as a statement whose result is discarded",
  fixable: false,
  create(ctx) {
    /** if/match/try nodes that are statements (their branches' values are dropped). */
    const statementOwners = new Set<Node>();
    return {
      Block(b) {
        for (const s of b.stmts) {
          if (s.kind === "IfElse" || s.kind === "MatchExpr" || s.kind === "TryCatch") statementOwners.add(s);
        }
        if (b.role === "program") return;
        const valueBlock = producesValue(b, statementOwners);
        b.stmts.forEach((s, i) => {
          if (s.kind !== "FunctionCall" || s.name !== "request_approval") return;
          if (valueBlock && i === b.stmts.length - 1) return;
          ctx.report({
            node: s,
            message: "approval result from `request_approval` is discarded",
            help: "bind the result, inspect its signed approver receipts, or explicitly assign it to `_`",
          });
        });
      },
    };
  },
};
