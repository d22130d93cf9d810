/**
 * Completion: after `name.` the keys of a dict literal `name` is bound to,
 * the fields of its struct or shape type, or an enum's variants; else the
 * keywords, the builtins, every name visible at the cursor (locals,
 * parameters, declarations, selectively imported names) and the top-level
 * names of wildcard-imported modules. Builtin documentation is filled in
 * by `completionItem/resolve`.
 */
import { KEYWORDS } from "@harn/lexer";
import type { Node, TypeExpr } from "@harn/parser";
import { CompletionItemKind, MarkupKind, type CompletionItem } from "vscode-languageserver";
import { describeBuiltin, describeDefinition } from "./describe";
import { targetOf } from "./navigation";
import { visibleAt, type DefKind, type Definition } from "./symbols";
import type { Analysis, Workspace } from "./workspace";

const KIND: Record<DefKind, CompletionItemKind> = {
  function: CompletionItemKind.Function,
  tool: CompletionItemKind.Function,
  pipeline: CompletionItemKind.Module,
  skill: CompletionItemKind.Value,
  struct: CompletionItemKind.Struct,
  enum: CompletionItemKind.Enum,
  interface: CompletionItemKind.Interface,
  type: CompletionItemKind.TypeParameter,
  variable: CompletionItemKind.Variable,
  parameter: CompletionItemKind.Variable,
  import: CompletionItemKind.Reference,
};

/** What `completionItem/resolve` needs to document an item. */
export interface ItemData {
  builtin?: string;
}

const MEMBER = /([A-Za-z_][A-Za-z0-9_]*)\s*(?:\.|\?\.)\s*([A-Za-z0-9_]*)$/;

export function complete(ws: Workspace, a: Analysis, offset: number): CompletionItem[] {
  const lineStart = a.text.lastIndexOf("\n", offset - 1) + 1;
  const before = a.text.slice(lineStart, offset);
  const member = MEMBER.exec(before);
  if (member !== null) return members(ws, a, offset, member[1]!);
  const items: CompletionItem[] = [];
  const seen = new Set<string>();
  const add = (item: CompletionItem) => {
    if (seen.has(item.label)) return;
    seen.add(item.label);
    items.push(item);
  };
  for (const d of visibleAt(a.index, offset)) {
    if (d.nameSpan.start <= offset && offset <= d.nameSpan.end) continue; // the name being typed
    add(definitionItem(ws, a, d));
  }
  for (const path of a.index.wildcardImports) {
    const key = ws.resolveImport(a.file, path);
    const m = key === null ? null : ws.analysis(key);
    if (m === null) continue;
    for (const d of m.index.topLevel.values()) add({ ...definitionItem(ws, m, d), detail: `${describeDefinition(d, m.text, m.index.tokens, m.comments).signature}  (from "${path}")` });
  }
  for (const b of ws.host.builtins.values()) {
    const data: ItemData = { builtin: b.name };
    add({ label: b.name, kind: CompletionItemKind.Function, detail: b.signature ?? "builtin", data });
  }
  for (const k of KEYWORDS) add({ label: k, kind: CompletionItemKind.Keyword });
  return items;
}

function definitionItem(ws: Workspace, a: Analysis, d: Definition): CompletionItem {
  const home = d.kind === "import" ? importedHome(ws, a, d) : { a, d };
  const { signature, doc } = describeDefinition(home.d, home.a.text, home.a.index.tokens, home.a.comments);
  const item: CompletionItem = { label: d.name, kind: KIND[home.d.kind], detail: signature };
  if (doc) item.documentation = { kind: MarkupKind.Markdown, value: doc };
  return item;
}

function importedHome(ws: Workspace, a: Analysis, d: Definition): { a: Analysis; d: Definition } {
  const t = targetOf(ws, a, { name: d.name, span: d.nameSpan, def: d, declaration: true, call: false });
  if (t?.kind === "definition") {
    const m = ws.analysis(t.file);
    if (m !== null) return { a: m, d: t.def };
  }
  return { a, d };
}

export function resolveItem(ws: Workspace, item: CompletionItem): CompletionItem {
  const data = item.data as ItemData | undefined;
  const b = data?.builtin === undefined ? undefined : ws.host.builtins.get(data.builtin);
  if (b === undefined) return item;
  const { signature, doc } = describeBuiltin(b);
  return { ...item, detail: signature, ...(doc ? { documentation: { kind: MarkupKind.Markdown, value: doc } } : {}) };
}

// -- after `name.` --------------------------------------------------------------

function members(ws: Workspace, a: Analysis, offset: number, name: string): CompletionItem[] {
  const def = visibleAt(a.index, offset).find((d) => d.name === name);
  if (def === undefined) return [];
  const t = targetOf(ws, a, { name, span: def.nameSpan, def, declaration: true, call: false });
  const home = t?.kind === "definition" ? { a: ws.analysis(t.file) ?? a, d: t.def } : { a, d: def };
  const { d } = home;
  const node = d.node?.kind === "AttributedDecl" ? d.node.inner : d.node;
  if (d.kind === "enum" && node?.kind === "EnumDecl") {
    return node.variants.map((v) => ({ label: v.name, kind: CompletionItemKind.EnumMember }));
  }
  const fields = new Map<string, CompletionItemKind>();
  if (d.value !== null) valueKeys(d.value, fields);
  if (d.type !== null) typeFields(ws, home.a, d.type, fields);
  else if (d.value?.kind === "StructConstruct") typeFields(ws, home.a, { kind: "Named", name: d.value.structName, span: d.value.span }, fields);
  return [...fields].map(([label, kind]) => ({ label, kind }));
}

function valueKeys(v: Node, out: Map<string, CompletionItemKind>): void {
  if (v.kind !== "DictLiteral" && v.kind !== "StructConstruct") return;
  for (const e of v.kind === "DictLiteral" ? v.entries : v.fields) {
    if (e.computed) continue;
    const k = e.key;
    if (k.kind === "Identifier") out.set(k.name, CompletionItemKind.Field);
    else if (k.kind === "StringLiteral" || k.kind === "RawStringLiteral") out.set(k.value, CompletionItemKind.Field);
  }
}

function typeFields(ws: Workspace, a: Analysis, t: TypeExpr, out: Map<string, CompletionItemKind>): void {
  if (t.kind === "Shape") {
    for (const f of t.fields) out.set(f.name, CompletionItemKind.Field);
    return;
  }
  if (t.kind !== "Named" && t.kind !== "Applied") return;
  const local = a.index.topLevel.get(t.name);
  if (local === undefined) return;
  const found = targetOf(ws, a, { name: t.name, span: local.nameSpan, def: local, declaration: true, call: false });
  const def = found?.kind === "definition" ? found.def : local;
  const node = def.node?.kind === "AttributedDecl" ? def.node.inner : def.node;
  if (node?.kind === "StructDecl") for (const f of node.fields) out.set(f.name, CompletionItemKind.Field);
  if (node?.kind === "TypeDecl") typeFields(ws, found?.kind === "definition" ? (ws.analysis(found.file) ?? a) : a, node.type, out);
}
