/**
 * The shared diagnostic renderer (spec/lint.md §5.3), used for syntax errors,
 * lint findings, type diagnostics and runtime errors alike:
 *
 * ```text
 * error: expected expression, found )
 *  --> demo.harn:3:9
 *   |
 * 3 |   let x = )
 *   |           ^ unexpected token
 *   = help: …
 * ```
 *
 * Colour comes in through `style` (picocolors' `createColors(enabled)` fits);
 * pass `plainStyle` for plain text.
 */
import type { Span } from "./ast";
import type { SyntaxDiagnostic } from "./syntax-error";

export type Severity = "error" | "warning" | "info";

export interface Diagnostic {
  severity: Severity;
  message: string;
  /** The file as the user named it; printed after `-->`. */
  path: string;
  /** Null for diagnostics without a position (printed as one line). */
  span: Span | null;
  /** Short text after the carets; without it no caret line is drawn. */
  label?: string;
  help?: string;
  notes?: string[];
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
function sourceLine(source: string, line: number): string | null {
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

function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) n++;
  }
  return n;
}

/** Renders one diagnostic; the result ends with a newline. */
export function renderDiagnostic(d: Diagnostic, source: string, style: DiagnosticStyle = plainStyle): string {
  const paint = severityPaint(d.severity, style);
  const head = `${style.bold(paint(d.severity))}: ${d.message}\n`;
  if (d.span === null) return head + renderTail(d, "", style);

  const { line, column } = d.span;
  const width = String(line).length;
  const pad = " ".repeat(width + 1);
  const bar = style.blue("|");
  let out = head;
  out += `${pad}${style.bold(style.blue("-->"))} ${d.path}:${line}:${column}\n`;
  out += `${pad} ${bar}\n`;
  const text = line === 0 ? null : sourceLine(source, line);
  if (text !== null) {
    out += `${String(line).padStart(width + 1)} ${bar} ${text}\n`;
    if (d.label !== undefined) {
      // Carets cover the span's characters, at least one, capped at the end
      // of the first line (lint.md §5.3, quirk Q12 fixed).
      const spanText = source.slice(d.span.start, d.span.end);
      const firstLine = spanText.split("\n", 1)[0]!;
      const available = Math.max(1, codePointLength(text) - (column - 1));
      const count = Math.max(1, Math.min(codePointLength(firstLine), available));
      const carets = style.bold(paint("^".repeat(count)));
      out += `${pad} ${bar} ${" ".repeat(Math.max(0, column - 1))}${carets} ${paint(d.label)}\n`;
    }
  }
  return out + renderTail(d, pad, style);
}

function renderTail(d: Diagnostic, pad: string, style: DiagnosticStyle): string {
  let out = "";
  if (d.help !== undefined) out += `${pad} = ${style.bold(style.cyan("help"))}: ${d.help}\n`;
  for (const note of d.notes ?? []) out += `${pad} = ${style.bold("note")}: ${note}\n`;
  return out;
}

/** A syntax error as a renderable diagnostic (the pretty form of cli.md §0.6). */
export function syntaxDiagnostic(e: SyntaxDiagnostic, path: string): Diagnostic {
  const d: Diagnostic = { severity: "error", message: e.pretty, path, span: e.span, label: e.label };
  if (e.help !== null) d.help = e.help;
  return d;
}
