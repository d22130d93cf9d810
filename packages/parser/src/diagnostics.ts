/**
 * The one diagnostic type of Harn-TS and its one renderer (spec/lint.md
 * §5.3, cli.md §2.5): syntax errors, structural and type errors, lint
 * findings, preflight findings and runtime errors are all `Diagnostic`s,
 * printed by `renderDiagnostic` for `run`, `check` and `lint`, and
 * published as they are by the language server.
 *
 * ```text
 * warning: variable `x` is declared but never used
 *  --> demo.harn:3:3
 *   |
 * 3 |   let x = 1
 *   |   ^^^^^^^^^ lint[unused-variable]
 *   = help: prefix with underscore: `_x`
 * ```
 *
 * Colour comes in through `style` (picocolors' `createColors(enabled)` fits);
 * pass `plainStyle` for plain text.
 */
import { eastAsianWidth } from "get-east-asian-width";
import type { Span } from "./ast";
import type { SyntaxDiagnostic } from "./syntax-error";

export type Severity = "error" | "warning" | "info";

/** Replace `source.slice(span.start, span.end)` with `replacement`; a
 * zero-width span is an insertion. */
export interface FixEdit {
  span: Span;
  replacement: string;
}

/** A second place the message is about ("the cleanup is here"), drawn
 * under the primary span with `-` instead of `^`. */
export interface Label {
  span: Span;
  text: string;
}

export interface Diagnostic {
  /** What found it: a lint rule id (`unused-variable`), or `syntax`,
   * `structure`, `type`, `preflight`, `runtime`. */
  code: string;
  severity: Severity;
  message: string;
  /** Where (UTF-16 offsets into the file's text, 1-based code-point line
   * and columns); null for diagnostics without a position, printed as one
   * line. */
  span: Span | null;
  /** Text after the carets under `span`: `lint[{rule}]`, `unexpected
   * token`, …; "" draws carets alone; without it no caret line is drawn. */
  label?: string;
  /** Secondary places. */
  labels?: Label[];
  help?: string;
  notes?: string[];
  /** Machine-applicable edits, non-overlapping (lint.md §5.5); the help
   * text describes them. */
  fix?: FixEdit[];
}

type Paint = (s: string) => string;

/** The colour functions the renderer uses (a subset of picocolors' `Colors`). */
export interface DiagnosticStyle {
  bold: Paint;
  red: Paint;
  yellow: Paint;
  blue: Paint;
  cyan: Paint;
}

const identity: Paint = (s) => s;

export const plainStyle: DiagnosticStyle = { bold: identity, red: identity, yellow: identity, blue: identity, cyan: identity };

function severityPaint(severity: Severity, style: DiagnosticStyle): Paint {
  if (severity === "error") return style.red;
  if (severity === "warning") return style.yellow;
  return style.cyan;
}

/** The text of 1-based `line` without its line break, or null past the end. */
export function sourceLine(source: string, line: number): string | null {
  if (line < 1) return null;
  let start = 0;
  for (let l = 1; l < line; l++) {
    const nl = source.indexOf("\n", start);
    if (nl === -1) return null;
    start = nl + 1;
  }
  let end = source.indexOf("\n", start);
  if (end === -1) end = source.length;
  let text = source.slice(start, end);
  // A CRLF file's `\r` would send the cursor back to column 0 on a terminal.
  if (text.endsWith("\r")) text = text.slice(0, -1);
  return text;
}

/** Combining marks, joiners and variation selectors take no column. */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u;

/** Terminal columns of one code point: 2 for wide (CJK, most emoji), 0 for
 * combining marks, 1 otherwise. */
function charWidth(ch: string): number {
  const cp = ch.codePointAt(0)!;
  if (cp < 0x7f) return 1;
  if (ZERO_WIDTH.test(ch)) return 0;
  return eastAsianWidth(cp);
}

/** Terminal columns of a string without tabs or line breaks. */
export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) w += charWidth(ch);
  return w;
}

/**
 * What goes under `text` before code-point column `column`: a tab where
 * the line has one (the terminal expands both alike), as many spaces as
 * every other character takes columns. So carets line up after tabs and
 * wide characters without the source line being changed.
 */
