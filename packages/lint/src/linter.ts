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
import type { AnyNode, Diagnostic, LintOptions, ProjectFacts, Report, Rule, RuleContext, RuleSetting, Severity } from "./types";
import { Dispatch, Walker } from "./walker";

const RULE_IDS: ReadonlySet<string> = new Set(RULES_BY_ID.keys());
const NO_SETTING: RuleSetting = {};

/** Each rule's setting, aliases resolved (lint.md §1.5). */
function settingsOf(rules: Readonly<Record<string, RuleSetting>>): Map<string, RuleSetting> {
  const out = new Map<string, RuleSetting>();
  for (const [id, setting] of Object.entries(rules)) {
    const rule = RULE_ALIASES.get(id) ?? id;
    out.set(rule, { ...out.get(rule), ...setting });
  }
  return out;
}

const EMPTY_SET: ReadonlySet<string> = new Set();
const EMPTY_MAP: ReadonlyMap<string, never> = new Map<string, never>();

/** What the rules of one file share: the walk, the facts, the graphs. */
class FileState {
  readonly diagnostics: Diagnostic[] = [];
  readonly cfgs = new Map<CfgOwner, Cfg>();
  readonly memos = new Map<object, unknown>();
  constructor(
    readonly program: Program,
    readonly source: string | null,
    readonly file: string | null,
    readonly project: ProjectFacts,
    readonly facts: Facts,
    readonly sourceText: SourceText | null,
    readonly walker: Walker,
  ) {}
}

/** A rule's view of the file. A class, so a file costs one small object
 * per rule rather than a set of closures. */
class Context implements RuleContext {
  readonly program: Program;
  readonly source: string | null;
  readonly file: string | null;
  readonly project: ProjectFacts;
  readonly facts: Facts;
  readonly sourceText: SourceText | null;

  constructor(
    private readonly f: FileState,
    private readonly rule: Rule,
    readonly options: object,
    /** The configured severity, which wins over what the rule says. */
    private readonly configured: Severity | null,
  ) {
    this.program = f.program;
    this.source = f.source;
    this.file = f.file;
    this.project = f.project;
    this.facts = f.facts;
    this.sourceText = f.sourceText;
  }

  report(r: Report): void {
    const { rule } = this;
    const span = r.span ?? r.node?.span;
    if (!span) throw new Error(`rule ${rule.id} reported without a span`);
    const t = rule.meta.messages[r.messageId];
    if (!t) throw new Error(`rule ${rule.id} has no message ${r.messageId}`);
    const d: Diagnostic = { code: rule.id, severity: this.configured ?? r.severity ?? rule.meta.severity, ...renderMessage(t, r.data), span, label: `lint[${rule.id}]` };
    if (r.labels && r.labels.length > 0) d.labels = r.labels;
    if (r.fix && r.fix.length > 0) d.fix = r.fix;
    this.f.diagnostics.push(d);
  }

  ancestors(): readonly AnyNode[] {
    return this.f.walker.ancestors();
  }

  isStatement(n: Node): boolean {
    return this.f.walker.isStatement(n);
  }

  text(x: Node | Span): string {
    if (this.source === null) return "";
    const span = "kind" in x ? x.span : x;
    return this.source.slice(span.start, span.end);
  }

  memo<T>(key: object, init: () => T): T {
    const memos = this.f.memos;
    if (!memos.has(key)) memos.set(key, init());
    return memos.get(key) as T;
  }

  cfg(owner: CfgOwner): Cfg {
    let g = this.f.cfgs.get(owner);
    if (!g) this.f.cfgs.set(owner, (g = buildCfg(owner)));
    return g;
  }
}

/**
 * Lints file after file. One instance keeps its dispatch table between
 * files (walker.ts), so a run of many small files pays the merge of every
 * rule's visitors once; `lintProgram` is the one-off form.
 */
export class Linter {
  private readonly dispatch = new Dispatch();
  /** The rules to run and their settings, by rule configuration: a run
   * passes the same configuration object for file after file. */
  private readonly plans = new WeakMap<object, Plan>();

  private planFor(rules: LintOptions["rules"]): Plan {
    const key = rules ?? NO_RULES;
    let p = this.plans.get(key);
    if (p === undefined) this.plans.set(key, (p = planOf(settingsOf(key))));
    return p;
  }

  lint(program: Program, options: LintOptions = {}): Diagnostic[] {
    const source = options.source ?? null;
    const project: ProjectFacts = {
      externallyImported: options.externallyImported ?? EMPTY_SET,
      wildcardExports: options.wildcardExports ?? EMPTY_MAP,
      // a Set is shared as is: the CLI passes the same one for every file
      extraBuiltins: options.builtins instanceof Set ? options.builtins : new Set(options.builtins ?? []),
      importedHandles: options.importedHandles ?? EMPTY_MAP,
      module: options.modules ?? (() => null),
    };
    const dispatch = this.dispatch;
    dispatch.reset();
    const walker = new Walker(dispatch);
    const facts = new Facts();
    const src = source === null ? null : new SourceText(source, options.tokens ?? null);
    const f = new FileState(program, source, options.file ?? null, project, facts, src, walker);

    dispatch.add(factCollector(facts));
    const { plan, active } = this.planFor(options.rules);
    for (const p of plan) {
      if (p.rule.meta.needsSource && source === null) continue;
      dispatch.add(p.rule.create(new Context(f, p.rule, p.options, p.configured)));
    }

    walker.walk(program);
    const fin = dispatch.finalize;
    for (let i = 0; i < fin.n; i++) fin.fns[i]!();

    let out = f.diagnostics.filter((d) => active.has(d.code));
    if (src) out = applySuppressions(out, src, RULE_IDS, active);
    return sortDiagnostics(out);
  }
}

const NO_OPTIONS = {};
const NO_RULES: Readonly<Record<string, RuleSetting>> = {};

/** What a rule configuration runs: each rule with its options and
 * configured severity, and the rules whose findings are kept. */
interface Plan {
  plan: { rule: Rule; options: object; configured: Severity | null }[];
  /** Rules whose findings are kept (for suppressions: what ran). */
  active: Set<string>;
}

function planOf(settings: Map<string, RuleSetting>): Plan {
  const plan: Plan["plan"] = [];
  const active = new Set<string>();
  for (const rule of ALL_RULES) {
    const setting = settings.get(rule.id) ?? NO_SETTING;
    const { meta } = rule;
    if (meta.optIn && (setting.severity === undefined || setting.severity === "off")) continue;
    if (setting.severity !== "off") active.add(rule.id);
    const configured = setting.severity === undefined || setting.severity === "off" ? null : setting.severity;
    const options = setting.options === undefined ? (meta.defaultOptions ?? NO_OPTIONS) : { ...meta.defaultOptions, ...setting.options };
    plan.push({ rule, options, configured });
  }
  return { plan, active };
}

export function lintProgram(program: Program, options: LintOptions = {}): Diagnostic[] {
  return new Linter().lint(program, options);
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
