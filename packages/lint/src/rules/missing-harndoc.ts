/**
 * `missing-harndoc` (lint.md §3.25): a `pub fn` needs a HarnDoc block on
 * the lines directly above it. Needs the source; without it the rule does
 * not run (the reference would report every `pub fn`; FIX).
 */
import type { SourceText } from "../source/source-text";
import type { AnyNode, Rule } from "../types";

export function hasDocBlockAbove(src: SourceText, line: number): boolean {
  if (line <= 1) return false;
  const above = src.line(line - 1).trim();
  if (above.startsWith("/**") && above.endsWith("*/")) return true;
  if (!above.endsWith("*/")) return false;
  const content: string[] = [];
  for (let l = line - 1; l >= 1; l--) {
    const t = src.line(l).trim();
    content.push(t);
    if (t.startsWith("/**")) {
      const text = content
        .map((x) =>
          x
            .replace(/^\/\*\*/, "")
            .replace(/\*\/$/, "")
            .replace(/^\*+/, "")
            .trim(),
        )
        .join("");
      return text.length > 0;
    }
    if (t.startsWith("/*")) return false;
  }
  return false;
}

export const missingHarndoc: Rule = {
  id: "missing-harndoc",
  meta: {
    reusable: true,
    severity: "warning",
    description: "A `pub fn` without a `/** */` doc block directly above it",
    fixable: false,
    needsSource: true,
    messages: {
      missing: {
        message: "public function `{name}` is missing a `/** */` doc comment",
        help: "add a `/** ... */` HarnDoc block directly above `pub fn {name}`",
      },
    },
  },
  create(ctx) {
    return {
      FnDecl(n) {
        if (!n.isPub || !ctx.sourceText) return;
        // attributes belong to the declaration: the doc block sits above them
        let first: AnyNode = n;
        const anc = ctx.ancestors();
        for (let i = anc.length - 1; i >= 0 && anc[i]!.kind === "AttributedDecl"; i--) first = anc[i]!;
        if (hasDocBlockAbove(ctx.sourceText, first.span.line)) return;
        ctx.report({
          node: n,
          messageId: "missing",
          data: { name: n.name },
        });
      },
    };
  },
};
