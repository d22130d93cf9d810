/**
 * `require-file-header` (lint.md §3.36, opt-in). A `#!` line stays first:
 * the check and the inserted block come after it (inserting above a
 * shebang would break the script).
 */
import type { Rule } from "../types";

export function headerTitle(file: string | null): string {
  let base = "";
  if (file) {
    const name = file.split(/[\\/]/).pop() ?? "";
    const dot = name.lastIndexOf(".");
    base = dot > 0 ? name.slice(0, dot) : name;
  }
  let t = base.replace(/[-_]/g, " ").replace(/\s+/g, " ").trim();
  if (t === "") t = "module";
  const chars = [...t];
  t = chars[0]!.toUpperCase() + chars.slice(1).join("").toLowerCase();
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

export const requireFileHeader: Rule = {
  id: "require-file-header",
  meta: {
    reusable: true,
    severity: "warning",
    description: "The file does not start with a `/** */` block",
    fixable: true,
    needsSource: true,
    optIn: true,
    messages: {
      missing: {
        message: "file is missing a `/** */` header doc block",
        help: "add a `/** <title> */` block at the top of the file (e.g. `{title}`)",
      },
    },
  },
  create(ctx) {
    return {
      Program() {
        const src = ctx.sourceText!;
        const text = src.text;
        let at = 0;
        if (text.startsWith("#!")) {
          const nl = text.indexOf("\n");
          at = nl < 0 ? text.length : nl + 1;
        }
        let i = at;
        while (i < text.length && " \t\r\n".includes(text[i]!)) i++;
        if (text.startsWith("/**", i)) return;
        const title = headerTitle(ctx.file);
        ctx.report({
          span: src.span(at),
          messageId: "missing",
          data: { title },
          fix: [{ span: src.span(at), replacement: `/**\n * ${title}\n */\n\n` }],
        });
      },
    };
  },
};
