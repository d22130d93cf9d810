/**
 * Rust regex AST (syntax.ts) → JS `RegExp` source for the `v` flag.
 *
 * What the translation takes care of (spec/stdlib.md §12):
 * - Perl classes are Unicode in Rust: `\d` = `\p{Nd}`, `\s` =
 *   `\p{White_Space}`, `\w` = Alphabetic ∪ M ∪ Nd ∪ Pc ∪ Join_Control, and
 *   `\b`/`\B`/`\<`/`\>` are look-arounds over that `\w`.
 * - `.` excludes only `\n` (JS also excludes `\r`, U+2028, U+2029).
 * - Multi-line `^`/`$` treat only `\n` as a line break; the JS `m` flag is
 *   never used.
 * - Every capture is emitted as a plain `(…)`: group names are kept by the
 *   caller, so Rust names JS would reject (`a.b`) still work.
 * - Case-insensitivity: when the whole pattern is case-insensitive the JS
 *   `i` flag is used (Unicode simple case folding, as in Rust). When only
 *   parts are (`a(?i:b)`, `(?i)a(?-i)b`) — JS in Node 20 has no modifier
 *   groups — literals and class ranges in the insensitive parts are expanded
 *   to their case variants. Unicode properties, POSIX and Perl classes
 *   cannot be expanded that way, so such patterns are searched by the
 *   bounded backtracker (backtrack.ts), which tests each node with its own
 *   flags.
 */
import type { ClassItem, ClassSet, LookKind, Node, PerlKind, PropRef } from "./syntax";
import { RegexSyntaxError } from "./syntax";
import { caseVariants } from "./casefold";

const WORD_UNICODE = "[\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}]";
const WORD_ASCII = "[0-9A-Za-z_]";

export interface Emitted {
  source: string;
  /** "v" or "iv" (the caller adds "g"). */
  flags: string;
}

export function emitRegex(node: Node): Emitted {
  const mode = caseMode(node);
  const e = new Emitter(mode === "mixed");
  return { source: e.node(node), flags: mode === "all" ? "iv" : "v" };
}

export type CaseMode = "none" | "all" | "mixed";

/** Whether every case-sensitive-relevant atom is insensitive, none, or some. */
export function caseMode(root: Node): CaseMode {
  let on = 0;
  let off = 0;
  const visit = (n: Node): void => {
    switch (n.k) {
      case "lit":
      case "class":
      case "prop":
        if (n.ci) on++;
        else off++;
        return;
      case "group":
      case "rep":
        visit(n.node);
        return;
      case "concat":
      case "alt":
        for (const x of n.items) visit(x);
        return;
      default:
        return;
    }
  };
  visit(root);
  if (on === 0) return "none";
  return off === 0 ? "all" : "mixed";
}

class Emitter {
  constructor(private readonly emulateCase: boolean) {}

  node(n: Node): string {
    switch (n.k) {
      case "empty":
        return "";
      case "lit":
        if (n.ci && this.emulateCase) {
          const vs = caseVariants(n.cp);
          if (vs.length > 1) return "[" + vs.map(classChar).join("") + "]";
        }
        return literal(n.cp);
      case "dot":
        if (n.s) return "[\\s\\S]";
        return n.crlf ? "[^\\r\\n]" : "[^\\n]";
      case "class": {
        const set = n.ci && this.emulateCase ? foldSet(n.set) : n.set;
        return "[" + (n.negated ? "^" : "") + this.set(set) + "]";
      }
      case "perl":
        return perl(n.cls, n.neg, n.unicode);
      case "prop":
        return property(n.prop, n.neg);
      case "look":
        return look(n.kind, n.unicode, n.crlf);
      case "group":
        return (n.index === null ? "(?:" : "(") + this.node(n.node) + ")";
      case "rep": {
        let atom = this.node(n.node);
        if (!isAtom(n.node)) atom = "(?:" + atom + ")";
        let q: string;
        if (n.min === 0 && n.max === null) q = "*";
        else if (n.min === 1 && n.max === null) q = "+";
        else if (n.min === 0 && n.max === 1) q = "?";
        else if (n.max === null) q = `{${n.min},}`;
        else if (n.min === n.max) q = `{${n.min}}`;
        else q = `{${n.min},${n.max}}`;
        return atom + q + (n.greedy ? "" : "?");
      }
      case "concat":
        return n.items.map((x) => this.node(x)).join("");
      case "alt":
        return n.items.map((x) => this.node(x)).join("|");
    }
  }

