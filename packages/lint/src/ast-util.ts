/**
 * Small questions about AST nodes that several rules ask: child
 * enumeration, purity, leaf equality, identifier mentions.
 */
import type { Node, Pattern, Program, Span } from "@harn/parser";

/** Call `fn` on every direct child node, in source order. Statement lists
 * are flattened; interpolation segments are not children (the reference
 * never parses them, lint.md §1.6). */
export function forEachChild(node: Node | Program, fn: (child: Node) => void): void {
  if (node.kind === "Program") {
    node.items.forEach(fn);
    return;
  }
  switch (node.kind) {
    case "Pipeline":
    case "OverrideDecl":
    case "DeferStmt":
    case "MutexBlock":
    case "SpawnExpr":
    case "TryExpr":
      node.body.forEach(fn);
      return;
    case "FnDecl":
    case "ToolDecl":
      for (const p of node.params) if (p.default) fn(p.default);
      node.body.forEach(fn);
      return;
    case "Closure":
      for (const p of node.params) if (p.default) fn(p.default);
      node.body.forEach(fn);
      return;
    case "SkillDecl":
      for (const [, v] of node.fields) fn(v);
      return;
    case "EvalPackDecl":
      for (const [, v] of node.fields) fn(v);
      node.body.forEach(fn);
      node.summarize?.forEach(fn);
      return;
    case "ImplBlock":
      node.methods.forEach(fn);
      return;
    case "AttributedDecl":
      fn(node.inner);
      return;
    case "LetBinding":
    case "VarBinding":
      forEachPatternDefault(node.pattern, fn);
      fn(node.value);
      return;
    case "Assignment":
      fn(node.target);
      fn(node.value);
      return;
    case "IfElse":
      fn(node.condition);
      node.thenBody.forEach(fn);
      node.elseBody?.forEach(fn);
      return;
    case "ForIn":
      forEachPatternDefault(node.pattern, fn);
      fn(node.iterable);
      node.body.forEach(fn);
      return;
    case "WhileLoop":
      fn(node.condition);
      node.body.forEach(fn);
      return;
    case "MatchExpr":
      fn(node.value);
      for (const arm of node.arms) {
        fn(arm.pattern);
        if (arm.guard) fn(arm.guard);
        arm.body.forEach(fn);
      }
      return;
    case "TryCatch":
      node.body.forEach(fn);
      node.catchBody.forEach(fn);
      node.finallyBody?.forEach(fn);
      return;
    case "TryStar":
    case "TryOperator":
    case "UnaryOp":
      fn(node.operand);
      return;
    case "ReturnStmt":
    case "YieldExpr":
      if (node.value) fn(node.value);
      return;
    case "ThrowStmt":
    case "EmitExpr":
      fn(node.value);
      return;
    case "GuardStmt":
      fn(node.condition);
      node.elseBody.forEach(fn);
      return;
    case "RequireStmt":
      fn(node.condition);
      if (node.message) fn(node.message);
      return;
    case "DeadlineBlock":
      fn(node.duration);
      node.body.forEach(fn);
      return;
    case "Retry":
      fn(node.count);
      node.body.forEach(fn);
      return;
    case "Parallel":
      fn(node.expr);
      for (const [, v] of node.options) fn(v);
      node.body.forEach(fn);
      return;
    case "SelectExpr":
      for (const c of node.cases) {
        fn(c.channel);
        c.body.forEach(fn);
      }
      if (node.timeout) {
        fn(node.timeout.duration);
        node.timeout.body.forEach(fn);
      }
      node.defaultBody?.forEach(fn);
      return;
    case "ListLiteral":
      node.elements.forEach(fn);
      return;
    case "DictLiteral":
      for (const e of node.entries) {
        if (e.computed) fn(e.key);
        fn(e.value);
      }
      return;
    case "StructConstruct":
      for (const e of node.fields) {
        if (e.computed) fn(e.key);
        fn(e.value);
      }
      return;
    case "Spread":
      fn(node.expr);
      return;
    case "FunctionCall":
      node.args.forEach(fn);
      return;
    case "MethodCall":
    case "OptionalMethodCall":
      fn(node.object);
      node.args.forEach(fn);
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
      if (node.start) fn(node.start);
      if (node.end) fn(node.end);
      return;
    case "BinaryOp":
      fn(node.left);
      fn(node.right);
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
    case "OrPattern":
      node.alternatives.forEach(fn);
      return;
    case "PipePlaceholder":
      fn(node.body);
      return;
    default:
      return;
  }
}

