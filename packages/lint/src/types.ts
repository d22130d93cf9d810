/**
 * The shapes every part of the linter shares: diagnostics, fixes, rules and
 * the context a rule sees (spec/lint.md §1.2).
 */
import type { BlockRole, Diagnostic, FixEdit, Label, Node, Program, Severity, Span } from "@harn/parser";

/** Lint findings are the project's one `Diagnostic` (parser
 * diagnostics.ts), `code` being the rule id. `info` severity exists only
 * for the checked-handle analysis (extensions.md §4): findings that depend
 * on values the linter cannot see. It never fails a run and is not counted
 * by `--max-warnings`. */
export type { Diagnostic, FixEdit, Severity, Span };

/** Where a statement list sits (the parser's walk reports it); scope and
 * block-shaped rules key on it. */
export type { BlockRole };

/** A rule's message and its help, with `{name}` placeholders filled from
 * the report's `data`. */
export interface MessageTemplate {
  message: string;
  help?: string;
}

/** What a rule hands to `report`: a message id of its `meta.messages` and
 * the values of its placeholders. The span defaults to the node's. */
export interface Report {
  node?: Node;
  span?: Span;
  messageId: string;
  data?: Readonly<Record<string, string | number>>;
  fix?: FixEdit[];
  /** Secondary places ("the handle leaks here"). */
  labels?: Label[];
  /** Overrides the rule's severity for this one finding. */
  severity?: Severity;
}

export interface BlockInfo {
  stmts: Node[];
  /** The node that owns the list (Program for the top level). */
  owner: AnyNode;
  role: BlockRole;
}

/** Every node the walk visits: the statement/expression union plus the
 * Program root. */
export type AnyNode = Node | Program;
export type AnyKind = AnyNode["kind"];
export type AnyOf<K extends AnyKind> = Extract<AnyNode, { kind: K }>;

type NodeVisitors = { [K in AnyKind]?: (node: AnyOf<K>) => void } & {
  [K in AnyKind as `${K}:exit`]?: (node: AnyOf<K>) => void;
};

/**
 * A rule's hooks. Node hooks run in one shared pre-order walk (exit hooks
 * after the children); block hooks bracket every statement list; `finalize`
 * runs after the walk, when the file-wide facts are complete.
 */
export type Visitors = NodeVisitors & {
  Block?: (block: BlockInfo) => void;
  "Block:exit"?: (block: BlockInfo) => void;
  /** A statement that follows a definitely-exiting one (lint.md §3.3). The
   * walk does not descend into it or anything after it. */
  Unreachable?: (stmt: Node, block: BlockInfo) => void;
  finalize?: () => void;
};

/** What a rule is, apart from what it does (ESLint's `meta`). */
export interface RuleMeta<O extends object = object> {
  severity: Severity;
  /** One line: what the rule finds (SARIF shortDescription; the full page
   * is docs/rules/ID.md). */
  description: string;
  fixable: boolean;
  /** Runs only when the source text is available. */
  needsSource?: boolean;
  /** Off unless its `RuleSetting` gives it a severity
   * (`require-file-header`). */
  optIn?: boolean;
  /** Every visitor reads the file through `ctx` when it runs, and any
   * state of the rule's own is reset by its `Program` visitor (the first
   * to run in every file). The linter then calls `create` once per run
   * and configuration and reuses the visitors for every file (set-up was
   * most of linting a small file). */
  reusable?: boolean;
  /** Words without which the rule cannot report in a file (the builtins
   * or keywords it looks for): a file where none occurs as a token (or in
   * the code inside `${…}`) is not shown to the rule at all (gates.ts). */
  triggers?: RuleTriggers;
  /** Every message the rule reports, by id. */
  messages: Readonly<Record<string, MessageTemplate>>;
  /** The rule's options with their defaults (`[lint.options.ID]` in
   * harn.toml). */
  defaultOptions?: O;
}

export interface RuleTriggers {
  words?: readonly string[];
  /** Also run the rule when the file's text holds one of these (for what
   * tokens do not show: comments). */
  text?: readonly string[];
  /** Also run the rule when these words occur at least `count` times in
   * all (with the rule's options; one of them inside `${…}` runs it). */
  atLeast?: { words: readonly string[]; count: (options: never) => number };
  /** Also run the rule when a function the file imports returns a handle
   * (`ProjectFacts.importedHandles`). */
  importedHandles?: boolean;
}

