/**
 * Small questions about AST nodes that several rules ask: children as the
 * reference sees them, purity, leaf equality, identifier mentions.
 */
import { parse, walkChildren, type ChildVisitor, type Node, type ParseResult, type Program, type Span } from "@harn/parser";

/** Call `fn` on every direct child node, in source order, as the reference
 * sees the tree: statement lists flattened, and neither interpolation
 * segments (the reference never parses them, lint.md §1.6) nor annotations
 * (attribute values, defaults in enum and interface declarations) are
 * children. The walk itself is the parser's (`walkChildren`). */
export function forEachChild(node: Node | Program, fn: (child: Node) => void): void {
  if (node.kind === "Program") node.items.forEach(fn);
  else walkChildren(node, childVisitor(fn));
}

/** The visitor `forEachChild` walks a node's children with: a recursive
 * walk that makes it once and calls `walkChildren` itself allocates
 * nothing per node. */
export function childVisitor(fn: (child: Node) => void): ChildVisitor {
  return { node: fn, interpolation: skip, annotation: skip };
}

function skip(): void {}

export { forEachPatternDefault, patternNames } from "@harn/parser";

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
  return names.size > 0 && someIdentifier(n, (name) => names.has(name));
}

/** Calls `stop` with the name of every identifier read in `n` (closures
 * and interpolated expressions included: `mentions`' view), in order,
 * until it returns true; whether it did. */
export function someIdentifier(n: Node, stop: (name: string) => boolean): boolean {
  let found = false;
  const visit = (x: Node): void => {
    if (found) return;
    if (x.kind === "Identifier") {
      if (stop(x.name)) found = true;
      return;
    }
    if (x.kind === "InterpolatedString") {
      for (const s of x.segments) if (s.kind === "expr" && s.expr) visit(s.expr);
      return;
    }
    walkChildren(x, children);
  };
  const children = childVisitor(visit);
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

/** A file as a lint run parses it: long flat chains (`a + b + …`) as one
 * node, so they do not nest thousands deep. The module graph's deferred
 * summaries parse again this way, so they see the tree the run saw. */
export function parseForLint(source: string, file: string): ParseResult {
  return parse(source, { file, flatChains: true });
}
