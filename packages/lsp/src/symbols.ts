/**
 * One file's names: every declaration and binding (`Definition`) and every
 * place a name is used (`Occurrence`), resolved through the scopes of
 * spec/semantics.md §3 (blocks, function bodies, loop and catch variables,
 * match bindings). Definition, references, rename, hover, completion and
 * semantic tokens all read this one index.
 *
 * Resolution is lexical and generous: top-level declarations and nested
 * `fn`s are visible in their whole block, `let`/`var` from the end of their
 * statement on. A name that resolves to nothing here is a builtin or comes
 * from a wildcard import (the workspace decides, see workspace.ts).
 */
import type { Token } from "@harn/lexer";
import {
  forEachChild,
  forEachTypeName,
  type FnDecl,
  type Node,
  type Param,
  type Pattern,
  type Program,
  type Span,
  type TypeExpr,
} from "@harn/parser";
import { TokenIndex } from "./tokens";

export type DefKind =
  | "function"
  | "tool"
  | "pipeline"
  | "skill"
  | "struct"
  | "enum"
  | "interface"
  | "type"
  | "variable"
  | "parameter"
  | "import";

export interface Definition {
  name: string;
  kind: DefKind;
  /** The name where it is declared. */
  nameSpan: Span;
  /** The declaring node (for signatures and doc comments); null for
   * bindings inside patterns and parameters. */
  node: Node | null;
  /** A parameter's declaration, for its type in hovers. */
  param: Param | null;
  /** The value a `let`/`var` binds (dict keys for completion). */
  value: Node | null;
  type: TypeExpr | null;
  mutable: boolean;
  topLevel: boolean;
  /** Visible from here to `scopeEnd` (UTF-16 offsets). */
  scopeStart: number;
  scopeEnd: number;
  /** `import { name } from "path"`: the module it comes from. */
  importPath: string | null;
}

export interface Occurrence {
  name: string;
  span: Span;
  /** Null: not declared in this file (a builtin, or a wildcard import). */
  def: Definition | null;
  /** The declaration itself, not a use. */
  declaration: boolean;
  /** Used as a call target (`name(...)`). */
  call: boolean;
}

export interface FileIndex {
  defs: Definition[];
  /** Sorted by start offset. */
  occurrences: Occurrence[];
  /** Top-level declarations by name (what the file exports). */
  topLevel: Map<string, Definition>;
  /** Paths of `import "path"` (every top-level name of the module). */
  wildcardImports: string[];
  tokens: TokenIndex;
}

class Scope {
  readonly names = new Map<string, Definition>();
  constructor(
    readonly parent: Scope | null,
    readonly start: number,
    readonly end: number,
  ) {}

  lookup(name: string): Definition | null {
    for (let s: Scope | null = this; s !== null; s = s.parent) {
      const d = s.names.get(name);
      if (d !== undefined) return d;
    }
    return null;
  }
}

const HOISTED: Partial<Record<Node["kind"], DefKind>> = {
  FnDecl: "function",
  ToolDecl: "tool",
  Pipeline: "pipeline",
  SkillDecl: "skill",
  StructDecl: "struct",
  EnumDecl: "enum",
  InterfaceDecl: "interface",
  TypeDecl: "type",
};

export function indexFile(program: Program, tokens: readonly Token[], sourceLength: number): FileIndex {
  return new Indexer(new TokenIndex(tokens), sourceLength).run(program);
}

class Indexer {
  private readonly defs: Definition[] = [];
  private readonly occurrences: Occurrence[] = [];
  private readonly wildcardImports: string[] = [];
  private scope: Scope;

  constructor(
    private readonly toks: TokenIndex,
    sourceLength: number,
  ) {
    this.scope = new Scope(null, 0, sourceLength);
  }

  run(program: Program): FileIndex {
    const top = this.scope;
    this.hoist(program.items, true);
    for (const item of program.items) this.statement(item);
    const topLevel = new Map<string, Definition>();
    for (const [name, d] of top.names) if (d.topLevel) topLevel.set(name, d);
    this.occurrences.sort((a, b) => a.span.start - b.span.start);
    return { defs: this.defs, occurrences: this.occurrences, topLevel, wildcardImports: this.wildcardImports, tokens: this.toks };
  }

