/**
 * `unused-suppression`: a `harn-lint-disable…` comment that suppresses
 * nothing. The findings come from ../suppressions.ts after all rules ran;
 * this entry gives the rule an id, a description and an on/off switch.
 */
import type { Rule } from "../types";

export const unusedSuppression: Rule = {
  id: "unused-suppression",
  meta: {
    reusable: true,
    severity: "warning",
    description: "An inline `harn-lint-disable` comment that suppresses nothing",
    fixable: false,
    needsSource: true,
    messages: {
      unused: { message: "unused suppression: no diagnostic is reported here", help: "remove the suppression comment" },
      unusedRule: { message: "unused suppression: no `{rule}` diagnostic is reported here", help: "remove the suppression comment" },
      unusedOneRule: {
        message: "unused suppression: no `{rule}` diagnostic is reported here",
        help: "remove `{rule}` from the suppression comment",
      },
      unknownRule: {
        message: "suppression comment names unknown rule `{rule}`",
        help: "remove `{rule}` from the comment or fix its spelling",
      },
    },
  },
  create() {
    return {};
  },
};
