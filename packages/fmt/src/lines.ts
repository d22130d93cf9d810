/**
 * The formatter's view of a file: logical lines of tokens. The lexer's
 * newline tokens and `;` separators end a line (so `a; b` becomes two
 * lines, spec/cli.md §6); a `\` continuation inside a line is remembered
 * as a break before the token that follows it.
 */
import { isKeyword, Token } from "@harn/lexer";

export interface Line {
  /** Never empty; no `NL`, `;` or `EOF` tokens. */
  tokens: Token[];
  /** The source had at least one blank line before this one. */
  blankBefore: boolean;
  /** Indexes `i > 0` such that a `\` continuation precedes `tokens[i]`. */
  breaks: ReadonlySet<number>;
}

export function splitLines(source: string, tokens: readonly Token[]): Line[] {
  const lines: Line[] = [];
  let current: Token[] = [];
  let breaks = new Set<number>();
  let blankBefore = false;
  /** Newline tokens seen since the last line ended (2 or more: a blank line). */
  let newlines = 0;
  const end = () => {
    if (current.length === 0) return;
    lines.push({ tokens: current, blankBefore, breaks });
    current = [];
    breaks = new Set();
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === "EOF") break;
    if (t.kind === "NL") {
      if (current.length > 0) {
        end();
        newlines = 1;
      } else newlines++;
      continue;
    }
    if (t.kind === ";") {
      // `a; // note` keeps its comment: the `;` just goes
      const next = tokens[i + 1];
      if (next?.kind === "Comment" && current.length > 0 && (tokens[i + 2]?.kind === "NL" || tokens[i + 2]?.kind === "EOF")) continue;
      end();
      newlines = 0;
      continue;
    }
    if (current.length === 0) {
      blankBefore = newlines >= 2;
      newlines = 0;
    } else if (source.slice(current[current.length - 1]!.end, t.start).includes("\n")) {
      // Between two tokens of one line, a newline is a `\` continuation.
      breaks.add(current.length);
    }
    current.push(t);
  }
  end();
  return lines;
}

/** The source text of a token; a token the formatter made up has no
 * position and is its image. */
export function textOf(source: string, t: Token): string {
  return t.start < 0 ? t.image : source.slice(t.start, t.end);
}

/** Do `key` and `colon`, the tokens after a `{`, open a dict or struct
 * literal: a key (identifier, keyword or string) then `:`, as the
 * `trailing-comma` lint rule decides? layout.ts wraps such a brace like a
 * list, and verify.ts compares its contents as a list's. */
export function startsDict(key: Token | undefined, colon: Token | undefined): boolean {
  return key !== undefined && colon?.kind === ":" && (key.kind === "Ident" || key.kind === "String" || isKeyword(key.kind));
}

/** A `,` the formatter inserts (trailing comma of a wrapped list). */
export function syntheticComma(): Token {
  return new Token(",", ",", null, -1, -1, 0, 0, 0, 0);
}
