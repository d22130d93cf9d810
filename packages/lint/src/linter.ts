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
import type { AnyNode, Diagnostic, LintOptions, ProjectFacts, Report, Rule, RuleContext, RuleSetting, Severity, Visitors } from "./types";
import { Dispatch, Walker } from "./walker";
import { Gates } from "./gates";

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
  /** Made on first use: most small files have no flow-sensitive finding to
   * look for and memoize nothing. */
  cfgs: Map<CfgOwner, Cfg> | null = null;
  memos: Map<object, unknown> | null = null;
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
 * per rule rather than a set of closures; a reusable rule's context is made
 * once and pointed at file after file (`bind`). */
class Context implements RuleContext {
  program!: Program;
  source!: string | null;
  file!: string | null;
  project!: ProjectFacts;
  facts!: Facts;
  sourceText!: SourceText | null;
  private f!: FileState;

  constructor(
    f: FileState,
    private readonly rule: Rule,
    readonly options: object,
    /** The configured severity, which wins over what the rule says. */
    private readonly configured: Severity | null,
  ) {
    this.bind(f);
  }

  bind(f: FileState): void {
    this.f = f;
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
    const memos = (this.f.memos ??= new Map());
    if (!memos.has(key)) memos.set(key, init());
    return memos.get(key) as T;
  }

  cfg(owner: CfgOwner): Cfg {
    const cfgs = (this.f.cfgs ??= new Map());
    let g = cfgs.get(owner);
    if (!g) cfgs.set(owner, (g = buildCfg(owner)));
    return g;
  }
}

/**
 * Lints file after file. One instance keeps its dispatch table, walker and
 * fact collector between files, and per rules object the rule plan and the
 * visitors of the reusable rules (`RuleMeta.reusable`): a run of many small
 * files pays their set-up once; `lintProgram` is the one-off form.
 */
export class Linter {
  private readonly dispatch = new Dispatch();
  private readonly walker = new Walker(this.dispatch);
  private readonly facts = new Facts();
  private readonly collector = factCollector(this.facts);
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
    const { dispatch, walker, facts } = this;
    this.collector.reset();
    walker.reset();
    const src = source === null ? null : new SourceText(source, options.tokens ?? null);
    const f = new FileState(program, source, options.file ?? null, project, facts, src, walker);

    const plan = this.planFor(options.rules);
    const hasSource = source !== null;
    const { gates } = plan;
    // the gated rules that may report here (gates.ts)
    const open = gates === null ? 0 : gates.open(options.tokens ?? src?.tokens() ?? null, source, project);
    // the fact collector and the reusable rules first, in catalogue order,
    // then the rules made for this file (findings are sorted afterwards)
    const byOpen = plan.reused[hasSource ? 1 : 0];
    let reused = byOpen.get(open);
    if (reused === undefined) byOpen.set(open, (reused = this.reusedOf(plan, hasSource, open, f)));
    for (const c of reused.contexts) c.bind(f);
    dispatch.begin(reused.visitors);
    for (const p of plan.perFile) {
      if ((p.rule.meta.needsSource && !hasSource) || (gates !== null && !gates.runs(p.rule, open))) continue;
      dispatch.add(p.rule.create(new Context(f, p.rule, p.options, p.configured)));
    }

    walker.walk(program);
    const fin = dispatch.finalize;
    for (let i = 0; i < fin.n; i++) fin.fns[i]!();

    let out = f.diagnostics.filter((d) => plan.active.has(d.code));
    if (src) out = applySuppressions(out, src, RULE_IDS, plan.active);
    return sortDiagnostics(out);
  }

  private reusedOf(plan: Plan, hasSource: boolean, open: number, f: FileState): Reused {
    const contexts: Context[] = [];
    const visitors: Visitors[] = [this.collector.visitors];
    for (const p of plan.reusable) {
      if ((p.rule.meta.needsSource && !hasSource) || (plan.gates !== null && !plan.gates.runs(p.rule, open))) continue;
      const ctx = new Context(f, p.rule, p.options, p.configured);
      contexts.push(ctx);
      visitors.push(p.rule.create(ctx));
    }
    return { contexts, visitors };
  }
}

const NO_OPTIONS = {};
const NO_RULES: Readonly<Record<string, RuleSetting>> = {};

interface PlanEntry {
  rule: Rule;
  options: object;
  configured: Severity | null;
}

/** The reusable rules' contexts and the visitors the walk starts with
 * (the fact collector's and theirs), made on a configuration's first file
 * with the same gated rules open. */
interface Reused {
  contexts: Context[];
  visitors: Visitors[];
}

/** What a rule configuration runs: each rule with its options and
 * configured severity, and the rules whose findings are kept. */
interface Plan {
  reusable: PlanEntry[];
  perFile: PlanEntry[];
  /** Rules whose findings are kept (for suppressions: what ran). */
  active: Set<string>;
  /** Which gated rules may report in a file; null when none runs. */
  gates: Gates | null;
  /** By whether the file has source text (without, needsSource rules do
   * not run), then by the gated rules open. */
  reused: [Map<number, Reused>, Map<number, Reused>];
}

function planOf(settings: Map<string, RuleSetting>): Plan {
  const reusable: PlanEntry[] = [];
  const perFile: PlanEntry[] = [];
  const active = new Set<string>();
  for (const rule of ALL_RULES) {
    const setting = settings.get(rule.id) ?? NO_SETTING;
    const { meta } = rule;
    if (meta.optIn && (setting.severity === undefined || setting.severity === "off")) continue;
    if (setting.severity !== "off") active.add(rule.id);
    const configured = setting.severity === undefined || setting.severity === "off" ? null : setting.severity;
    const options = setting.options === undefined ? (meta.defaultOptions ?? NO_OPTIONS) : { ...meta.defaultOptions, ...setting.options };
    (meta.reusable ? reusable : perFile).push({ rule, options, configured });
  }
  const gates = new Gates([...reusable, ...perFile]);
  return { reusable, perFile, active, gates: gates.all === 0 ? null : gates, reused: [new Map(), new Map()] };
}

export function lintProgram(program: Program, options: LintOptions = {}): Diagnostic[] {
  return new Linter().lint(program, options);
}

/** Stable sort by line, column, then rule id (lint.md §1.4). */
export function sortDiagnostics(ds: Diagnostic[]): Diagnostic[] {
  // most files have no findings: no arrays for them
  if (ds.length < 2) return ds.slice();
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
