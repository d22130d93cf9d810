/**
 * The string-concatenation autofix: `"count: " + n` becomes
 * `"count: ${n}"`, keeping the operand order. `invalid-binary-op-literal`
 * offers it for `true`/`false`/`nil` operands (lint.md §3.12), and
 * `harn lint --fix` for the type checker's `can't add string and int`
 * errors (lint.md §5.5 step 1), which are used only for this fix.
 */
import type { BinaryOp, Node, Program, Span } from "@harn/parser";
import { forEachChild } from "./ast-util";
import type { FixEdit, Diagnostic } from "./types";

/** A plain double-quoted, single-line string literal's source text. */
function plainString(source: string, n: Node): string | null {
  if (n.kind !== "StringLiteral") return null;
  const t = source.slice(n.span.start, n.span.end);
  if (!t.startsWith('"') || t.startsWith('"""') || t.length < 2 || !t.endsWith('"')) return null;
  return t;
}

/** The edit folding `other` into the plain string on the other side of a
 * `+`, or null when neither side is one or `other` does not qualify. */
export function stringConcatFix(source: string, n: BinaryOp, qualifies: (other: Node) => boolean): FixEdit | null {
  if (n.op !== "+") return null;
  const text = (x: Node): string => source.slice(x.span.start, x.span.end);
  const leftStr = plainString(source, n.left);
  const rightStr = plainString(source, n.right);
  let replacement: string;
  if (leftStr !== null && qualifies(n.right)) replacement = `${leftStr.slice(0, -1)}\${${text(n.right)}}"`;
  else if (rightStr !== null && qualifies(n.left)) replacement = `"\${${text(n.left)}}${rightStr.slice(1)}`;
  else return null;
  return { span: n.span, replacement };
}

/**
 * Fix-only diagnostics for the type checker's `can't add ...` errors at
 * `spans` (the checker reports the whole `+` expression): each `+` there
 * with a plain string on one side gets the interpolation fix. Nothing here
 * is meant to be printed.
 */
export function typeErrorFixes(program: Program, source: string, errors: readonly { message: string; span: Span | null }[]): Diagnostic[] {
  const wanted = new Map<string, string>();
  for (const e of errors) if (e.span && e.message.startsWith("can't add ")) wanted.set(`${e.span.start}:${e.span.end}`, e.message);
  const out: Diagnostic[] = [];
  if (wanted.size === 0) return out;
  const visit = (n: Node): void => {
    if (n.kind === "BinaryOp") {
      const message = wanted.get(`${n.span.start}:${n.span.end}`);
      const fix = message !== undefined ? stringConcatFix(source, n, () => true) : null;
      if (message !== undefined && fix) out.push({ code: "type", severity: "error", message, span: n.span, fix: [fix] });
    }
    forEachChild(n, visit);
  };
  forEachChild(program, visit);
  return out;
}

/** The type checker's diagnostics, those the linter knows a fix for
 * (`"n=" + count` becomes `"n=${count}"`, lint.md §5.5 step 1) carrying
 * it, with a help line showing it (`harn check`, `harn lsp`). */
export function withTypeErrorFixes(program: Program, source: string, ds: Diagnostic[]): Diagnostic[] {
  const fixes = typeErrorFixes(program, source, ds);
  if (fixes.length === 0) return ds;
  const bySpan = new Map(fixes.map((f) => [`${f.span!.start}:${f.span!.end}`, f.fix!]));
  return ds.map((d) => {
    const fix = d.span ? bySpan.get(`${d.span.start}:${d.span.end}`) : undefined;
    if (!fix) return d;
    return { ...d, fix, help: `write it as \`${fix.map((e) => e.replacement).join(" ")}\`` };
  });
}
