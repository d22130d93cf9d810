/** `unused-function` (lint.md §3.7). */
import type { Diagnostic, Rule } from "../types";

const MESSAGE = /^function `(.+)` is declared but never used$/;

/** The function an `unused-function` finding names (null for other
 * findings). Lets a caller that learns of more cross-file imports later
 * (the CLI lints file by file) drop findings after the fact. */
export function unusedFunctionName(d: Diagnostic): string | null {
  if (d.code !== "unused-function") return null;
  return MESSAGE.exec(d.message)?.[1] ?? null;
}

export const unusedFunction: Rule = {
  id: "unused-function",
  meta: {
    reusable: true,
    severity: "warning",
    description: "A non-`pub` fn/tool/skill/eval pack that is never referenced",
    fixable: false,
    messages: {
      // unusedFunctionName reads the name back out of this message
      unused: { message: "function `{name}` is declared but never used", help: "remove the function or prefix with underscore: `_{name}`" },
    },
  },
  create(ctx) {
    return {
      finalize() {
        for (const f of ctx.facts.functions) {
          if (ctx.project.externallyImported.has(f.name) || ctx.facts.references.has(f.name)) continue;
          ctx.report({
            node: f.node,
            messageId: "unused",
            data: { name: f.name },
          });
        }
      },
    };
  },
};
