/**
 * `assert-outside-test` and `require-in-test` (lint.md §3.13, §3.14). A
 * test pipeline is named `test` or `test_*`, or carries `@test` (quirk Q6,
 * FIX); everything nested inside it counts as inside.
 */
import type { Pipeline } from "@harn/parser";
import type { AnyNode, Rule, RuleContext } from "../types";

const ASSERTS = new Set(["assert", "assert_eq", "assert_ne"]);

export function isTestName(name: string): boolean {
  return name === "test" || name.startsWith("test_");
}

function isTestPipeline(p: Pipeline, ancestors: readonly AnyNode[]): boolean {
  if (isTestName(p.name)) return true;
  for (let i = ancestors.length - 1; i >= 0; i--) {
    const a = ancestors[i]!;
    if (a.kind !== "AttributedDecl") break;
    if (a.attributes.some((x) => x.name === "test")) return true;
  }
  return false;
}

/** Tracks whether the walk is inside a test pipeline. */
function testDepth(ctx: RuleContext): { inTest(): boolean; visitors: object } {
  let depth = 0;
  const stack: boolean[] = [];
  return {
    inTest: () => depth > 0,
    visitors: {
      Pipeline(p: Pipeline) {
        const t = isTestPipeline(p, ctx.ancestors());
        stack.push(t);
        if (t) depth++;
      },
      "Pipeline:exit"() {
        if (stack.pop()) depth--;
      },
    },
  };
}

export const assertOutsideTest: Rule = {
  id: "assert-outside-test",
  meta: {
    severity: "warning",
    description: "`assert`/`assert_eq`/`assert_ne` outside a test pipeline",
    fixable: false,
    messages: {
      assert: {
        message: "`{name}` is intended for test pipelines, not production control flow",
        help: "use `require` for invariants in non-test code",
      },
    },
  },
  create(ctx) {
    const t = testDepth(ctx);
    return {
      ...t.visitors,
      FunctionCall(n) {
        if (!ASSERTS.has(n.name) || t.inTest()) return;
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
    severity: "warning",
    description: "A `require` statement inside a test pipeline",
    fixable: false,
    messages: {
      require: {
        message: "`require` in a test pipeline should usually be an assertion",
        help: "prefer `assert(...)` or `assert_eq(...)` in test pipelines",
      },
    },
  },
  create(ctx) {
    const t = testDepth(ctx);
    return {
      ...t.visitors,
      RequireStmt(n) {
        if (!t.inTest()) return;
        ctx.report({
          node: n,
          messageId: "require",
        });
      },
    };
  },
};
