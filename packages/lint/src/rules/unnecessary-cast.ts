/** `unnecessary-cast` (lint.md §3.21): converting a value to its own type. */
import type { Node } from "@harn/parser";
import type { Rule } from "../types";

/** A Map, not an object literal: a call named `constructor` or `toString`
 * must not find Object.prototype's members. */
const TARGETS: ReadonlyMap<string, { target: string; already: (n: Node) => boolean }> = new Map([
  [
    "to_string",
    {
      target: "string",
      already: (n: Node) => n.kind === "StringLiteral" || n.kind === "RawStringLiteral" || n.kind === "InterpolatedString",
    },
  ],
  ["to_int", { target: "int", already: (n: Node) => n.kind === "IntLiteral" }],
  ["to_float", { target: "float", already: (n: Node) => n.kind === "FloatLiteral" }],
  ["to_list", { target: "list", already: (n: Node) => n.kind === "ListLiteral" }],
  ["to_dict", { target: "dict", already: (n: Node) => n.kind === "DictLiteral" }],
]);

export const unnecessaryCast: Rule = {
  id: "unnecessary-cast",
  meta: {
    reusable: true,
    severity: "warning",
    description: "`to_string(\"lit\")`, `to_int(3)`, `to_string(to_string(x))`, ...",
    fixable: true,
    triggers: { words: [...TARGETS.keys()] },
    messages: {
      noop: {
        message: "`{name}` is a no-op here \u2014 its argument is already {article} {target}",
        help: "remove the redundant `{name}(...)` wrapper",
      },
    },
  },
  create(ctx) {
    return {
      FunctionCall(n) {
        const t = TARGETS.get(n.name);
        if (!t || n.args.length !== 1) return;
        const arg = n.args[0]!;
        const nested = arg.kind === "FunctionCall" && arg.name === n.name && arg.args.length === 1;
        if (!nested && !t.already(arg)) return;
        const article = t.target === "int" ? "an" : "a";
        ctx.report({
          node: n,
          messageId: "noop",
          data: { name: n.name, article, target: t.target },
          ...(ctx.sourceText ? { fix: [{ span: n.span, replacement: ctx.text(arg) }] } : {}),
        });
      },
    };
  },
};
