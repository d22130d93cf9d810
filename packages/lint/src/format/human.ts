/**
 * The human format (lint.md §5.3): every diagnostic through the one
 * renderer (lint findings carry the `lint[{rule}]` label, syntax errors
 * their own). Files without findings are listed on stdout as
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
  for (const d of r.diagnostics) out += renderDiagnostic(d, r.path, r.source, style);
  return out;
}

export function formatHuman(reports: readonly FileReport[], style: DiagnosticStyle): HumanOutput {
  let stdout = "";
  let stderr = "";
  for (const r of reports) {
    if (r.diagnostics.length === 0) stdout += `${r.path}: no issues found\n`;
    else stderr += renderReport(r, style);
  }
  return { stdout, stderr };
}
