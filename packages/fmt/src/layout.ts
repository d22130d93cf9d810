/**
 * Printing logical lines in the canonical layout (spec/cli.md §6):
 *
 * - indentation: 2 spaces per level. A line inside brackets sits one level
 *   deeper than the line that opened the innermost of them (however many
 *   brackets that line opened); a line that starts with a closer sits at
 *   its opener's level. A continuation line (one that starts with `.`,
 *   `?.` or an operator that may begin a continued line, syntax.md §5.1, or
 *   follows a line ending in a binary operator or `=`) sits one level
 *   deeper, and so does the text after a `\` continuation;
 * - spacing inside a line: one space after `,`, around the binary-only
 *   operators, `=` and `->`, before `{` after `)`/`else`/`try`/`finally`
 *   or at the end of a line,
 *   and around `else`/`catch`/`finally` after `}`; none inside `(…)` and
 *   `[…]` edges, before `,`, around `.`/`?.`, after `@` and prefix `!`.
 *   Where a token pair is ambiguous (`-`, `*`, `<`, `>`, `?`, `:`, `|`,
 *   braces of closures and dict literals), the source's choice is kept,
 *   with any run of spaces made one;
 * - blank lines: runs become one; none at the start or end of the file,
 *   after a line ending in an opener or before a line starting with a
 *   closer;
 * - separator comment bars (`// ----`) are made `separatorWidth` columns
 *   wide, indentation included;
 * - a line wider than `lineWidth` whose first `(…)`/`[…]` list or dict
 *   literal closes on the same line is wrapped one item per line, with a
 *   trailing comma.
 *   (Breaking long operator chains and adding clarifying parentheses are
 *   not done; see packages/fmt/README.md.)
 */
import type { Token } from "@harn/lexer";
import { startsDict, syntheticComma, textOf, type Line } from "./lines";

export interface LayoutOptions {
  lineWidth: number;
  separatorWidth: number;
  /** Wrap over-long lists (the formatter retries without when a wrap would not parse). */
  wrap: boolean;
}

const OPENERS: ReadonlySet<string> = new Set(["(", "[", "{"]);
const CLOSERS: ReadonlySet<string> = new Set([")", "]", "}"]);
/** Operators that may begin a continued line (syntax.md §5.1 "Lead-NL"). */
const LEADING_CONTINUATION: ReadonlySet<string> = new Set([
  ".", "?.", "|>", "||", "&&", "==", "!=", "<", ">", "<=", ">=", "+", "??", "*", "/", "%", "**",
]);
/** At the end of a line, these continue the statement on the next. (`<`
 * and `>` are left out: a line may end in a type argument list.) */
const TRAILING_CONTINUATION: ReadonlySet<string> = new Set([
  "|>", "||", "&&", "==", "!=", "<=", ">=", "+", "-", "??", "*", "/", "%", "**",
  "=", "+=", "-=", "*=", "/=", "%=",
]);
/** Binary-only operators, assignment and arrows: one space on each side. */
const SPACED: ReadonlySet<string> = new Set([
  "==", "!=", "&&", "||", "|>", "??", "<=", ">=", "+", "/", "%", "**",
  "=", "+=", "-=", "*=", "/=", "%=", "->",
]);
const NO_SPACE_AFTER: ReadonlySet<string> = new Set(["(", "[", ".", "?.", "@", "!"]);
const NO_SPACE_BEFORE: ReadonlySet<string> = new Set([")", "]", ",", ".", "?."]);
const BLOCK_KEYWORDS_BEFORE_BRACE: ReadonlySet<string> = new Set([")", "else", "try", "finally"]);
const AFTER_CLOSING_BRACE: ReadonlySet<string> = new Set(["else", "catch", "finally"]);
const SEPARATOR_BAR = /^\/\/ ?-{3,}$/;

/** The space between two tokens of one line; `original` is the source
 * between them, `endsLine` is true when `b` is the line's last code token
 * (a `{` there opens a block: `fn f() -> int {`, `for x in xs {`). */
function gap(a: Token, b: Token, original: string, endsLine: boolean): string {
  const kept = original.length > 0 ? " " : "";
  if (b.kind === "Comment") return b.image.startsWith("//") ? " " : kept;
  if (a.kind === "Comment") return kept;
  // `1 .method()` must not become the float `1.`
  if ((a.kind === "Int" || a.kind === "Float") && b.kind === ".") return kept;
  // `{a: 1,}` like `[1,]`
  if (a.kind === "," && b.kind === "}") return "";
  // a spread (`...xs`) after `,` or `{` is not a member access
  if (a.kind === "," && b.kind !== ")" && b.kind !== "]" && b.kind !== ",") return " ";
  if (a.kind === "{" && b.kind === ".") return kept;
  if (NO_SPACE_AFTER.has(a.kind) || NO_SPACE_BEFORE.has(b.kind)) return "";
  if (SPACED.has(a.kind) || SPACED.has(b.kind)) return " ";
  if (b.kind === "{" && (BLOCK_KEYWORDS_BEFORE_BRACE.has(a.kind) || endsLine)) return " ";
  if (a.kind === "}" && AFTER_CLOSING_BRACE.has(b.kind)) return " ";
  return kept;
}

function lastCode(tokens: readonly Token[]): Token | null {
  for (let i = tokens.length - 1; i >= 0; i--) if (tokens[i]!.kind !== "Comment") return tokens[i]!;
  return null;
}

