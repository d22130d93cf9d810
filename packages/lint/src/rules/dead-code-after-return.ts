/** `dead-code-after-return` (lint.md §3.3). The shared walk finds the
 * statement (and skips the rest of the block, quirk Q2); this only reports. */
import type { Rule } from "../types";

export const deadCodeAfterReturn: Rule = {
  id: "dead-code-after-return",
  meta: {
    reusable: true,
    severity: "warning",
    description: "A statement follows a definitely-exiting statement in the same block",
    fixable: false,
    messages: { unreachable: { message: "unreachable code after a terminating statement", help: "remove the unreachable code" } },
  },
  create(ctx) {
    return {
      Unreachable(stmt) {
        ctx.report({
          node: stmt,
          messageId: "unreachable",
        });
      },
    };
  },
};