  /** The inside of a `v`-mode class (without the brackets). */
  set(s: ClassSet): string {
    if (s.k === "union") return s.items.map((i) => this.item(i)).join("");
    const l = this.set(s.lhs);
    const r = this.set(s.rhs);
    if (s.op === "~~") return `[[${l}]--[${r}]][[${r}]--[${l}]]`;
    return `[${l}]${s.op}[${r}]`;
  }

  item(i: ClassItem): string {
    switch (i.k) {
      case "lit":
        return classChar(i.cp);
      case "range":
        return classChar(i.lo) + "-" + classChar(i.hi);
      case "perl":
        return perl(i.cls, i.neg, i.unicode);
      case "prop":
        return property(i.prop, i.neg);
      case "posix":
        return "[" + (i.neg ? "^" : "") + POSIX[i.name] + "]";
      case "nested":
        return "[" + (i.negated ? "^" : "") + this.set(i.set) + "]";
    }
  }
}

function isAtom(n: Node): boolean {
  return n.k === "lit" || n.k === "dot" || n.k === "class" || n.k === "perl" || n.k === "prop" || n.k === "group";
}

const SYNTAX_CHARS = new Set("^$\\.*+?()[]{}|/");

function hexEscape(cp: number): string {
  return "\\u{" + cp.toString(16) + "}";
}

/** A literal outside a class. */
function literal(cp: number): string {
  if (cp < 0x20 || cp === 0x7f || (cp >= 0x80 && cp < 0xa0)) return hexEscape(cp);
  const c = String.fromCodePoint(cp);
  return SYNTAX_CHARS.has(c) ? "\\" + c : c;
}

/** A literal inside a `v`-mode class: anything but ASCII letters and digits
 * is written as `\u{…}`, which sidesteps `v`'s reserved punctuators. */
