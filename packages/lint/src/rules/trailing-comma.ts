/**
 * `trailing-comma` (lint.md §3.34): a token-level scan for multi-line
 * comma lists whose last item has no trailing comma. A `{` counts only
 * when it opens a dict or struct literal (first key then `:`); keyword
 * keys such as `type:` count too (FIX), and a `{` with a `->` directly
 * inside is a closure, never a list. The comma goes after the last item,
 * before any trailing comment (quirk Q10, FIX). The finding is reported
 * at column 1 of the insertion line, as the reference does.
 */
import type { SourceToken } from "../source/tokens";
import type { Rule } from "../types";
import { isKeyword } from "@harn/lexer";

interface Open {
  token: SourceToken;
  /** brace only: undecided until the first key and its `:` are seen */
  state: "candidate" | "block" | "pending" | "afterKey";
  commas: number;
  /** last significant token directly inside */
  last: SourceToken | null;
}

const isKeyToken = (t: SourceToken): boolean =>
  t.kind === "Ident" || t.kind === "String" || isKeyword(t.kind);

export const trailingComma: Rule = {
  id: "trailing-comma",
  meta: {
    reusable: true,
    severity: "warning",
    description: "A multi-line comma list with no trailing comma",
    fixable: true,
    needsSource: true,
    messages: { missing: { message: "multiline comma-separated list is missing a trailing comma", help: "add a trailing comma after the last item" } },
  },
  create(ctx) {
    return {
      Program() {
        const src = ctx.sourceText!;
        const stack: Open[] = [];
        const tokens = src.tokens();
        for (let i = 0; i < tokens.length; i++) {
          const t = tokens[i]!;
          const k = t.kind;
          if (k === "NL" || k === "EOF") continue;
          const top = stack.length > 0 ? stack[stack.length - 1]! : undefined;
          if (top !== undefined) {
            // a brace decides what it is from its first tokens
            if (top.state === "pending") {
              if (k !== "}") top.state = isKeyToken(t) ? "afterKey" : "block";
            } else if (top.state === "afterKey") {
              if (k === ":") top.state = "candidate";
              else if (k !== "(" && k !== "[" && k !== ")" && k !== "]" && k !== "}") top.state = "block";
            }
            if (k === "->" && top.token.kind === "{") top.state = "block";
          }
          if (k === "(" || k === "[" || k === "{") {
            if (top !== undefined) top.last = t;
            stack.push({ token: t, state: k === "{" ? "pending" : "candidate", commas: 0, last: null });
          } else if (k === ")" || k === "]" || k === "}") {
            const open = stack.pop();
            if (open === undefined) continue;
            if (stack.length > 0) stack[stack.length - 1]!.last = t;
            if (open.state !== "candidate" || open.commas === 0 || t.line <= open.token.line) continue;
            const last = open.last;
            if (last === null || last.kind === ",") continue;
            // The reference reports the insertion line with column 1
            // (lint.md §3.34); the fix keeps the real insertion offset.
            const at = src.span(last.end);
            ctx.report({
              span: { ...at, column: 1, endColumn: 1 },
              messageId: "missing",
              fix: [{ span: src.span(last.end), replacement: "," }],
            });
          } else if (top !== undefined) {
            if (k === ",") top.commas++;
            top.last = t;
          }
        }
      },
    };
  },
};
