/**
 * The server's view of the files: open documents (their text as the editor
 * has it), other `.harn` files read from disk when an import or a
 * workspace-wide search needs them, and the bundled `std/...` modules. Each
 * file's analysis (the editor's parse and the name index) is kept until its
 * text changes: by version for open documents, by mtime and size on disk.
 */
import { readFileSync, statSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import fg from "fast-glob";
import { tokenize, type Token } from "@harn/lexer";
import type { FormatOptions } from "@harn/fmt";
import { parse, type Diagnostic, type ParseResult, type Program } from "@harn/parser";
import { TextDocument } from "vscode-languageserver-textdocument";
import type { Range } from "vscode-languageserver";
import type { BuiltinDoc } from "./describe";
import { indexFile, type FileIndex } from "./symbols";

/** What the server needs from the program that hosts it (the `harn` CLI). */
export interface LanguageHost {
  /** Every builtin function, by name. */
  builtins: ReadonlyMap<string, BuiltinDoc>;
  /** Names the checker counts as defined (builtins and runtime globals). */
  checkerBuiltins: ReadonlySet<string>;
  /** Sources of the bundled `std/...` modules by import path. */
  stdModules: ReadonlyMap<string, string>;
  /** An import as `harn run` resolves it: a file path, a `std/...` key, or
   * null. `isOpen` files count as existing (a new file may not be saved
   * yet). */
  resolveImport(fromFile: string, path: string, isOpen: (file: string) => boolean): string | null;
  /** `[fmt]` of the harn.toml that applies to the file. */
  formatOptions(file: string): FormatOptions;
  /** `harn check`'s findings beyond parser, checker and linter (preflight). */
  extraChecks?(program: Program, file: string): Diagnostic[];
}

export class Analysis {
  readonly parsed: ParseResult;
  private names: FileIndex | null = null;
  private commentTokens: Token[] | null = null;
  private lines: TextDocument | null = null;

  /** The file's URI ("" for a bundled std module). */
  readonly uri: string;

  constructor(
    /** A file path, or a `std/...` key. */
    readonly file: string,
    readonly text: string,
  ) {
    this.uri = fileToUri(file) ?? "";
    this.parsed = parse(text, { file, recover: true });
  }

  /** The name index, built on first use (diagnostics do not need it). */
  get index(): FileIndex {
    this.names ??= indexFile(this.parsed.program, this.parsed.tokens, this.text.length);
    return this.names;
  }

  /** An LSP range (UTF-16 line/character) for a span of this text. */
  range(span: { start: number; end: number }): Range {
    this.lines ??= TextDocument.create("", "harn", 0, this.text);
    return { start: this.lines.positionAt(span.start), end: this.lines.positionAt(span.end) };
  }

  offsetAt(position: { line: number; character: number }): number {
    this.lines ??= TextDocument.create("", "harn", 0, this.text);
    return this.lines.offsetAt(position);
  }

  /** Comment tokens (doc comments for hovers), lexed on first use. */
  get comments(): readonly Token[] {
    if (this.commentTokens === null) {
      const { tokens } = tokenize(this.text, { comments: true });
      this.commentTokens = tokens.filter((t) => t.kind === "Comment");
    }
    return this.commentTokens;
  }
}

export interface OpenDocument {
  text: string;
  version: number;
}

/** How many files a workspace-wide search reads at most. */
const MAX_WORKSPACE_FILES = 5000;

export class Workspace {
  private readonly open = new Map<string, OpenDocument>();
  private readonly cache = new Map<string, { stamp: string; analysis: Analysis }>();
  readonly roots: string[] = [];
  private listed: string[] = [];
  /** Bumped by each `listFiles`, so an older listing stops. */
  private listing = 0;

  /** The builtins' names, as the linter takes them (one Set, shared). */
  readonly builtinNames: ReadonlySet<string>;

  constructor(readonly host: LanguageHost) {
    this.builtinNames = new Set(host.builtins.keys());
  }

  setOpen(file: string, doc: OpenDocument): void {
    this.open.set(file, doc);
  }

  close(file: string): void {
    this.open.delete(file);
  }

  openFiles(): string[] {
    return [...this.open.keys()];
  }

  isOpen(file: string): boolean {
    return this.open.has(file);
  }

  /** The text of a file as the editor sees it; null when unreadable. */
  read(file: string): string | null {
    return this.load(file)?.text ?? null;
  }

  /** The analysis of a file, cached while its text is unchanged. */
  analysis(file: string): Analysis | null {
    return this.load(file)?.analysis ?? null;
  }

  private load(file: string): { text: string; analysis: Analysis } | null {
    const doc = this.open.get(file);
    let stamp: string;
    let text: (() => string | null) | null;
    if (doc !== undefined) {
      stamp = `v${doc.version}`;
      text = () => doc.text;
    } else if (file.startsWith("std/")) {
      stamp = "std";
      text = () => this.host.stdModules.get(file) ?? null;
    } else {
      try {
        const st = statSync(file);
        if (!st.isFile()) return null;
        stamp = `${st.mtimeMs}:${st.size}`;
      } catch {
        return null;
      }
      text = () => {
        try {
          return readFileSync(file, "utf8");
        } catch {
          return null;
        }
      };
    }
    const hit = this.cache.get(file);
    if (hit !== undefined && hit.stamp === stamp) return { text: hit.analysis.text, analysis: hit.analysis };
    const t = text();
    if (t === null) return null;
    const analysis = new Analysis(file, t);
    this.cache.set(file, { stamp, analysis });
    return { text: t, analysis };
  }

  /** Forget a closed file that is not on disk any more. */
  forget(file: string): void {
    this.cache.delete(file);
  }

  resolveImport(fromFile: string, path: string): string | null {
    return this.host.resolveImport(fromFile, path, (file) => this.open.has(file));
  }

  /** Every `.harn` file of the workspace folders that the listing found
   * so far, and the open ones. */
  files(): string[] {
    return [...new Set([...this.listed, ...this.open.keys()])].sort();
  }

  /** List the workspace folders' `.harn` files again, in the background
   * (a large folder must not stall the server); `done` runs when the
   * list is complete. A listing started later supersedes this one. */
  async listFiles(done: () => void): Promise<void> {
    const run = ++this.listing;
    const found: string[] = [];
    for (const root of this.roots) {
      const stream = fg.stream("**/*.harn", { cwd: root, absolute: true, ignore: ["**/node_modules/**", "**/.git/**"], suppressErrors: true });
      for await (const f of stream) {
        if (run !== this.listing) return;
        found.push(String(f));
        if (found.length >= MAX_WORKSPACE_FILES) break;
      }
    }
    if (run !== this.listing) return;
    this.listed = found;
    done();
  }

  /** Names other files import from `file` by name (they are used even if
   * `file` does not call them: `unused-function` stays quiet). */
  importedElsewhere(file: string): Set<string> {
    const out = new Set<string>();
    for (const other of this.files()) {
      if (other === file) continue;
      const a = this.analysis(other);
      if (a === null) continue;
      for (const item of a.parsed.program.items) {
        if (item.kind === "SelectiveImport" && this.resolveImport(other, item.path) === file) for (const n of item.names) out.add(n);
      }
    }
    return out;
  }
}

export function uriToFile(uri: string): string | null {
  if (!uri.startsWith("file:")) return null;
  try {
    return fileURLToPath(uri);
  } catch {
    return null;
  }
}

export function fileToUri(file: string): string | null {
  if (file.startsWith("std/")) return null;
  return pathToFileURL(file).href;
}

