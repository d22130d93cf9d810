/**
 * Go to definition, find references, rename and document symbols. A name
 * is followed through `import { name } from "path"` and wildcard `import
 * "path"` to the module that declares it, and the references of a
 * top-level declaration are searched in every workspace file whose imports
 * reach its module.
 */
import type { Node } from "@harn/parser";
import { isKeyword } from "@harn/lexer";
import {
  SymbolKind,
  type CancellationToken,
  type DocumentSymbol,
  type Location,
  type Range,
  type TextEdit,
  type WorkspaceEdit,
} from "vscode-languageserver";
import { Cancelled, RequestFailed } from "./errors";
import { occurrenceAt, visibleAt, type Definition, type Occurrence } from "./symbols";
import { fileToUri, type Analysis, type Workspace } from "./workspace";

/** What a name at a position stands for. */
export type Target =
  | { kind: "definition"; file: string; def: Definition }
  | { kind: "builtin"; name: string }
  | { kind: "module"; file: string };

/** A declaration another file imports: the module's own top-level one. */
function imported(ws: Workspace, fromFile: string, path: string, name: string): { file: string; def: Definition } | null {
  const key = ws.resolveImport(fromFile, path);
  if (key === null) return null;
  const m = ws.analysis(key);
  const def = m?.index.topLevel.get(name);
  if (def === undefined) return null;
  // a module may re-export what it imported itself
  if (def.kind === "import" && def.importPath !== null) return imported(ws, key, def.importPath, name) ?? { file: key, def };
  return { file: key, def };
}

/** Where an unresolved name comes from: a wildcard import, else a builtin. */
function fromWildcards(ws: Workspace, a: Analysis, name: string): Target | null {
  for (const path of a.index.wildcardImports) {
    const found = imported(ws, a.file, path, name);
    if (found !== null) return { kind: "definition", ...found };
  }
  return ws.host.builtins.has(name) ? { kind: "builtin", name } : null;
}

export function targetOf(ws: Workspace, a: Analysis, occ: Occurrence): Target | null {
  if (occ.def === null) return fromWildcards(ws, a, occ.name);
  if (occ.def.kind === "import" && occ.def.importPath !== null) {
    const found = imported(ws, a.file, occ.def.importPath, occ.name);
    return found === null ? { kind: "definition", file: a.file, def: occ.def } : { kind: "definition", ...found };
  }
  return { kind: "definition", file: a.file, def: occ.def };
}

/** The import path under the cursor, if any. */
function importPathAt(ws: Workspace, a: Analysis, offset: number): Target | null {
  for (const item of a.parsed.program.items) {
    if (item.kind !== "ImportDecl" && item.kind !== "SelectiveImport") continue;
    if (offset < item.span.start || offset > item.span.end) continue;
    const t = a.index.tokens.tokenAt(offset);
    if (t === null || (t.kind !== "String" && t.kind !== "RString")) return null;
    const key = ws.resolveImport(a.file, item.path);
    return key === null ? null : { kind: "module", file: key };
  }
  return null;
}

/** What `name` would stand for at `offset`, for a name the tree lost (a
 * call on a line that does not parse yet). */
export function targetByName(ws: Workspace, a: Analysis, name: string, offset: number): Target | null {
  const def = visibleAt(a.index, offset).find((d) => d.name === name);
  if (def === undefined) return fromWildcards(ws, a, name);
  return targetOf(ws, a, { name, span: def.nameSpan, def, declaration: true, call: false });
}

export function targetAt(ws: Workspace, a: Analysis, offset: number): Target | null {
  const occ = occurrenceAt(a.index, offset);
  if (occ !== null) return targetOf(ws, a, occ);
  return importPathAt(ws, a, offset);
}

function location(ws: Workspace, file: string, span: { start: number; end: number }): Location | null {
  const uri = fileToUri(file);
  const a = ws.analysis(file);
  return uri === null || a === null ? null : { uri, range: a.range(span) };
}

export function definition(ws: Workspace, a: Analysis, offset: number): Location | null {
  const t = targetAt(ws, a, offset);
  if (t === null || t.kind === "builtin") return null;
  if (t.kind === "module") return location(ws, t.file, { start: 0, end: 0 });
  return location(ws, t.file, t.def.nameSpan);
}

/** Every occurrence of a declaration, in its file and in the files whose
 * imports reach it: [file, occurrence] pairs. */
function occurrencesOf(ws: Workspace, file: string, def: Definition, token: CancellationToken): [string, Occurrence][] {
  const out: [string, Occurrence][] = [];
  const home = ws.analysis(file);
  if (home === null) return out;
  for (const o of home.index.occurrences) if (o.def === def) out.push([file, o]);
  if (!def.topLevel || def.kind === "variable" || def.kind === "parameter") return out;
  for (const other of ws.files()) {
    if (token.isCancellationRequested) throw new Cancelled();
    if (other === file) continue;
    const a = ws.analysis(other);
    if (a === null) continue;
    for (const o of a.index.occurrences) {
      if (o.name !== def.name) continue;
      const t = targetOf(ws, a, o);
      if (t !== null && t.kind === "definition" && t.file === file && t.def === def) out.push([other, o]);
    }
  }
  return out;
}

