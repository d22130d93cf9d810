/**
 * `long-running-without-cleanup` (lint.md §4, extensions.md §4): a handle
 * of long-running work that some path of its body leaves running. The
 * path-sensitive analysis lives in ../handles/checked-handles.ts; this rule
 * runs its input collection and reports its leaks. (The reference's check —
 * "does some defer/finally of the body mention a cancel" — is not kept:
 * `--checked-handles` and `checked_handles` are accepted and change nothing.)
 */
import { handleVisitors, LEAK_MESSAGES, WITHOUT_CLEANUP } from "../handles/checked-handles";
import { HANDLE_TRIGGERS } from "../long-running-calls";
import type { Rule } from "../types";

export const longRunningWithoutCleanup: Rule = {
  id: WITHOUT_CLEANUP,
  meta: {
    severity: "warning",
    description: "Long-running work whose handle some path leaves running (no cancel, wait or hand-over before the body exits)",
    fixable: false,
    triggers: HANDLE_TRIGGERS,
    messages: LEAK_MESSAGES,
    reusable: true,
  },
  create: handleVisitors,
};
