/** `mutable-never-reassigned` (lint.md §3.10). */
import type { Rule } from "../types";

export const mutableNeverReassigned: Rule = {
  id: "mutable-never-reassigned",
  meta: {
    reusable: true,
    severity: "warning",
    description: "A `var` that is never assigned to",
    fixable: true,
    messages: { neverReassigned: { message: "variable `{name}` is declared as `var` but never reassigned", help: "use `let` instead of `var`" } },
  },
  create(ctx) {
    return {
      finalize() {
        for (const b of ctx.facts.bindings) {
          if (!b.mutable || ctx.facts.assignments.has(b.name)) continue;
          // `var b = 1` .. `var b = 2` may declare a name twice; two `let`s
          // may not: no fix for a name declared more than once
          const once = ctx.facts.bindings.filter((x) => x.name === b.name).length === 1;
          const src = once ? ctx.sourceText : null;
          const at = src ? ctx.text(b.node).indexOf("var") : -1;
          const fix =
            src && at >= 0 ? [{ span: src.span(b.node.span.start + at, b.node.span.start + at + 3), replacement: "let" }] : undefined;
          ctx.report({
            node: b.node,
            messageId: "neverReassigned",
            data: { name: b.name },
            ...(fix ? { fix } : {}),
          });
        }
      },
    };
  },
};