export function references(ws: Workspace, a: Analysis, offset: number, includeDeclaration: boolean, token: CancellationToken): Location[] {
  const t = targetAt(ws, a, offset);
  if (t === null || t.kind !== "definition") return [];
  const out: Location[] = [];
  for (const [file, o] of occurrencesOf(ws, t.file, t.def, token)) {
    if (o.declaration && o.def === t.def && !includeDeclaration) continue;
    const loc = location(ws, file, o.span);
    if (loc !== null) out.push(loc);
  }
  return out;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The range of a renameable name at the cursor: one declared in a file
 * of this workspace (not a builtin, not a bundled `std/` module). */
export function prepareRename(ws: Workspace, a: Analysis, offset: number): Range | null {
  const occ = occurrenceAt(a.index, offset);
  if (occ === null) return null;
  const t = targetOf(ws, a, occ);
  if (t === null || t.kind !== "definition" || t.file.startsWith("std/")) return null;
  return a.range(occ.span);
}

export function rename(ws: Workspace, a: Analysis, offset: number, newName: string, token: CancellationToken): WorkspaceEdit | null {
  if (!IDENT.test(newName) || isKeyword(newName)) throw new RequestFailed(`\`${newName}\` is not a valid name`);
  const occ = occurrenceAt(a.index, offset);
  if (occ === null) return null;
  const t = targetOf(ws, a, occ);
  if (t === null || t.kind !== "definition" || t.file.startsWith("std/")) throw new RequestFailed("only names declared in this workspace can be renamed");
  const changes: Record<string, TextEdit[]> = {};
  for (const [file, o] of occurrencesOf(ws, t.file, t.def, token)) {
    const uri = fileToUri(file);
    const fa = ws.analysis(file);
    if (uri === null || fa === null) continue;
    (changes[uri] ??= []).push({ range: fa.range(o.span), newText: newName });
  }
  return { changes };
}

// -- document symbols ---------------------------------------------------------

export function documentSymbols(a: Analysis): DocumentSymbol[] {
  const out: DocumentSymbol[] = [];
  for (const item of a.parsed.program.items) {
    const s = symbolOf(a, item);
    if (s !== null) out.push(s);
  }
  return out;
}

function sym(a: Analysis, name: string, kind: SymbolKind, node: { span: { start: number; end: number } }, nameSpan: { start: number; end: number }, children?: DocumentSymbol[]): DocumentSymbol {
  const s: DocumentSymbol = { name, kind, range: a.range(node.span), selectionRange: a.range(nameSpan) };
  if (children && children.length > 0) s.children = children;
  return s;
}

function defNamed(a: Analysis, name: string, at: number): Definition | undefined {
  return a.index.defs.find((d) => d.name === name && d.nameSpan.start >= at);
}

function symbolOf(a: Analysis, raw: Node): DocumentSymbol | null {
  const n = raw.kind === "AttributedDecl" ? raw.inner : raw;
  const nameSpan = (name: string) => defNamed(a, name, n.span.start)?.nameSpan ?? n.span;
  switch (n.kind) {
    case "FnDecl":
      return sym(a, n.name, SymbolKind.Function, raw, n.nameSpan);
    case "ToolDecl":
      return sym(a, n.name, SymbolKind.Function, raw, n.nameSpan);
    case "Pipeline":
      return sym(a, n.name, SymbolKind.Module, raw, nameSpan(n.name));
    case "SkillDecl":
      return sym(a, n.name, SymbolKind.Object, raw, nameSpan(n.name));
    case "StructDecl":
      return sym(a, n.name, SymbolKind.Struct, raw, nameSpan(n.name), n.fields.map((f) => sym(a, f.name, SymbolKind.Field, f, f.span)));
    case "EnumDecl":
      return sym(a, n.name, SymbolKind.Enum, raw, nameSpan(n.name), n.variants.map((v) => sym(a, v.name, SymbolKind.EnumMember, v, v.span)));
    case "InterfaceDecl":
      return sym(a, n.name, SymbolKind.Interface, raw, nameSpan(n.name), n.methods.map((m) => sym(a, m.name, SymbolKind.Method, m, m.span)));
    case "TypeDecl":
      return sym(a, n.name, SymbolKind.TypeParameter, raw, nameSpan(n.name));
    case "ImplBlock":
      return sym(a, `impl ${n.typeName}`, SymbolKind.Class, raw, raw.span, n.methods.map((m) => sym(a, m.name, SymbolKind.Method, m, m.nameSpan)));
    case "LetBinding":
    case "VarBinding": {
      if (n.pattern.kind !== "ident") return null;
      return sym(a, n.pattern.name, n.kind === "LetBinding" ? SymbolKind.Constant : SymbolKind.Variable, raw, nameSpan(n.pattern.name));
    }
    default:
      return null;
  }
}
