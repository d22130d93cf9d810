/**
 * `formatSource`: a file in the canonical layout of spec/cli.md §6 (see
 * layout.ts for the rules). The formatter works on tokens, not on the
 * syntax tree: it only ever changes whitespace, separators, separator
 * comment bars and the trailing commas of lists it wraps, and every
 * result is checked to hold the same program (verify.ts).
 */
import { tokenize } from "@harn/lexer";
import { parse } from "@harn/parser";
import { layout } from "./layout";
import { splitLines } from "./lines";
import { sameProgram } from "./verify";

export interface FormatOptions {
  /** Lines wider than this are wrapped where a list allows it (`[fmt] line_width`). */
  lineWidth: number;
  /** Width of `// ----` separator bars (`[fmt] separator_width`). */
  separatorWidth: number;
}

export const DEFAULT_FORMAT_OPTIONS: FormatOptions = { lineWidth: 100, separatorWidth: 80 };

/** A file that cannot be formatted; the message is the one-line reason
 * (for a syntax error, the lexer's or parser's message, cli.md §5.2.1). */
export class FormatError extends Error {}

export function formatSource(source: string, options: FormatOptions = DEFAULT_FORMAT_OPTIONS): string {
  const parsed = parse(source, { flatChains: true });
  if (parsed.errors.length > 0) throw new FormatError(parsed.errors[0]!.message);
  const { tokens, error } = tokenize(source, { comments: true });
  if (error !== null) throw new FormatError(error.message);
  const lines = splitLines(source, tokens);
  for (const wrap of [true, false]) {
    const out = layout(source, lines, { ...options, wrap });
    if (sameProgram(source, tokens, out)) return out;
  }
  throw new FormatError("the formatter could not keep this file's meaning; it was left unchanged");
}
