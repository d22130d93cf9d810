/**
 * Building blocks for autofixes: edits are plain `{span, replacement}`
 * records over the linted text.
 */
import type { Span } from "@harn/parser";
import type { FixEdit } from "./types";
import type { SourceText } from "./source/source-text";

export function replaceSpan(span: Span, replacement: string): FixEdit {
  return { span, replacement };
}

/** Zero-width insertion at the end of `span`. */
export function insertAfter(span: Span, text: string): FixEdit {
  return {
    span: { start: span.end, end: span.end, line: span.endLine, column: span.endColumn, endLine: span.endLine, endColumn: span.endColumn },
    replacement: text,
  };
}

/** Delete a whole statement: its text, the spaces and tabs before it on
 * its line, and exactly one line break after it (lint.md §3.11). */
export function deleteStatement(src: SourceText, span: Span): FixEdit {
  const t = src.text;
  let start = span.start;
  while (start > 0 && (t[start - 1] === " " || t[start - 1] === "\t")) start--;
  let end = span.end;
  if (t.startsWith("\r\n", end)) end += 2;
  else if (t[end] === "\n") end += 1;
  return { span: src.span(start, end), replacement: "" };
}
