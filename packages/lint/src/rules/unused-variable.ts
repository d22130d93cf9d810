/**
 * `unused-variable` and `unused-pattern-binding` (lint.md §3.4): a `let`/
 * `var` name (or destructured name) that nothing in the file reads.
 */
import { closestName, type LetBinding, type VarBinding } from "@harn/parser";
import type { FixEdit, Rule, RuleContext } from "../types";

export const unusedVariable: Rule = {
  id: "unused-variable",
  meta: {
    reusable: true,
    severity: "warning",
    description: "A simple `let`/`var` binding whose name is never read",
    fixable: true,
    messages: { unused: { message: "variable `{name}` is declared but never used", help: "prefix with underscore: `_{name}`" } },
  },
  create(ctx) {
    return {
      finalize() {
        for (const b of ctx.facts.bindings) {
          if (b.destructured || b.name.startsWith("_") || ctx.facts.references.has(b.name)) continue;
          // Still reported (the reference does), but a name another file of
          // the run imports is not renamed: that would break the importer.
          const fix = renameIsSafe(ctx, b.name) ? renameFix(ctx, b.node as LetBinding | VarBinding, b.name) : null;
          ctx.report({
            node: b.node,
            messageId: "unused",
            data: { name: b.name },
            ...(fix ? { fix: [fix] } : {}),
          });
        }
      },
    };
  },
};

export const unusedPatternBinding: Rule = {
  id: "unused-pattern-binding",
  meta: {
    reusable: true,
    severity: "warning",
    description: "A destructured name that is never read",
    fixable: false,
    messages: {
      unused: {
        message: "pattern binding `{name}` is never used",
        help: "rename the binding with an underscore prefix or remove it from the pattern",
      },
    },
  },
  create(ctx) {
    return {
      finalize() {
        for (const b of ctx.facts.bindings) {
          if (!b.destructured || b.name.startsWith("_") || ctx.facts.references.has(b.name)) continue;
          ctx.report({
            node: b.node,
            messageId: "unused",
            data: { name: b.name },
          });
        }
      },
    };
  },
};

const IDENT_CHAR = /[\p{L}\p{N}_]/u;

/** `let NAME` -> `let _NAME`, only when the statement text has exactly that
 * shape (lint.md §3.4). */
/**
 * Renaming the declaration must not change what the program does, so no
 * fix when: another file imports the name (by name or through a wildcard
 * import: the importer would break); the name is assigned somewhere (a
 * write-only `var`: the assignments would then set an undeclared name);
 * it is declared more than once (the rename would take one of them); or a
 * name read somewhere is one typo away (`let name` .. `nme`: the binding
 * is probably meant there, and errors suggesting it would change).
 */
function renameIsSafe(ctx: RuleContext, name: string): boolean {
  const { facts } = ctx;
  if (ctx.project.externallyImported.has(name) || facts.assignments.has(name)) return false;
  if (facts.bindings.filter((b) => b.name === name).length > 1) return false;
  const others = [...facts.references].filter((r) => r !== name);
  return closestName(name, others) === null;
}

function renameFix(ctx: RuleContext, n: LetBinding | VarBinding, name: string): FixEdit | null {
  const src = ctx.sourceText;
  if (!src) return null;
  const text = ctx.text(n);
  if (!(text.startsWith("let") || text.startsWith("var"))) return null;
  let i = 3;
  if (i >= text.length || IDENT_CHAR.test(text[i]!)) return null;
  while (text[i] === " " || text[i] === "\t") i++;
  if (i === 3 || !text.startsWith(name, i)) return null;
  const after = text[i + name.length];
  if (after !== undefined && IDENT_CHAR.test(after)) return null;
  const start = n.span.start + i;
  return { span: src.span(start, start + name.length), replacement: `_${name}` };
}
