/**
 * The human format (lint.md §5.3): every finding through the shared
 * renderer, with the `lint[{rule}]` label; parse errors keep their own
 * labels. Files without findings are listed on stdout as
 * `{path}: no issues found`, findings go to stderr.
 */
import { renderDiagnostic, type DiagnosticStyle } from "@harn/parser";
import type { FileReport } from "./report";

export interface HumanOutput {
  stdout: string;
  stderr: string;
}

export function renderReport(r: FileReport, style: DiagnosticStyle): string {
  let out = "";
  for (const f of r.fatal) {
    out += renderDiagnostic(
      {
        severity: "error",
        message: f.message,
        path: r.path,
        span: f.span,
        ...(f.label !== undefined ? { label: f.label } : {}),
        ...(f.help !== undefined ? { help: f.help } : {}),
      },
      r.source,
      style,
    );
  }
  for (const d of r.diagnostics) {
    out += renderDiagnostic(
      {
        severity: d.severity,
        message: d.message,
        path: r.path,
        span: d.span,
        label: `lint[${d.rule}]`,
        ...(d.help !== undefined ? { help: d.help } : {}),
      },
      r.source,
      style,
    );
  }
  return out;
}

export function formatHuman(reports: readonly FileReport[], style: DiagnosticStyle): HumanOutput {
  let stdout = "";
  let stderr = "";
  for (const r of reports) {
    if (r.fatal.length === 0 && r.diagnostics.length === 0) stdout += `${r.path}: no issues found\n`;
    else stderr += renderReport(r, style);
  }
  return { stdout, stderr };
}
