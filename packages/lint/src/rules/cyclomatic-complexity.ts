/**
 * `cyclomatic-complexity` (lint.md §3.27). Scores accumulate during the
 * shared walk: each branching node adds to the innermost enclosing fn/tool
 * (closures are part of their function; a nested fn is scored on its own).
 */
import type { AttributedDecl, FnDecl, Node, ToolDecl } from "@harn/parser";
import type { Rule } from "../types";
import { clearArray } from "../reuse";

function allowsComplexity(a: AttributedDecl): boolean {
  return a.attributes.some(
    (x) => x.name === "complexity" && x.args.some((arg) => arg.name === null && arg.value.kind === "Identifier" && arg.value.name === "allow"),
  );
}

export const cyclomaticComplexity: Rule<{ threshold: number }> = {
  id: "cyclomatic-complexity",
  meta: {
    reusable: true,
    severity: "warning",
    description: "A fn/tool whose complexity score is above the threshold (default 25)",
    fixable: false,
    messages: {
      tooComplex: {
        message: "function `{name}` has cyclomatic complexity {score} (> {threshold})",
        help: "split `{name}` into smaller helpers, or mark it `@complexity(allow)` if the branching is intrinsic; threshold configurable via `[lint].complexity_threshold` in `harn.toml`",
      },
    },
    defaultOptions: { threshold: 25 },
    // A function scores 1 and each branch point inside it 1 (a `select`
    // its number of cases): where the whole file has fewer than
    // `threshold` of the words that make them, none scores above it.
    triggers: {
      words: ["select"],
      atLeast: { words: ["if", "for", "while", "retry", "match", "guard", "try", "?", "&&", "||"], count: (o: { threshold: number }) => (typeof o.threshold === "number" ? o.threshold : 0) },
    },
  },
  create(ctx) {
    const scores: number[] = [];
    /** Depth of `@complexity(allow)` declarations around the walk. */
    let allowed = 0;
    const allowStack: boolean[] = [];
    const add = (k: number): void => {
      if (scores.length > 0) scores[scores.length - 1]! += k;
    };
    const enter = (): void => {
      scores.push(1);
    };
    const exit = (n: FnDecl | ToolDecl): void => {
      const score = scores.pop()!;
      const threshold = ctx.options.threshold;
      if (allowed > 0 || score <= threshold) return;
      ctx.report({
        node: n,
        messageId: "tooComplex",
        data: { name: n.name, score, threshold },
      });
    };
    const one = (): void => add(1);
    return {
      // made once per run (meta.reusable): a file starts afresh
      Program() {
        clearArray(scores);
        allowed = 0;
        clearArray(allowStack);
      },
      AttributedDecl(n) {
        const a = allowsComplexity(n);
        allowStack.push(a);
        if (a) allowed++;
      },
      "AttributedDecl:exit"() {
        if (allowStack.pop()) allowed--;
      },
      FnDecl: enter,
      "FnDecl:exit": exit,
      ToolDecl: enter,
      "ToolDecl:exit": exit,
      IfElse: one,
      ForIn: one,
      WhileLoop: one,
      Retry: one,
      MatchExpr: one,
      GuardStmt: one,
      TryCatch: one,
      Ternary: one,
      SelectExpr(n) {
        add(n.cases.length);
      },
      BinaryOp(n: Node & { op: string }) {
        if (n.op === "&&" || n.op === "||") add(1);
      },
    };
  },
};
