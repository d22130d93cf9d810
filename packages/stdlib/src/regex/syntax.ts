/**
 * A parser for the Rust `regex` crate dialect (spec/stdlib.md §12), producing
 * a small AST that `emit.ts` turns into a JS `RegExp`. Parsing ourselves
 * (instead of patching the pattern text) lets us reject what Rust rejects
 * (look-around, back-references, unknown escapes) with Rust's wording and
 * translate what differs (Unicode `\w`/`\b`, `.`, multi-line anchors, scoped
 * flags, class set operations, POSIX classes) exactly.
 *
 * Positions are code-point offsets into the pattern; they only feed the
 * caret line of error messages.
 */

export interface Flags {
  /** case-insensitive */
  i: boolean;
  /** multi-line anchors */
  m: boolean;
  /** `.` matches `\n` */
  s: boolean;
  /** swap greedy and lazy */
  U: boolean;
  /** Unicode-aware Perl classes (on by default) */
  u: boolean;
  /** verbose: whitespace and `#` comments ignored */
  x: boolean;
  /** CRLF mode for `^`, `$` and `.` */
  R: boolean;
}

export type LookKind =
  | "start"
  | "end"
  | "lineStart"
  | "lineEnd"
  | "word"
  | "notWord"
  | "wordStart"
  | "wordEnd"
  | "wordStartHalf"
  | "wordEndHalf";

export type PerlKind = "d" | "s" | "w";

export type Node =
  | { k: "empty" }
  | { k: "lit"; cp: number; ci: boolean }
  | { k: "dot"; s: boolean; crlf: boolean }
  | { k: "class"; negated: boolean; set: ClassSet; ci: boolean }
  | { k: "perl"; cls: PerlKind; neg: boolean; unicode: boolean }
  | { k: "prop"; prop: PropRef; neg: boolean; ci: boolean }
  | { k: "look"; kind: LookKind; unicode: boolean; crlf: boolean }
  | { k: "group"; index: number | null; node: Node }
  | { k: "rep"; node: Node; min: number; max: number | null; greedy: boolean }
  | { k: "concat"; items: Node[] }
  | { k: "alt"; items: Node[] };

/** `\p{...}` as written: a bare name, or `name=value`. */
export interface PropRef {
  name: string;
  value: string | null;
}

export type ClassItem =
  | { k: "lit"; cp: number }
  | { k: "range"; lo: number; hi: number }
  | { k: "perl"; cls: PerlKind; neg: boolean; unicode: boolean }
  | { k: "prop"; prop: PropRef; neg: boolean }
  | { k: "posix"; name: string; neg: boolean }
  | { k: "nested"; negated: boolean; set: ClassSet };

export type ClassSet =
  | { k: "union"; items: ClassItem[] }
  | { k: "op"; op: "&&" | "--" | "~~"; lhs: ClassSet; rhs: ClassSet };

export interface ParsedRegex {
  node: Node;
  /** Capture group names by index (index 0, the whole match, is null). */
  names: (string | null)[];
}

/** A pattern Rust would reject; `message` uses regex-syntax's wording. */
export class RegexSyntaxError {
  constructor(
    readonly message: string,
    readonly start: number,
    readonly end: number,
  ) {}
}

