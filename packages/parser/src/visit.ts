/**
 * The one walk over the AST. `walkChildren(node, visitor)` hands every
 * direct child of `node` to the visitor, in source order: operands,
 * arguments, defaults of parameters and patterns, dict keys and values,
 * attribute values, the parsed expressions of interpolated strings, and
 * statement lists with the role they play in their owner (`BlockRole`).
 * Its switch is exhaustive, so a new node kind fails to compile here until
 * its children are listed, and every walk (structure checks, the checker,
 * the linter's walker and control-flow graphs, the evaluator's scans,
 * preloading) follows. `forEachChild` is the flat form; `patternNames`,
 * `forEachPatternName` and `forEachPatternDefault` answer the same
 * questions for binding patterns, `forEachTypeName` for type expressions.
 */
import type { Node, Param, Pattern, TypeExpr } from "./ast";

/** What a statement list is to the node that owns it. */
export type BlockRole =
  | "program" // the file's top level (Program.items; walks start there themselves)
  | "body" // pipeline, fn, tool, closure, override, eval_pack body
  | "then"
  | "else"
  | "loop"
  | "try"
  | "catch"
  | "finally"
  | "tryExpr"
  | "arm"
  | "guardElse"
  | "defer"
  | "mutex"
  | "deadline"
  | "retry"
  | "parallel"
  | "selectCase"
  | "selectTimeout"
  | "selectDefault"
  | "spawn"
  | "summarize";

export interface ChildVisitor {
  /** Every child that is not given to one of the optional hooks below. */
  node(child: Node): void;
  /** A statement list of `owner`; without this hook each statement goes to `node`. */
  block?(stmts: Node[], owner: Node, role: BlockRole): void;
  /** An expression parsed from `${...}` in an interpolated string; default
   * `node`. (The linter skips them: the reference never parses them.) */
  interpolation?(expr: Node): void;
  /** A value that describes a declaration rather than runs: an attribute
   * argument, the default of an enum variant field or of an interface
   * method parameter; default `node`. */
  annotation?(expr: Node): void;
}

function stmts(v: ChildVisitor, list: Node[] | null, owner: Node, role: BlockRole): void {
  if (list === null) return;
  if (v.block !== undefined) v.block(list, owner, role);
  else for (let i = 0; i < list.length; i++) v.node(list[i]!);
}

function patternDefaults(v: ChildVisitor, p: Pattern): void {
  if (p.kind === "dict") {
    for (const f of p.fields) if (f.default !== null) v.node(f.default);
  } else if (p.kind === "list") {
    for (const e of p.elements) if (e.default !== null) v.node(e.default);
  }
}

function each(v: ChildVisitor, nodes: readonly Node[]): void {
  for (let i = 0; i < nodes.length; i++) v.node(nodes[i]!);
}

function paramDefaults(v: ChildVisitor, ps: readonly Param[]): void {
  for (const p of ps) if (p.default !== null) v.node(p.default);
}

function annotationDefaults(v: ChildVisitor, ps: readonly Param[]): void {
  for (const p of ps) if (p.default !== null) (v.annotation !== undefined ? v.annotation(p.default) : v.node(p.default));
}

