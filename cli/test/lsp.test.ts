/**
 * `harn lsp` end to end: the built CLI as a child process, driven by a real
 * LSP client over stdio (lsp-client.ts) that opens files, edits them and
 * asks for every feature an editor uses.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  CancellationTokenSource,
  CodeActionRequest,
  CompletionRequest,
  CompletionResolveRequest,
  DefinitionRequest,
  DiagnosticSeverity,
  DocumentFormattingRequest,
  DocumentSymbolRequest,
  HoverRequest,
  LSPErrorCodes,
  PrepareRenameRequest,
  ReferencesRequest,
  RenameRequest,
  ResponseError,
  SemanticTokensRequest,
  SignatureHelpRequest,
  type CompletionItem,
  type CompletionList,
  type Diagnostic,
  type Location,
  type MarkupContent,
  type WorkspaceEdit,
} from "vscode-languageserver-protocol/node";
import { cliSandbox, repoRoot } from "./cli-harness";
import { LspClient, uriOf } from "./lsp-client";

const sandbox = cliSandbox({ prefix: "harn-lsp-", harn: "built", colour: "plain", timeout: 60_000, dirPerTest: true, gitRoot: true });

let clients: LspClient[] = [];
afterEach(() => {
  for (const c of clients) c.kill();
  clients = [];
});

async function server(): Promise<LspClient> {
  const c = new LspClient(sandbox.dir);
  clients.push(c);
  await c.initialize(sandbox.dir);
  return c;
}

const at = (line: number, character: number) => ({ line, character });
const pos = (path: string, line: number, character: number) => ({ textDocument: { uri: uriOf(path) }, position: at(line, character) });
const summary = (ds: Diagnostic[]) => ds.map((d) => `${d.range.start.line + 1}:${d.source}:${d.severity}:${String(d.message).split("\n")[0]}`);

/** A file as the issue describes it: a handle leak on line 6, a line to
 * type on at line 11. */
const LEAKY = `/** Lists the docs. */
pipeline main(task) {
  let root = "docs"
  log(root)
  log(task)
  let h = walk_dir(root, {long_running: true})
  log(h)
  let items = [1, 2, 3]
  for i in items {
    log(i)
  }
}
`;

