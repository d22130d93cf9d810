/**
 * `harn lsp`: the language server over stdio (vscode-languageserver does
 * the protocol: message framing, `$/cancelRequest` of requests still
 * queued, `shutdown`/`exit`). This module only wires requests to the
 * features; each runs on the current text of the document and never lets
 * an internal error escape: a request that fails answers null (and logs
 * why), and a diagnostics run that fails publishes what went wrong instead
 * of stopping diagnostics for that or any other file.
 */
import { formatSource, FormatError } from "@harn/fmt";
import { applyFixes } from "@harn/lint";
import {
  CodeActionKind,
  createConnection,
  DiagnosticSeverity,
  LSPErrorCodes,
  ProposedFeatures,
  ResponseError,
  TextDocuments,
  TextDocumentSyncKind,
  type CancellationToken,
  type CodeAction,
  type Connection,
  type Diagnostic,
  type InitializeResult,
} from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { complete, resolveItem } from "./completion";
import { diagnose, fixableFindings, type FixData } from "./diagnostics";
import { hover, signatureHelp } from "./hover";
import { Cancelled, RequestFailed } from "./errors";
import { definition, documentSymbols, prepareRename, references, rename } from "./navigation";
import { LEGEND, semanticTokens } from "./semantic-tokens";
import { uriToFile, Workspace, type Analysis, type LanguageHost } from "./workspace";