export function walkChildren(n: Node, v: ChildVisitor): void {
  switch (n.kind) {
    // the most frequent kinds first: a switch on strings tests in order
    case "Identifier":
    case "StringLiteral":
    case "IntLiteral":
    case "BoolLiteral":
    case "NilLiteral":
    case "FloatLiteral":
    case "RawStringLiteral":
    case "DurationLiteral":
    case "StructDecl":
    case "TypeDecl":
    case "ImportDecl":
    case "SelectiveImport":
    case "BreakStmt":
    case "ContinueStmt":
      return;
    case "InterpolatedString":
      for (const s of n.segments) {
        if (s.kind === "expr" && s.expr !== null) (v.interpolation !== undefined ? v.interpolation(s.expr) : v.node(s.expr));
      }
      return;
    case "FunctionCall":
      each(v, n.args);
      return;
    case "MethodCall":
    case "OptionalMethodCall":
      v.node(n.object);
      each(v, n.args);
      return;
    case "PropertyAccess":
    case "OptionalPropertyAccess":
      v.node(n.object);
      return;
    case "LetBinding":
    case "VarBinding":
      patternDefaults(v, n.pattern);
      v.node(n.value);
      return;
    case "Pipeline":
    case "OverrideDecl":
      stmts(v, n.body, n, "body");
      return;
    case "FnDecl":
    case "ToolDecl":
    case "Closure":
      paramDefaults(v, n.params);
      stmts(v, n.body, n, "body");
      return;
    case "SkillDecl":
      for (const [, x] of n.fields) v.node(x);
      return;
    case "EvalPackDecl":
      for (const [, x] of n.fields) v.node(x);
      stmts(v, n.body, n, "body");
      stmts(v, n.summarize, n, "summarize");
      return;
    case "EnumDecl":
      for (const variant of n.variants) annotationDefaults(v, variant.fields);
      return;
    case "InterfaceDecl":
      for (const m of n.methods) annotationDefaults(v, m.params);
      return;
    case "ImplBlock":
      each(v, n.methods);
      return;
    case "AttributedDecl":
      for (const a of n.attributes) for (const arg of a.args) (v.annotation !== undefined ? v.annotation(arg.value) : v.node(arg.value));
      v.node(n.inner);
      return;
    case "Assignment":
      v.node(n.target);
      v.node(n.value);
      return;
    case "IfElse":
      v.node(n.condition);
      stmts(v, n.thenBody, n, "then");
      stmts(v, n.elseBody, n, "else");
      return;
    case "ForIn":
      patternDefaults(v, n.pattern);
      v.node(n.iterable);
      stmts(v, n.body, n, "loop");
      return;
    case "WhileLoop":
      v.node(n.condition);
      stmts(v, n.body, n, "loop");
      return;
    case "MatchExpr":
      v.node(n.value);
      for (const arm of n.arms) {
        v.node(arm.pattern);
        if (arm.guard !== null) v.node(arm.guard);
        stmts(v, arm.body, n, "arm");
      }
      return;
    case "TryCatch":
      stmts(v, n.body, n, "try");
      // an empty list without a `catch` clause is no catch block at all
      if (n.hasCatchClause || n.catchBody.length > 0) stmts(v, n.catchBody, n, "catch");
      stmts(v, n.finallyBody, n, "finally");
      return;
    case "TryExpr":
      stmts(v, n.body, n, "tryExpr");
      return;
    case "GuardStmt":
      v.node(n.condition);
      stmts(v, n.elseBody, n, "guardElse");
      return;
    case "DeferStmt":
      stmts(v, n.body, n, "defer");
      return;
    case "MutexBlock":
      stmts(v, n.body, n, "mutex");
      return;
    case "DeadlineBlock":
      v.node(n.duration);
      stmts(v, n.body, n, "deadline");
      return;
    case "Retry":
      v.node(n.count);
      stmts(v, n.body, n, "retry");
      return;
    case "Parallel":
      v.node(n.expr);
      for (const [, x] of n.options) v.node(x);
      stmts(v, n.body, n, "parallel");
      return;
    case "SelectExpr":
      for (const c of n.cases) {
        v.node(c.channel);
        stmts(v, c.body, n, "selectCase");
      }
      if (n.timeout !== null) {
        v.node(n.timeout.duration);
        stmts(v, n.timeout.body, n, "selectTimeout");
      }
      stmts(v, n.defaultBody, n, "selectDefault");
      return;
    case "SpawnExpr":
      stmts(v, n.body, n, "spawn");
      return;
    case "TryStar":
    case "TryOperator":
    case "UnaryOp":
      v.node(n.operand);
      return;
    case "ReturnStmt":
    case "YieldExpr":
      if (n.value !== null) v.node(n.value);
      return;
    case "ThrowStmt":
    case "EmitExpr":
      v.node(n.value);
      return;
    case "RequireStmt":
      v.node(n.condition);
      if (n.message !== null) v.node(n.message);
      return;
    case "ListLiteral":
      each(v, n.elements);
      return;
    case "DictLiteral":
    case "StructConstruct":
      for (const e of n.kind === "DictLiteral" ? n.entries : n.fields) {
        if (e.computed) v.node(e.key);
        v.node(e.value);
      }
      return;
    case "Spread":
      v.node(n.expr);
      return;
    case "SubscriptAccess":
    case "OptionalSubscriptAccess":
      v.node(n.object);
      v.node(n.index);
      return;
    case "SliceAccess":
      v.node(n.object);
      if (n.start !== null) v.node(n.start);
      if (n.end !== null) v.node(n.end);
      return;
    case "BinaryOp":
      v.node(n.left);
      v.node(n.right);
      return;
    case "Ternary":
      v.node(n.condition);
      v.node(n.thenExpr);
      v.node(n.elseExpr);
      return;
    case "RangeExpr":
      v.node(n.start);
      v.node(n.end);
      return;
    case "OrPattern":
      each(v, n.alternatives);
      return;
    case "PipePlaceholder":
      v.node(n.body);
      return;
    default: {
      const never: never = n;
      throw new Error(`walkChildren: unknown node ${(never as Node).kind}`);
    }
  }
}