describe("diagnostics", () => {
  it("publishes syntax, check and lint findings on open, keeps the rest while a line is half-typed, and clears them when fixed", async () => {
    const c = await server();
    const file = join(sandbox.dir, "main.harn");
    await c.open(file, LEAKY);
    const first = await c.diagnostics(file);
    expect(summary(first)).toEqual([
      "6:harn-lint:2:[long-running-without-cleanup] `walk_dir` starts long-running work without a defer/finally cleanup path: `h` is still running when the pipeline ends at line 12",
    ]);

    // typing on line 11: the leak warning on line 6 stays
    const typing = LEAKY.replace("    log(i)\n", "    log(i)\n    let x = foo(\n");
    const v2 = await c.change(file, typing);
    const half = await c.diagnostics(file, v2);
    expect(summary(half)).toEqual([
      "6:harn-lint:2:[long-running-without-cleanup] `walk_dir` starts long-running work without a defer/finally cleanup path: `h` is still running when the pipeline ends at line 13",
      "12:harn:1:Expected expression, found }",
    ]);

    // fixed: the syntax error goes; a cleanup path clears the leak too
    const fixed = LEAKY.replace("  log(h)\n", "  defer { cancel_handle(h) }\n  log(h)\n");
    const v3 = await c.change(file, fixed);
    expect(await c.diagnostics(file, v3)).toEqual([]);
    expect(await c.shutdown()).toBe(0);
  });

  it("reports the checker's errors and every lint rule with harn.toml's severities", async () => {
    sandbox.file("harn.toml", '[lint]\ndisabled = ["naming-convention"]\n\n[lint.severity]\nunused-variable = "error"\n');
    const c = await server();
    const file = join(sandbox.dir, "typed.harn");
    await c.open(file, 'pipeline main(task) {\n  let unused = 1\n  let n: int = "text"\n  let BadName = 2\n  log(n)\n  log(BadName)\n}\n');
    const ds = await c.diagnostics(file);
    const unused = ds.find((d) => d.code === "unused-variable");
    expect(unused?.severity).toBe(DiagnosticSeverity.Error);
    expect(unused?.message).toMatch(/^\[unused-variable\] /);
    expect(ds.some((d) => d.code === "naming-convention")).toBe(false);
    expect(ds.find((d) => d.source === "harn" && d.range.start.line === 2)?.message).toMatch(/int/);
  });

  it("offers lint fixes as quick fixes and a fix-all action", async () => {
    const c = await server();
    const file = join(sandbox.dir, "fix.harn");
    const text = "pipeline main(task) {\n  var count = 1\n  log(count)\n}\n";
    await c.open(file, text);
    const ds = await c.diagnostics(file);
    const finding = ds.find((d) => d.code === "mutable-never-reassigned");
    expect(finding).toBeDefined();
    const actions = (await c.connection.sendRequest(CodeActionRequest.type, {
      textDocument: { uri: uriOf(file) },
      range: finding!.range,
      context: { diagnostics: [finding!] },
    })) as { title: string; kind: string; edit: WorkspaceEdit }[];
    const quick = actions.find((a) => a.kind === "quickfix");
    expect(quick?.edit.changes?.[uriOf(file)]).toEqual([{ range: { start: at(1, 2), end: at(1, 5) }, newText: "let" }]);
    const all = actions.find((a) => a.kind === "source.fixAll.harn");
    expect(all?.edit.changes?.[uriOf(file)]?.[0]?.newText).toBe("pipeline main(task) {\n  let count = 1\n  log(count)\n}\n");
  });

  it("a function another workspace file imports is not unused, though that file is not open and this one not yet saved", async () => {
    sandbox.file("main.harn", 'import { helper } from "./lib"\nlog(helper())\n');
    sandbox.file("other.harn", "fn spare() {\n  return 2\n}\n");
    const c = await server();
    const lib = join(sandbox.dir, "lib.harn");
    const other = join(sandbox.dir, "other.harn");
    await c.open(other, "fn spare() {\n  return 2\n}\n");
    expect((await c.diagnostics(other)).map((d) => d.code)).toContain("unused-function");
    await c.open(lib, "fn helper() {\n  return 1\n}\n");
    // once the workspace listing has found main.harn, the finding goes
    await c.until(lib, (ds) => !ds.some((d) => d.code === "unused-function"));
  });

  it("a file that breaks the server's analysis does not stop diagnostics for the others", async () => {
    const c = await server();
    const broken = join(sandbox.dir, "broken.harn");
    const good = join(sandbox.dir, "good.harn");
    await c.open(broken, "\u0000\u0001 pipeline main( {{{ \"unterminated\n" + "let x = [".repeat(2_000) + "\n/* open comment");
    const ds = await c.diagnostics(broken);
    expect(ds.length).toBeGreaterThan(0);
    await c.open(good, "pipeline main(task) {\n  let unused = 1\n}\n");
    expect(summary(await c.diagnostics(good)).some((s) => s.includes("unused-variable"))).toBe(true);
    expect(await c.shutdown()).toBe(0);
  });
});

const LIB = `/** Adds two numbers. */
pub fn add(a: int, b: int) -> int {
  return a + b
}

/// A greeting
/// for a name.
pub fn greet(name: string) -> string {
  return "hi " + name
}
`;

const MAIN = `import { add } from "./lib"
import "./lib"

pipeline main(task) {
  let total = add(1, 2)
  let config = {model: "m", retries: 3}
  log(greet("x"))
  log(total)
  log(config.model)
}
`;

