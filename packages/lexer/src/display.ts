/**
 * How tokens print inside error messages (spec/syntax.md §1.12).
 */
import type { Token } from "./token";

/** Rust's `Display` for f64: shortest round-trip digits, never an exponent,
 * integral values without a fractional part (`3.0` prints as `3`). */
export function formatFloatPlain(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const s = String(x);
  const e = s.indexOf("e");
  if (e === -1) return s;
  // Expand JS exponent notation (1e+21, 1e-7) into plain digits.
  const negative = s.startsWith("-");
  const mantissa = s.slice(negative ? 1 : 0, e);
  const exp = Number(s.slice(e + 1));
  const dot = mantissa.indexOf(".");
  const digits = mantissa.replace(".", "");
  const pointAt = (dot === -1 ? mantissa.length : dot) + exp;
  let out: string;
  if (pointAt <= 0) out = "0." + "0".repeat(-pointAt) + digits;
  else if (pointAt >= digits.length) out = digits + "0".repeat(pointAt - digits.length);
  else out = digits.slice(0, pointAt) + "." + digits.slice(pointAt);
  return (negative ? "-" : "") + out;
}

export function displayToken(t: Token): string {
  switch (t.kind) {
    case "Ident":
      return `id(${t.value as string})`;
    case "String":
      return `str(${t.value as string})`;
    case "IString":
      return "istr(...)";
    case "RString":
      return `rstr(${t.value as string})`;
    case "Int":
      return `int(${String(t.value)})`;
    case "Float":
      return `float(${formatFloatPlain(t.value as number)})`;
    case "Duration":
      return `duration(${String(t.value)}ms)`;
    case "NL":
      return "\\n";
    case "EOF":
      return "end of file";
    case "Comment":
      return t.image;
    default:
      // keywords and punctuation print as their spelling
      return t.kind;
  }
}
