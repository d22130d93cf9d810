/** `duplicate-match-arm` (lint.md §3.17; leaf equality, quirk Q8). */
import type { MatchArm } from "@harn/parser";
import { leafEqual } from "../ast-util";
import type { Rule } from "../types";

function sameArm(a: MatchArm, b: MatchArm): boolean {
  if (!leafEqual(a.pattern, b.pattern)) return false;
  if (a.guard === null || b.guard === null) return a.guard === b.guard;
  return leafEqual(a.guard, b.guard);
}

export const duplicateMatchArm: Rule = {
  id: "duplicate-match-arm",
  meta: {
    reusable: true,
    severity: "warning",
    description: "A `match` arm whose pattern (and guard) repeats an earlier arm",
    fixable: false,
    triggers: { words: ["match"] },
    messages: { duplicate: { message: "duplicate match arm pattern", help: "remove the duplicate arm" } },
  },
  create(ctx) {
    return {
      MatchExpr(n) {
        n.arms.forEach((arm, i) => {
          if (!n.arms.slice(0, i).some((prev) => sameArm(prev, arm))) return;
          ctx.report({ node: arm.pattern, messageId: "duplicate" });
        });
      },
    };
  },
};
