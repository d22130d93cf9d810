/**
 * Types the checker knows for certain: those of literal expressions. Only
 * the primitive names; everything else is unknown (null).
 */
import type { BinaryOp, Node } from "@harn/parser";

export type Primitive = "int" | "float" | "string" | "bool" | "nil";

export function literalType(n: Node): Primitive | null {
  switch (n.kind) {
    case "IntLiteral":
      return "int";
    case "FloatLiteral":
      return "float";
    case "StringLiteral":
    case "RawStringLiteral":
    case "InterpolatedString":
      return "string";
    case "BoolLiteral":
      return "bool";
    case "NilLiteral":
      return "nil";
    case "UnaryOp": {
      if (n.op !== "-") return null;
      const t = literalType(n.operand);
      return t === "int" || t === "float" ? t : null;
    }
    default:
      return null;
  }
}

const numeric = (t: Primitive): boolean => t === "int" || t === "float";

/** The reference's message for a binary operator whose operand types are
 * both known and which is an error for them (spec/semantics.md §4.4 and
 * §10.1), or null. */
export function binaryOpError(op: string, l: Primitive, r: Primitive): string | null {
  // What the reference makes of a literal `nil` operand is not known; the
  // runtime reports it (conformance errors/runtime/parallel_error).
  if (l === "nil" || r === "nil") return null;
  switch (op) {
    case "+":
      if ((numeric(l) && numeric(r)) || (l === "string" && r === "string")) return null;
      return `can't add ${l} and ${r}`;
    case "-":
    case "/":
    case "%":
    case "**":
      if (numeric(l) && numeric(r)) return null;
      return `can't use '${op}' on ${l} and ${r} (needs numeric operands)`;
    case "*":
      if ((numeric(l) && numeric(r)) || (l === "string" && r === "int") || (l === "int" && r === "string")) return null;
      return `can't multiply ${l} and ${r} (try string * int)`;
    default:
      return null;
  }
}

/** How to mend what `binaryOpError` reports. */
export function binaryOpHelp(op: string, l: Primitive, r: Primitive): string {
  if (op === "+" && (l === "string" || r === "string")) return "put the other value inside the string with interpolation: `\"...${value}\"`";
  if (op === "+") return `both sides of \`+\` must be numbers, or both strings; convert one side (to_int, to_float, to_string)`;
  if (op === "*") return "multiply numbers, or repeat a string with `string * int`";
  return `\`${op}\` takes numbers on both sides; convert the ${numeric(l) ? r : l} (to_int, to_float)`;
}

/** `0 && f()`, `true || f()`: the right operand never runs, so nothing in
 * it is an error (conformance's own short-circuit tests rely on this). */
export function deadRightOperand(n: BinaryOp): boolean {
  if (n.op !== "&&" && n.op !== "||") return false;
  const l = n.left;
  let truthy: boolean;
  switch (l.kind) {
    case "BoolLiteral":
      truthy = l.value;
      break;
    case "NilLiteral":
      truthy = false;
      break;
    case "IntLiteral":
      truthy = l.value !== 0n;
      break;
    case "FloatLiteral":
      truthy = l.value !== 0;
      break;
    case "StringLiteral":
    case "RawStringLiteral":
      truthy = l.value !== "";
      break;
    default:
      return false;
  }
  return n.op === "&&" ? !truthy : truthy;
}
