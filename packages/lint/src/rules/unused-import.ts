/**
 * `unused-import` (lint.md §3.6): selectively imported names nobody reads.
 * Names are located by their own spans, so `id` never matches inside
 * `valid` (quirk Q3, FIX). A name used only in type positions counts as
 * used (an imported struct named in signatures is not dead).
 */
import type { SelectiveImport } from "@harn/parser";
import type { FixEdit, Rule, RuleContext } from "../types";

export const unusedImport: Rule = {
  id: "unused-import",
  meta: {
    reusable: true,
    severity: "warning",
    description: "A name from `import { .. } from \"..\"` that is never read",
    fixable: true,
    triggers: { words: ["import"] },
    messages: { unused: { message: "imported name `{name}` is never used", help: "remove `{name}` from the import" } },
  },
  create(ctx) {
    return {
      finalize() {
        const { references, typeRefs } = ctx.facts;
        for (const imp of ctx.facts.selectiveImports) {
          if (imp.isPub) continue;
          const unused = imp.names.map((n, i) => ({ n, i })).filter(({ n }) => !references.has(n) && !typeRefs.has(n));
          const all = unused.length === imp.names.length;
          // Removing an import must not change what the program does: the
          // import of a name the module does not export fails at load, and
          // removing the whole import skips loading the module, whose
          // bindings may have effects.
          const mod = ctx.project.module(imp.path);
          for (const { n, i } of unused) {
            const safe = mod !== null && mod.exports.has(n) && (!all || mod.pure);
            const fix = !safe ? null : all ? deleteImport(ctx, imp) : deleteName(ctx, imp, i);
            ctx.report({
              node: imp,
              messageId: "unused",
              data: { name: n },
              ...(fix ? { fix: [fix] } : {}),
            });
          }
        }
      },
    };
  },
};

function deleteImport(ctx: RuleContext, imp: SelectiveImport): FixEdit | null {
  const src = ctx.sourceText;
  if (!src) return null;
  let end = imp.span.end;
  if (src.text[end] === "\n") end++;
  return { span: src.span(imp.span.start, end), replacement: "" };
}

function deleteName(ctx: RuleContext, imp: SelectiveImport, i: number): FixEdit | null {
  const src = ctx.sourceText;
  const ns = imp.nameSpans[i];
  if (!src || !ns) return null;
  const t = src.text;
  let start = ns.start;
  let end = ns.end;
  if (t[end] === ",") {
    end++;
    if (t[end] === " ") end++;
  } else if (t.slice(start - 2, start) === ", ") {
    start -= 2;
  } else if (t[start - 1] === ",") {
    start -= 1;
  }
  return { span: src.span(start, end), replacement: "" };
}
