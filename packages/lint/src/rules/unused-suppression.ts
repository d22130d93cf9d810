/**
 * `unused-suppression`: a `harn-lint-disable…` comment that suppresses
 * nothing. The findings come from ../suppressions.ts after all rules ran;
 * this entry gives the rule an id, a description and an on/off switch.
 */
import type { Rule } from "../types";

export const unusedSuppression: Rule = {
  id: "unused-suppression",
  severity: "warning",
  description: "An inline `harn-lint-disable` comment that suppresses nothing",
  fixable: false,
  needsSource: true,
  create() {
    return {};
  },
};
