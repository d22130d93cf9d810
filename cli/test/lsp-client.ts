/**
 * A real LSP client for the tests of `harn lsp`: the built `harn` started
 * as a child process, spoken to over its stdin/stdout with
 * vscode-languageserver-protocol's JSON-RPC connection, as an editor does.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { pathToFileURL } from "node:url";
import {
  createProtocolConnection,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type InitializeResult,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
} from "vscode-languageserver-protocol/node";
import { harnBin, harnEnv } from "./cli-harness";

export const uriOf = (path: string): string => pathToFileURL(path).href;

export class LspClient {
  readonly child: ChildProcess;
  readonly connection: ProtocolConnection;
  /** Every publishDiagnostics, in arrival order. */
  readonly published: PublishDiagnosticsParams[] = [];
  private waiters: (() => void)[] = [];
  private readonly versions = new Map<string, number>();
  stderr = "";
  readonly exited: Promise<number | null>;

  constructor(cwd: string, env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, [harnBin, "lsp", "--stdio"], { cwd, env: harnEnv("plain", env), stdio: ["pipe", "pipe", "pipe"] });
    this.child.stderr!.on("data", (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
    this.connection = createProtocolConnection(new StreamMessageReader(this.child.stdout!), new StreamMessageWriter(this.child.stdin!));
    this.connection.onNotification(PublishDiagnosticsNotification.type, (p) => {
      this.published.push(p);
      const ws = this.waiters;
      this.waiters = [];
      for (const w of ws) w();
    });
    this.connection.listen();
  }

  async initialize(root: string): Promise<InitializeResult> {
    const result = await this.connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: uriOf(root),
      workspaceFolders: [{ uri: uriOf(root), name: "root" }],
      capabilities: {
        textDocument: {
          publishDiagnostics: { versionSupport: true },
          completion: { completionItem: { snippetSupport: false } },
          hover: { contentFormat: ["markdown", "plaintext"] },
        },
      },
    });
    await this.connection.sendNotification(InitializedNotification.type, {});
    return result;
  }

  async open(path: string, text: string): Promise<void> {
    this.versions.set(path, 1);
    await this.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: uriOf(path), languageId: "harn", version: 1, text } });
  }

  /** Replace the whole text (a full-document change). */
  async change(path: string, text: string): Promise<number> {
    const version = (this.versions.get(path) ?? 1) + 1;
    this.versions.set(path, version);
    await this.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri: uriOf(path), version }, contentChanges: [{ text }] });
    return version;
  }

  /** An incremental change: `text` replaces the range. */
  async edit(path: string, range: { start: { line: number; character: number }; end: { line: number; character: number } }, text: string): Promise<number> {
    const version = (this.versions.get(path) ?? 1) + 1;
    this.versions.set(path, version);
    await this.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri: uriOf(path), version }, contentChanges: [{ range, text }] });
    return version;
  }

  async close(path: string): Promise<void> {
    await this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri: uriOf(path) } });
  }

  /** The diagnostics published for `path` at `version` (or later). */
  async diagnostics(path: string, version = this.versions.get(path) ?? 1): Promise<Diagnostic[]> {
    const uri = uriOf(path);
    for (;;) {
      for (let i = this.published.length - 1; i >= 0; i--) {
        const p = this.published[i]!;
        if (p.uri === uri && (p.version ?? 0) >= version) return p.diagnostics;
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** The first diagnostics published for `path` (from now on, or already)
   * that satisfy `ok`. */
  async until(path: string, ok: (ds: Diagnostic[]) => boolean): Promise<Diagnostic[]> {
    const uri = uriOf(path);
    let seen = 0;
    for (;;) {
      for (; seen < this.published.length; seen++) {
        const p = this.published[seen]!;
        if (p.uri === uri && ok(p.diagnostics)) return p.diagnostics;
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** `shutdown`, then `exit`; resolves with the server's exit code. */
  async shutdown(): Promise<number | null> {
    await this.connection.sendRequest(ShutdownRequest.type);
    await this.connection.sendNotification(ExitNotification.type);
    const code = await this.exited;
    this.connection.dispose();
    return code;
  }

  /** For tests that fail midway: never leave the server running. */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
    this.connection.dispose();
  }
}
