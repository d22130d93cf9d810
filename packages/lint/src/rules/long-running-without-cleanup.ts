/**
 * `long-running-without-cleanup`, exactly as the reference (lint.md §4):
 * a background call is reported unless its owner body (pipeline, fn, tool,
 * closure) has a defer/finally cleanup path that cancels *some* handle.
 * With checked handles on (extensions.md §4) the path-sensitive analysis
 * in ../handles replaces this syntactic check.
 */
import type { Node } from "@harn/parser";
import { isCancelCall, isLongRunningCall, isLongRunningToolsCall } from "../long-running-calls";
import { checkedHandleVisitors } from "../handles/checked-handles";
import type { Rule } from "../types";

export const LONG_RUNNING_HELP =
  "store the returned handle and cancel it from a defer or finally block with `tools.cancel_handle`";

export function longRunningMessage(callee: string): string {
  return `\`${callee}\` starts long-running work without a defer/finally cleanup path`;
}

export const longRunningWithoutCleanup: Rule = {
  id: "long-running-without-cleanup",
  severity: "warning",
  description: "A call started with `long_running: true`/`background: true` has no defer/finally that cancels a handle",
  fixable: false,
  create(ctx) {
    if (ctx.options.checkedHandles) return checkedHandleVisitors(ctx);
    // owner bodies, innermost last; whether one provides cleanup is worked
    // out only when a long-running call is found in it
    const stack: { body: Node[]; cleanup: boolean | null }[] = [];
    const enter = (n: { body: Node[] }): void => {
      stack.push({ body: n.body, cleanup: null });
    };
    const exit = (): void => {
      stack.pop();
    };
    const check = (n: Node, callee: string): void => {
      const top = stack[stack.length - 1];
      if (top && (top.cleanup ??= top.body.some(providesCleanup))) return;
      ctx.report({ node: n, message: longRunningMessage(callee), help: LONG_RUNNING_HELP });
    };
    return {
      Pipeline: enter,
      "Pipeline:exit": exit,
      FnDecl: enter,
      "FnDecl:exit": exit,
      ToolDecl: enter,
      "ToolDecl:exit": exit,
      Closure: enter,
      "Closure:exit": exit,
      FunctionCall(n) {
        if (isLongRunningCall(n)) check(n, n.name);
      },
      MethodCall(n) {
        if (isLongRunningToolsCall(n)) check(n, `tools.${n.method}`);
      },
    };
  },
};

/** §4.3 "cleanup statement". */
export function providesCleanup(s: Node): boolean {
  switch (s.kind) {
    case "DeferStmt":
      return containsCancel(s.body);
    case "TryCatch":
      return (
        (s.finallyBody !== null && containsCancel(s.finallyBody)) ||
        s.body.some(providesCleanup) ||
        s.catchBody.some(providesCleanup)
      );
    case "IfElse":
      return s.thenBody.some(providesCleanup) || (s.elseBody?.some(providesCleanup) ?? false);
    case "ForIn":
    case "WhileLoop":
    case "Retry":
    case "SpawnExpr":
    case "Closure":
      return s.body.some(providesCleanup);
    default:
      return false;
  }
}

/** §4.3 "contains a cancel call": the reference's search, which does not
 * enter `let`/`var` initializers, assignments, match, guard, try
 * expressions, parallel, select, deadline, mutex or interpolations. */
export function containsCancel(stmts: Node[]): boolean {
  return stmts.some(reachesCancel);
}

function reachesCancel(n: Node): boolean {
  switch (n.kind) {
    case "FunctionCall":
      return isCancelCall(n) || n.args.some(reachesCancel);
    case "MethodCall":
    case "OptionalMethodCall":
      return isCancelCall(n) || reachesCancel(n.object) || n.args.some(reachesCancel);
    case "DictLiteral":
      return n.entries.some((e) => reachesCancel(e.key) || reachesCancel(e.value));
    case "ListLiteral":
      return n.elements.some(reachesCancel);
    case "IfElse":
      return reachesCancel(n.condition) || containsCancel(n.thenBody) || (n.elseBody !== null && containsCancel(n.elseBody));
    case "TryCatch":
      return containsCancel(n.body) || containsCancel(n.catchBody) || (n.finallyBody !== null && containsCancel(n.finallyBody));
    case "DeferStmt":
    case "ForIn":
    case "WhileLoop":
    case "Retry":
    case "SpawnExpr":
    case "Closure":
      return containsCancel(n.body);
    case "PropertyAccess":
    case "OptionalPropertyAccess":
    case "SubscriptAccess":
    case "OptionalSubscriptAccess":
    case "SliceAccess":
      return reachesCancel(n.object);
    case "BinaryOp":
      return reachesCancel(n.left) || reachesCancel(n.right);
    case "UnaryOp":
    case "TryOperator":
    case "TryStar":
      return reachesCancel(n.operand);
    case "Ternary":
      return reachesCancel(n.condition) || reachesCancel(n.thenExpr) || reachesCancel(n.elseExpr);
    case "ReturnStmt":
    case "YieldExpr":
      return n.value !== null && reachesCancel(n.value);
    case "ThrowStmt":
    case "EmitExpr":
      return reachesCancel(n.value);
    case "AttributedDecl":
      return reachesCancel(n.inner);
    default:
      return false;
  }
}
