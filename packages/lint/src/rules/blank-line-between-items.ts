/** `blank-line-between-items` (lint.md §3.33). */
import type { Node } from "@harn/parser";
import { unwrapAttributes } from "../ast-util";
import { LineKind } from "../source/source-text";
import type { Rule } from "../types";

const ITEM_KINDS = new Set([
  "FnDecl",
  "Pipeline",
  "StructDecl",
  "EnumDecl",
  "InterfaceDecl",
  "TypeDecl",
  "ToolDecl",
  "SkillDecl",
  "EvalPackDecl",
  "ImplBlock",
  "OverrideDecl",
  "LetBinding",
  "VarBinding",
]);

const isImport = (n: Node): boolean => n.kind === "ImportDecl" || n.kind === "SelectiveImport";
const isItem = (n: Node): boolean => ITEM_KINDS.has(unwrapAttributes(n).kind);

export const blankLineBetweenItems: Rule = {
  id: "blank-line-between-items",
  meta: {
    reusable: true,
    severity: "warning",
    description: "Adjacent top-level items with no blank line between them",
    fixable: true,
    needsSource: true,
    messages: {
      missingBlank: {
        message: "top-level items should be separated by a blank line",
        help: "insert a blank line above the next item (doc comments stay glued to the item they describe)",
      },
    },
  },
  create(ctx) {
    return {
      Program(p) {
        const src = ctx.sourceText!;
        // worked out only when a gap between two items is looked at
        let kind: Uint8Array | null = null;
        for (let i = 0; i + 1 < p.items.length; i++) {
          const a = p.items[i]!;
          const b = p.items[i + 1]!;
          if (!(isItem(a) || isImport(a)) || !(isItem(b) || isImport(b)) || (isImport(a) && isImport(b))) continue;
          // doc comments directly above an item stay glued to it
          let start = b.span.line;
          while (start - 1 > a.span.endLine && (kind ??= src.lines().kind)[start - 1] === LineKind.Comment) start--;
          if (start > a.span.endLine + 1) continue;
          const at = src.lineStart(a.span.endLine + 1);
          ctx.report({
            span: src.span(at),
            messageId: "missingBlank",
            fix: [{ span: src.span(at), replacement: "\n" }],
          });
        }
      },
    };
  },
};
