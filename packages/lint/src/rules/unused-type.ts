/**
 * `unused-type` (lint.md §3.24). Annotations on `let`/`var` and closure
 * parameters, call-style construction `Name({..})` and `Name.Variant`
 * access count as references too (quirk Q9, FIX: only removes false
 * positives).
 */
import type { Rule } from "../types";

export const unusedType: Rule = {
  id: "unused-type",
  meta: {
    reusable: true,
    severity: "warning",
    description: "A struct/enum/interface that is never referenced",
    fixable: false,
    messages: {
      unused: {
        message: "{kind} `{name}` is declared but never referenced",
        help: "remove the unused {kind} or reference `{name}` from a signature or constructor",
      },
    },
  },
  create(ctx) {
    return {
      finalize() {
        for (const t of ctx.facts.types) {
          if (ctx.facts.typeRefs.has(t.name)) continue;
          ctx.report({
            node: t.node,
            messageId: "unused",
            data: { kind: t.kind, name: t.name },
          });
        }
      },
    };
  },
};
