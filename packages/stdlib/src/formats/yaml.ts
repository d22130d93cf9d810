/**
 * `yaml_parse` / `yaml_stringify` (spec/stdlib.md §11.5) on the `yaml`
 * package (YAML 1.2 core schema, like serde_yaml: `yes` is a string).
 * Output follows serde_yaml's layout: block style, sequences not indented
 * under their key, single quotes for strings that would read as another
 * type, integral floats keep `.0`.
 */
import { HarnError, type Value } from "@harn/vm";
import { parse, Scalar, stringify } from "yaml";
import { display } from "@harn/vm";
import { fromPlain, toPlain } from "./convert";

export function yamlParse(text: string): Value {
  let doc: unknown;
  try {
    doc = parse(text, { intAsBigInt: true, uniqueKeys: false });
  } catch (e) {
    const msg = e instanceof Error ? e.message.split("\n")[0]! : String(e);
    throw HarnError.thrown(`YAML parse error: ${msg}`);
  }
  return fromPlain(doc);
}

export function yamlStringify(v: Value): string {
  const plain = toPlain(
    v,
    (x) => {
      const s = new Scalar(x);
      if (Number.isInteger(x)) s.minFractionDigits = 1;
      return s;
    },
    (other) => display(other),
  );
  return stringify(plain, { indentSeq: false, singleQuote: true, lineWidth: 0 });
}
