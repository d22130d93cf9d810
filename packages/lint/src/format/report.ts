/**
 * What every formatter consumes: per file, its text and its diagnostics —
 * lint findings, or the syntax errors that kept it from being linted
 * (code `syntax`), or one spanless diagnostic when it could not be read.
 */
import type { Diagnostic } from "@harn/parser";

export interface FileReport {
  /** The path as collected (what the user typed, joined with what the
   * directory walk found). */
  path: string;
  /** The text the diagnostics index (after fixes, when fixing). */
  source: string;
  diagnostics: Diagnostic[];
  /** Why the file was not linted (it could not be read or parsed): the
   * diagnostics are then that reason's. */
  fatal: boolean;
}

export function countBySeverity(reports: readonly FileReport[]): { errors: number; warnings: number; infos: number } {
  let errors = 0;
  let warnings = 0;
  let infos = 0;
  for (const r of reports) {
    for (const d of r.diagnostics) {
      if (d.severity === "error") errors++;
      else if (d.severity === "warning") warnings++;
      else infos++;
    }
  }
  return { errors, warnings, infos };
}
