/**
 * The Harn extension: starts `harn lsp` (the language server built into
 * the `harn` CLI) for `.harn` files. Highlighting, brackets, comments and
 * snippets are declarative (package.json `contributes`); everything else
 * comes from the server.
 */
import { workspace, type ExtensionContext } from "vscode";
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from "vscode-languageclient/node";

let client: LanguageClient | undefined;

export async function activate(context: ExtensionContext): Promise<void> {
  const config = workspace.getConfiguration("harn");
  const command = config.get<string>("path") || "harn";
  const run = { command, args: ["lsp"], transport: TransportKind.stdio };
  const serverOptions: ServerOptions = { run, debug: run };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file", language: "harn" }],
    synchronize: { fileEvents: workspace.createFileSystemWatcher("**/{*.harn,harn.toml}") },
  };
  client = new LanguageClient("harn", "Harn", serverOptions, clientOptions);
  context.subscriptions.push(client);
  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
