/**
 * The pipe placeholder (spec/syntax.md §5.12): when the right side of `|>`
 * mentions `_`, it becomes a one-parameter function of the piped value.
 * `_` is searched only through call arguments, method receivers and
 * arguments, binary and unary operands, list elements, property-access
 * objects and subscript objects/indices — not inside closures, dicts,
 * ternaries or any other node (reference behaviour).
 */
import type { Node } from "./ast";

/** The synthesized parameter name. `__` names are reserved for the
 * implementation, so no user variable is captured by accident. */
export const PIPE_PARAM = "__pipe";

export function rewritePipePlaceholder(rhs: Node): Node {
  if (!mentionsPlaceholder(rhs)) return rhs;
  return { kind: "PipePlaceholder", param: PIPE_PARAM, body: substitute(rhs), span: rhs.span };
}

function mentionsPlaceholder(n: Node): boolean {
  switch (n.kind) {
    case "Identifier":
      return n.name === "_";
    case "FunctionCall":
      return n.args.some(mentionsPlaceholder);
    case "MethodCall":
      return mentionsPlaceholder(n.object) || n.args.some(mentionsPlaceholder);
    case "BinaryOp":
      return mentionsPlaceholder(n.left) || mentionsPlaceholder(n.right);
    case "UnaryOp":
      return mentionsPlaceholder(n.operand);
    case "ListLiteral":
      return n.elements.some(mentionsPlaceholder);
    case "PropertyAccess":
      return mentionsPlaceholder(n.object);
    case "SubscriptAccess":
      return mentionsPlaceholder(n.object) || mentionsPlaceholder(n.index);
    default:
      return false;
  }
}

/** A copy of `n` with every reachable `_` replaced by the parameter. */
function substitute(n: Node): Node {
  switch (n.kind) {
    case "Identifier":
      return n.name === "_" ? { kind: "Identifier", name: PIPE_PARAM, span: n.span } : n;
    case "FunctionCall":
      return { ...n, args: n.args.map(substitute) };
    case "MethodCall":
      return { ...n, object: substitute(n.object), args: n.args.map(substitute) };
    case "BinaryOp":
      return { ...n, left: substitute(n.left), right: substitute(n.right) };
    case "UnaryOp":
      return { ...n, operand: substitute(n.operand) };
    case "ListLiteral":
      return { ...n, elements: n.elements.map(substitute) };
    case "PropertyAccess":
      return { ...n, object: substitute(n.object) };
    case "SubscriptAccess":
      return { ...n, object: substitute(n.object), index: substitute(n.index) };
    default:
      return n;
  }
}