/** Call `fn` on every direct child node, statement lists flattened. */
export function forEachChild(node: Node, fn: (child: Node) => void): void {
  walkChildren(node, { node: fn });
}

/** The defaults written in a binding pattern (`{a = 1}`, `[x = f()]`). */
export function forEachPatternDefault(p: Pattern, fn: (n: Node) => void): void {
  patternDefaults({ node: fn }, p);
}

/** Every name a binding pattern writes, `_` included. */
export function forEachPatternName(p: Pattern, fn: (name: string) => void): void {
  switch (p.kind) {
    case "ident":
      fn(p.name);
      return;
    case "pair":
      fn(p.first);
      fn(p.second);
      return;
    case "dict":
      for (const f of p.fields) fn(f.alias ?? f.key);
      return;
    case "list":
      for (const e of p.elements) fn(e.name);
      return;
    default: {
      const never: never = p;
      throw new Error(`forEachPatternName: unknown pattern ${(never as Pattern).kind}`);
    }
  }
}

/** Every name a binding pattern introduces (`_` binds nothing). */
export function patternNames(p: Pattern): string[] {
  const names: string[] = [];
  forEachPatternName(p, (n) => {
    if (n !== "_") names.push(n);
  });
  return names;
}

/** A type expression that names a type (`Foo`, `Foo<T>`). */
export type TypeReference = Extract<TypeExpr, { kind: "Named" | "Applied" }>;

/** Calls `fn` on every type name a type expression mentions, outermost
 * first (the linter's type references, the language server's index). */
export function forEachTypeName(t: TypeExpr | null, fn: (named: TypeReference) => void): void {
  if (t === null) return;
  switch (t.kind) {
    case "Named":
      fn(t);
      return;
    case "Applied":
      fn(t);
      for (const a of t.args) forEachTypeName(a, fn);
      return;
    case "Union":
      for (const x of t.types) forEachTypeName(x, fn);
      return;
    case "Shape":
      for (const f of t.fields) forEachTypeName(f.type, fn);
      return;
    case "List":
    case "Iter":
    case "Generator":
    case "Stream":
      forEachTypeName(t.elem, fn);
      return;
    case "Dict":
      forEachTypeName(t.key, fn);
      forEachTypeName(t.value, fn);
      return;
    case "FnType":
      for (const p of t.params) forEachTypeName(p, fn);
      forEachTypeName(t.ret, fn);
      return;
    case "Never":
    case "LitString":
    case "LitInt":
      return;
    default: {
      const never: never = t;
      throw new Error(`forEachTypeName: unknown type ${(never as TypeExpr).kind}`);
    }
  }
}