function classChar(cp: number): string {
  if ((cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || cp >= 0xa0) {
    return String.fromCodePoint(cp);
  }
  return hexEscape(cp);
}

function perl(cls: PerlKind, neg: boolean, unicode: boolean): string {
  if (unicode) {
    switch (cls) {
      case "d":
        return neg ? "\\P{Nd}" : "\\p{Nd}";
      case "s":
        return neg ? "\\P{White_Space}" : "\\p{White_Space}";
      case "w":
        return neg ? "[^" + WORD_UNICODE.slice(1) : WORD_UNICODE;
    }
  }
  const body = cls === "d" ? "0-9" : cls === "s" ? "\\t\\n\\v\\f\\r\\u{20}" : "0-9A-Za-z_";
  return "[" + (neg ? "^" : "") + body + "]";
}

function look(kind: LookKind, unicode: boolean, crlf: boolean): string {
  const w = unicode ? WORD_UNICODE : WORD_ASCII;
  switch (kind) {
    case "start":
      return "^";
    case "end":
      return "$";
    case "lineStart":
      return crlf ? "(?:^|(?<=\\n)|(?<=\\r)(?!\\n))" : "(?<![^\\n])";
    case "lineEnd":
      return crlf ? "(?:$|(?=\\r)|(?<!\\r)(?=\\n))" : "(?![^\\n])";
    case "word":
      return `(?:(?<=${w})(?!${w})|(?<!${w})(?=${w}))`;
    case "notWord":
      return `(?:(?<=${w})(?=${w})|(?<!${w})(?!${w}))`;
    case "wordStart":
      return `(?:(?<!${w})(?=${w}))`;
    case "wordEnd":
      return `(?:(?<=${w})(?!${w}))`;
    case "wordStartHalf":
      return `(?<!${w})`;
    case "wordEndHalf":
      return `(?!${w})`;
  }
}

const POSIX: Record<string, string> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\u{0}-\\u{7f}",
  blank: "\\t\\u{20}",
  cntrl: "\\u{0}-\\u{1f}\\u{7f}",
  digit: "0-9",
  graph: "\\u{21}-\\u{7e}",
  lower: "a-z",
  print: "\\u{20}-\\u{7e}",
  punct: "\\u{21}-\\u{2f}\\u{3a}-\\u{40}\\u{5b}-\\u{60}\\u{7b}-\\u{7e}",
  space: "\\t\\n\\v\\f\\r\\u{20}",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

// ---------------------------------------------------------------------------
// Unicode properties: Rust matches names loosely (case, spaces, `_`, `-`
// ignored); JS wants canonical spellings.

const GENERAL_CATEGORIES: [string, string][] = [
  ["L", "Letter"],
  ["LC", "Cased_Letter"],
  ["Lu", "Uppercase_Letter"],
  ["Ll", "Lowercase_Letter"],
  ["Lt", "Titlecase_Letter"],
  ["Lm", "Modifier_Letter"],
  ["Lo", "Other_Letter"],
  ["M", "Mark"],
  ["Mn", "Nonspacing_Mark"],
  ["Mc", "Spacing_Mark"],
  ["Me", "Enclosing_Mark"],
  ["N", "Number"],
  ["Nd", "Decimal_Number"],
  ["Nl", "Letter_Number"],
  ["No", "Other_Number"],
  ["P", "Punctuation"],
  ["Pc", "Connector_Punctuation"],
  ["Pd", "Dash_Punctuation"],
  ["Ps", "Open_Punctuation"],
  ["Pe", "Close_Punctuation"],
  ["Pi", "Initial_Punctuation"],
  ["Pf", "Final_Punctuation"],
  ["Po", "Other_Punctuation"],
  ["S", "Symbol"],
  ["Sm", "Math_Symbol"],
  ["Sc", "Currency_Symbol"],
  ["Sk", "Modifier_Symbol"],
  ["So", "Other_Symbol"],
  ["Z", "Separator"],
  ["Zs", "Space_Separator"],
  ["Zl", "Line_Separator"],
  ["Zp", "Paragraph_Separator"],
  ["C", "Other"],
  ["Cc", "Control"],
  ["Cf", "Format"],
  ["Cs", "Surrogate"],
  ["Co", "Private_Use"],
  ["Cn", "Unassigned"],
];

const GC_ALIASES: Record<string, string> = { digit: "Nd", punct: "P", combiningmark: "M", cntrl: "Cc" };

const BINARY_PROPERTIES = [
  "ASCII",
  "ASCII_Hex_Digit",
  "Alphabetic",
  "Any",
  "Assigned",
  "Bidi_Control",
  "Bidi_Mirrored",
  "Case_Ignorable",
  "Cased",
  "Changes_When_Casefolded",
  "Changes_When_Casemapped",
  "Changes_When_Lowercased",
  "Changes_When_NFKC_Casefolded",
  "Changes_When_Titlecased",
  "Changes_When_Uppercased",
  "Dash",
  "Default_Ignorable_Code_Point",
  "Deprecated",
  "Diacritic",
  "Emoji",
  "Emoji_Component",
  "Emoji_Modifier",
  "Emoji_Modifier_Base",
  "Emoji_Presentation",
  "Extended_Pictographic",
  "Extender",
  "Grapheme_Base",
  "Grapheme_Extend",
  "Hex_Digit",
  "IDS_Binary_Operator",
  "IDS_Trinary_Operator",
  "ID_Continue",
  "ID_Start",
  "Ideographic",
  "Join_Control",
  "Logical_Order_Exception",
  "Lowercase",
  "Math",
  "Noncharacter_Code_Point",
  "Pattern_Syntax",
  "Pattern_White_Space",
  "Quotation_Mark",
  "Radical",
  "Regional_Indicator",
  "Sentence_Terminal",
  "Soft_Dotted",
  "Terminal_Punctuation",
  "Unified_Ideograph",
  "Uppercase",
  "Variation_Selector",
  "White_Space",
  "XID_Continue",
  "XID_Start",
];

const BINARY_ALIASES: Record<string, string> = {
  space: "White_Space",
  wspace: "White_Space",
  whitespace: "White_Space",
  alpha: "Alphabetic",
  upper: "Uppercase",
  lower: "Lowercase",
  xdigit: "Hex_Digit",
  hex: "Hex_Digit",
  ahex: "ASCII_Hex_Digit",
  ideo: "Ideographic",
  emojipresentation: "Emoji_Presentation",
  extpict: "Extended_Pictographic",
};

function loose(s: string): string {
  return s.replace(/[\s_-]/g, "").toLowerCase();
}

function lookupGc(name: string): string | null {
  const n = loose(name);
  if (GC_ALIASES[n]) return GC_ALIASES[n]!;
  for (const [short, long] of GENERAL_CATEGORIES) {
    if (loose(short) === n || loose(long) === n) return short;
  }
  return null;
}

function lookupBinary(name: string): string | null {
  const n = loose(name);
  if (BINARY_ALIASES[n]) return BINARY_ALIASES[n]!;
  for (const p of BINARY_PROPERTIES) if (loose(p) === n) return p;
  return null;
}

/** `Old_Italic`-style spelling, then check that JS knows the script. */
function lookupScript(name: string, key: "Script" | "Script_Extensions"): string | null {
  const parts = name
    .trim()
    .split(/[\s_-]+/)
    .filter((p) => p !== "");
  if (parts.length === 0) return null;
  const candidates = [parts.map((p) => p[0]!.toUpperCase() + p.slice(1).toLowerCase()).join("_"), parts.join("_")];
  for (const c of candidates) {
    try {
      new RegExp(`\\p{${key}=${c}}`, "v");
      return c;
    } catch {
      // not a script name in this spelling
    }
  }
  return null;
}

function property(prop: PropRef, neg: boolean): string {
  const p = neg ? "\\P" : "\\p";
  if (prop.value === null) {
    const n = loose(prop.name);
    if (n === "any") return neg ? "[^\\u{0}-\\u{10ffff}]" : "[\\u{0}-\\u{10ffff}]";
    // `cf`, `sc` and `lc` are general categories, not properties (as in Rust)
    const bin = n === "cf" || n === "sc" || n === "lc" ? null : lookupBinary(prop.name);
    if (bin) return `${p}{${bin}}`;
    const gc = lookupGc(prop.name);
    if (gc) return `${p}{${gc}}`;
    const sc = lookupScript(prop.name, "Script");
    if (sc) return `${p}{Script=${sc}}`;
    throw new PropertyNotFound();
  }
  const key = loose(prop.name);
  if (key === "gc" || key === "generalcategory") {
    const gc = lookupGc(prop.value);
    if (gc) return `${p}{${gc}}`;
  } else if (key === "sc" || key === "script") {
    const sc = lookupScript(prop.value, "Script");
    if (sc) return `${p}{Script=${sc}}`;
  } else if (key === "scx" || key === "scriptextensions") {
    const sc = lookupScript(prop.value, "Script_Extensions");
    if (sc) return `${p}{Script_Extensions=${sc}}`;
  }
  throw new PropertyNotFound();
}

/** Raised while emitting; the compiler turns it into Rust's message. */
export class PropertyNotFound extends RegexSyntaxError {
  constructor() {
    super("Unicode property not found", 0, 0);
  }
}

// ---------------------------------------------------------------------------
// Case folding of class contents for the mixed-case emulation.

const MAX_FOLD_RANGE = 4096;

function foldSet(s: ClassSet): ClassSet {
  if (s.k === "op") return { k: "op", op: s.op, lhs: foldSet(s.lhs), rhs: foldSet(s.rhs) };
  const items: ClassItem[] = [];
  for (const i of s.items) {
    items.push(i.k === "nested" ? { k: "nested", negated: i.negated, set: foldSet(i.set) } : i);
    if (i.k === "lit") {
      for (const v of caseVariants(i.cp)) if (v !== i.cp) items.push({ k: "lit", cp: v });
    } else if (i.k === "range" && i.hi - i.lo <= MAX_FOLD_RANGE) {
      for (let cp = i.lo; cp <= i.hi; cp++) {
        for (const v of caseVariants(cp)) if (v < i.lo || v > i.hi) items.push({ k: "lit", cp: v });
      }
    }
  }
  return { k: "union", items };
}
