/**
 * `assert-outside-test` and `require-in-test` (lint.md §3.13, §3.14). A
 * test pipeline is named `test` or `test_*`, or carries `@test` (quirk Q6,
 * FIX); everything nested inside it counts as inside.
 */
import type { AnyNode, Rule } from "../types";

const ASSERTS = new Set(["assert", "assert_eq", "assert_ne"]);

export function isTestName(name: string): boolean {
  return name === "test" || name.startsWith("test_");
}

/** Is the node whose ancestors these are inside a test pipeline? Asked
 * only where an `assert` or `require` is found (rare), so a file pays
 * nothing for tracking pipelines as the walk enters and leaves them. */
function insideTest(ancestors: readonly AnyNode[]): boolean {
  for (let j = ancestors.length - 1; j >= 0; j--) {
    const p = ancestors[j]!;
    if (p.kind !== "Pipeline") continue;
    if (isTestName(p.name)) return true;
    // `@test pipeline ..`: the attributes wrapping it directly
    for (let i = j - 1; i >= 0; i--) {
      const a = ancestors[i]!;
      if (a.kind !== "AttributedDecl") break;
      if (a.attributes.some((x) => x.name === "test")) return true;
    }
  }
  return false;
}

export const assertOutsideTest: Rule = {
  id: "assert-outside-test",
  meta: {
    reusable: true,
    severity: "warning",
    description: "`assert`/`assert_eq`/`assert_ne` outside a test pipeline",
    fixable: false,
    triggers: { words: [...ASSERTS] },
    messages: {
      assert: {
        message: "`{name}` is intended for test pipelines, not production control flow",
        help: "use `require` for invariants in non-test code",
      },
    },
  },
  create(ctx) {
    return {
      FunctionCall(n) {
        if (!ASSERTS.has(n.name) || insideTest(ctx.ancestors())) return;
        ctx.report({
          node: n,
          messageId: "assert",
          data: { name: n.name },
        });
      },
    };
  },
};

export const requireInTest: Rule = {
  id: "require-in-test",
  meta: {
    reusable: true,
    severity: "warning",
    description: "A `require` statement inside a test pipeline",
    fixable: false,
    triggers: { words: ["require"] },
    messages: {
      require: {
        message: "`require` in a test pipeline should usually be an assertion",
        help: "prefer `assert(...)` or `assert_eq(...)` in test pipelines",
      },
    },
  },
  create(ctx) {
    return {
      RequireStmt(n) {
        if (!insideTest(ctx.ancestors())) return;
        ctx.report({
          node: n,
          messageId: "require",
        });
      },
    };
  },
};
