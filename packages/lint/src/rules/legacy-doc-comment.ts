/**
 * `legacy-doc-comment` (lint.md §3.32): `///` or `//` line comments used as
 * a doc block above an item; the fix rewrites them as one HarnDoc block.
 * Only lines whose first content is a comment are collected (quirk Q11,
 * FIX: a trailing comment on a code line is not a doc comment).
 */
import type { Node } from "@harn/parser";
import { LineKind } from "../source/source-text";
import type { Comment } from "../source/tokens";
import type { AnyNode, Rule, RuleContext } from "../types";

/** Items that always count as `pub` for this rule. */
const ALWAYS_PUB = new Set(["InterfaceDecl", "ImplBlock", "TypeDecl", "OverrideDecl"]);
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
]);

function isPubItem(n: Node): boolean {
  return ALWAYS_PUB.has(n.kind) || ("isPub" in n && n.isPub === true);
}

/** The first line of an item, attributes included. */
export function itemStartLine(n: Node, ancestors: readonly AnyNode[]): number {
  let line = n.span.line;
  for (let i = ancestors.length - 1; i >= 0 && ancestors[i]!.kind === "AttributedDecl"; i--) line = ancestors[i]!.span.line;
  return line;
}

export const legacyDocComment: Rule = {
  id: "legacy-doc-comment",
  meta: {
    reusable: true,
    severity: "warning",
    description: "`///` or adjacent `//` comments used as a doc block above an item",
    fixable: true,
    needsSource: true,
    // line comments only: no `//` anywhere, nothing to find
    triggers: { text: ["//"] },
    messages: {
      legacy: {
        message: "{prefix} doc comment(s) above this item should use `/** */` form",
        help: "rewrite the {form} as a canonical `/** ... */` block",
      },
    },
  },
  create(ctx) {
    const visit = (n: Node): void => {
      const anc = ctx.ancestors();
      let depth = anc.length;
      while (depth > 0 && anc[depth - 1]!.kind === "AttributedDecl") depth--;
      const topLevel = depth === 1 && anc[0]!.kind === "Program";
      if (topLevel || isPubItem(n)) check(ctx, itemStartLine(n, anc));
    };
    const visitors: Record<string, (n: Node) => void> = {};
    for (const k of ITEM_KINDS) visitors[k] = visit;
    return visitors;
  },
};

function check(ctx: RuleContext, line: number): void {
  const src = ctx.sourceText!;
  // what is collected below starts on the line above, with a `//`
  if (!src.opensWithLineComment(line - 1)) return;
  const { kind, leadingComment } = src.lines();
  const collected: Comment[] = [];
  let firstLine = line;
  for (let l = line - 1; l >= 1; l--) {
    const c = leadingComment.get(l);
    if (kind[l] !== LineKind.Comment || !c || !c.line || c.image.startsWith("#!")) break;
    collected.unshift(c);
    firstLine = l;
  }
  if (collected.length === 0) return;
  const docs = collected.filter((t) => t.isDoc).length;
  const [prefix, form] =
    docs === collected.length
      ? ["`///`", "/// lines"]
      : docs === 0
        ? ["plain `//`", "// lines adjacent to the definition"]
        : ["adjacent `//` / `///`", "line-comment block adjacent to the definition"];
  const first = collected[0]!;
  const last = collected[collected.length - 1]!;
  const indent = /^[ \t]*/.exec(src.line(firstLine))![0];
  // Comment text holding `*/` would end the new block early, and `/*`
  // would open a nested one (block comments nest): either breaks the file,
  // so such a run is reported without a fix.
  const safe = collected.every((c) => {
    const body = commentText(c);
    return !body.includes("*/") && !body.includes("/*");
  });
  ctx.report({
    span: src.span(first.start, last.end),
    messageId: "legacy",
    data: { prefix, form },
    ...(safe ? { fix: [{ span: src.span(src.lineStart(firstLine), last.end), replacement: canonicalBlock(collected, indent) }] } : {}),
  });
}

/** A line comment's text: after the marker, one leading space dropped,
 * trailing whitespace trimmed. */
function commentText(t: Comment): string {
  let body = t.image.slice(t.isDoc ? 3 : 2);
  if (body.startsWith(" ")) body = body.slice(1);
  return body.trimEnd();
}

export function canonicalBlock(comments: Comment[], indent: string): string {
  let texts = comments.map(commentText);
  while (texts.length > 0 && texts[0] === "") texts = texts.slice(1);
  while (texts.length > 0 && texts[texts.length - 1] === "") texts = texts.slice(0, -1);
  if (texts.length === 0) return `${indent}/** */`;
  if (texts.length === 1) {
    const single = `${indent}/** ${texts[0]} */`;
    if ([...single].length <= 100) return single;
  }
  return [`${indent}/**`, ...texts.map((t) => (t === "" ? `${indent} *` : `${indent} * ${t}`)), `${indent} */`].join("\n");
}
