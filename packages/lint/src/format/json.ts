/**
 * `--format json`: the ESLint JSON formatter's shape (extensions.md §6),
 * so tools that read ESLint output read ours. Severity 2 is an error, 1 a
 * warning (ESLint has no level below; our `info` findings are 1 too).
 * Lines and columns are 1-based; columns count UTF-16 code units, as
 * ESLint's do (our spans count code points). A fix with several edits is
 * merged into one `{range, text}` as ESLint does. What kept a file from
 * being linted (a syntax error, an unreadable file) is a `fatal` message
 * with a null `ruleId`.
 */
import { resolve } from "node:path";
import { utf16Column } from "@harn/parser";
import type { FixEdit, Diagnostic } from "../types";
import type { FileReport } from "./report";

interface EslintMessage {
  ruleId: string | null;
  severity: 1 | 2;
  message: string;
  line: number;
  column: number;
  endLine?: number;
  endColumn?: number;
  fatal?: true;
  fix?: { range: [number, number]; text: string };
}

export interface EslintResult {
  filePath: string;
  messages: EslintMessage[];
  suppressedMessages: [];
  errorCount: number;
  fatalErrorCount: number;
  warningCount: number;
  fixableErrorCount: number;
  fixableWarningCount: number;
  usedDeprecatedRules: [];
}

/** One `{range, text}` covering every edit, the text between them kept. */
export function mergeFix(source: string, edits: readonly FixEdit[]): { range: [number, number]; text: string } {
  const sorted = [...edits].sort((a, b) => a.span.start - b.span.start);
  const start = sorted[0]!.span.start;
  const end = Math.max(...sorted.map((e) => e.span.end));
  let text = "";
  let at = start;
  for (const e of sorted) {
    if (e.span.start < at) continue; // overlapping edits: the first wins
    text += source.slice(at, e.span.start) + e.replacement;
    at = e.span.end;
  }
  text += source.slice(at, end);
  return { range: [start, end], text };
}

function message(d: Diagnostic, r: FileReport): EslintMessage {
  const s = d.span;
  const m: EslintMessage = {
    ruleId: r.fatal ? null : d.code,
    severity: d.severity === "error" ? 2 : 1,
    message: d.message,
    line: s?.line ?? 1,
    column: s ? utf16Column(r.source, s.start) : 1,
  };
  if (s) {
    m.endLine = s.endLine;
    m.endColumn = utf16Column(r.source, s.end);
  }
  if (r.fatal) m.fatal = true;
  if (d.fix && d.fix.length > 0) m.fix = mergeFix(r.source, d.fix);
  return m;
}

export function toEslintResults(reports: readonly FileReport[]): EslintResult[] {
  return reports.map((r) => {
    const messages = r.diagnostics.map((d) => message(d, r));
    const errors = messages.filter((m) => m.severity === 2);
    const warnings = messages.filter((m) => m.severity === 1);
    return {
      filePath: resolve(r.path),
      messages,
      suppressedMessages: [],
      errorCount: errors.length,
      fatalErrorCount: r.fatal ? messages.length : 0,
      warningCount: warnings.length,
      fixableErrorCount: errors.filter((m) => m.fix).length,
      fixableWarningCount: warnings.filter((m) => m.fix).length,
      usedDeprecatedRules: [],
    };
  });
}

export function formatJson(reports: readonly FileReport[]): string {
  return `${JSON.stringify(toEslintResults(reports))}\n`;
}
