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
import { ConfigError, ConfigResolver, DEFAULT_CONFIG, lintProgram, ProjectGraph, type FixEdit, type LintConfig, type LintDiagnostic } from "@harn/lint";
import { checkStructure } from "@harn/parser";
import { DiagnosticSeverity, type Diagnostic } from "vscode-languageserver";
import type { Analysis, Workspace } from "./workspace";

/** What a lint diagnostic carries for code actions. */
export interface LintData {
  rule: string;
  fix: FixEdit[];
}

const SEVERITY = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
} as const;

export function diagnose(ws: Workspace, a: Analysis): Diagnostic[] {
  const out: Diagnostic[] = [];
  const { program } = a.parsed;
  for (const e of a.parsed.errors) {
    const d: Diagnostic = { range: a.range(e.span), severity: DiagnosticSeverity.Error, source: "harn", code: "syntax", message: capitalised(e.pretty) };
    out.push(e.help === null ? d : { ...d, message: `${d.message}\nhelp: ${e.help}` });
  }
  const structure = checkStructure(program);
  for (const s of structure) out.push({ range: a.range(s.span), severity: DiagnosticSeverity.Error, source: "harn", message: s.message });
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
    for (const c of checked) {
      if (c.span === null) continue;
      out.push({ range: a.range(c.span), severity: DiagnosticSeverity.Error, source: "harn", message: c.help ? `${c.message}\nhelp: ${c.help}` : c.message });
    }
  }
  for (const f of ws.host.extraChecks?.(program, a.file) ?? []) {
    out.push({ range: a.range(f.span), severity: SEVERITY[f.severity], source: "harn", code: "preflight", message: f.message });
  }
  const { config, error } = lintConfig(a.file);
  if (error !== null) out.push({ range: a.range({ start: 0, end: 0 }), severity: DiagnosticSeverity.Error, source: "harn-lint", message: error });
  for (const l of lint(ws, a, config)) out.push(lintDiagnostic(a, l));
  const key = (d: Diagnostic) => d.range.start.line * 1e6 + d.range.start.character;
  return out.sort((x, y) => key(x) - key(y));
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

function lint(ws: Workspace, a: Analysis, config: LintConfig): LintDiagnostic[] {
  const graph = new ProjectGraph({ stdModules: ws.host.stdModules, readFile: (path) => ws.read(path) ?? "" });
  return lintProgram(a.parsed.program, {
    source: a.text,
    tokens: a.parsed.tokens,
    file: a.file,
    requireFileHeader: config.requireFileHeader,
    ...(config.complexityThreshold !== null ? { complexityThreshold: config.complexityThreshold } : {}),
    externallyImported: ws.importedElsewhere(a.file),
    wildcardExports: graph.wildcardExports(a.file, a.parsed.program),
    builtins: ws.builtinNames,
    disabled: config.disabled,
    checkedHandles: config.checkedHandles,
    severities: config.severities,
  });
}

function lintDiagnostic(a: Analysis, l: LintDiagnostic): Diagnostic {
  const d: Diagnostic = { range: a.range(l.span), severity: SEVERITY[l.severity], source: "harn-lint", code: l.rule, message: `[${l.rule}] ${l.message}` };
  const data: LintData = { rule: l.rule, fix: l.fix ?? [] };
  d.data = data;
  return d;
}

/** The lint findings of a file with fixes, for "fix all". */
export function fixableFindings(ws: Workspace, a: Analysis): LintDiagnostic[] {
  return lint(ws, a, lintConfig(a.file).config).filter((d) => d.fix !== undefined && d.fix.length > 0);
}