export interface Rule<O extends object = object> {
  id: string;
  meta: RuleMeta<O>;
  create(ctx: RuleContext<O>): Visitors;
}

/** How a run configures one rule. */
export interface RuleSetting {
  /** `off` drops its findings; any other value replaces the rule's
   * severity (and switches an opt-in rule on). */
  severity?: Severity | "off";
  /** Overrides of the rule's `defaultOptions`. */
  options?: Readonly<Record<string, unknown>>;
}

/** What the run knows beyond the file: shared by every rule. */
export interface ProjectFacts {
  /** Names that other files of the same run import by name. */
  readonly externallyImported: ReadonlySet<string>;
  /** Exports of each wildcard `import "path"` of this file; `null` (or a
   * missing entry) means the module graph could not list them. */
  readonly wildcardExports: ReadonlyMap<string, readonly string[] | null>;
  /** Builtin names the runtime registers, beyond those the linter knows. */
  readonly extraBuiltins: ReadonlySet<string>;
  /** What imported functions do with the handles passed to them
   * (handles/summaries.ts), by the name the file imports them as. */
  readonly importedHandles: ReadonlyMap<string, import("./handles/summaries").HandleSummary>;
  /** What the module an import path of this file names exports, and
   * whether loading it can have effects; null when unknown. */
  module(path: string): ModuleFacts | null;
}

/** A module as an importer sees it. */
export interface ModuleFacts {
  /** The names an import can take (its `pub` names, or all of them). */
  readonly exports: ReadonlySet<string>;
  /** Loading it runs nothing but declarations and literal bindings (its
   * own imports included). */
  readonly pure: boolean;
}

export interface RuleContext<O extends object = object> {
  readonly program: Program;
  /** Source text, when the caller supplied it. */
  readonly source: string | null;
  readonly file: string | null;
  /** The rule's options: its defaults with the run's overrides. */
  readonly options: Readonly<O>;
  readonly project: ProjectFacts;
  readonly facts: import("./facts").Facts;
  /** Position helpers and tokens over `source` (null without source). */
  readonly sourceText: import("./source/source-text").SourceText | null;
  report(r: Report): void;
  /** The nodes enclosing the one being visited, outermost first (the node
   * itself is not included). */
  ancestors(): readonly AnyNode[];
  /** Whether `node` sits directly in a statement list; valid in the
   * node's own enter hook. */
  isStatement(node: Node): boolean;
  /** Source text of a node or span (empty without source). */
  text(x: Node | Span): string;
  /** A value computed once per linted file and shared by every rule that
   * asks with the same key (e.g. one analysis feeding several rules). */
  memo<T>(key: object, init: () => T): T;
  /** Control-flow graph of an owner body, built once per file. */
  cfg(owner: import("./cfg/cfg").CfgOwner): import("./cfg/cfg").Cfg;
}

export interface LintOptions {
  /** The file's text: needed by source-aware rules and nearly every fix. */
  source?: string | null;
  /** The lexer's tokens of `source` (ParseResult.tokens), so the
   * source-aware rules need not lex the file again. */
  tokens?: import("@harn/lexer").Token[] | null;
  file?: string | null;
  /** Names that other files of the same run import by name. */
  externallyImported?: ReadonlySet<string>;
  /** Exports of each wildcard `import "path"` of this file; `null` (or a
   * missing entry) means the module graph could not list them. */
  wildcardExports?: ReadonlyMap<string, readonly string[] | null>;
  /** Extra builtin names (e.g. everything a runtime registered). A Set is
   * used as is, so pass one when linting many files. */
  builtins?: Iterable<string>;
  /** Handle summaries of the functions this file imports. */
  importedHandles?: ReadonlyMap<string, import("./handles/summaries").HandleSummary>;
  /** The modules this file's import paths name (ProjectGraph.moduleFacts);
   * without it no fix removes an import. */
  modules?: (path: string) => ModuleFacts | null;
  /** Per-rule severity and options, by rule id (`unreachable-code` is an
   * alias of `dead-code-after-return`). */
  rules?: Readonly<Record<string, RuleSetting>>;
}