async function project(): Promise<{ c: LspClient; lib: string; main: string }> {
  sandbox.file("lib.harn", LIB);
  sandbox.file("main.harn", MAIN);
  const c = await server();
  const main = join(sandbox.dir, "main.harn");
  const lib = join(sandbox.dir, "lib.harn");
  await c.open(main, MAIN);
  await c.diagnostics(main);
  return { c, lib, main };
}

describe("navigation", () => {
  it("hover shows a declaration's signature and doc comment, across an import", async () => {
    const { c, main } = await project();
    const h = await c.connection.sendRequest(HoverRequest.type, pos(main, 4, 15));
    const value = (h?.contents as MarkupContent).value;
    expect(value).toContain("pub fn add(a: int, b: int) -> int");
    expect(value).toContain("Adds two numbers.");
    const g = await c.connection.sendRequest(HoverRequest.type, pos(main, 6, 7));
    expect((g?.contents as MarkupContent).value).toContain("A greeting\nfor a name.");
    const local = await c.connection.sendRequest(HoverRequest.type, pos(main, 7, 7));
    expect((local?.contents as MarkupContent).value).toContain("let total = add(1, 2)");
  });

  it("hover and completion on a builtin show its entry of the builtin table the build generates", async () => {
    const table = JSON.parse(readFileSync(join(repoRoot, "cli/dist/builtins.json"), "utf8")).builtins as { name: string; signature: string | null; doc: string | null; group: string }[];
    const log = table.find((b) => b.name === "log")!;
    const { c, main } = await project();
    const value = ((await c.connection.sendRequest(HoverRequest.type, pos(main, 6, 3)))?.contents as MarkupContent).value;
    expect(value).toContain(log.signature ?? "log(…)");
    expect(value).toContain(`builtin (${log.group})`);
    if (log.doc !== null) expect(value).toContain(log.doc);
  });

  it("goes to definitions across files and to an imported module", async () => {
    const { c, lib, main } = await project();
    const def = (await c.connection.sendRequest(DefinitionRequest.type, pos(main, 4, 15))) as Location;
    expect(def).toEqual({ uri: uriOf(lib), range: { start: at(1, 7), end: at(1, 10) } });
    const wild = (await c.connection.sendRequest(DefinitionRequest.type, pos(main, 6, 7))) as Location;
    expect(wild).toEqual({ uri: uriOf(lib), range: { start: at(7, 7), end: at(7, 12) } });
    const mod = (await c.connection.sendRequest(DefinitionRequest.type, pos(main, 1, 10))) as Location;
    expect(mod.uri).toBe(uriOf(lib));
    const local = (await c.connection.sendRequest(DefinitionRequest.type, pos(main, 7, 7))) as Location;
    expect(local).toEqual({ uri: uriOf(main), range: { start: at(4, 6), end: at(4, 11) } });
  });

  it("finds references across files, and renames a function everywhere", async () => {
    const { c, lib, main } = await project();
    const refs = (await c.connection.sendRequest(ReferencesRequest.type, { ...pos(lib, 1, 8), context: { includeDeclaration: true } })) as Location[];
    const where = refs.map((r) => `${r.uri === uriOf(lib) ? "lib" : "main"}:${r.range.start.line}:${r.range.start.character}`).sort();
    expect(where).toEqual(["lib:1:7", "main:0:9", "main:4:14"]);
    const prepared = await c.connection.sendRequest(PrepareRenameRequest.type, pos(main, 4, 15));
    expect(prepared).toEqual({ start: at(4, 14), end: at(4, 17) });
    const edit = (await c.connection.sendRequest(RenameRequest.type, { ...pos(main, 4, 15), newName: "sum" })) as WorkspaceEdit;
    const count = (uri: string) => edit.changes?.[uri]?.filter((e) => e.newText === "sum").length;
    expect(count(uriOf(lib))).toBe(1);
    expect(count(uriOf(main))).toBe(2);
    // a builtin is not renamed; a bad name is refused
    expect(await c.connection.sendRequest(PrepareRenameRequest.type, pos(main, 6, 3))).toBeNull();
    await expect(c.connection.sendRequest(RenameRequest.type, { ...pos(main, 4, 15), newName: "let" })).rejects.toThrow(/not a valid name/);
  });

  it("renames a local only within its scope", async () => {
    const c = await server();
    const file = join(sandbox.dir, "scope.harn");
    const text = "fn f(x) {\n  let v = x\n  return v\n}\nfn g() {\n  let v = 2\n  return v\n}\n";
    await c.open(file, text);
    const edit = (await c.connection.sendRequest(RenameRequest.type, { ...pos(file, 2, 9), newName: "value" })) as WorkspaceEdit;
    expect(edit.changes?.[uriOf(file)]?.map((e) => e.range.start.line).sort()).toEqual([1, 2]);
  });

  it("lists the document's symbols", async () => {
    const { c, lib } = await project();
    await c.open(lib, LIB + "\nstruct Point {\n  x: int\n  y: int\n}\n");
    const symbols = (await c.connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri: uriOf(lib) } })) as { name: string; children?: { name: string }[] }[];
    expect(symbols.map((s) => s.name)).toEqual(["add", "greet", "Point"]);
    expect(symbols[2]!.children?.map((s) => s.name)).toEqual(["x", "y"]);
  });
});