  // -- definitions ----------------------------------------------------------

  private define(name: string, kind: DefKind, nameSpan: Span, extra: Partial<Definition> = {}, visibleFrom?: number): Definition {
    const d: Definition = {
      name,
      kind,
      nameSpan,
      node: null,
      param: null,
      value: null,
      type: null,
      mutable: false,
      topLevel: this.scope.parent === null,
      scopeStart: visibleFrom ?? this.scope.start,
      scopeEnd: this.scope.end,
      importPath: null,
      ...extra,
    };
    if (name !== "_") this.scope.names.set(name, d);
    this.defs.push(d);
    this.occurrences.push({ name, span: nameSpan, def: d, declaration: true, call: false });
    return d;
  }

  /** The span of identifier `name` inside `within` (for nodes that keep
   * names without spans). */
  private nameIn(name: string, within: Span, from = within.start): Span {
    const t = this.toks.identIn(name, from, within.end);
    return t ? tokenSpan(t) : within;
  }

  /** Declarations visible in their whole block (before their own line). */
  private hoist(stmts: readonly Node[], topLevel: boolean): void {
    for (const raw of stmts) {
      const n = raw.kind === "AttributedDecl" ? raw.inner : raw;
      const kind = HOISTED[n.kind];
      if (kind !== undefined && "name" in n) {
        const nameSpan = "nameSpan" in n ? n.nameSpan : this.nameIn(n.name, n.span, n.span.start);
        this.define(n.name, kind, nameSpan, { node: raw });
      } else if (n.kind === "ImplBlock") {
        // methods are reached through values, not names of the block
      } else if (n.kind === "SelectiveImport" && topLevel) {
        n.names.forEach((name, i) => this.define(name, "import", n.nameSpans[i] ?? n.span, { node: n, importPath: n.path }));
      } else if (n.kind === "ImportDecl") {
        this.wildcardImports.push(n.path);
      }
    }
  }

  // -- scopes ---------------------------------------------------------------

  /** Run `fn` in a new scope covering [start, end). */
  private within(start: number, end: number, fn: () => void): void {
    const saved = this.scope;
    this.scope = new Scope(saved, start, end);
    try {
      fn();
    } finally {
      this.scope = saved;
    }
  }

  /** A `{ … }` statement list: its own scope between its braces (found
   * from its statements; the owner's span when they cannot be). */
  private block(stmts: readonly Node[] | null, owner: Span, before?: () => void): void {
    if (stmts === null) return;
    let range: [number, number] | null = null;
    if (stmts.length > 0) range = this.toks.blockAround(stmts[0]!.span.start, stmts[stmts.length - 1]!.span.end);
    const [start, end] = range ?? [owner.start, owner.end];
    this.within(start, end, () => {
      before?.();
      this.hoist(stmts, false);
      for (const s of stmts) this.statement(s);
    });
  }

  private params(ps: readonly Param[]): void {
    for (const p of ps) {
      if (p.default !== null) this.expr(p.default);
      this.type(p.type);
      this.define(p.name, "parameter", this.nameIn(p.name, p.span), { param: p, type: p.type });
    }
  }

  private pattern(p: Pattern, kind: DefKind, extra: Partial<Definition>, visibleFrom: number): void {
    switch (p.kind) {
      case "ident":
        this.define(p.name, kind, this.nameIn(p.name, p.span), extra, visibleFrom);
        return;
      case "dict":
        for (const f of p.fields) {
          if (f.default !== null) this.expr(f.default);
          const name = f.alias ?? f.key;
          // `{key: alias}`: the alias is the binding, after the key
          const span = this.nameIn(name, f.span, f.alias !== null ? this.afterColon(f.span) : f.span.start);
          this.define(name, kind, span, { mutable: extra.mutable ?? false }, visibleFrom);
        }
        return;
      case "list":
        for (const e of p.elements) {
          if (e.default !== null) this.expr(e.default);
          this.define(e.name, kind, this.nameIn(e.name, e.span), { mutable: extra.mutable ?? false }, visibleFrom);
        }
        return;
      case "pair": {
        const first = this.nameIn(p.first, p.span);
        this.define(p.first, kind, first, { mutable: extra.mutable ?? false }, visibleFrom);
        this.define(p.second, kind, this.nameIn(p.second, p.span, first.end), { mutable: extra.mutable ?? false }, visibleFrom);
        return;
      }
    }
  }

