/**
 * `unnecessary-else-return` (lint.md §3.18): both branches end in
 * `return`, so the else can be flattened after the if.
 */
import type { IfElse, Node } from "@harn/parser";
import type { SourceText } from "../source/source-text";
import type { FixEdit, Rule, RuleContext } from "../types";

export const unnecessaryElseReturn: Rule = {
  id: "unnecessary-else-return",
  meta: {
    reusable: true,
    severity: "warning",
    description: "Both the `if` branch and the `else` branch end with `return`",
    fixable: true,
    triggers: { words: ["else"] },
    messages: {
      elseReturn: {
        message: "both if and else branches return \u2014 else is unnecessary",
        help: "remove the else and place its body after the if",
      },
    },
  },
  create(ctx) {
    /** `if`s that are statements; the fix is for those only (lint.md
     * §3.18 "up to the end of the `if` statement"): flattening the `if` of
     * `let x = if c { return 1 } else { return 2 }` would turn the else
     * body into statements after the `let`, changing what runs. */
    const statementIfs = new Set<Node>();
    return {
      // made once per run (meta.reusable): a file starts afresh
      Program() {
        statementIfs.clear();
      },
      Block(b) {
        for (const s of b.stmts) if (s.kind === "IfElse") statementIfs.add(s);
      },
      IfElse(n) {
        const thenLast = n.thenBody[n.thenBody.length - 1];
        const elseLast = n.elseBody?.[n.elseBody.length - 1];
        if (thenLast?.kind !== "ReturnStmt" || elseLast?.kind !== "ReturnStmt") return;
        const fix = statementIfs.has(n) ? flattenFix(ctx, n) : null;
        ctx.report({
          node: n,
          messageId: "elseReturn",
          ...(fix ? { fix: [fix] } : {}),
        });
      },
    };
  },
};

/** Offset just after the `}` that closes the then branch: the first `}`
 * after its last statement, skipping blanks, `;` and comments. */
export function closingBraceAfter(src: SourceText, from: number, limit: number): number | null {
  const t = src.text;
  let i = from;
  while (i < limit) {
    const c = t[i]!;
    if (c === "}") return i + 1;
    if (c === " " || c === "\t" || c === "\r" || c === "\n" || c === ";") {
      i++;
    } else if (t.startsWith("//", i)) {
      const nl = t.indexOf("\n", i);
      i = nl < 0 ? limit : nl;
    } else if (t.startsWith("/*", i)) {
      let depth = 0;
      while (i < limit) {
        if (t.startsWith("/*", i)) {
          depth++;
          i += 2;
        } else if (t.startsWith("*/", i)) {
          depth--;
          i += 2;
          if (depth === 0) break;
        } else i++;
      }
    } else {
      return null;
    }
  }
  return null;
}

function flattenFix(ctx: RuleContext, n: IfElse): FixEdit | null {
  const src = ctx.sourceText;
  const elseBody = n.elseBody!;
  if (!src || elseBody.length === 0) return null;
  const thenEnd = n.thenBody[n.thenBody.length - 1]!.span.end;
  const brace = closingBraceAfter(src, thenEnd, n.span.end);
  if (brace === null) return null;
  const lineText = src.line(n.span.line);
  const indent = /^[ \t]*/.exec(lineText)![0];
  const body = src.text.slice(elseBody[0]!.span.start, elseBody[elseBody.length - 1]!.span.end);
  return { span: src.span(brace, n.span.end), replacement: `\n${indent}${body}` };
}
