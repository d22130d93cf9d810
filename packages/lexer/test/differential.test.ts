/**
 * The production scanner against the chevrotain reference lexer built from
 * the vocabulary: identical tokens (kinds, images, values, positions, doc
 * flags) and identical errors, with and without comments, over the
 * conformance suite, the bench script and a set of tricky inputs.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tokenizeWithChevrotain } from "../src/chevrotain-tokenize";
import { tokenize } from "../src/index";
// @ts-expect-error plain ESM helper without types
import { generate } from "../../../bench/parse/generate.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

function harnFiles(dir: string, out: string[] = []): string[] {
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) harnFiles(path, out);
    else if (name.endsWith(".harn")) out.push(path);
  }
  return out;
}

const tricky = [
  "",
  "\n\n",
  "#!/usr/bin/env harn\nlog(1)",
  "a//b\n/* x /* y */ z */ c /// doc\n/** d */ /*** e */ /**/",
  "let total = 10 \\\n  - 3",
  '"a\\nb\\t\\\\\\"\\$ \\r \\u{41}" "costs $5" "${a + {b: 1}.b}" "x${ "y" }z"',
  '"""\n    alpha\n      ${beta}\n    """ """a"b""c""" """${x}!\n"""',
  'r"raw ${x} \\n" r x',
  "42.abs() 1.5.round() 1..2 1_000 0x1F 1e3 .5 3abc 9223372036854775807 9223372036854775808",
  "5ms 5msx 5s 5s_x 5sec 2m 3h 1d 2w 1.5s 5sé (5s)",
  "café _x x1 名前 ñ٣ 𝑥 = 1",
  'let s = "😀😀" ; x 😀',
  "== != && || |> ?? ** ?. -> <= >= += -= *= /= %= = ! . + - * / % < > ? | { } ( ) [ ] , : ; @ ...",
  "a & b",
  "a ^ b",
  "x = `y`",
  "a \\ b",
  '"abc\ndef"',
  '"${a',
  'log("${}")',
  "/* never closed",
  "x\r\ny\r\n",
  "a\u00a0b",
  '"a\\\nb"',
];

function canonical(r: ReturnType<typeof tokenize>): string {
  return JSON.stringify(r, (_, v) => (typeof v === "bigint" ? `${v}n` : v));
}

describe("hand scanner vs chevrotain reference", () => {
  const files = harnFiles(join(root, "conformance"));
  const corpus: [string, string][] = [
    ...tricky.map((s, i): [string, string] => [`tricky #${i}`, s]),
    ...files.map((f): [string, string] => [f.slice(root.length + 1), readFileSync(f, "utf8")]),
    ["bench script (2,000 lines)", generate(2000) as string],
  ];

  it.each(corpus)("%s", (_, source) => {
    for (const comments of [false, true]) {
      expect(canonical(tokenize(source, { comments }))).toBe(canonical(tokenizeWithChevrotain(source, { comments })));
    }
  });
});