  private afterColon(span: Span): number {
    for (let i = this.toks.indexAt(span.start); i < this.toks.tokens.length; i++) {
      const t = this.toks.tokens[i]!;
      if (t.start >= span.end) break;
      if (t.kind === ":") return t.end;
    }
    return span.start;
  }

  /** Names a `match` arm's pattern binds (semantics.md §6.4). */
  private matchPattern(p: Node): void {
    switch (p.kind) {
      case "Identifier":
        if (p.name !== "_") this.define(p.name, "variable", p.span, {}, p.span.end);
        return;
      case "ListLiteral":
        for (const e of p.elements) this.matchPattern(e);
        return;
      case "DictLiteral":
        for (const e of p.entries) {
          if (e.computed) this.expr(e.key);
          this.matchPattern(e.value);
        }
        return;
      case "MethodCall":
        this.expr(p.object);
        for (const a of p.args) this.matchPattern(a);
        return;
      default:
        this.expr(p);
    }
  }

  // -- the walk -------------------------------------------------------------

  private statement(n: Node): void {
    switch (n.kind) {
      case "AttributedDecl":
        for (const a of n.attributes) for (const arg of a.args) this.expr(arg.value);
        this.statement(n.inner);
        return;
      case "LetBinding":
      case "VarBinding":
        this.type(n.type);
        this.expr(n.value);
        this.pattern(n.pattern, "variable", { node: n, value: n.value, type: n.type, mutable: n.kind === "VarBinding" }, n.span.end);
        return;
      case "FnDecl":
      case "ToolDecl":
        this.function(n);
        return;
      case "Pipeline":
        this.type(n.returnType);
        this.block(n.body, n.span, () => {
          let from = this.nameIn(n.name, n.span).end;
          for (const name of n.params) {
            const span = this.nameIn(name, n.span, from);
            from = span.end;
            this.define(name, "parameter", span);
          }
        });
        return;
      default:
        this.expr(n);
    }
  }

  private function(n: FnDecl | Extract<Node, { kind: "ToolDecl" }>): void {
    this.type(n.returnType);
    this.within(n.nameSpan.end, n.span.end, () => {
      this.params(n.params);
      this.block(n.body, n.span);
    });
  }

  private type(t: TypeExpr | null): void {
    forEachTypeName(t, (named) => this.use(named.name, named.kind === "Named" ? named.span : this.nameIn(named.name, named.span), false));
  }

  private use(name: string, span: Span, call: boolean): void {
    this.occurrences.push({ name, span, def: this.scope.lookup(name), declaration: false, call });
  }

