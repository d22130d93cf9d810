/**
 * The token model every later stage sees. Chevrotain types never leave this
 * package: `tokenize()` converts its output into these plain objects.
 *
 * Kinds are strings: keywords and punctuation are their own spelling
 * (`"let"`, `"=="`, `"{"`), token classes are capitalised (`"Ident"`,
 * `"Int"`, …). Comparing interned string constants is as cheap as comparing
 * numbers, and error messages can print keyword/punctuation kinds directly.
 */

/** The 46 reserved words of spec/syntax.md §1.6. */
export const KEYWORDS = [
  "break", "catch", "continue", "deadline", "defer", "emit", "else",
  "enum", "eval_pack", "exclusive", "extends", "false", "finally", "fn",
  "for", "from", "guard", "if", "impl", "import", "in",
  "interface", "let", "match", "mutex", "nil", "override", "parallel",
  "pipeline", "pub", "require", "retry", "return", "select", "skill",
  "spawn", "struct", "throw", "to", "tool", "true", "try",
  "type", "var", "while", "yield",
] as const;

export type Keyword = (typeof KEYWORDS)[number];

const KEYWORD_SET: ReadonlySet<string> = new Set(KEYWORDS);

export function isKeyword(word: string): word is Keyword {
  return KEYWORD_SET.has(word);
}

/** Keywords by length and first character code: `KEYWORDS_BY_SHAPE[len][c]`. */
const KEYWORDS_BY_SHAPE: (Keyword[] | undefined)[][] = [];
for (const k of KEYWORDS) {
  const byFirst = (KEYWORDS_BY_SHAPE[k.length] ??= []);
  (byFirst[k.charCodeAt(0)] ??= []).push(k);
}

/**
 * The keyword spelled by `src[start, end)`, or null. For the scanner: it
 * checks a word in place before slicing it out (hashing a fresh string for
 * a set lookup cost more than the rest of identifier scanning), and hands
 * back the keyword constant itself, so token kinds compare by identity.
 */
export function keywordAt(src: string, start: number, end: number): Keyword | null {
  const candidates = KEYWORDS_BY_SHAPE[end - start]?.[src.charCodeAt(start)];
  if (candidates === undefined) return null;
  // the first character matched already; compare the rest in place
  for (let i = 0; i < candidates.length; i++) {
    const k = candidates[i]!;
    let j = 1;
    while (j < k.length && k.charCodeAt(j) === src.charCodeAt(start + j)) j++;
    if (j === k.length) return k;
  }
  return null;
}

/** Two-character operators (§1.11), in the order the lexer tries them. */
export const TWO_CHAR_PUNCTUATION = [
  "==", "!=", "&&", "||", "|>", "??", "**", "?.",
  "->", "<=", ">=", "+=", "-=", "*=", "/=", "%=",
] as const;

/** Single-character operators and punctuation (§1.11). */
export const ONE_CHAR_PUNCTUATION = [
  "=", "!", ".", "+", "-", "*", "/", "%", "<", ">", "?", "|",
  "{", "}", "(", ")", "[", "]", ",", ":", ";", "@",
] as const;

export type Punctuation = (typeof TWO_CHAR_PUNCTUATION)[number] | (typeof ONE_CHAR_PUNCTUATION)[number];

export type TokenClass =
  | "Ident"
  | "Int"
  | "Float"
  | "Duration"
  /** A plain string without interpolation (also triple-quoted). */
  | "String"
  /** A string with `${…}` interpolation; `value` holds the segments. */
  | "IString"
  | "RString"
  | "NL"
  /** Only present when tokenizing with `{ comments: true }`. */
  | "Comment"
  | "EOF";

export type TokenKind = TokenClass | Keyword | Punctuation;

/** One piece of an interpolated string (spec/syntax.md §1.9.2). */
export type StringSegment =
  | { kind: "text"; text: string }
  /** `source` is the raw text between `${` and `}`; `start`, `line` and
   * `column` locate its first character in the file. */
  | { kind: "expr"; source: string; start: number; line: number; column: number };

/**
 * `value` by kind: Ident → name; Int → bigint (always within i64);
 * Float → number; Duration → bigint milliseconds (may exceed i64; the
 * structural checker reports that); String/RString → the string value;
 * IString → StringSegment[]; Comment → the comment text; otherwise null.
 *
 * Offsets are UTF-16 indices into the source (`end` exclusive); lines and
 * columns are 1-based, columns count code points (spec/syntax.md §0.3).
 * `endLine`/`endColumn` are the position just past the last character.
 */
export class Token {
  // Declared, not defined: a defined field would make every `new Token`
  // first define all ten as undefined (a class-field initializer call that
  // kept V8 from inlining the construction in the scanner loop).
  declare kind: TokenKind;
  declare image: string;
  declare value: string | number | bigint | StringSegment[] | null;
  declare start: number;
  declare end: number;
  declare line: number;
  declare column: number;
  declare endLine: number;
  declare endColumn: number;
  /** Doc comment (`///…`, `/** … *\/`); false for every other token. */
  declare isDoc: boolean;

  constructor(
    kind: TokenKind,
    image: string,
    value: string | number | bigint | StringSegment[] | null,
    start: number,
    end: number,
    line: number,
    column: number,
    endLine: number,
    endColumn: number,
    isDoc: boolean = false,
  ) {
    this.kind = kind;
    this.image = image;
    this.value = value;
    this.start = start;
    this.end = end;
    this.line = line;
    this.column = column;
    this.endLine = endLine;
    this.endColumn = endColumn;
    this.isDoc = isDoc;
  }
}

export type LexErrorKind = "unexpected-character" | "unterminated-string" | "unterminated-comment";

/** A lexer error. `message` is the reference's exact text (§1.13). */
export interface LexError {
  kind: LexErrorKind;
  message: string;
  offset: number;
  line: number;
  column: number;
  /** UTF-16 length of the offending text (1 or 2 for a character). */
  length: number;
}
