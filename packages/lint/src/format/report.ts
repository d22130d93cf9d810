/**
 * What every formatter consumes: per file, the lint diagnostics and any
 * fatal error that stopped linting it (a parse error, an unreadable file).
 */
import type { Span } from "@harn/parser";
import type { LintDiagnostic } from "../types";

export interface FatalError {
  message: string;
  /** Missing when the error has no position (e.g. a file that cannot be read). */
  span: Span | null;
  label?: string;
  help?: string;
}

export interface FileReport {
  /** The path as collected (what the user typed, joined with what the
   * directory walk found). */
  path: string;
  /** The text the diagnostics index (after fixes, when fixing). */
  source: string;
  diagnostics: LintDiagnostic[];
  fatal: FatalError[];
}

export function countBySeverity(reports: readonly FileReport[]): { errors: number; warnings: number; infos: number } {
  let errors = 0;
  let warnings = 0;
  let infos = 0;
  for (const r of reports) {
    errors += r.fatal.length;
    for (const d of r.diagnostics) {
      if (d.severity === "error") errors++;
      else if (d.severity === "warning") warnings++;
      else infos++;
    }
  }
  return { errors, warnings, infos };
}