function indentUnder(chars: readonly string[], column: number): string {
  let out = "";
  for (let i = 0; i < column - 1 && i < chars.length; i++) {
    const ch = chars[i]!;
    out += ch === "\t" ? "\t" : " ".repeat(charWidth(ch));
  }
  return out;
}

/** The indent and the number of marks underlining `span` on its first
 * line `text`: the span's characters up to the end of that line, at least
 * one (lint.md §5.3; quirk Q12 fixed). An unknown column (0, runtime
 * errors, cli.md §2.5) underlines the whole trimmed line. */
function underline(text: string, span: Span): { indent: string; width: number } {
  const chars = Array.from(text);
  if (span.column <= 0) {
    const first = chars.findIndex((c) => c !== " " && c !== "\t");
    if (first < 0) return { indent: "", width: 1 };
    return { indent: chars.slice(0, first).join(""), width: Math.max(1, displayWidth(text.trim())) };
  }
  const last = span.endLine === span.line ? Math.min(span.endColumn - 1, chars.length) : chars.length;
  const covered = chars.slice(span.column - 1, Math.max(span.column - 1, last)).join("");
  return { indent: indentUnder(chars, span.column), width: Math.max(1, displayWidth(covered)) };
}

/** Renders one diagnostic about `source`, the text of `path`; the result
 * ends with a newline. */
export function renderDiagnostic(d: Diagnostic, path: string, source: string, style: DiagnosticStyle = plainStyle): string {
  const paint = severityPaint(d.severity, style);
  const head = `${style.bold(paint(d.severity))}: ${d.message}\n`;
  if (d.span === null) return head + renderTail(d, "", style);

  const { line, column } = d.span;
  const secondary = (d.labels ?? []).filter((l) => l.span.line > 0);
  const width = Math.max(String(line).length, ...secondary.map((l) => String(l.span.line).length));
  const pad = " ".repeat(width + 1);
  const bar = style.blue("|");
  let out = head;
  out += `${pad}${style.bold(style.blue("-->"))} ${path}:${line}:${column}\n`;
  out += `${pad} ${bar}\n`;
  const frame = (span: Span, label: string | undefined, mark: string, paintMark: Paint, shown: boolean): void => {
    const text = span.line === 0 ? null : sourceLine(source, span.line);
    if (text === null) return;
    if (!shown) out += `${String(span.line).padStart(width + 1)} ${bar} ${text}\n`;
    if (label === undefined) return;
    const u = underline(text, span);
    const marks = style.bold(paintMark(mark.repeat(u.width)));
    out += `${pad} ${bar} ${u.indent}${marks}${label === "" ? "" : ` ${paintMark(label)}`}\n`;
  };
  frame(d.span, d.label, "^", paint, false);
  const shownLines = new Set([line]);
  for (const l of secondary) {
    frame(l.span, l.text, "-", style.blue, shownLines.has(l.span.line));
    shownLines.add(l.span.line);
  }
  return out + renderTail(d, pad, style);
}

function renderTail(d: Diagnostic, pad: string, style: DiagnosticStyle): string {
  let out = "";
  if (d.help !== undefined) out += `${pad} = ${style.bold(style.cyan("help"))}: ${d.help}\n`;
  // runtime errors' call notes keep a fixed two-space indent (cli.md §2.5)
  for (const note of d.notes ?? []) out += `  = ${style.bold("note")}: ${note}\n`;
  return out;
}

/** A syntax error as a diagnostic (the pretty form of cli.md §0.6). */
export function syntaxDiagnostic(e: SyntaxDiagnostic): Diagnostic {
  const d: Diagnostic = { code: "syntax", severity: "error", message: e.pretty, span: e.span, label: e.label };
  if (e.help !== null) d.help = e.help;
  return d;
}

/** 1-based UTF-16 column of `offset` in `source`, as ESLint and LSP count
 * (our spans' columns count code points). */
export function utf16Column(source: string, offset: number): number {
  return offset - (source.lastIndexOf("\n", offset - 1) + 1) + 1;
}
