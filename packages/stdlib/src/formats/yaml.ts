/**
 * `yaml_parse` / `yaml_stringify` (spec/stdlib.md §11.5) on the `yaml`
 * package (YAML 1.2 core schema, like serde_yaml: `yes` is a string).
 * Output follows serde_yaml's layout: block style, sequences not indented
 * under their key, single quotes for strings that would read as another
 * type, floats in ryu's layout (integral ones keep `.0`).
 */
import { HarnError, type Value } from "@harn/vm";
import { parse, type ScalarTag, stringify } from "yaml";
import { ryu } from "../template/json";
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
  const plain = toPlain(v, (x) => new YamlFloat(x), (other) => display(other));
  return stringify(plain, { indentSeq: false, singleQuote: true, lineWidth: 0, customTags: [ryuFloatTag] });
}
