/**
 * `trailing-comma` (lint.md §3.34): a token-level scan for multi-line
 * comma lists whose last item has no trailing comma. A `{` counts only
 * when it opens a dict or struct literal (first key then `:`); keyword
 * keys such as `type:` count too (FIX), and a `{` with a `->` directly
 * inside is a closure, never a list. The comma goes after the last item,
 * before any trailing comment (quirk Q10, FIX).
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
  severity: "warning",
  description: "A multi-line comma list with no trailing comma",
  fixable: true,
  needsSource: true,
  create(ctx) {
    return {
      Program() {
        const src = ctx.sourceText!;
        const stack: Open[] = [];
        for (const t of src.tokens()) {
          if (t.kind === "NL" || t.kind === "EOF") continue;
          const top = stack[stack.length - 1];
          // a brace decides what it is from its first tokens
          if (top && (top.state === "pending" || top.state === "afterKey") && t.kind !== ")" && t.kind !== "]" && t.kind !== "}") {
            if (top.state === "pending") top.state = isKeyToken(t) ? "afterKey" : "block";
            else if (t.kind === ":") top.state = "candidate";
            else if (t.kind !== "(" && t.kind !== "[") top.state = "block";
          }
          if (top && t.kind === "->") top.state = top.token.kind === "{" ? "block" : top.state;
          switch (t.kind) {
            case "(":
            case "[":
            case "{":
              if (top) top.last = t;
              stack.push({ token: t, state: t.kind === "{" ? "pending" : "candidate", commas: 0, last: null });
              continue;
            case ")":
            case "]":
            case "}": {
              const open = stack.pop();
              if (!open) continue;
              const parent = stack[stack.length - 1];
              if (parent) parent.last = t;
              if (open.state !== "candidate" || open.commas === 0 || t.line <= open.token.line) continue;
              const last = open.last;
              if (!last || last.kind === ",") continue;
              ctx.report({
                span: src.span(last.end),
                message: "multiline comma-separated list is missing a trailing comma",
                help: "add a trailing comma after the last item",
                fix: [{ span: src.span(last.end), replacement: "," }],
              });
              continue;
            }
            case ",":
              if (top) {
                top.commas++;
                top.last = t;
              }
              continue;
            default:
              if (top) top.last = t;
          }
        }
      },
    };
  },
};
