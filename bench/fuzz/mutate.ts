/**
 * Mutations of Harn source texts for the fuzzer (fuzz.ts). Each mutator
 * takes the text, a second seed text (for splices) and the random source,
 * and returns the mutated text. Token-level mutators use the real lexer's
 * token offsets, and fall back to character ranges when the text no longer
 * lexes.
 */
import { tokenize } from "@harn/lexer";

/** Uniform [0, 1) draws: vm's `seededRandom`, so a finding can be replayed from its seed. */
export type Rand = () => number;

const int = (r: Rand, n: number): number => Math.floor(r() * n);
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[int(r, xs.length)]!;

/** Token boundaries [start, end) of a text, or null when it does not lex. */
function tokenRanges(text: string): [number, number][] | null {
  const { tokens, error } = tokenize(text);
  if (error !== null) return null;
  return tokens.filter((t) => t.kind !== "EOF" && t.kind !== "NL").map((t) => [t.start, t.end]);
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
  return starts;
}

/** A random [start, end) range of whole lines, or of tokens. */
function range(r: Rand, text: string, unit: "line" | "token"): [number, number] {
  if (unit === "token") {
    const toks = tokenRanges(text);
    if (toks && toks.length > 0) {
      const i = int(r, toks.length);
      const j = Math.min(toks.length - 1, i + int(r, 4));
      return [toks[i]![0], toks[j]![1]];
    }
  }
  const ls = lineStarts(text);
  const i = int(r, ls.length);
  const j = Math.min(ls.length, i + 1 + int(r, 3));
  return [ls[i]!, j < ls.length ? ls[j]! : text.length];
}

const at = (r: Rand, text: string): number => int(r, text.length + 1);
const insert = (text: string, pos: number, s: string): string => text.slice(0, pos) + s + text.slice(pos);

const PUNCT = "(){}[]\"'`$,;:.?!|&<>=+-*/%@#\\^~_\n\t ".split("");
const UNBALANCED = ["(", ")", "[", "]", "{", "}", '"', '"""', "'", "${", "}", "/*", "*/", 'r"', "<<EOF\n", "|", "->", "=>", "..", "?."];
const INTERP = [
  '"${',
  '"${"${"}"}"',
  '"${}"',
  '"${a"',
  '"${ {"a": 1} }"',
  '"${"}"',
  '"$${x}"',
  '"\\${x}"',
  '"""${',
  '"""\n  ${x}\n  """',
  '"""\n${"""x"""}\n"""',
  'r"${x}"',
  'r"',
  '"""',
  '"""\n',
  '"${"${"${"${1}"}"}"}"',
  '"${1 +}"',
  '"${x}${',
  '"\\u{110000}"',
  '"\\u{D800}"',
  '"\\u{}"',
  '"\\u{FFFFFFFFF}"',
  '"\\q"',
  '"\\',
];
const HUGE = [
  "9223372036854775807",
  "9223372036854775808",
  "-9223372036854775808",
  "99999999999999999999999999999999999999",
  "1e309",
  "1e-400",
  "0.0000000000000000000000001",
  "1.7976931348623157e308",
  "0x7fffffffffffffff",
  "0xffffffffffffffffff",
  "0b" + "1".repeat(70),
  "1_000_000",
  "1__0",
  "1.",
  ".5",
  "1e",
  "1e+",
  "00",
  "-0",
  "-0.0",
];
const ASTRAL = ["𝒳", "😀", "𠀀", "\u{10FFFF}", "é", "e\u0301", "\u200d", "\u00a0", "\u2028", "ℕ", "Ⅻ", "٣"];

function deepNest(r: Rand): string {
  const n = pick(r, [50, 300, 1000, 3000, 10000]);
  const kind = int(r, 14);
  switch (kind) {
    case 0:
      return "(".repeat(n) + "1" + ")".repeat(n);
    case 1:
      return "[".repeat(n) + "]".repeat(n);
    case 2:
      return "{".repeat(n) + "}".repeat(n);
    case 3:
      return "if true {\n".repeat(n) + "1\n" + "}\n".repeat(n);
    case 4:
      return "1" + " + 1".repeat(n);
    case 5:
      return "-".repeat(n) + "1";
    case 6:
      return "!".repeat(n) + "true";
    case 7:
      return "x" + ".a".repeat(n);
    case 8:
      return '"${'.repeat(Math.min(n, 2000)) + "1" + '}"'.repeat(Math.min(n, 2000));
    case 9:
      return "(".repeat(n);
    case 10:
      return "fn f() {\n".repeat(n) + "}\n".repeat(n);
    case 12:
      // chains that are long rather than nested in the source, but deep in the tree
      return "if false { 1 }" + " else if false { 1 }".repeat(n) + " else { 2 }";
    case 13:
      return "@deprecated ".repeat(n) + "fn __f() { return 1 }";
    default:
      return "{a: ".repeat(n) + "1" + "}".repeat(n);
  }
}

