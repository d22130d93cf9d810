/**
 * `--format json`: the ESLint JSON formatter's shape (extensions.md §6),
 * so tools that read ESLint output read ours. Severity 2 is an error, 1 a
 * warning (ESLint has no level below; our `info` findings are 1 too).
 * Lines and columns are 1-based; columns count code points. A fix with
 * several edits is merged into one `{range, text}` as ESLint does.
 */
import { resolve } from "node:path";
import type { FixEdit, LintDiagnostic } from "../types";
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

function message(d: LintDiagnostic, source: string): EslintMessage {
  const m: EslintMessage = {
    ruleId: d.rule,
    severity: d.severity === "error" ? 2 : 1,
    message: d.message,
    line: d.span.line,
    column: d.span.column,
    endLine: d.span.endLine,
    endColumn: d.span.endColumn,
  };
  if (d.fix && d.fix.length > 0) m.fix = mergeFix(source, d.fix);
  return m;
}

export function toEslintResults(reports: readonly FileReport[]): EslintResult[] {
  return reports.map((r) => {
    const messages: EslintMessage[] = [
      ...r.fatal.map(
        (f): EslintMessage => ({
          ruleId: null,
          fatal: true,
          severity: 2,
          message: f.message,
          line: f.span?.line ?? 1,
          column: f.span?.column ?? 1,
          ...(f.span ? { endLine: f.span.endLine, endColumn: f.span.endColumn } : {}),
        }),
      ),
      ...r.diagnostics.map((d) => message(d, r.source)),
    ];
    const errors = messages.filter((m) => m.severity === 2);
    const warnings = messages.filter((m) => m.severity === 1);
    return {
      filePath: resolve(r.path),
      messages,
      suppressedMessages: [],
      errorCount: errors.length,
      fatalErrorCount: r.fatal.length,
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
