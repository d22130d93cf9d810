/**
 * `yaml_parse` / `yaml_stringify` (spec/stdlib.md §11.5) on the `yaml`
 * package (YAML 1.2 core schema, like serde_yaml: `yes` is a string).
 * Output follows serde_yaml's layout: block style, sequences not indented
 * under their key, single quotes for strings that would read as another
 * type, floats in ryu's layout (integral ones keep `.0`).
 */
import { HarnError, type Value } from "@harn/vm";
import { parse, Scalar, type ScalarTag, stringify, type Tags } from "yaml";
import { ryu } from "../template/json";
import { display } from "@harn/vm";
import { fromPlain, toPlain } from "./convert";

export function yamlParse(text: string): Value {
  let doc: unknown;
  try {
    doc = parse(text, { intAsBigInt: true, uniqueKeys: false, customTags: serdeScalars });
  } catch (e) {
    // The library's first line ends in ":" that introduced a source
    // excerpt on the following lines; the excerpt is dropped, so is the colon.
    const msg = e instanceof Error ? e.message.split("\n")[0]!.replace(/:$/, "") : String(e);
    // Nesting too deep for the parser's recursion: serde_yaml's words for
    // it, not the JavaScript engine's (a RangeError, wrapped with a position)
    throw HarnError.thrown(`YAML parse error: ${msg.replace(/^(RangeError: )?Maximum call stack size exceeded/, "recursion limit exceeded")}`);
  }
  return fromPlain(doc);
}

/**
 * Plain scalars serde_yaml reads differently from the YAML 1.2 core schema:
 * digits with a leading zero (`012`, `-007`) stay strings, and `0b`/`0o`/`0x`
 * ints may carry a sign and `0b` is accepted.
 */
function serdeScalars(tags: Tags): Tags {
  const radixInt = (test: RegExp, prefix: number): ScalarTag => ({
    tag: "tag:yaml.org,2002:int",
    default: true,
    test,
    resolve: (text) => {
      const negative = text.startsWith("-");
      const digits = text.replace(/^[-+]/, "").slice(2);
      const n = BigInt((prefix === 2 ? "0b" : prefix === 8 ? "0o" : "0x") + digits);
      return negative ? -n : n;
    },
  });
  return [
    { tag: "tag:yaml.org,2002:str", default: true, test: /^[-+]?0[0-9]+$/, resolve: (text: string) => text },
    radixInt(/^[-+]?0b[01]+$/, 2),
    radixInt(/^[-+]?0o[0-7]+$/, 8),
    radixInt(/^[-+]?0x[0-9a-fA-F]+$/, 16),
    ...tags,
  ];
}

/**
 * Characters libyaml's emitter will not write raw (the complement of its
 * IS_PRINTABLE test): controls but `\n` (tab included), DEL and C1, BOM,
 * U+FFFE/U+FFFF, and everything beyond U+FFFF (the test knows no 4-byte
 * UTF-8, so serde_yaml writes an emoji as `"\U0001F600"`). They force a
 * double-quoted scalar.
 */
const NOT_PRINTABLE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\ufeff\ufffe\uffff\u{10000}-\u{10ffff}]/u;

/** libyaml's escape letters in double-quoted scalars. */
const ESCAPES: Record<number, string> = {
  0x00: "0", 0x07: "a", 0x08: "b", 0x09: "t", 0x0a: "n", 0x0b: "v", 0x0c: "f", 0x0d: "r", 0x1b: "e",
  0x22: '"', 0x5c: "\\", 0x85: "N", 0x2028: "L", 0x2029: "P",
};

/** A string libyaml writes double-quoted; the tag below writes its text. */
class YamlDoubleQuoted {
  constructor(readonly s: string) {}
}

/** libyaml's double-quoted writer (yaml_emitter_write_double_quoted_scalar,
 * with no line width): printable characters raw, the rest escaped. */
function doubleQuoted(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    const raw = !NOT_PRINTABLE.test(ch) && c !== 0x0a && c !== 0x2028 && c !== 0x2029 && c !== 0x22 && c !== 0x5c;
    if (raw) {
      out += ch;
      continue;
    }
    const letter = ESCAPES[c];
    if (letter !== undefined) out += "\\" + letter;
    else if (c <= 0xff) out += "\\x" + c.toString(16).toUpperCase().padStart(2, "0");
    else if (c <= 0xffff) out += "\\u" + c.toString(16).toUpperCase().padStart(4, "0");
    else out += "\\U" + c.toString(16).toUpperCase().padStart(8, "0");
  }
  return out + '"';
}

const doubleQuotedTag: ScalarTag = {
  tag: "tag:yaml.org,2002:str",
  default: true,
  identify: (x) => x instanceof YamlDoubleQuoted,
  resolve: (text) => text,
  stringify: (item) => doubleQuoted((item.value as YamlDoubleQuoted).s),
};

/** Text serde_yaml would read back as null, a bool, an int or a float. */
function readsAsNonString(s: string): boolean {
  if (/^(~|null|Null|NULL|true|True|TRUE|false|False|FALSE)$/.test(s)) return true;
  if (/^[-+]?[0-9]+$/.test(s) || /^[-+]?0(b[01]+|o[0-7]+|x[0-9a-fA-F]+)$/.test(s)) return true;
  if (/^[-+]?\.(inf|Inf|INF)$/.test(s) || /^\.(nan|NaN|NAN)$/.test(s)) return true;
  return /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/.test(s) && Number.isFinite(Number(s));
}

/**
 * A string in the scalar style serde_yaml's emitter (libyaml) ends up with:
 * double quotes when it holds characters libyaml will not print raw, or
 * line breaks a literal block cannot carry (a space before a break or at the
 * end); single quotes when it would read back as another type; otherwise
 * the emitter's choice (plain, single-quoted or a literal block).
 */
function yamlString(s: string): string | Scalar | YamlDoubleQuoted {
  if (NOT_PRINTABLE.test(s) || (s.includes("\n") && (s.includes(" \n") || s.endsWith(" ")))) return new YamlDoubleQuoted(s);
  if (!readsAsNonString(s)) return s;
  const node = new Scalar(s);
  node.type = "QUOTE_SINGLE";
  return node;
}

/** A float on its way to the emitter, so the tag below formats it. */
class YamlFloat {
  constructor(readonly x: number) {}
}

/** serde_yaml writes floats with ryu (`1e16`, `1.5e-7`, `2.0`), not JS
 * number formatting (`1e+21`, `10000000000000000`). */
const ryuFloatTag: ScalarTag = {
  tag: "tag:yaml.org,2002:float",
  default: true,
  identify: (x) => x instanceof YamlFloat,
  resolve: (text) => Number(text),
  stringify: (item) => {
    const x = (item.value as YamlFloat).x;
    if (Number.isNaN(x)) return ".nan";
    if (!Number.isFinite(x)) return x > 0 ? ".inf" : "-.inf";
    return ryu(x);
  },
};

export function yamlStringify(v: Value): string {
  const plain = toPlain(v, (x) => new YamlFloat(x), (other) => display(other), yamlString);
  return stringify(plain, { indentSeq: false, singleQuote: true, lineWidth: 0, customTags: [ryuFloatTag, doubleQuotedTag] });
}