describe("completion and signature help", () => {
  const labels = (r: CompletionItem[] | CompletionList | null) => (Array.isArray(r) ? r : (r?.items ?? [])).map((i) => i.label);

  it("completes builtins, keywords, locals, parameters, functions and imported names", async () => {
    const { c, main } = await project();
    const text = MAIN.replace("  log(config.model)\n", "  log(config.model)\n  \n");
    const v = await c.change(main, text);
    await c.diagnostics(main, v);
    const items = await c.connection.sendRequest(CompletionRequest.type, pos(main, 9, 2));
    const got = labels(items);
    for (const name of ["total", "config", "task", "add", "greet", "main", "log", "len", "let", "for", "pipeline"]) expect(got).toContain(name);
    const log = (Array.isArray(items) ? items : items!.items).find((i) => i.label === "log")!;
    const resolved = await c.connection.sendRequest(CompletionResolveRequest.type, log);
    expect(resolved.detail).toContain("log");
  });

  it("completes the keys of a dict after a dot, while the line is still broken", async () => {
    const { c, main } = await project();
    const text = MAIN.replace("  log(config.model)\n", "  log(config.model)\n  log(config.\n");
    const v = await c.change(main, text);
    await c.diagnostics(main, v);
    expect(labels(await c.connection.sendRequest(CompletionRequest.type, pos(main, 9, 13))).sort()).toEqual(["model", "retries"]);
  });

  it("shows the signature of the call being typed, with the active parameter", async () => {
    const { c, main } = await project();
    const text = MAIN.replace("  log(total)\n", "  log(total)\n  add(1, \n");
    const v = await c.change(main, text);
    await c.diagnostics(main, v);
    const help = await c.connection.sendRequest(SignatureHelpRequest.type, pos(main, 8, 9));
    expect(help?.signatures[0]?.label).toBe("pub fn add(a: int, b: int) -> int");
    expect(help?.activeParameter).toBe(1);
    expect(help?.signatures[0]?.parameters?.map((p) => p.label)).toEqual([
      [help!.signatures[0]!.label.indexOf("a: int"), help!.signatures[0]!.label.indexOf("a: int") + 6],
      [help!.signatures[0]!.label.indexOf("b: int"), help!.signatures[0]!.label.indexOf("b: int") + 6],
    ]);
  });
});