/** Values of every kind, to hand to code that expects another kind. */
const VALUES = [
  "nil", "0", "-1", "1", '""', '"x"', "[]", "{}", "1.5", "-0.0", "true", "false", "9223372036854775807", "-9223372036854775808",
  "[nil]", "{a: nil}", '"😀"', "(0.0 / 0.0)", "(1e308 * 10.0)", "0ms", "[1, [2, [3]]]", '{"": 1}', "{ x -> x }", "set(1, 2)",
  '"${nil}"', "-(-9223372036854775807 - 1)", '" \t\n"', "[1, 2, 3][-1]", '"a".repeat(3)',
];
const BINOPS = ["+", "-", "*", "/", "%", "==", "!=", "<", ">", "<=", ">=", "&&", "||", "??", "|>", "**", "in", "not in", "..", "..="];

type Mutator = (text: string, other: string, r: Rand) => string;

export const MUTATORS: Record<string, Mutator> = {
  deleteLines: (t, _o, r) => {
    const [a, b] = range(r, t, "line");
    return t.slice(0, a) + t.slice(b);
  },
  deleteTokens: (t, _o, r) => {
    const [a, b] = range(r, t, "token");
    return t.slice(0, a) + t.slice(b);
  },
  dupLines: (t, _o, r) => {
    const [a, b] = range(r, t, "line");
    return insert(t, pick(r, lineStarts(t)), t.slice(a, b));
  },
  dupTokens: (t, _o, r) => {
    const [a, b] = range(r, t, "token");
    return insert(t, b, " " + t.slice(a, b));
  },
  swapTokens: (t, _o, r) => {
    let [a, b] = range(r, t, "token");
    let [c, d] = range(r, t, "token");
    if (c < a) [a, b, c, d] = [c, d, a, b];
    if (c < b) return t;
    return t.slice(0, a) + t.slice(c, d) + t.slice(b, c) + t.slice(a, b) + t.slice(d);
  },
  swapLines: (t, _o, r) => {
    let [a, b] = range(r, t, "line");
    let [c, d] = range(r, t, "line");
    if (c < a) [a, b, c, d] = [c, d, a, b];
    if (c < b) return t;
    return t.slice(0, a) + t.slice(c, d) + t.slice(b, c) + t.slice(a, b) + t.slice(d);
  },
  splice: (t, o, r) => {
    const cut = pick(r, lineStarts(t));
    const from = pick(r, lineStarts(o));
    return t.slice(0, cut) + o.slice(from);
  },
  insertFragment: (t, o, r) => {
    const [a, b] = range(r, o, r() < 0.5 ? "line" : "token");
    return insert(t, at(r, t), o.slice(a, b));
  },
  punct: (t, _o, r) => {
    let s = t;
    for (let k = 1 + int(r, 3); k > 0; k--) s = insert(s, at(r, s), pick(r, PUNCT));
    return s;
  },
  unbalanced: (t, _o, r) => insert(t, at(r, t), pick(r, UNBALANCED)),
  nesting: (t, _o, r) => {
    const n = deepNest(r);
    if (r() < 0.5) return insert(t, pick(r, lineStarts(t)), `let __deep = ${n}\n`);
    const toks = tokenRanges(t);
    const pos = toks && toks.length > 0 ? pick(r, toks)[0] : at(r, t);
    return insert(t, pos, n);
  },
  hugeLiteral: (t, _o, r) => {
    const toks = tokenize(t);
    const nums = toks.error === null ? toks.tokens.filter((x) => x.kind === "Int" || x.kind === "Float" || x.kind === "Duration") : [];
    const lit = r() < 0.15 ? '"' + "x".repeat(pick(r, [1e4, 1e6])) + '"' : r() < 0.1 ? "a".repeat(1e5) : pick(r, HUGE);
    if (nums.length > 0 && r() < 0.7) {
      const n = pick(r, nums);
      return t.slice(0, n.start) + lit + t.slice(n.end);
    }
    return insert(t, at(r, t), lit);
  },
  crlf: (t) => t.replace(/\r?\n/g, "\r\n"),
  loneCr: (t, _o, r) => t.replace(/\n/g, () => (r() < 0.3 ? "\r" : "\n")),
  bom: (t) => "\uFEFF" + t,
  nul: (t, _o, r) => insert(t, at(r, t), "\0"),
  controlChar: (t, _o, r) => insert(t, at(r, t), String.fromCharCode(pick(r, [1, 7, 8, 11, 12, 27, 127, 0x85, 0x2029]))),
  astral: (t, _o, r) => {
    const toks = tokenize(t);
    const c = pick(r, ASTRAL);
    if (toks.error === null) {
      const idents = toks.tokens.filter((x) => x.kind === "Ident" || x.kind === "String" || x.kind === "IString" || x.kind === "RString");
      if (idents.length > 0) {
        const x = pick(r, idents);
        const pos = x.start + int(r, x.end - x.start + 1);
        return insert(t, pos, c);
      }
    }
    return insert(t, at(r, t), c);
  },
  interpolation: (t, _o, r) => insert(t, at(r, t), pick(r, INTERP)),
  replaceChar: (t, _o, r) => {
    const i = int(r, t.length);
    return t.slice(0, i) + String.fromCharCode(32 + int(r, 95)) + t.slice(i + 1);
  },
  truncate: (t, _o, r) => t.slice(0, at(r, t)),
  // Mutations that mostly keep the text parsing, to reach the checker,
  // the linter and the evaluator with odd but well-formed programs.
  replaceValue: (t, _o, r) => {
    const { tokens, error } = tokenize(t);
    if (error !== null) return t;
    const lits = tokens.filter((x) => ["Int", "Float", "String", "IString", "Duration", "Ident", "true", "false", "nil"].includes(x.kind));
    if (lits.length === 0) return t;
    const x = pick(r, lits);
    return t.slice(0, x.start) + pick(r, VALUES) + t.slice(x.end);
  },
  replaceOperator: (t, _o, r) => {
    const { tokens, error } = tokenize(t);
    if (error !== null) return t;
    const ops = tokens.filter((x) => BINOPS.includes(x.kind));
    if (ops.length === 0) return t;
    const x = pick(r, ops);
    return t.slice(0, x.start) + ` ${pick(r, BINOPS)} ` + t.slice(x.end);
  },
  replaceIdent: (t, o, r) => {
    const a = tokenize(t);
    const b = tokenize(o);
    if (a.error !== null || b.error !== null) return t;
    const mine = a.tokens.filter((x) => x.kind === "Ident");
    const names = [...mine, ...b.tokens.filter((x) => x.kind === "Ident")];
    if (mine.length === 0) return t;
    const x = pick(r, mine);
    return t.slice(0, x.start) + pick(r, names).image + t.slice(x.end);
  },
  dropArgument: (t, _o, r) => {
    const { tokens, error } = tokenize(t);
    if (error !== null) return t;
    const commas = tokens.filter((x) => x.kind === ",");
    if (commas.length === 0) return t;
    const i = tokens.indexOf(pick(r, commas));
    const next = tokens[i + 1]!;
    return r() < 0.5 ? t.slice(0, tokens[i]!.start) + t.slice(next.end) : t.slice(0, tokens[i]!.end) + ` ${pick(r, VALUES)}, ` + t.slice(tokens[i]!.end);
  },
};

const NAMES = Object.keys(MUTATORS);

/** 1–3 mutations; returns the text and the names applied. */
export function mutate(text: string, other: string, r: Rand): { text: string; ops: string[] } {
  const ops: string[] = [];
  let s = text;
  for (let k = r() < 0.5 ? 1 : 1 + int(r, 3); k > 0; k--) {
    const name = pick(r, NAMES);
    ops.push(name);
    s = MUTATORS[name]!(s, other, r);
  }
  return { text: s, ops };
}
