/**
 * `unused-parameter` (lint.md §3.5). Points at the parameter itself rather
 * than the whole function (quirk Q16, MAY FIX): the caret lands on the name.
 */
import type { Rule } from "../types";

export const unusedParameter: Rule = {
  id: "unused-parameter",
  meta: {
    reusable: true,
    severity: "warning",
    description: "A fn/tool/closure parameter that is never read",
    fixable: false,
    messages: { unused: { message: "parameter `{name}` is declared but never used", help: "prefix with underscore: `_{name}`" } },
  },
  create(ctx) {
    return {
      finalize() {
        for (const { name, owner } of ctx.facts.params) {
          if (name.startsWith("_") || ctx.facts.references.has(name)) continue;
          const param = owner.params.find((p) => p.name === name);
          ctx.report({
            span: param?.span ?? owner.span,
            messageId: "unused",
            data: { name },
          });
        }
      },
    };
  },
};