export interface ServerOptions {
  host: LanguageHost;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/** Edits arriving this close together are diagnosed once, after the last. */
const DIAGNOSTICS_DELAY_MS = 40;
/** Other open files (whose imports may see the edited one) wait longer. */
const DEPENDENTS_DELAY_MS = 400;

export function startServer(options: ServerOptions): Connection {
  const connection = createConnection(ProposedFeatures.all, options.input, options.output);
  const documents = new TextDocuments(TextDocument);
  const ws = new Workspace(options.host);
  const pending = new Map<string, NodeJS.Timeout>();

  const log = (what: string, e: unknown) => connection.console.error(`harn lsp: ${what}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);

  const analysisOf = (uri: string): Analysis | null => {
    const file = uriToFile(uri);
    return file === null ? null : ws.analysis(file);
  };

  /** Run a request's work unless the client already gave up on it. */
  function answer<T>(token: CancellationToken, what: string, work: () => T): T | ResponseError<void> | null {
    if (token.isCancellationRequested) return new ResponseError(LSPErrorCodes.RequestCancelled, "request cancelled");
    try {
      return work();
    } catch (e) {
      if (e instanceof Cancelled) return new ResponseError(LSPErrorCodes.RequestCancelled, "request cancelled");
      if (e instanceof RequestFailed) return new ResponseError(LSPErrorCodes.RequestFailed, e.message);
      log(what, e);
      return null;
    }
  }

  function publish(uri: string): void {
    pending.delete(uri);
    const doc = documents.get(uri);
    const file = uriToFile(uri);
    if (doc === undefined || file === null) return;
    let diagnostics: Diagnostic[];
    try {
      const a = ws.analysis(file);
      diagnostics = a === null ? [] : diagnose(ws, a);
    } catch (e) {
      log(`diagnostics of ${file}`, e);
      const message = `harn lsp could not check this file (internal error: ${e instanceof Error ? e.message : String(e)})`;
      diagnostics = [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, severity: DiagnosticSeverity.Error, source: "harn", message }];
    }
    void connection.sendDiagnostics({ uri, version: doc.version, diagnostics });
  }

  function schedule(uri: string, delay: number): void {
    const prev = pending.get(uri);
    if (prev !== undefined) clearTimeout(prev);
    pending.set(uri, setTimeout(() => publish(uri), delay));
  }

  function changed(doc: TextDocument): void {
    const file = uriToFile(doc.uri);
    if (file === null) return;
    ws.setOpen(file, { text: doc.getText(), version: doc.version });
    schedule(doc.uri, DIAGNOSTICS_DELAY_MS);
    for (const other of documents.keys()) if (other !== doc.uri) schedule(other, DEPENDENTS_DELAY_MS);
  }

  connection.onInitialize((params): InitializeResult => {
    for (const folder of params.workspaceFolders ?? []) {
      const root = uriToFile(folder.uri);
      if (root !== null) ws.roots.push(root);
    }
    if (ws.roots.length === 0 && params.rootUri) {
      const root = uriToFile(params.rootUri);
      if (root !== null) ws.roots.push(root);
    }
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        hoverProvider: true,
        completionProvider: { triggerCharacters: ["."], resolveProvider: true },
        signatureHelpProvider: { triggerCharacters: ["(", ","] },
        definitionProvider: true,
        referencesProvider: true,
        renameProvider: { prepareProvider: true },
        documentSymbolProvider: true,
        documentFormattingProvider: true,
        semanticTokensProvider: { legend: LEGEND, full: true },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, CodeActionKind.SourceFixAll] },
      },
      serverInfo: { name: "harn" },
    };
  });

  documents.onDidOpen((e) => changed(e.document));
  documents.onDidChangeContent((e) => changed(e.document));
  documents.onDidClose((e) => {
    const file = uriToFile(e.document.uri);
    const timer = pending.get(e.document.uri);
    if (timer !== undefined) clearTimeout(timer);
    pending.delete(e.document.uri);
    if (file !== null) ws.close(file);
    void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
  });
  // The workspace's files (for references, rename, and which names other
  // files import) are listed in the background, at start and whenever
  // files come or go; open files are diagnosed again when a list is done.
  const relist = () => {
    ws.listFiles(() => {
      for (const uri of documents.keys()) schedule(uri, DEPENDENTS_DELAY_MS);
    }).catch((e: unknown) => log("listing the workspace", e));
  };
  connection.onInitialized(relist);
  connection.onDidChangeWatchedFiles(relist);

  const at = (uri: string, position: { line: number; character: number }) => {
    const a = analysisOf(uri);
    return a === null ? null : { a, offset: a.offsetAt(position) };
  };

  connection.onHover((p, token) => answer(token, "hover", () => {
    const h = at(p.textDocument.uri, p.position);
    return h === null ? null : hover(ws, h.a, h.offset);
  }));
  connection.onCompletion((p, token) => answer(token, "completion", () => {
    const h = at(p.textDocument.uri, p.position);
    return h === null ? null : complete(ws, h.a, h.offset);
  }));
  connection.onCompletionResolve((item, token) => answer(token, "completion resolve", () => resolveItem(ws, item)) ?? item);
  connection.onSignatureHelp((p, token) => answer(token, "signature help", () => {
    const h = at(p.textDocument.uri, p.position);
    return h === null ? null : signatureHelp(ws, h.a, h.offset);
  }));
  connection.onDefinition((p, token) => answer(token, "definition", () => {
    const h = at(p.textDocument.uri, p.position);
    return h === null ? null : definition(ws, h.a, h.offset);
  }));
  connection.onReferences((p, token) => answer(token, "references", () => {
    const h = at(p.textDocument.uri, p.position);
    return h === null ? null : references(ws, h.a, h.offset, p.context.includeDeclaration, token);
  }));
  connection.onPrepareRename((p, token) => answer(token, "prepare rename", () => {
    const h = at(p.textDocument.uri, p.position);
    return h === null ? null : prepareRename(ws, h.a, h.offset);
  }));
  connection.onRenameRequest((p, token) => answer(token, "rename", () => {
    const h = at(p.textDocument.uri, p.position);
    return h === null ? null : rename(ws, h.a, h.offset, p.newName, token);
  }));
  connection.onDocumentSymbol((p, token) => answer(token, "document symbols", () => {
    const a = analysisOf(p.textDocument.uri);
    return a === null ? null : documentSymbols(a);
  }));
  connection.languages.semanticTokens.on((p, token) => answer(token, "semantic tokens", () => {
    const a = analysisOf(p.textDocument.uri);
    return a === null ? { data: [] } : semanticTokens(ws, a);
  }) ?? { data: [] });

  connection.onDocumentFormatting((p, token) => {
    const a = analysisOf(p.textDocument.uri);
    if (a === null) return null;
    return answer(token, "formatting", () => {
      let formatted: string;
      try {
        formatted = formatSource(a.text, ws.host.formatOptions(a.file));
      } catch (e) {
        if (e instanceof FormatError) throw new RequestFailed(`harn fmt: ${e.message}`);
        throw e;
      }
      if (formatted === a.text) return [];
      return [{ range: a.range({ start: 0, end: a.text.length }), newText: formatted }];
    });
  });

  connection.onCodeAction((p, token) => answer(token, "code actions", () => {
    const a = analysisOf(p.textDocument.uri);
    if (a === null) return null;
    const only = p.context.only;
    const wants = (kind: string) => only === undefined || only.some((k) => kind === k || kind.startsWith(`${k}.`));
    const actions: CodeAction[] = [];
    if (wants(CodeActionKind.QuickFix)) {
      for (const d of p.context.diagnostics) {
        const data = d.data as FixData | undefined;
        if (!data || data.fix.length === 0) continue;
        const edits = data.fix.map((f) => ({ range: a.range(f.span), newText: f.replacement }));
        actions.push({ title: `Fix: ${d.message}`, kind: CodeActionKind.QuickFix, diagnostics: [d], isPreferred: true, edit: { changes: { [p.textDocument.uri]: edits } } });
      }
    }
    if (wants(CodeActionKind.SourceFixAll)) {
      const fixable = fixableFindings(ws, a);
      if (fixable.length > 0) {
        const { text } = applyFixes(a.text, fixable);
        actions.push({
          title: "Fix all auto-fixable lint findings",
          kind: `${CodeActionKind.SourceFixAll}.harn`,
          edit: { changes: { [p.textDocument.uri]: [{ range: a.range({ start: 0, end: a.text.length }), newText: text }] } },
        });
      }
    }
    return actions;
  }));

  documents.listen(connection);
  connection.listen();
  return connection;
}
