/** `import-order` (lint.md §3.35): the leading imports, stdlib first,
 * then by path. */
import type { ImportDecl, SelectiveImport } from "@harn/parser";
import { joinSpans } from "../ast-util";
import type { Rule } from "../types";

type Import = ImportDecl | SelectiveImport;

function sortKey(i: Import): [number, string, number, string] {
  return [
    i.path.startsWith("std/") ? 0 : 1,
    i.path,
    i.kind === "ImportDecl" ? 0 : 1,
    i.kind === "ImportDecl" ? "" : [...i.names].sort().join(","),
  ];
}

function compare(a: Import, b: Import): number {
  const ka = sortKey(a);
  const kb = sortKey(b);
  for (let i = 0; i < ka.length; i++) {
    if (ka[i]! < kb[i]!) return -1;
    if (ka[i]! > kb[i]!) return 1;
  }
  return 0;
}

export const importOrder: Rule = {
  id: "import-order",
  meta: {
    reusable: true,
    severity: "warning",
    description: "Leading imports are not in canonical order",
    fixable: true,
    triggers: { words: ["import"] },
    needsSource: true,
    messages: {
      order: {
        message: "imports are not in canonical order (stdlib first, then alphabetical by path)",
        help: "reorder imports: std/ first, then third-party and local paths alphabetically",
      },
    },
  },
  create(ctx) {
    return {
      Program(p) {
        const imports: Import[] = [];
        for (const it of p.items) {
          if (it.kind !== "ImportDecl" && it.kind !== "SelectiveImport") break;
          imports.push(it);
        }
        if (imports.length < 2) return;
        const sorted = [...imports].sort(compare); // Array.prototype.sort is stable
        if (sorted.every((x, i) => x === imports[i])) return;
        const span = joinSpans(imports[0]!.span, imports[imports.length - 1]!.span);
        ctx.report({
          span,
          messageId: "order",
          fix: [{ span, replacement: sorted.map((x) => ctx.text(x)).join("\n") }],
        });
      },
    };
  },
};