describe("formatting and semantic tokens", () => {
  it("formats through harn fmt, with harn.toml's [fmt] options", async () => {
    const c = await server();
    const file = join(sandbox.dir, "fmt.harn");
    const text = "pipeline main(task){\nlet x=[1,2,3]\n    log(x)\n}\n";
    await c.open(file, text);
    const edits = await c.connection.sendRequest(DocumentFormattingRequest.type, { textDocument: { uri: uriOf(file) }, options: { tabSize: 2, insertSpaces: true } });
    sandbox.file("fmt.harn", text);
    execFileSync(process.execPath, [sandbox.bin, "fmt", "fmt.harn"], { cwd: sandbox.dir });
    const expected = execFileSync("cat", ["fmt.harn"], { cwd: sandbox.dir, encoding: "utf8" });
    expect(edits).toHaveLength(1);
    expect(edits![0]!.newText).toBe(expected);
  });

  it("a file the formatter cannot format is an error the editor shows", async () => {
    const c = await server();
    const file = join(sandbox.dir, "bad.harn");
    await c.open(file, "let x = )\n");
    await expect(c.connection.sendRequest(DocumentFormattingRequest.type, { textDocument: { uri: uriOf(file) }, options: { tabSize: 2, insertSpaces: true } })).rejects.toThrow(/harn fmt: Expected expression/);
  });

  it("classifies names by what they are", async () => {
    const { c, main } = await project();
    const r = await c.connection.sendRequest(SemanticTokensRequest.type, { textDocument: { uri: uriOf(main) } });
    // decode the relative encoding into [line, char, length, type]
    const tokens: [number, number, number, number][] = [];
    let line = 0;
    let char = 0;
    for (let i = 0; i < r!.data.length; i += 5) {
      const [dl, dc, len, type] = r!.data.slice(i, i + 4) as [number, number, number, number];
      line += dl;
      char = dl === 0 ? char + dc : dc;
      tokens.push([line, char, len, type]);
    }
    const typeAt = (l: number, ch: number) => tokens.find(([tl, tc]) => tl === l && tc === ch)?.[3];
    // legend order (semantic-tokens.ts): parameter 5, variable 6, function 8, keyword 10, string 12, number 13
    expect(typeAt(3, 0)).toBe(10); // pipeline
    expect(typeAt(3, 14)).toBe(5); // task
    expect(typeAt(4, 6)).toBe(6); // total
    expect(typeAt(4, 14)).toBe(8); // add
    expect(typeAt(4, 18)).toBe(13); // 1
    expect(typeAt(0, 20)).toBe(12); // "./lib"
  });
});

describe("protocol", () => {
  it("answers a request the client cancelled while it waited with RequestCancelled", async () => {
    const c = await server();
    const big = join(sandbox.dir, "big.harn");
    const text = Array.from({ length: 20_000 }, (_, i) => `let v${i} = ${i} + 1`).join("\n") + "\n";
    await c.open(big, text);
    await c.diagnostics(big);
    // a new version makes the next request analyse 20,000 lines, keeping
    // the server busy while the hover and its cancellation arrive
    await c.change(big, text + "log(v1)\n");
    const busy = c.connection.sendRequest(SemanticTokensRequest.type, { textDocument: { uri: uriOf(big) } });
    const source = new CancellationTokenSource();
    const pending = c.connection.sendRequest(HoverRequest.type, pos(big, 1, 5), source.token);
    source.cancel();
    expect((await busy)?.data.length).toBeGreaterThan(0);
    const outcome = await pending.then(
      () => "answered",
      (e: unknown) => (e instanceof ResponseError ? e.code : String(e)),
    );
    expect(outcome).toBe(LSPErrorCodes.RequestCancelled);
  });

  it("shuts down and exits cleanly, leaving no process behind", async () => {
    const c = await server();
    const pid = c.child.pid!;
    expect(await c.shutdown()).toBe(0);
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it("a closed stdin without shutdown exits 1 (LSP)", async () => {
    const c = await server();
    c.child.stdin!.end();
    expect(await c.exited).toBe(1);
  });
});
