/**
 * A document's diagnostics: syntax errors (every one recovery finds), the
 * structural checks and the type checker of `harn check`, its preflight
 * findings, and every lint rule with the severities and switches of the
 * nearest harn.toml (as `harn lint` reads them). They run on the
 * recovered tree, so a half-typed line leaves the findings elsewhere in
 * place. Lint findings follow lint.md §5.9: source `harn-lint`, message
 * `[{rule}] {message}`, and their fixes ride along in `data` for the
 * quick-fix code actions.
 */
import { check } from "@harn/checker";
import { ConfigError, ConfigResolver, DEFAULT_CONFIG, lintProgram, ProjectGraph, withTypeErrorFixes, type FixEdit, type LintConfig } from "@harn/lint";
import { checkStructure, syntaxDiagnostic, type Diagnostic } from "@harn/parser";
import { DiagnosticSeverity, type Diagnostic as LspDiagnostic } from "vscode-languageserver";
import type { Analysis, Workspace } from "./workspace";

/** What a published diagnostic carries for code actions. */
export interface FixData {
  fix: FixEdit[];
}

const SEVERITY = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
} as const;

/** Codes of the diagnostics that are not lint rules. */
const NOT_LINT: ReadonlySet<string> = new Set(["syntax", "structure", "type", "preflight", "runtime", "io", "config"]);

export function diagnose(ws: Workspace, a: Analysis): LspDiagnostic[] {
  const { program } = a.parsed;
  const found: Diagnostic[] = a.parsed.errors.map(syntaxDiagnostic);
  const structure = checkStructure(program);
  found.push(...structure);
  if (structure.length === 0) {
    const checked = check(program, {
      file: a.file,
      builtins: ws.host.checkerBuiltins,
      resolveImport(from, path) {
        const key = ws.resolveImport(from, path);
        const m = key === null ? null : ws.analysis(key);
        // like `harn check`: a module that does not parse is not followed
        return m === null || m.parsed.errors.length > 0 ? null : { file: key!, program: m.parsed.program };
      },
    });
    found.push(...withTypeErrorFixes(program, a.text, checked));
  }
  found.push(...(ws.host.extraChecks?.(program, a.file) ?? []));
  const { config, error } = lintConfig(a.file);
  if (error !== null) found.push({ code: "config", severity: "error", message: error, span: null });
  for (const w of config.warnings) found.push({ code: "config", severity: "warning", message: w, span: null });
  found.push(...lint(ws, a, config));
  return found.map((d) => toLsp(a, d)).sort((x, y) => x.range.start.line - y.range.start.line || x.range.start.character - y.range.start.character);
}

/** Lint findings as lint.md §5.9 has the editor show them (source
 * `harn-lint`, message `[{rule}] {message}`); the others with source
 * `harn` and their help line. Fixes ride along in `data`. */
function toLsp(a: Analysis, d: Diagnostic): LspDiagnostic {
  const isLint = !NOT_LINT.has(d.code);
  const out: LspDiagnostic = {
    range: a.range(d.span ?? { start: 0, end: 0 }),
    severity: SEVERITY[d.severity],
    source: isLint ? "harn-lint" : "harn",
    code: d.code,
    message: isLint ? `[${d.code}] ${d.message}` : d.help ? `${capitalised(d.message)}\nhelp: ${d.help}` : capitalised(d.message),
  };
  if (d.labels && d.labels.length > 0) {
    out.relatedInformation = d.labels.map((l) => ({ location: { uri: a.uri, range: a.range(l.span) }, message: l.text }));
  }
  if (d.fix && d.fix.length > 0) {
    const data: FixData = { fix: d.fix };
    out.data = data;
  }
  return out;
}

function capitalised(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The `[lint]` configuration of the file's harn.toml, read afresh (the
 * editor may have just saved it); the defaults, and why, when it is broken. */
function lintConfig(file: string): { config: LintConfig; error: string | null } {
  if (file.startsWith("std/")) return { config: DEFAULT_CONFIG, error: null };
  try {
    return { config: new ConfigResolver().forFile(file), error: null };
  } catch (e) {
    if (e instanceof ConfigError) return { config: DEFAULT_CONFIG, error: e.message };
    throw e;
  }
}

function lint(ws: Workspace, a: Analysis, config: LintConfig): Diagnostic[] {
  const graph = new ProjectGraph({ stdModules: ws.host.stdModules, readFile: (path) => ws.read(path) ?? "" });
  return lintProgram(a.parsed.program, {
    source: a.text,
    tokens: a.parsed.tokens,
    file: a.file,
    externallyImported: ws.importedElsewhere(a.file),
    wildcardExports: graph.wildcardExports(a.file, a.parsed.program),
    importedHandles: graph.importedHandles(a.file, a.parsed.program),
    modules: (path) => graph.moduleAt(a.file, path),
    builtins: ws.builtinNames,
    rules: config.rules,
  });
}

/** The lint findings of a file that carry fixes, for "fix all". */
export function fixableFindings(ws: Workspace, a: Analysis): Diagnostic[] {
  return lint(ws, a, lintConfig(a.file).config).filter((d) => d.fix !== undefined && d.fix.length > 0);
}
