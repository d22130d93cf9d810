/** `pipeline-return-type` (lint.md §3.26). */
import type { Rule } from "../types";
import { isTestName } from "./test-pipelines";

const ENTRY_NAMES = new Set(["default", "main", "auto"]);

export const pipelineReturnType: Rule = {
  id: "pipeline-return-type",
  meta: {
    reusable: true,
    severity: "warning",
    description: "A `pub pipeline` (not an entry or test pipeline) without `-> Type`",
    fixable: false,
    triggers: { words: ["pipeline"] },
    messages: {
      missing: {
        message: "public pipeline `{name}` has no declared return type; explicit return types will be required in a future release",
        help: "declare a return type: `pub pipeline {name}(...) -> TypeExpr { ... }`",
      },
    },
  },
  create(ctx) {
    return {
      Pipeline(n) {
        if (!n.isPub || n.returnType !== null || ENTRY_NAMES.has(n.name) || isTestName(n.name)) return;
        ctx.report({
          node: n,
          messageId: "missing",
          data: { name: n.name },
        });
      },
    };
  },
};
