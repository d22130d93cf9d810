/**
 * Hover and signature help: a builtin's signature and documentation from
 * the host's table, a script declaration's header and doc comment.
 */
import type { Node, Param } from "@harn/parser";
import { MarkupKind, type Hover, type ParameterInformation, type SignatureHelp } from "vscode-languageserver";
import { describeBuiltin, describeDefinition, hoverMarkdown, type Described } from "./describe";
import { targetAt, targetByName, type Target } from "./navigation";
import { occurrenceAt } from "./symbols";
import type { Analysis, Workspace } from "./workspace";

function describeTarget(ws: Workspace, t: Target): { d: Described; note?: string } | null {
  if (t.kind === "builtin") {
    const b = ws.host.builtins.get(t.name);
    return b === undefined ? null : { d: describeBuiltin(b), note: b.group ? `builtin (${b.group})` : "builtin" };
  }
  if (t.kind === "module") return null;
  const a = ws.analysis(t.file);
  if (a === null) return null;
  return { d: describeDefinition(t.def, a.text, a.index.tokens, a.comments), ...(t.file !== "" ? { note: `declared in ${t.file.startsWith("std/") ? t.file : relativeNote(ws, t.file)}` } : {}) };
}

function relativeNote(ws: Workspace, file: string): string {
  for (const root of ws.roots) if (file.startsWith(root + "/")) return file.slice(root.length + 1);
  return file;
}

export function hover(ws: Workspace, a: Analysis, offset: number): Hover | null {
  const occ = occurrenceAt(a.index, offset);
  const t = targetAt(ws, a, offset);
  if (occ === null || t === null) return null;
  const described = describeTarget(ws, t);
  if (described === null) return null;
  // the note names the file only for declarations elsewhere
  const note = t.kind === "definition" && t.file === a.file ? undefined : described.note;
  return { contents: { kind: MarkupKind.Markdown, value: hoverMarkdown(described.d, note) }, range: a.range(occ.span) };
}

// -- signature help -----------------------------------------------------------

interface CallSite {
  callee: string;
  /** Where the callee's name starts. */
  nameAt: number;
  activeParameter: number;
}

/** The innermost call whose argument list the cursor is in, from the
 * tokens (so a half-typed call still counts). */
function callAround(a: Analysis, offset: number): CallSite | null {
  const toks = a.index.tokens.tokens;
  let depth = 0;
  let commas = 0;
  for (let i = a.index.tokens.indexAt(offset) - 1; i >= 0; i--) {
    const t = toks[i]!;
    if (t.end > offset) continue;
    switch (t.kind) {
      case ")":
      case "]":
      case "}":
        depth++;
        break;
      case "[":
      case "{":
        if (depth === 0) return null;
        depth--;
        break;
      case "(":
        if (depth > 0) {
          depth--;
          break;
        }
        {
          const callee = toks[i - 1];
          if (callee === undefined || callee.kind !== "Ident") return null;
          return { callee: callee.value as string, nameAt: callee.start, activeParameter: commas };
        }
      case ",":
        if (depth === 0) commas++;
        break;
      default:
        break;
    }
  }
  return null;
}

/** Parameter labels of a builtin signature `name(a: T, b: U) -> R`. */
function splitParams(signature: string): string[] {
  const open = signature.indexOf("(");
  if (open < 0) return [];
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (let i = open + 1; i < signature.length; i++) {
    const c = signature[i]!;
    if (depth === 0 && c === ")") break;
    if ("([{<".includes(c)) depth++;
    if (")]}>".includes(c)) depth--;
    if (depth === 0 && c === ",") {
      out.push(cur.trim());
      cur = "";
    } else cur += c;
  }
  if (cur.trim() !== "") out.push(cur.trim());
  return out;
}

function declParams(node: Node | null): Param[] | null {
  const n = node?.kind === "AttributedDecl" ? node.inner : node;
  return n && (n.kind === "FnDecl" || n.kind === "ToolDecl") ? n.params : null;
}

export function signatureHelp(ws: Workspace, a: Analysis, offset: number): SignatureHelp | null {
  const site = callAround(a, offset);
  if (site === null) return null;
  const t = targetAt(ws, a, site.nameAt) ?? targetByName(ws, a, site.callee, site.nameAt);
  if (t === null) return null;
  let label: string;
  let params: string[];
  let doc: string | null;
  if (t.kind === "builtin") {
    const b = ws.host.builtins.get(t.name);
    if (b === undefined || b.signature === null) return null;
    ({ signature: label, doc } = describeBuiltin(b));
    params = splitParams(b.signature);
  } else if (t.kind === "definition") {
    const home = ws.analysis(t.file);
    const ps = declParams(t.def.node);
    if (home === null || ps === null) return null;
    ({ signature: label, doc } = describeDefinition(t.def, home.text, home.index.tokens, home.comments));
    params = ps.map((p) => home.text.slice(p.span.start, p.span.end).replace(/\s+/g, " "));
  } else return null;
  const parameters: ParameterInformation[] = [];
  let from = label.indexOf("(") + 1;
  for (const p of params) {
    const at = label.indexOf(p, from);
    parameters.push({ label: at >= 0 ? [at, at + p.length] : p });
    if (at >= 0) from = at + p.length;
  }
  const rest = params.findIndex((p) => p.startsWith("..."));
  const active = rest >= 0 && site.activeParameter >= rest ? rest : Math.min(site.activeParameter, Math.max(0, params.length - 1));
  return {
    signatures: [{ label, parameters, ...(doc ? { documentation: { kind: MarkupKind.Markdown, value: doc } } : {}) }],
    activeSignature: 0,
    activeParameter: active,
  };
}
