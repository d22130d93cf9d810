/** `break-outside-loop` (lint.md §3.2): the only error-severity rule. */
import type { Rule } from "../types";
import { clearArray } from "../reuse";

export const breakOutsideLoop: Rule = {
  id: "break-outside-loop",
  meta: {
    reusable: true,
    severity: "error",
    description: "`break`/`continue` not inside a `for`/`while` of the same function",
    fixable: false,
    triggers: { words: ["break", "continue"] },
    messages: { outside: { message: "`{kw}` used outside of a loop", help: "`{kw}` can only be used inside for or while loops" } },
  },
  create(ctx) {
    let depth = 0;
    const saved: number[] = [];
    const enterFn = (): void => {
      saved.push(depth);
      depth = 0;
    };
    const exitFn = (): void => {
      depth = saved.pop() ?? 0;
    };
    const report = (kw: "break" | "continue", node: import("@harn/parser").Node): void => {
      if (depth > 0) return;
      ctx.report({
        node,
        messageId: "outside",
        data: { kw },
      });
    };
    return {
      // made once per run (meta.reusable): a file starts afresh
      Program() {
        depth = 0;
        clearArray(saved);
      },
      FnDecl: enterFn,
      "FnDecl:exit": exitFn,
      ToolDecl: enterFn,
      "ToolDecl:exit": exitFn,
      Closure: enterFn,
      "Closure:exit": exitFn,
      ForIn() {
        depth++;
      },
      "ForIn:exit"() {
        depth--;
      },
      WhileLoop() {
        depth++;
      },
      "WhileLoop:exit"() {
        depth--;
      },
      BreakStmt(n) {
        report("break", n);
      },
      ContinueStmt(n) {
        report("continue", n);
      },
    };
  },
};
