/** `unused-function` (lint.md §3.7). */
import type { Rule } from "../types";

export const unusedFunction: Rule = {
  id: "unused-function",
  severity: "warning",
  description: "A non-`pub` fn/tool/skill/eval pack that is never referenced",
  fixable: false,
  create(ctx) {
    return {
      finalize() {
        for (const f of ctx.facts.functions) {
          if (ctx.options.externallyImported.has(f.name) || ctx.facts.references.has(f.name)) continue;
          ctx.report({
            node: f.node,
            message: `function \`${f.name}\` is declared but never used`,
            help: `remove the function or prefix with underscore: \`_${f.name}\``,
          });
        }
      },
    };
  },
};