export function forEachPatternDefault(p: Pattern, fn: (n: Node) => void): void {
  if (p.kind === "dict") for (const f of p.fields) if (f.default) fn(f.default);
  if (p.kind === "list") for (const e of p.elements) if (e.default) fn(e.default);
}

/** Every name a binding pattern introduces (`_` excluded). */
export function patternNames(p: Pattern): string[] {
  switch (p.kind) {
    case "ident":
      return p.name === "_" ? [] : [p.name];
    case "dict":
      return p.fields.map((f) => f.alias ?? f.key).filter((n) => n !== "_");
    case "list":
      return p.elements.map((e) => e.name).filter((n) => n !== "_");
    case "pair":
      return [p.first, p.second].filter((n) => n !== "_");
  }
}

/** Pure expression, conservatively (lint.md §3.11): no calls anywhere. */
export function isPure(n: Node): boolean {
  switch (n.kind) {
    case "IntLiteral":
    case "FloatLiteral":
    case "StringLiteral":
    case "RawStringLiteral":
    case "BoolLiteral":
    case "NilLiteral":
    case "DurationLiteral":
    case "Identifier":
      return true;
    case "ListLiteral":
      return n.elements.every(isPure);
    case "DictLiteral":
      return n.entries.every((e) => isPure(e.key) && isPure(e.value));
    case "Spread":
      return isPure(n.expr);
    case "UnaryOp":
      return isPure(n.operand);
    case "BinaryOp":
      return n.op !== "|>" && isPure(n.left) && isPure(n.right);
    case "Ternary":
      return isPure(n.condition) && isPure(n.thenExpr) && isPure(n.elseExpr);
    case "PropertyAccess":
    case "OptionalPropertyAccess":
      return isPure(n.object);
    case "SubscriptAccess":
    case "OptionalSubscriptAccess":
      return isPure(n.object) && isPure(n.index);
    case "SliceAccess":
      return isPure(n.object) && (!n.start || isPure(n.start)) && (!n.end || isPure(n.end));
    case "RangeExpr":
      return isPure(n.start) && isPure(n.end);
    default:
      return false;
  }
}

/**
 * Structural equality as the reference computes it (lint.md §3.16 Q8): its
 * comparison includes child positions, so only leaves can ever be equal:
 * identifiers by name, literals by value.
 */
export function leafEqual(a: Node, b: Node): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case "Identifier":
      return a.name === (b as typeof a).name;
    case "IntLiteral":
      return a.value === (b as typeof a).value;
    case "FloatLiteral":
      return a.value === (b as typeof a).value;
    case "StringLiteral":
    case "RawStringLiteral":
      return a.value === (b as typeof a).value;
    case "BoolLiteral":
      return a.value === (b as typeof a).value;
    case "NilLiteral":
      return true;
    case "DurationLiteral":
      return a.ms === (b as typeof a).ms;
    default:
      return false;
  }
}

export function isStringLiteralNode(n: Node): n is Extract<Node, { kind: "StringLiteral" | "RawStringLiteral" }> {
  return n.kind === "StringLiteral" || n.kind === "RawStringLiteral";
}

/** Does `n` contain an identifier read of one of `names`? Closures and
 * interpolations count too: a captured handle is still reachable. */
export function mentions(n: Node, names: ReadonlySet<string>): boolean {
  if (names.size === 0) return false;
  let found = false;
  const visit = (x: Node): void => {
    if (found) return;
    if (x.kind === "Identifier") {
      if (names.has(x.name)) found = true;
      return;
    }
    if (x.kind === "InterpolatedString") {
      for (const s of x.segments) if (s.kind === "expr" && s.expr) visit(s.expr);
      return;
    }
    forEachChild(x, visit);
  };
  visit(n);
  return found;
}

/** The name of the variable at the root of an assignment target
 * (`x`, `x.f`, `x[i]`, `x.f[i].g`). */
export function rootName(target: Node): string | null {
  let t = target;
  for (;;) {
    switch (t.kind) {
      case "Identifier":
        return t.name;
      case "PropertyAccess":
      case "OptionalPropertyAccess":
      case "SubscriptAccess":
      case "OptionalSubscriptAccess":
      case "SliceAccess":
        t = t.object;
        continue;
      default:
        return null;
    }
  }
}

/** A span from the start of `a` to the end of `b`. */
export function joinSpans(a: Span, b: Span): Span {
  return {
    start: a.start,
    end: b.end,
    line: a.line,
    column: a.column,
    endLine: b.endLine,
    endColumn: b.endColumn,
  };
}

/** Unwrap `@attr` wrappers. */
export function unwrapAttributes(n: Node): Node {
  while (n.kind === "AttributedDecl") n = n.inner;
  return n;
}
