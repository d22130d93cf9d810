/**
 * What a hover or a completion item says about a name: the declaration's
 * signature as written (its header, up to the body's `{`) and the doc
 * comment directly above it (`/** … *\/` or `///` lines, spec/syntax.md
 * §1.3), or a builtin's entry from the host's table.
 */
import type { Token } from "@harn/lexer";
import type { Definition } from "./symbols";
import type { TokenIndex } from "./tokens";

/** A builtin as the host's table describes it. */
export interface BuiltinDoc {
  name: string;
  /** e.g. `split(text: string, sep: string) -> list<string>`; null: unknown. */
  signature: string | null;
  doc: string | null;
  /** Its stdlib group (`core`, `http`, …); null: unknown. */
  group: string | null;
}

export interface Described {
  /** Code, shown as harn. */
  signature: string;
  doc: string | null;
}

const MAX_DECL_LINES = 12;

export function describeDefinition(def: Definition, source: string, tokens: TokenIndex, comments: readonly Token[]): Described {
  return { signature: signatureOf(def, source, tokens), doc: def.node !== null && def.kind !== "variable" ? docAbove(comments, def.node.span.line) : null };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function signatureOf(def: Definition, source: string, tokens: TokenIndex): string {
  const n = def.node;
  switch (def.kind) {
    case "function":
    case "tool":
    case "pipeline": {
      if (n === null) return def.name;
      const decl = n.kind === "AttributedDecl" ? n.inner : n;
      const open = tokens.openerEndingAt(decl.span.start, decl.span.end);
      return oneLine(source.slice(decl.span.start, open ?? decl.span.end));
    }
    case "struct":
    case "enum":
    case "interface":
    case "type":
    case "skill": {
      if (n === null) return def.name;
      const decl = n.kind === "AttributedDecl" ? n.inner : n;
      const lines = source.slice(decl.span.start, decl.span.end).split("\n");
      return lines.length > MAX_DECL_LINES ? [...lines.slice(0, MAX_DECL_LINES), "  …"].join("\n") : lines.join("\n");
    }
    case "parameter": {
      const p = def.param;
      return p === null ? `(parameter) ${def.name}` : `(parameter) ${oneLine(source.slice(p.span.start, p.span.end))}`;
    }
    case "import":
      return `import { ${def.name} } from "${def.importPath ?? ""}"`;
    case "variable": {
      const keyword = def.mutable ? "var" : "let";
      const type = def.type === null ? "" : `: ${oneLine(source.slice(def.type.span.start, def.type.span.end))}`;
      const value = def.value === null ? "" : oneLine(source.slice(def.value.span.start, def.value.span.end));
      return value !== "" && value.length <= 60 && def.node !== null && isSimpleBinding(def) ? `${keyword} ${def.name}${type} = ${value}` : `${keyword} ${def.name}${type}`;
    }
  }
}

function isSimpleBinding(def: Definition): boolean {
  const n = def.node;
  return n !== null && (n.kind === "LetBinding" || n.kind === "VarBinding") && n.pattern.kind === "ident";
}

/** The doc comment ending on the line just above `line` (1-based). */
export function docAbove(comments: readonly Token[], line: number): string | null {
  // comments are in source order: find the last one that ends above `line`
  let lo = 0;
  let hi = comments.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (comments[mid]!.endLine < line) lo = mid + 1;
    else hi = mid;
  }
  const parts: string[] = [];
  let expect = line - 1;
  for (let i = lo - 1; i >= 0; i--) {
    const c = comments[i]!;
    if (!c.isDoc || c.endLine !== expect) break;
    parts.unshift(docText(c.image));
    expect = c.line - 1;
    if (c.image.startsWith("/**")) break;
  }
  const text = parts.join("\n").trim();
  return text === "" ? null : text;
}

function docText(image: string): string {
  if (image.startsWith("///")) return image.slice(3).replace(/^ /, "");
  return image
    .replace(/^\/\*\*/, "")
    .replace(/\*\/$/, "")
    .split("\n")
    .map((l) => l.replace(/^\s*\* ?/, "").trimEnd())
    .join("\n")
    .trim();
}

export function describeBuiltin(b: BuiltinDoc): Described {
  return { signature: b.signature ?? `${b.name}(…)`, doc: b.doc };
}

/** Markdown for a hover. */
export function hoverMarkdown(d: Described, note?: string): string {
  const parts = ["```harn\n" + d.signature + "\n```"];
  if (note) parts.push(note);
  if (d.doc) parts.push(d.doc);
  return parts.join("\n\n");
}
