/**
 * String builtins, function form (spec/stdlib.md §6). String parameters are
 * display-coerced; all counting is in code points (graphemes for str_pad).
 */
import { cpLength, display, equals, HarnError, HDict, type Runtime, type Value } from "@harn/vm";
import { arg, smallIntArg, strArg } from "./args";
import {
  camelWords,
  checkLength,
  capitalize,
  delimitedWords,
  graphemes,
  joinCamel,
  joinPascal,
  lowerFirst,
  lowercase,
  replaceAll,
  splitLiteral,
  titleCase,
  trim,
  uppercase,
} from "./text";
import { builtinModule, type Define } from "../registry/define";

/** `contains(haystack, needle)`: substring test on strings, structural
 * membership on lists, false for anything else. */
export function containsValue(hay: Value, needle: Value): boolean {
  if (typeof hay === "string") return hay.includes(typeof needle === "string" ? needle : display(needle));
  if (Array.isArray(hay)) {
    for (let i = 0; i < hay.length; i++) if (equals(hay[i]!, needle)) return true;
    return false;
  }
  return false;
}

/** Display of each item joined by `sep`. */
export function joinDisplay(xs: Value[], sep: string): string {
  let s = "";
  for (let i = 0; i < xs.length; i++) {
    if (i > 0) s += sep;
    const v = xs[i]!;
    s += typeof v === "string" ? v : display(v);
  }
  return s;
}

function formatNamed(template: string, values: HDict): string {
  let out = "";
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf("{", i);
    if (open < 0) break;
    const close = template.indexOf("}", open + 1);
    if (close < 0) break;
    const key = template.slice(open + 1, close);
    out += template.slice(i, open);
    out += values.has(key) ? display(values.get(key)) : template.slice(open, close + 1);
    i = close + 1;
  }
  return out + template.slice(i);
}

function formatPositional(template: string, values: Value[]): string {
  let next = 0;
  return template.replace(/\{\}/g, (m) => (next < values.length ? display(values[next++]!) : m));
}

export function padGraphemes(rt: Runtime, s: string, width: number, fill: string, side: string): string {
  if (width > s.length) checkLength("str_pad", s.length + fill.length * width);
  const have = graphemes(rt, s).length;
  if (have >= width) return s;
  const n = width - have;
  if (side === "left") return fill.repeat(n) + s;
  if (side === "both") {
    const left = Math.floor(n / 2);
    return fill.repeat(left) + s + fill.repeat(n - left);
  }
  return s + fill.repeat(n);
}

function caseConverter(def: Define, name: string, words: (s: string) => string[], join: (w: string[]) => string): void {
  def(name, (args) => join(words(strArg(args, 0))));
}

export const STRINGS_BUILTINS = builtinModule("core/strings", (def) => {
  def("contains", (args) => containsValue(arg(args, 0), arg(args, 1)));
  def("starts_with", (args) => strArg(args, 0).startsWith(strArg(args, 1)));
  def("ends_with", (args) => strArg(args, 0).endsWith(strArg(args, 1)));
  def("split", (args) => splitLiteral(strArg(args, 0), args.length > 1 ? strArg(args, 1) : " "));
  def("join", (args) => {
    const xs = arg(args, 0);
    return Array.isArray(xs) ? joinDisplay(xs, strArg(args, 1)) : "";
  });
  def("replace", (args) => replaceAll(strArg(args, 0), strArg(args, 1), strArg(args, 2)));
  def("trim", (args) => trim(strArg(args, 0)));
  def("lowercase", (args) => lowercase(strArg(args, 0)));
  def("uppercase", (args) => uppercase(strArg(args, 0)));

  def("substring", (args, ctx) => {
    const s = strArg(args, 0);
    const start = Math.max(smallIntArg(args, 1) ?? 0, 0);
    const len = smallIntArg(args, 2);
    // start and end are clamped by slice; a length is clamped to >= 0
    return ctx.runtime.codePoints.slice(s, start, len === null ? Infinity : start + Math.max(len, 0));
  });

  def("format", (args) => {
    const template = strArg(args, 0);
    const first = arg(args, 1);
    if (first instanceof HDict) return formatNamed(template, first);
    return formatPositional(template, args.slice(1));
  });

  def("str_pad", (args, ctx) => {
    const s = strArg(args, 0);
    const width = smallIntArg(args, 1) ?? 0;
    const fillText = args.length > 2 && args[2] !== null ? strArg(args, 2) : " ";
    const fill = fillText === "" ? " " : graphemes(ctx.runtime, fillText)[0]!;
    const side = args.length > 3 && args[3] !== null ? strArg(args, 3).toLowerCase() : "right";
    if (side !== "left" && side !== "right" && side !== "both") throw HarnError.runtime("str_pad: side must be left, right, or both");
    return padGraphemes(ctx.runtime, s, width, fill, side);
  });

  def("unicode_normalize", (args) => {
    const form = args.length > 1 && args[1] !== null ? strArg(args, 1).toUpperCase() : "NFC";
    if (form !== "NFC" && form !== "NFD" && form !== "NFKC" && form !== "NFKD") {
      throw HarnError.runtime("unicode_normalize: form must be NFC, NFD, NFKC, or NFKD");
    }
    return strArg(args, 0).normalize(form);
  });

  def("unicode_graphemes", (args, ctx) => graphemes(ctx.runtime, strArg(args, 0)));

  const snake = (s: string) => delimitedWords(s, "_");
  const kebab = (s: string) => delimitedWords(s, "-");
  caseConverter(def, "snake_to_camel", snake, joinCamel);
  caseConverter(def, "snake_to_pascal", snake, joinPascal);
  caseConverter(def, "snake_to_kebab", snake, (w) => w.join("-"));
  caseConverter(def, "kebab_to_camel", kebab, joinCamel);
  caseConverter(def, "kebab_to_snake", kebab, (w) => w.join("_"));
  caseConverter(def, "camel_to_snake", camelWords, (w) => w.join("_"));
  caseConverter(def, "camel_to_kebab", camelWords, (w) => w.join("-"));
  caseConverter(def, "pascal_to_snake", camelWords, (w) => w.join("_"));
  def("pascal_to_camel", (args) => lowerFirst(strArg(args, 0)));
  def("lowercase_first", (args) => lowerFirst(strArg(args, 0)));
  def("camel_to_pascal", (args) => capitalize(strArg(args, 0)));
  def("uppercase_first", (args) => capitalize(strArg(args, 0)));
  def("title_case", (args) => titleCase(strArg(args, 0)));
});