  private expr(n: Node): void {
    switch (n.kind) {
      case "Identifier":
        this.use(n.name, n.span, false);
        return;
      case "FunctionCall":
        this.use(n.name, n.nameSpan, true);
        for (const t of n.typeArgs) this.type(t);
        for (const a of n.args) this.expr(a);
        return;
      case "StructConstruct":
        this.use(n.structName, this.nameIn(n.structName, n.span), false);
        forEachChild(n, (c) => this.expr(c));
        return;
      case "Closure":
        this.within(n.span.start, n.span.end, () => {
          this.params(n.params);
          for (const s of n.body) this.statement(s);
        });
        return;
      case "FnDecl":
      case "ToolDecl":
      case "Pipeline":
      case "LetBinding":
      case "VarBinding":
      case "AttributedDecl":
        this.statement(n);
        return;
      case "StructDecl":
        for (const f of n.fields) this.type(f.type);
        return;
      case "EnumDecl":
        for (const v of n.variants) for (const f of v.fields) this.type(f.type);
        return;
      case "TypeDecl":
        this.type(n.type);
        return;
      case "InterfaceDecl":
        for (const m of n.methods) {
          for (const p of m.params) this.type(p.type);
          this.type(m.returnType);
        }
        return;
      case "ImplBlock":
        this.use(n.typeName, this.nameIn(n.typeName, n.span), false);
        for (const m of n.methods) this.function(m);
        return;
      case "OverrideDecl":
        this.block(n.body, n.span, () => {
          let from = n.span.start;
          for (const name of n.params) {
            const span = this.nameIn(name, n.span, from);
            from = span.end;
            this.define(name, "parameter", span);
          }
        });
        return;
      case "IfElse":
        this.expr(n.condition);
        this.block(n.thenBody, n.span);
        this.block(n.elseBody, n.span);
        return;
      case "ForIn":
        this.expr(n.iterable);
        this.within(n.span.start, n.span.end, () => {
          this.pattern(n.pattern, "variable", {}, n.pattern.span.end);
          this.block(n.body, n.span);
        });
        return;
      case "WhileLoop":
        this.expr(n.condition);
        this.block(n.body, n.span);
        return;
      case "MatchExpr":
        this.expr(n.value);
        for (const arm of n.arms) {
          this.within(arm.span.start, arm.span.end, () => {
            this.matchPattern(arm.pattern);
            if (arm.guard !== null) this.expr(arm.guard);
            this.block(arm.body, arm.span);
          });
        }
        return;
      case "TryCatch":
        this.block(n.body, n.span);
        if (n.errorVar !== null || n.catchBody.length > 0) {
          const catchAt = n.body.length > 0 ? n.body[n.body.length - 1]!.span.end : n.span.start;
          const range = this.toks.blockAfter(catchAt, n.span.end);
          this.within(catchAt, range ? range[1] : n.span.end, () => {
            if (n.errorVar !== null) this.define(n.errorVar, "variable", this.nameIn(n.errorVar, n.span, catchAt));
            this.type(n.errorType);
            this.block(n.catchBody, n.span);
          });
        }
        this.block(n.finallyBody, n.span);
        return;
      case "Parallel":
        this.expr(n.expr);
        for (const [, v] of n.options) this.expr(v);
        this.within(n.span.start, n.span.end, () => {
          if (n.variable !== null) this.define(n.variable, "variable", this.nameIn(n.variable, n.span, n.expr.span.end));
          this.block(n.body, n.span);
        });
        return;
      case "SelectExpr":
        for (const c of n.cases) {
          this.expr(c.channel);
          this.within(c.span.start, c.span.end, () => {
            this.define(c.variable, "variable", this.nameIn(c.variable, c.span));
            this.block(c.body, c.span);
          });
        }
        if (n.timeout !== null) {
          this.expr(n.timeout.duration);
          this.block(n.timeout.body, n.span);
        }
        this.block(n.defaultBody, n.span);
        return;
      case "GuardStmt":
        this.expr(n.condition);
        this.block(n.elseBody, n.span);
        return;
      case "DeadlineBlock":
        this.expr(n.duration);
        this.block(n.body, n.span);
        return;
      case "Retry":
        this.expr(n.count);
        this.block(n.body, n.span);
        return;
      case "TryExpr":
      case "DeferStmt":
      case "MutexBlock":
      case "SpawnExpr":
        this.block(n.body, n.span);
        return;
      case "EvalPackDecl":
        for (const [, v] of n.fields) this.expr(v);
        this.block(n.body, n.span);
        this.block(n.summarize, n.span);
        return;
      default:
        forEachChild(n, (c) => this.expr(c));
    }
  }
}

export function tokenSpan(t: Token): Span {
  return { start: t.start, end: t.end, line: t.line, column: t.column, endLine: t.endLine, endColumn: t.endColumn };
}

/** The occurrence under `offset` (a cursor just after a name counts). */
export function occurrenceAt(index: FileIndex, offset: number): Occurrence | null {
  const occ = index.occurrences;
  let lo = 0;
  let hi = occ.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (occ[mid]!.span.start <= offset) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo - 1; i >= 0 && i >= lo - 3; i--) {
    const o = occ[i]!;
    if (o.span.start <= offset && offset <= o.span.end) return o;
  }
  return null;
}

/** Every definition visible at `offset`, innermost first (a shadowed name
 * once). */
export function visibleAt(index: FileIndex, offset: number): Definition[] {
  const seen = new Map<string, Definition>();
  for (const d of index.defs) {
    if (d.scopeStart > offset || offset > d.scopeEnd) continue;
    const prev = seen.get(d.name);
    if (prev === undefined || prev.scopeStart <= d.scopeStart) seen.set(d.name, d);
  }
  return [...seen.values()];
}
