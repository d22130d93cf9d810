/**
 * Semantic tokens: every token of the file classified by what the name
 * index knows (a parameter, a local, a function of this file, a builtin)
 * on top of the lexical classes (keywords, strings, numbers, comments).
 */
import type { Token } from "@harn/lexer";
import { isKeyword } from "@harn/lexer";
import { SemanticTokensBuilder, type SemanticTokens, type SemanticTokensLegend } from "vscode-languageserver";
import { occurrenceAt, type DefKind } from "./symbols";
import type { Analysis, Workspace } from "./workspace";

const TYPES = ["namespace", "type", "struct", "enum", "interface", "parameter", "variable", "property", "function", "method", "keyword", "comment", "string", "number", "operator"] as const;
const MODIFIERS = ["declaration", "readonly", "defaultLibrary"] as const;

type TokenType = (typeof TYPES)[number];

export const LEGEND: SemanticTokensLegend = { tokenTypes: [...TYPES], tokenModifiers: [...MODIFIERS] };

const BY_KIND: Record<DefKind, TokenType> = {
  function: "function",
  tool: "function",
  pipeline: "namespace",
  skill: "variable",
  struct: "struct",
  enum: "enum",
  interface: "interface",
  type: "type",
  variable: "variable",
  parameter: "parameter",
  import: "function",
};

const typeIndex = (t: TokenType) => TYPES.indexOf(t);
const mod = (m: (typeof MODIFIERS)[number]) => 1 << MODIFIERS.indexOf(m);

export function semanticTokens(ws: Workspace, a: Analysis): SemanticTokens {
  const all = mergeByStart(a.parsed.tokens, a.comments);
  const builder = new SemanticTokensBuilder();
  for (let i = 0; i < all.length; i++) {
    const t = all[i]!;
    const cls = classify(ws, a, t, all[i - 1], all[i + 1]);
    if (cls === null) continue;
    push(builder, a, t, cls[0], cls[1]);
  }
  return builder.build();
}

function mergeByStart(a: readonly Token[], b: readonly Token[]): Token[] {
  const out: Token[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]!.start <= b[j]!.start)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}

function classify(ws: Workspace, a: Analysis, t: Token, prev: Token | undefined, next: Token | undefined): [TokenType, number] | null {
  switch (t.kind) {
    case "Comment":
      return ["comment", 0];
    case "String":
    case "IString":
    case "RString":
      return ["string", 0];
    case "Int":
    case "Float":
    case "Duration":
      return ["number", 0];
    case "Ident": {
      if (prev?.kind === "." || prev?.kind === "?.") return [next?.kind === "(" ? "method" : "property", 0];
      const occ = occurrenceAt(a.index, t.start);
      if (occ !== null && occ.span.start === t.start && occ.def !== null) {
        let m = occ.declaration ? mod("declaration") : 0;
        if (occ.def.kind === "variable" && !occ.def.mutable) m |= mod("readonly");
        return [BY_KIND[occ.def.kind], m];
      }
      const name = t.value as string;
      if (ws.host.builtins.has(name)) return ["function", mod("defaultLibrary")];
      return [next?.kind === "(" ? "function" : "variable", 0];
    }
    default:
      return isKeyword(t.kind) ? ["keyword", 0] : null;
  }
}

/** One token, split at line ends (clients take single-line tokens). */
function push(builder: SemanticTokensBuilder, a: Analysis, t: Token, type: TokenType, modifiers: number): void {
  let start = t.start;
  while (start < t.end) {
    const nl = a.text.indexOf("\n", start);
    const end = nl < 0 || nl >= t.end ? t.end : nl;
    if (end > start) {
      const r = a.range({ start, end });
      builder.push(r.start.line, r.start.character, r.end.character - r.start.character, typeIndex(type), modifiers);
    }
    start = end + 1;
  }
}
