/**
 * The formatter's safety net: a formatted file must parse and hold the
 * same program as the source. Both are reduced to their tokens, where
 * - a run of newlines and `;` separators is one separator, and separators
 *   inside `(…)`, `[…]` and dict literals (where the parser skips
 *   newlines) are dropped;
 * - a `,` right before a closing `)`, `]` or dict `}` is dropped (wrapping
 *   adds one);
 * - comments are compared on their own, in order, separator bars by shape
 *   and line comments without trailing blanks;
 * - a separator at the end of the file does not count.
 * If the two differ, the formatter leaves the file alone rather than
 * change what it means.
 */
import { tokenize, type Token } from "@harn/lexer";
import { parse } from "@harn/parser";
import { startsDict } from "./lines";

const SEPARATOR_BAR = /^\/\/ ?-{3,}$/;
const COMMA = ", ,";

interface Shape {
  code: string[];
  comments: string[];
}

/** Brackets the parser skips newlines in: `(`, `[` and a dict literal's
 * `{` (a key and `:` first, as layout.ts wraps it). */
const DICT = "{:";

function opener(tokens: readonly Token[], i: number): string {
  const t = tokens[i]!;
  if (t.kind !== "{") return t.kind;
  const next: Token[] = [];
  for (let j = i + 1; j < tokens.length && next.length < 2; j++) {
    const k = tokens[j]!.kind;
    if (k !== "NL" && k !== "Comment") next.push(tokens[j]!);
  }
  return startsDict(next[0], next[1]) ? DICT : "{";
}

function shape(source: string, tokens: readonly Token[]): Shape {
  const code: string[] = [];
  const comments: string[] = [];
  const brackets: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === "EOF") break;
    if (t.kind === "Comment") {
      comments.push(SEPARATOR_BAR.test(t.image) ? "// ---" : t.image.startsWith("//") ? t.image.trimEnd() : t.image);
      continue;
    }
    if (t.kind === "NL" || t.kind === ";") {
      const inList = brackets.length > 0 && brackets[brackets.length - 1] !== "{";
      if (!inList && code.length > 0 && code[code.length - 1] !== "\n") code.push("\n");
      continue;
    }
    if (t.kind === "(" || t.kind === "[" || t.kind === "{") brackets.push(opener(tokens, i));
    if (t.kind === ")" || t.kind === "]" || t.kind === "}") {
      const open = brackets.pop();
      if ((t.kind !== "}" || open === DICT) && code[code.length - 1] === COMMA) code.pop();
    }
    code.push(t.kind === "," ? COMMA : `${t.kind} ${source.slice(t.start, t.end)}`);
  }
  // the file's final newline is the formatter's to add
  if (code[code.length - 1] === "\n") code.pop();
  return { code, comments };
}

function same(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Does `formatted` parse and hold the same program as `source`, given
 * the source's tokens (comments included)? */
export function sameProgram(source: string, sourceTokens: readonly Token[], formatted: string): boolean {
  if (parse(formatted, { flatChains: true }).errors.length > 0) return false;
  const after = tokenize(formatted, { comments: true });
  if (after.error !== null) return false;
  const x = shape(source, sourceTokens);
  const y = shape(formatted, after.tokens);
  return same(x.code, y.code) && same(x.comments, y.comments);
}
