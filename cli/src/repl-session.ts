/**
 * The state of a `harn repl` session (spec/cli.md §7.1), apart from the
 * terminal: the accepted lines, the program they make, and when an input
 * is complete.
 *
 * Every accepted entry is kept, and the whole buffer is run again inside
 * `pipeline repl(task) { ... }`; declarations (`fn`, `struct`, `enum`,
 * `type`, `pub`, `import`) stay outside the pipeline. A bare expression
 * becomes `let _N = <expr>` followed by a print of its value (N counts
 * up from 1); a nil value is not printed (our choice: a call such as
 * `println(x)` would otherwise echo `nil`).
 */
import { parse, type Node } from "@harn/parser";

const DECLARATION = /^(fn|struct|enum|type|pub|import)\b/;

/** Node kinds that are expressions whose value is worth showing. */
const EXPRESSIONS: ReadonlySet<string> = new Set([
  "BinaryOp", "BoolLiteral", "DictLiteral", "DurationLiteral", "FloatLiteral", "FunctionCall", "Identifier",
  "IntLiteral", "InterpolatedString", "ListLiteral", "MethodCall", "NilLiteral", "OptionalMethodCall",
  "OptionalPropertyAccess", "OptionalSubscriptAccess", "PropertyAccess", "RangeExpr", "RawStringLiteral",
  "SliceAccess", "StringLiteral", "StructConstruct", "SubscriptAccess", "Ternary", "TryOperator", "UnaryOp",
]);

export class ReplSession {
  private readonly declarations: string[] = [];
  private readonly statements: string[] = [];
  private counter = 0;

  /** The program with `entry` added: declarations first, then the pipeline. */
  programWith(entry: string): { source: string; commit: () => void } {
    const trimmed = entry.trim();
    const declarations = [...this.declarations];
    const statements = [...this.statements];
    let counter = this.counter;
    if (DECLARATION.test(trimmed)) declarations.push(trimmed);
    else if (isBareExpression(trimmed)) {
      counter++;
      statements.push(`let _${counter} = ${trimmed}`, `if _${counter} != nil { println(to_string(_${counter})) }`);
    } else statements.push(trimmed);
    const source = [...declarations, "pipeline repl(task) {", ...statements, "}", ""].join("\n");
    return {
      source,
      commit: () => {
        this.declarations.splice(0, this.declarations.length, ...declarations);
        this.statements.splice(0, this.statements.length, ...statements);
        this.counter = counter;
      },
    };
  }
}

function isBareExpression(text: string): boolean {
  const { program, errors } = parse(`pipeline repl(task) {\n${text}\n}\n`);
  if (errors.length > 0) return false;
  const pipeline = program.items[0] as Node & { body?: Node[] };
  const body = pipeline?.kind === "Pipeline" ? pipeline.body ?? [] : [];
  return body.length === 1 && EXPRESSIONS.has(body[0]!.kind);
}

/**
 * Is the input complete? Not while a `(`, `[` or `{` is open or a string
 * is unterminated; `//` comments, `"..."` with escapes, `"""..."""` and raw
 * `r"..."` strings are understood.
 */
export function isComplete(text: string): boolean {
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "/" && text[i + 1] === "/") {
      const nl = text.indexOf("\n", i);
      if (nl < 0) break;
      i = nl + 1;
      continue;
    }
    if (c === "/" && text[i + 1] === "*") {
      const close = text.indexOf("*/", i + 2);
      if (close < 0) return false;
      i = close + 2;
      continue;
    }
    if (c === '"' && text.startsWith('"""', i)) {
      const close = text.indexOf('"""', i + 3);
      if (close < 0) return false;
      i = close + 3;
      continue;
    }
    if (c === "r" && text[i + 1] === '"' && !/[A-Za-z0-9_]/.test(text[i - 1] ?? "")) {
      const close = text.indexOf('"', i + 2);
      if (close < 0) return false;
      i = close + 1;
      continue;
    }
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === "\\") i++;
        else if (text[i] === "\n") return false;
        i++;
      }
      if (i >= text.length) return false;
      i++;
      continue;
    }
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth--;
    i++;
  }
  return depth <= 0;
}
