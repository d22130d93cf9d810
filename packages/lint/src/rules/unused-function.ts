/** `unused-function` (lint.md §3.7). */
import type { Diagnostic, Rule } from "../types";

const MESSAGE = /^function `(.+)` is declared but never used$/;

export function unusedFunctionMessage(name: string): string {
  return `function \`${name}\` is declared but never used`;
}

/** The function an `unused-function` finding names (null for other
 * findings). Lets a caller that learns of more cross-file imports later
 * (the CLI lints file by file) drop findings after the fact. */
export function unusedFunctionName(d: Diagnostic): string | null {
  if (d.code !== "unused-function") return null;
  return MESSAGE.exec(d.message)?.[1] ?? null;
}

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
            message: unusedFunctionMessage(f.name),
            help: `remove the function or prefix with underscore: \`_${f.name}\``,
          });
        }
      },
    };
  },
};
