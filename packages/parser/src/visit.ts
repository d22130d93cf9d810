/**
 * `forEachChild(node, fn)`: calls `fn` on every direct child node, in source
 * order — statements of bodies, operands, arguments, defaults of parameters
 * and patterns, dict keys/values, attribute values and the parsed
 * expressions of interpolated strings. One switch, shared by every AST walk
 * (structure checks, the linter) so a new node kind is added in one place.
 */
import type { Node, Param, Pattern, TypeExpr } from "./ast";

type Visit = (child: Node) => void;

function each(nodes: readonly Node[] | null, fn: Visit): void {
  if (nodes !== null) for (const n of nodes) fn(n);
}

function params(ps: readonly Param[], fn: Visit): void {
  for (const p of ps) if (p.default !== null) fn(p.default);
}

function pattern(p: Pattern, fn: Visit): void {
  if (p.kind === "dict") {
    for (const f of p.fields) if (f.default !== null) fn(f.default);
  } else if (p.kind === "list") {
    for (const e of p.elements) if (e.default !== null) fn(e.default);
  }
}

export function forEachChild(node: Node, fn: Visit): void {
  switch (node.kind) {
    case "Pipeline":
    case "OverrideDecl":
    case "TryExpr":
    case "DeferStmt":
    case "MutexBlock":
    case "SpawnExpr":
      each(node.body, fn);
      return;
    case "FnDecl":
    case "ToolDecl":
    case "Closure":
      params(node.params, fn);
      each(node.body, fn);
      return;
    case "SkillDecl":
      for (const [, v] of node.fields) fn(v);
      return;
    case "EvalPackDecl":
      for (const [, v] of node.fields) fn(v);
      each(node.body, fn);
      each(node.summarize, fn);
      return;
    case "StructDecl":
    case "TypeDecl":
    case "ImportDecl":
    case "SelectiveImport":
    case "BreakStmt":
    case "ContinueStmt":
    case "IntLiteral":
    case "FloatLiteral":
    case "StringLiteral":
    case "RawStringLiteral":
    case "BoolLiteral":
    case "NilLiteral":
    case "DurationLiteral":
    case "Identifier":
      return;
    case "EnumDecl":
      for (const v of node.variants) params(v.fields, fn);
      return;
    case "InterfaceDecl":
      for (const m of node.methods) params(m.params, fn);
      return;
    case "ImplBlock":
      each(node.methods, fn);
      return;
    case "AttributedDecl":
      for (const a of node.attributes) for (const arg of a.args) fn(arg.value);
      fn(node.inner);
      return;
    case "LetBinding":
    case "VarBinding":
      pattern(node.pattern, fn);
      fn(node.value);
      return;
    case "Assignment":
      fn(node.target);
      fn(node.value);
      return;
    case "IfElse":
      fn(node.condition);
      each(node.thenBody, fn);
      each(node.elseBody, fn);
      return;
    case "ForIn":
      pattern(node.pattern, fn);
      fn(node.iterable);
      each(node.body, fn);
      return;
    case "WhileLoop":
      fn(node.condition);
      each(node.body, fn);
      return;
    case "MatchExpr":
      fn(node.value);
      for (const arm of node.arms) {
        fn(arm.pattern);
        if (arm.guard !== null) fn(arm.guard);
        each(arm.body, fn);
      }
      return;
    case "TryCatch":
      each(node.body, fn);
      each(node.catchBody, fn);
      each(node.finallyBody, fn);
      return;
    case "TryStar":
      fn(node.operand);
      return;
    case "ReturnStmt":
    case "YieldExpr":
      if (node.value !== null) fn(node.value);
      return;
    case "ThrowStmt":
    case "EmitExpr":
      fn(node.value);
      return;
    case "GuardStmt":
      fn(node.condition);
      each(node.elseBody, fn);
      return;
    case "RequireStmt":
      fn(node.condition);
      if (node.message !== null) fn(node.message);
      return;
    case "DeadlineBlock":
      fn(node.duration);
      each(node.body, fn);
      return;
    case "Retry":
      fn(node.count);
      each(node.body, fn);
      return;
    case "Parallel":
      fn(node.expr);
      for (const [, v] of node.options) fn(v);
      each(node.body, fn);
      return;
    case "SelectExpr":
      for (const c of node.cases) {
        fn(c.channel);
        each(c.body, fn);
      }
      if (node.timeout !== null) {
        fn(node.timeout.duration);
        each(node.timeout.body, fn);
      }
      each(node.defaultBody, fn);
      return;
    case "InterpolatedString":
      for (const s of node.segments) if (s.kind === "expr" && s.expr !== null) fn(s.expr);
      return;
    case "ListLiteral":
      each(node.elements, fn);
      return;
    case "DictLiteral":
    case "StructConstruct":
      for (const e of node.kind === "DictLiteral" ? node.entries : node.fields) {
        if (e.computed) fn(e.key);
        fn(e.value);
      }
      return;
    case "Spread":
      fn(node.expr);
      return;
    case "FunctionCall":
      each(node.args, fn);
      return;
    case "MethodCall":
    case "OptionalMethodCall":
      fn(node.object);
      each(node.args, fn);
      return;
    case "PropertyAccess":
    case "OptionalPropertyAccess":
      fn(node.object);
      return;
    case "SubscriptAccess":
    case "OptionalSubscriptAccess":
      fn(node.object);
      fn(node.index);
      return;
    case "SliceAccess":
      fn(node.object);
      if (node.start !== null) fn(node.start);
      if (node.end !== null) fn(node.end);
      return;
    case "BinaryOp":
      fn(node.left);
      fn(node.right);
      return;
    case "UnaryOp":
      fn(node.operand);
      return;
    case "Ternary":
      fn(node.condition);
      fn(node.thenExpr);
      fn(node.elseExpr);
      return;
    case "RangeExpr":
      fn(node.start);
      fn(node.end);
      return;
    case "TryOperator":
      fn(node.operand);
      return;
    case "OrPattern":
      each(node.alternatives, fn);
      return;
    case "PipePlaceholder":
      fn(node.body);
      return;
    default: {
      const never: never = node;
      throw new Error(`forEachChild: unknown node ${(never as Node).kind}`);
    }
  }
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
