/**
 * Lint one parsed file: build the rule contexts, run the shared walk, the
 * post-walk checks, inline suppressions and disabled-rule filtering, and
 * hand back diagnostics sorted by position (lint.md §1.4 allows sorting).
 */
import { parse, type Node, type Program, type Span, type SyntaxDiagnostic } from "@harn/parser";
import { buildCfg } from "./cfg/build";
import type { Cfg, CfgOwner } from "./cfg/cfg";
import { Facts, factCollector } from "./facts";
import { ALL_RULES, RULE_ALIASES, RULES_BY_ID } from "./rules/index";
import { SourceText } from "./source/source-text";
import { applySuppressions } from "./suppressions";
import type { Diagnostic, LintOptions, Report, ResolvedLintOptions, Rule, RuleContext } from "./types";
import { Dispatch, Walker } from "./walker";

export const DEFAULT_COMPLEXITY_THRESHOLD = 25;

const RULE_IDS: ReadonlySet<string> = new Set(RULES_BY_ID.keys());


export function resolveOptions(o: LintOptions = {}): ResolvedLintOptions {
  const disabled = new Set<string>();
  for (const id of o.disabled ?? []) {
    disabled.add(id);
    const alias = RULE_ALIASES.get(id);
    if (alias) disabled.add(alias);
  }
  return {
    source: o.source ?? null,
    file: o.file ?? null,
    requireFileHeader: o.requireFileHeader ?? false,
    complexityThreshold: o.complexityThreshold ?? DEFAULT_COMPLEXITY_THRESHOLD,
    externallyImported: o.externallyImported ?? new Set(),
    wildcardExports: o.wildcardExports ?? new Map(),
    // a Set is shared as is: the CLI passes the same one for every file
    extraBuiltins: o.builtins instanceof Set ? o.builtins : new Set(o.builtins ?? []),
    disabled,
    checkedHandles: o.checkedHandles ?? false,
    severities: o.severities ?? {},
  };
}

/** Is the rule switched on for these options? */
export function ruleActive(rule: Rule, o: ResolvedLintOptions): boolean {
  if (rule.needsSource && o.source === null) return false;
  if (rule.optIn) {
    if (rule.id === "require-file-header") return o.requireFileHeader;
    return o.checkedHandles;
  }
  return true;
}

export function lintProgram(program: Program, options: LintOptions = {}): Diagnostic[] {
  const opts = resolveOptions(options);
  const facts = new Facts();
  const dispatch = new Dispatch();
  const walker = new Walker(dispatch);
  const diagnostics: Diagnostic[] = [];
  const cfgs = new Map<CfgOwner, Cfg>();
  const memos = new Map<object, unknown>();
  const src = opts.source === null ? null : new SourceText(opts.source, options.tokens ?? null);

  dispatch.add(factCollector(facts));
  const active = new Set<string>();
  for (const rule of ALL_RULES) {
    if (!ruleActive(rule, opts)) continue;
    if (!opts.disabled.has(rule.id)) active.add(rule.id);
    const ctx: RuleContext = {
      program,
      source: opts.source,
      file: opts.file,
      options: opts,
      facts,
      sourceText: src,
      report(r: Report) {
        const span = r.span ?? r.node?.span;
        if (!span) throw new Error(`rule ${rule.id} reported without a span`);
        const d: Diagnostic = { code: rule.id, severity: r.severity ?? rule.severity, message: r.message, span, label: `lint[${rule.id}]` };
        if (r.help !== undefined) d.help = r.help;
        if (r.fix && r.fix.length > 0) d.fix = r.fix;
        diagnostics.push(d);
      },
      ancestors: () => walker.ancestors(),
      isStatement: (n: Node) => walker.isStatement(n),
      text(x: Node | Span) {
        if (opts.source === null) return "";
        const span = "kind" in x ? x.span : x;
        return opts.source.slice(span.start, span.end);
      },
      memo<T>(key: object, init: () => T): T {
        if (!memos.has(key)) memos.set(key, init());
        return memos.get(key) as T;
      },
      cfg(owner: CfgOwner) {
        let g = cfgs.get(owner);
        if (!g) cfgs.set(owner, (g = buildCfg(owner)));
        return g;
      },
    };
    dispatch.add(rule.create(ctx));
  }

  walker.walk(program);
  for (const f of dispatch.finalize) f();

  let out = diagnostics.filter((d) => !opts.disabled.has(d.code));
  if (src) out = applySuppressions(out, src, RULE_IDS, active);
  for (const d of out) {
    const s = opts.severities[d.code];
    if (s !== undefined) d.severity = s;
  }
  return sortDiagnostics(out);
}

/** Stable sort by line, column, then rule id (lint.md §1.4). */
export function sortDiagnostics(ds: Diagnostic[]): Diagnostic[] {
  return ds
    .map((d, i) => ({ d, i }))
    .sort(
      (a, b) =>
        a.d.span!.line - b.d.span!.line ||
        a.d.span!.column - b.d.span!.column ||
        (a.d.code < b.d.code ? -1 : a.d.code > b.d.code ? 1 : 0) ||
        a.i - b.i,
    )
    .map((x) => x.d);
}

export interface SourceLintResult {
  /** Syntax errors; when there are any, the file was not linted. */
  parseErrors: SyntaxDiagnostic[];
  diagnostics: Diagnostic[];
  program: Program | null;
}

/** Parse and lint a source text. Lint runs only on files that parse
 * (lint.md §1.1). */
export function lintSource(source: string, options: Omit<LintOptions, "source"> = {}): SourceLintResult {
  const r = parse(source, options.file ? { file: options.file } : {});
  if (r.errors.length > 0) return { parseErrors: r.errors, diagnostics: [], program: null };
  return { parseErrors: [], diagnostics: lintProgram(r.program, { ...options, source, tokens: r.tokens }), program: r.program };
}
