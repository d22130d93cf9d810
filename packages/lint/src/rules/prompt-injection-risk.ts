/** `prompt-injection-risk` (lint.md §3.29). */
import type { Rule } from "../types";

export const promptInjectionRisk: Rule = {
  id: "prompt-injection-risk",
  meta: {
    reusable: true,
    severity: "warning",
    description: "Interpolated system prompt (2nd argument) of `llm_call`",
    fixable: false,
    triggers: { words: ["llm_call"] },
    messages: {
      interpolated: {
        message: "interpolated data in the `llm_call` system prompt can smuggle untrusted instructions",
        help: "keep the system prompt static and pass dynamic data in the user prompt or options",
      },
    },
  },
  create(ctx) {
    return {
      FunctionCall(n) {
        if (n.name !== "llm_call") return;
        const system = n.args[1];
        if (system?.kind !== "InterpolatedString" || !system.segments.some((s) => s.kind === "expr")) return;
        ctx.report({
          node: n,
          messageId: "interpolated",
        });
      },
    };
  },
};