class Printer {
  private readonly out: string[] = [];
  /** For each open bracket, the level of the line that opened it. */
  private readonly stack: number[] = [];
  private previous: Line | null = null;

  constructor(
    private readonly source: string,
    private readonly options: LayoutOptions,
  ) {}

  print(lines: readonly Line[]): string {
    // the lines still to print, the next one last: a wrapped line's pieces
    // go back one by one (a 200,000-item list is 200,000 pieces, too many
    // for a spread argument list or for shifting an array each time)
    const todo = [...lines].reverse();
    while (todo.length > 0) {
      const line = todo.pop()!;
      const level = this.levelOf(line);
      const text = this.render(line, level);
      const wrapped = this.options.wrap && this.tooWide(text, level) ? wrapList(line) : null;
      if (wrapped) {
        for (let i = wrapped.length - 1; i >= 0; i--) todo.push(wrapped[i]!);
        continue;
      }
      this.emit(line, level, text);
    }
    return this.out.length === 0 ? "" : this.out.join("\n") + "\n";
  }

  private levelOf(line: Line): number {
    const first = line.tokens[0]!;
    const top = this.stack.length > 0 ? this.stack[this.stack.length - 1]! : -1;
    if (CLOSERS.has(first.kind)) return Math.max(0, top);
    let level = top + 1;
    if (first.kind !== "Comment" && this.continues(first)) level++;
    return level;
  }

  private continues(first: Token): boolean {
    if (LEADING_CONTINUATION.has(first.kind)) return true;
    const prev = this.previous === null ? null : lastCode(this.previous.tokens);
    return prev !== null && TRAILING_CONTINUATION.has(prev.kind);
  }

  private render(line: Line, level: number): string {
    const { tokens } = line;
    if (tokens.length === 1 && tokens[0]!.kind === "Comment" && SEPARATOR_BAR.test(tokens[0]!.image)) {
      return "// " + "-".repeat(Math.max(3, this.options.separatorWidth - 2 * level - 3));
    }
    let text = "";
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      if (i > 0) {
        const prev = tokens[i - 1]!;
        if (line.breaks.has(i)) text += " \\\n" + "  ".repeat(level + 1);
        else {
          const original = prev.start < 0 || t.start < 0 ? "" : this.source.slice(prev.end, t.start);
          text += gap(prev, t, original, t === lastCode(tokens));
        }
      }
      text += textOf(this.source, t);
    }
    // a line comment's trailing blanks are part of its token
    return text.trimEnd();
  }

  private tooWide(text: string, level: number): boolean {
    return !text.includes("\n") && 2 * level + [...text].length > this.options.lineWidth;
  }

  private emit(line: Line, level: number, text: string): void {
    const first = line.tokens[0]!;
    const prevLast = this.previous === null ? null : this.previous.tokens[this.previous.tokens.length - 1]!;
    const afterOpener = prevLast !== null && OPENERS.has(prevLast.kind);
    if (line.blankBefore && this.out.length > 0 && !afterOpener && !CLOSERS.has(first.kind)) this.out.push("");
    this.out.push("  ".repeat(level) + text);
    for (const t of line.tokens) {
      if (OPENERS.has(t.kind)) this.stack.push(level);
      else if (CLOSERS.has(t.kind)) this.stack.pop();
    }
    this.previous = line;
  }
}

/**
 * The line split at its first `(…)`, `[…]` or dict `{…}` that closes on the same line
 * and holds a comma at its own depth: the text up to the opener, one line
 * per item (each ending in `,`), and the closer with the rest. Null when
 * there is no such list, or when a comment sits inside it.
 */
function wrapList(line: Line): Line[] | null {
  const { tokens } = line;
  if (line.breaks.size > 0) return null;
  for (let open = 0; open < tokens.length; open++) {
    const kind = tokens[open]!.kind;
    // A dict's brace wraps like a list: were it skipped, wrapping a list
    // inside it would leave the dict over lines without its own trailing comma.
    const dict = kind === "{" && startsDict(tokens[open + 1], tokens[open + 2]);
    if (kind !== "(" && kind !== "[" && !dict) continue;
    let depth = 0;
    let close = -1;
    const commas: number[] = [];
    let comment = false;
    for (let i = open; i < tokens.length; i++) {
      const k = tokens[i]!.kind;
      if (k === "Comment") comment = true;
      if (OPENERS.has(k)) depth++;
      else if (CLOSERS.has(k)) {
        depth--;
        if (depth === 0) {
          close = i;
          break;
        }
      } else if (k === "," && depth === 1) commas.push(i);
    }
    if (close < 0) return null; // the rest of the line is inside this bracket
    if (comment || commas.length === 0) {
      open = close;
      continue;
    }
    const items: Token[][] = [];
    let from = open + 1;
    for (const c of [...commas, close]) {
      if (c > from) items.push(tokens.slice(from, c));
      from = c + 1;
    }
    const plain = (ts: Token[], blankBefore = false): Line => ({ tokens: ts, blankBefore, breaks: new Set() });
    return [
      plain(tokens.slice(0, open + 1), line.blankBefore),
      ...items.map((item) => plain([...item, syntheticComma()])),
      plain(tokens.slice(close)),
    ];
  }
  return null;
}

export function layout(source: string, lines: readonly Line[], options: LayoutOptions): string {
  return new Printer(source, options).print(lines);
}