const META = new Set("\\.+*?()|[]{}^$#&-~");
const POSIX_NAMES = new Set(["alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "word", "xdigit"]);
const NEST_LIMIT = 250;

export function defaultFlags(): Flags {
  return { i: false, m: false, s: false, U: false, u: true, x: false, R: false };
}

export function parseRegex(pattern: string, initial: Flags = defaultFlags()): ParsedRegex {
  return new Parser(pattern).parse(initial);
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

function isHex(c: string | undefined): boolean {
  return c !== undefined && /^[0-9A-Fa-f]$/.test(c);
}

function isSpace(c: string | undefined): boolean {
  return c !== undefined && /^\s$/u.test(c);
}

class Parser {
  private readonly cs: string[];
  private pos = 0;
  private readonly names: (string | null)[] = [null];
  private depth = 0;

  constructor(pattern: string) {
    this.cs = Array.from(pattern);
  }

  parse(initial: Flags): ParsedRegex {
    const node = this.parseAlternation({ ...initial }, true);
    return { node, names: this.names };
  }

  private fail(message: string, start = this.pos, end = start + 1): never {
    throw new RegexSyntaxError(message, start, end);
  }

  private peek(off = 0): string | undefined {
    return this.cs[this.pos + off];
  }

  private eof(): boolean {
    return this.pos >= this.cs.length;
  }

  /** In verbose mode, skip whitespace and `#` comments. */
  private skipSpace(flags: Flags): void {
    if (!flags.x) return;
    while (!this.eof()) {
      const c = this.peek()!;
      if (isSpace(c)) {
        this.pos++;
      } else if (c === "#") {
        while (!this.eof() && this.peek() !== "\n") this.pos++;
      } else {
        return;
      }
    }
  }

  /**
   * Parse alternatives up to a `)` (not consumed) or the end. `flags` is
   * this group's mutable flag state: a bare `(?i)` changes it for the rest
   * of the group, across `|`.
   */
  private parseAlternation(flags: Flags, top: boolean): Node {
    if (++this.depth > NEST_LIMIT) this.fail("exceed the maximum number of nested parentheses/brackets (250)");
    const branches: Node[] = [];
    let items: Node[] = [];
    for (;;) {
      this.skipSpace(flags);
      if (this.eof()) break;
      const c = this.peek()!;
      if (c === ")") {
        if (top) this.fail("unopened group");
        break;
      }
      if (c === "|") {
        this.pos++;
        branches.push(concat(items));
        items = [];
        continue;
      }
      if (c === "*" || c === "+" || c === "?") {
        const start = this.pos++;
        const last = items.pop();
        if (!last) this.fail("repetition operator missing expression", start);
        const min = c === "+" ? 1 : 0;
        const max = c === "?" ? 1 : null;
        items.push(this.finishRepetition(last, min, max, flags));
        continue;
      }
      if (c === "{") {
        const start = this.pos;
        const last = items.pop();
        if (!last) this.fail("repetition operator missing expression", start);
        const [min, max] = this.parseCounted(flags);
        items.push(this.finishRepetition(last, min, max, flags));
        continue;
      }
      if (c === "(") {
        const g = this.parseGroup(flags);
        if (g) items.push(g);
        continue;
      }
      items.push(this.parseAtom(flags));
    }
    this.depth--;
    branches.push(concat(items));
    return branches.length === 1 ? branches[0]! : { k: "alt", items: branches };
  }

  private finishRepetition(node: Node, min: number, max: number | null, flags: Flags): Node {
    let greedy = true;
    if (this.peek() === "?") {
      this.pos++;
      greedy = false;
    }
    if (flags.U) greedy = !greedy;
    return { k: "rep", node, min, max, greedy };
  }

  /** `{n}`, `{n,}`, `{n,m}` starting at `{`. */
  private parseCounted(flags: Flags): [number, number | null] {
    const start = this.pos;
    this.pos++; // {
    this.skipSpace(flags);
    const min = this.parseDecimal(flags, start);
    let max: number | null = min;
    this.skipSpace(flags);
    if (this.peek() === ",") {
      this.pos++;
      this.skipSpace(flags);
      if (this.peek() === "}") {
        max = null;
      } else {
        max = this.parseDecimal(flags, start);
      }
    }
    this.skipSpace(flags);
    if (this.eof()) this.fail("unclosed counted repetition", start, this.pos);
    if (this.peek() !== "}") this.fail("unclosed counted repetition", start, this.pos);
    this.pos++;
    if (max !== null && min > max) this.fail("invalid repetition count range, the start must be <= the end", start, this.pos);
    return [min, max];
  }

  private parseDecimal(flags: Flags, start: number): number {
    this.skipSpace(flags);
    let digits = "";
    while (isDigit(this.peek())) digits += this.cs[this.pos++];
    if (digits === "") {
      if (this.eof()) this.fail("unclosed counted repetition", start, this.pos);
      this.fail("repetition quantifier expects a valid decimal", this.pos);
    }
    const n = Number(digits);
    if (n > 0xffffffff) this.fail("decimal literal invalid", start, this.pos);
    return n;
  }

  /** A group at `(`. Returns null for a bare flag group `(?flags)`. */
  private parseGroup(flags: Flags): Node | null {
    const open = this.pos;
    this.pos++; // (
    if (this.peek() !== "?") {
      const index = this.names.length;
      this.names.push(null);
      return this.finishGroup(open, index, { ...flags });
    }
    this.pos++; // ?
    const c = this.peek();
    if (c === "=" || c === "!" || (c === "<" && (this.peek(1) === "=" || this.peek(1) === "!"))) {
      this.fail("look-around, including look-ahead and look-behind, is not supported", open, this.pos + 1);
    }
    if (c === "P" && (this.peek(1) === "=" || this.peek(1) === ">")) {
      this.fail("backreferences are not supported", open, this.pos + 2);
    }
    if (c === "<" || (c === "P" && this.peek(1) === "<")) {
      this.pos += c === "P" ? 2 : 1;
      const name = this.parseGroupName();
      const index = this.names.length;
      this.names.push(name);
      return this.finishGroup(open, index, { ...flags });
    }
    // flags: (?imsUuxR-imsUuxR) or (?flags:...)
    const scoped = { ...flags };
    let negate = false;
    let sawNegation = false;
    let sawFlag = false;
    let lastWasNegation = false;
    const seen = new Set<string>();
    for (;;) {
      if (this.eof()) this.fail("expected flag but got end of regex", open, this.pos);
      const f = this.peek()!;
      if (f === ")" || f === ":") {
        if (lastWasNegation) this.fail("dangling flag negation operator", this.pos - 1);
        if (!sawFlag && !sawNegation && f === ")") this.fail("empty flag group", open, this.pos + 1);
        this.pos++;
        if (f === ")") {
          Object.assign(flags, scoped);
          return null;
        }
        return this.finishGroup(open, null, scoped);
      }
      if (f === "-") {
        if (sawNegation) this.fail("flag negation operator repeated", this.pos);
        sawNegation = true;
        negate = true;
        lastWasNegation = true;
        this.pos++;
        continue;
      }
      if (!"imsUuxR".includes(f)) this.fail("unrecognized flag", this.pos);
      if (seen.has(f)) this.fail("duplicate flag", this.pos);
      seen.add(f);
      sawFlag = true;
      lastWasNegation = false;
      (scoped as unknown as Record<string, boolean>)[f] = !negate;
      this.pos++;
    }
  }

  private finishGroup(open: number, index: number | null, flags: Flags): Node {
    const node = this.parseAlternation(flags, false);
    if (this.peek() !== ")") this.fail("unclosed group", open, open + 1);
    this.pos++;
    return { k: "group", index, node };
  }

  private parseGroupName(): string {
    const start = this.pos;
    let name = "";
    for (;;) {
      if (this.eof()) this.fail("unclosed capture group name", start, this.pos);
      const c = this.peek()!;
      if (c === ">") break;
      const ok = name === "" ? /^[_A-Za-z]$/.test(c) : /^[_0-9A-Za-z.[\]]$/.test(c);
      if (!ok) this.fail("invalid capture group character", this.pos);
      name += c;
      this.pos++;
    }
    if (name === "") this.fail("empty capture group name", this.pos);
    this.pos++; // >
    if (this.names.includes(name)) this.fail("duplicate capture group name", start, this.pos - 1);
    return name;
  }

  private parseAtom(flags: Flags): Node {
    const c = this.cs[this.pos]!;
    switch (c) {
      case ".":
        this.pos++;
        return { k: "dot", s: flags.s, crlf: flags.R };
      case "^":
        this.pos++;
        return { k: "look", kind: flags.m ? "lineStart" : "start", unicode: flags.u, crlf: flags.R };
      case "$":
        this.pos++;
        return { k: "look", kind: flags.m ? "lineEnd" : "end", unicode: flags.u, crlf: flags.R };
      case "[":
        return this.parseClass(flags);
      case "\\":
        return this.parseEscape(flags);
      default:
        this.pos++;
        return { k: "lit", cp: c.codePointAt(0)!, ci: flags.i };
    }
  }

  /** An escape outside a class, at `\`. */
  private parseEscape(flags: Flags): Node {
    const start = this.pos;
    this.pos++;
    if (this.eof()) this.fail("incomplete escape sequence, reached end of pattern prematurely", start);
    const c = this.cs[this.pos]!;
    switch (c) {
      case "A":
        this.pos++;
        return { k: "look", kind: "start", unicode: flags.u, crlf: false };
      case "z":
        this.pos++;
        return { k: "look", kind: "end", unicode: flags.u, crlf: false };
      case "B":
        this.pos++;
        return { k: "look", kind: "notWord", unicode: flags.u, crlf: false };
      case "<":
        this.pos++;
        return { k: "look", kind: "wordStart", unicode: flags.u, crlf: false };
      case ">":
        this.pos++;
        return { k: "look", kind: "wordEnd", unicode: flags.u, crlf: false };
      case "b": {
        this.pos++;
        if (this.peek() === "{") {
          const save = this.pos;
          this.pos++;
          let name = "";
          while (!this.eof() && /^[A-Za-z-]$/.test(this.peek()!)) name += this.cs[this.pos++];
          if (this.peek() === "}") {
            this.pos++;
            const kinds: Record<string, LookKind> = {
              start: "wordStart",
              end: "wordEnd",
              "start-half": "wordStartHalf",
              "end-half": "wordEndHalf",
            };
            const kind = kinds[name];
            if (!kind) this.fail("unrecognized word boundary assertion", save, this.pos);
            return { k: "look", kind, unicode: flags.u, crlf: false };
          }
          // `\b{` not followed by a special assertion: `{` is a repetition
          if (/^[0-9 ,]*$/.test(name)) {
            this.pos = save;
          } else {
            this.fail("special word boundary assertion is either unclosed or contains an invalid character", save, this.pos);
          }
        }
        return { k: "look", kind: "word", unicode: flags.u, crlf: false };
      }
    }
    const item = this.parseEscapeCommon(start, flags);
    switch (item.k) {
      case "lit":
        return { k: "lit", cp: item.cp, ci: flags.i };
      case "perl":
        return item;
      case "prop":
        return { k: "prop", prop: item.prop, neg: item.neg, ci: flags.i };
      default:
        throw new Error("unreachable escape kind");
    }
  }

  /**
   * Escapes valid both inside and outside classes: Perl classes, Unicode
   * properties, hex and control escapes, escaped meta characters. The
   * backslash is at `start`, `pos` at the character after it.
   */
  private parseEscapeCommon(start: number, flags: Flags): ClassItem {
    const c = this.cs[this.pos]!;
    this.pos++;
    switch (c) {
      case "d":
      case "s":
      case "w":
        return { k: "perl", cls: c, neg: false, unicode: flags.u };
      case "D":
      case "S":
      case "W":
        return { k: "perl", cls: c.toLowerCase() as PerlKind, neg: true, unicode: flags.u };
      case "p":
      case "P":
        return this.parseProperty(start, c === "P");
      case "n":
        return { k: "lit", cp: 10 };
      case "t":
        return { k: "lit", cp: 9 };
      case "r":
        return { k: "lit", cp: 13 };
      case "f":
        return { k: "lit", cp: 12 };
      case "v":
        return { k: "lit", cp: 11 };
      case "a":
        return { k: "lit", cp: 7 };
      case "e":
        return { k: "lit", cp: 27 };
      case "x":
        return { k: "lit", cp: this.parseHex(start, 2) };
      case "u":
        return { k: "lit", cp: this.parseHex(start, 4) };
      case "U":
        return { k: "lit", cp: this.parseHex(start, 8) };
    }
    if (isDigit(c)) this.fail("backreferences are not supported", start, this.pos);
    if (META.has(c) || (c.length === 1 && c.charCodeAt(0) < 128 && !/[0-9A-Za-z<>]/.test(c))) {
      return { k: "lit", cp: c.codePointAt(0)! };
    }
    this.fail("unrecognized escape sequence", start, this.pos);
  }

  /** `\xHH`, `\x{H…}`, `\uHHHH`, `\UHHHHHHHH`, with `pos` after the letter. */
  private parseHex(start: number, fixed: number): number {
    let digits = "";
    if (this.peek() === "{") {
      this.pos++;
      for (;;) {
        if (this.eof()) this.fail("unclosed hexadecimal literal", start, this.pos);
        const c = this.peek()!;
        if (c === "}") break;
        if (!isHex(c)) this.fail("invalid hexadecimal digit", this.pos);
        digits += c;
        this.pos++;
      }
      this.pos++;
      if (digits === "") this.fail("hexadecimal literal empty", start, this.pos);
      if (digits.length > 8) this.fail("hexadecimal literal is not a Unicode scalar value", start, this.pos);
    } else {
      for (let i = 0; i < fixed; i++) {
        if (this.eof()) this.fail("incomplete escape sequence, reached end of pattern prematurely", start, this.pos);
        const c = this.peek()!;
        if (!isHex(c)) this.fail("invalid hexadecimal digit", this.pos);
        digits += c;
        this.pos++;
      }
    }
    const cp = parseInt(digits, 16);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) this.fail("hexadecimal literal is not a Unicode scalar value", start, this.pos);
    return cp;
  }

  /** `\pL`, `\p{Greek}`, `\p{^Greek}`, `\p{sc=Greek}`, `\p{sc!=Greek}`. */
  private parseProperty(start: number, negated: boolean): ClassItem {
    if (this.eof()) this.fail("incomplete escape sequence, reached end of pattern prematurely", start, this.pos);
    let neg = negated;
    if (this.peek() !== "{") {
      const c = this.cs[this.pos++]!;
      return { k: "prop", prop: { name: c, value: null }, neg };
    }
    this.pos++;
    let body = "";
    for (;;) {
      if (this.eof()) this.fail("Unicode escape not closed", start, this.pos);
      const c = this.cs[this.pos++]!;
      if (c === "}") break;
      body += c;
    }
    if (body.startsWith("^")) {
      neg = !neg;
      body = body.slice(1);
    }
    const ne = body.indexOf("!=");
    if (ne >= 0) return { k: "prop", prop: { name: body.slice(0, ne).trim(), value: body.slice(ne + 2).trim() }, neg: !neg };
    const eq = body.search(/[=:]/);
    if (eq >= 0) return { k: "prop", prop: { name: body.slice(0, eq).trim(), value: body.slice(eq + 1).trim() }, neg };
    return { k: "prop", prop: { name: body.trim(), value: null }, neg };
  }

  // -------------------------------------------------------------------------
  // Classes

  /** A bracketed class at `[`. */
  private parseClass(flags: Flags): Node {
    const open = this.pos;
    const { negated, set } = this.parseBracket(flags, open);
    return { k: "class", negated, set, ci: flags.i };
  }

  private parseBracket(flags: Flags, open: number): { negated: boolean; set: ClassSet } {
    if (++this.depth > NEST_LIMIT) this.fail("exceed the maximum number of nested parentheses/brackets (250)");
    this.pos++; // [
    this.skipSpace(flags);
    let negated = false;
    if (this.peek() === "^") {
      negated = true;
      this.pos++;
      this.skipSpace(flags);
    }
    let set: ClassSet = { k: "union", items: [] };
    let union = set.items;
    let first = true;
    for (;;) {
      this.skipSpace(flags);
      if (this.eof()) this.fail("unclosed character class", open, open + 1);
      const c = this.peek()!;
      if (c === "]" && !first) {
        this.pos++;
        break;
      }
      // `]` and `-` first are literals
      if (first && (c === "]" || c === "-")) {
        this.pos++;
        union.push({ k: "lit", cp: c.codePointAt(0)! });
        first = false;
        continue;
      }
      first = false;
      const op = this.peekSetOp();
      if (op) {
        this.pos += 2;
        const rhs: ClassSet = { k: "union", items: [] };
        set = { k: "op", op, lhs: set, rhs };
        union = rhs.items;
        first = false;
        continue;
      }
      if (c === "[") {
        const posix = this.tryPosix();
        if (posix) {
          union.push(posix);
          continue;
        }
        const inner = this.parseBracket(flags, this.pos);
        union.push({ k: "nested", negated: inner.negated, set: inner.set });
        continue;
      }
      const lo = this.parseClassAtom(flags);
      // a range `a-z` (but `a-]` and `a-&&` keep `-` literal)
      this.skipSpace(flags);
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== "-" && this.peek(1) !== undefined) {
        const dash = this.pos;
        this.pos++;
        this.skipSpace(flags);
        const hi = this.parseClassAtom(flags);
        if (lo.k !== "lit" || hi.k !== "lit") this.fail("invalid range boundary, must be a literal", dash - 1, this.pos);
        if (lo.cp > hi.cp) this.fail("invalid character class range, the start must be <= the end", dash - 1, this.pos);
        union.push({ k: "range", lo: lo.cp, hi: hi.cp });
        continue;
      }
      union.push(lo);
    }
    this.depth--;
    return { negated, set };
  }

  private peekSetOp(): "&&" | "--" | "~~" | null {
    const a = this.peek();
    const b = this.peek(1);
    if (a === "&" && b === "&") return "&&";
    if (a === "-" && b === "-") return "--";
    if (a === "~" && b === "~") return "~~";
    return null;
  }

  /** `[:alpha:]` / `[:^alpha:]` at `[`; null (position unchanged) if not. */
  private tryPosix(): ClassItem | null {
    if (this.peek(1) !== ":") return null;
    let i = this.pos + 2;
    let neg = false;
    if (this.cs[i] === "^") {
      neg = true;
      i++;
    }
    let name = "";
    while (i < this.cs.length && /^[a-z]$/.test(this.cs[i]!)) name += this.cs[i++];
    if (this.cs[i] !== ":" || this.cs[i + 1] !== "]") return null;
    if (!POSIX_NAMES.has(name)) this.fail("invalid ASCII character class", this.pos, i + 2);
    this.pos = i + 2;
    return { k: "posix", name, neg };
  }

  /** One class member: a literal or an escape. */
  private parseClassAtom(flags: Flags): ClassItem {
    if (this.eof()) this.fail("unclosed character class", this.pos);
    const c = this.cs[this.pos]!;
    if (c === "\\") {
      const start = this.pos;
      this.pos++;
      if (this.eof()) this.fail("incomplete escape sequence, reached end of pattern prematurely", start);
      const e = this.cs[this.pos]!;
      if ("AzbB<>".includes(e)) this.fail("unrecognized escape sequence", start, this.pos + 1);
      return this.parseEscapeCommon(start, flags);
    }
    this.pos++;
    return { k: "lit", cp: c.codePointAt(0)! };
  }
}

function concat(items: Node[]): Node {
  if (items.length === 0) return { k: "empty" };
  if (items.length === 1) return items[0]!;
  return { k: "concat", items };
}
