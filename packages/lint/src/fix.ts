/**
 * Applying autofixes (lint.md §5.5): collect every edit, take them from
 * the rightmost start leftwards (stable for equal starts), keep an edit
 * only if it overlaps none already kept, and apply right to left. One
 * pass; running again may apply more.
 */
import type { FixEdit, Diagnostic } from "./types";

export interface FixResult {
  text: string;
  /** Number of edits applied (not diagnostics). */
  applied: number;
}

const overlaps = (a: FixEdit, b: FixEdit): boolean => a.span.start < b.span.end && a.span.end > b.span.start;

export function selectEdits(diagnostics: readonly Diagnostic[]): FixEdit[] {
  const edits = diagnostics.flatMap((d) => d.fix ?? []);
  const order = edits.map((e, i) => ({ e, i })).sort((a, b) => b.e.span.start - a.e.span.start || a.i - b.i);
  const kept: FixEdit[] = [];
  for (const { e } of order) if (!kept.some((k) => overlaps(k, e))) kept.push(e);
  return kept;
}

export function applyFixes(source: string, diagnostics: readonly Diagnostic[]): FixResult {
  const edits = selectEdits(diagnostics);
  // Of kept edits sharing a start, at most one replaces text (the others
  // are insertions there). It must go first: an insertion applied before it
  // would shift the text the replacement's offsets point into, so it would
  // eat the inserted text and leave part of what it replaces behind.
  const order = edits.map((e, i) => ({ e, i })).sort((a, b) => b.e.span.start - a.e.span.start || b.e.span.end - a.e.span.end || a.i - b.i);
  let text = source;
  for (const { e } of order) text = text.slice(0, e.span.start) + e.replacement + text.slice(e.span.end);
  return { text, applied: edits.length };
}
