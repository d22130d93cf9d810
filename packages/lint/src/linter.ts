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
import { renderMessage } from "./messages";
import { applySuppressions } from "./suppressions";
import type { Diagnostic, LintOptions, ProjectFacts, Report, RuleContext, RuleSetting } from "./types";
import { Dispatch, Walker } from "./walker";

const RULE_IDS: ReadonlySet<string> = new Set(RULES_BY_ID.keys());
const NO_SETTING: RuleSetting = {};

/** Each rule's setting, aliases resolved (lint.md §1.5). */
function settingsOf(o: LintOptions): Map<string, RuleSetting> {
  const out = new Map<string, RuleSetting>();
  for (const [id, setting] of Object.entries(o.rules ?? {})) {
    const rule = RULE_ALIASES.get(id) ?? id;
    out.set(rule, { ...out.get(rule), ...setting });
  }
  return out;
}

/** The project facts of a file linted on its own. */
const EMPTY_SET: ReadonlySet<string> = new Set();
const EMPTY_MAP: ReadonlyMap<string, never> = new Map<string, never>();

export function lintProgram(program: Program, options: LintOptions = {}): Diagnostic[] {
  const source = options.source ?? null;
  const settings = settingsOf(options);
  const project: ProjectFacts = {
    externallyImported: options.externallyImported ?? EMPTY_SET,
    wildcardExports: options.wildcardExports ?? EMPTY_MAP,
    // a Set is shared as is: the CLI passes the same one for every file
    extraBuiltins: options.builtins instanceof Set ? options.builtins : new Set(options.builtins ?? []),
    importedHandles: options.importedHandles ?? EMPTY_MAP,
    module: options.modules ?? (() => null),
  };
  const facts = new Facts();
  const dispatch = new Dispatch();
  const walker = new Walker(dispatch);
  const diagnostics: Diagnostic[] = [];
  const cfgs = new Map<CfgOwner, Cfg>();
  const memos = new Map<object, unknown>();
  const src = source === null ? null : new SourceText(source, options.tokens ?? null);

  dispatch.add(factCollector(facts));
  /** Rules whose findings are kept (for suppressions: what ran). */
  const active = new Set<string>();
  for (const rule of ALL_RULES) {
    const setting = settings.get(rule.id) ?? NO_SETTING;
    const { meta } = rule;
    if (meta.needsSource && source === null) continue;
    if (meta.optIn && (setting.severity === undefined || setting.severity === "off")) continue;
    if (setting.severity !== "off") active.add(rule.id);
    /** The configured severity, which wins over what the rule says. */
    const configured = setting.severity === undefined || setting.severity === "off" ? null : setting.severity;
    const ctx: RuleContext = {
      program,
      source,
      file: options.file ?? null,
      options: { ...meta.defaultOptions, ...setting.options },
      project,
      facts,
      sourceText: src,
      report(r: Report) {
        const span = r.span ?? r.node?.span;
        if (!span) throw new Error(`rule ${rule.id} reported without a span`);
        const t = meta.messages[r.messageId];
        if (!t) throw new Error(`rule ${rule.id} has no message ${r.messageId}`);
        const d: Diagnostic = { code: rule.id, severity: configured ?? r.severity ?? meta.severity, ...renderMessage(t, r.data), span, label: `lint[${rule.id}]` };
        if (r.labels && r.labels.length > 0) d.labels = r.labels;
        if (r.fix && r.fix.length > 0) d.fix = r.fix;
        diagnostics.push(d);
      },
      ancestors: () => walker.ancestors(),
      isStatement: (n: Node) => walker.isStatement(n),
      text(x: Node | Span) {
        if (source === null) return "";
        const span = "kind" in x ? x.span : x;
        return source.slice(span.start, span.end);
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

  let out = diagnostics.filter((d) => active.has(d.code));
  if (src) out = applySuppressions(out, src, RULE_IDS, active);
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
