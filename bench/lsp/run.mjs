#!/usr/bin/env node
/**
 * bench/lsp — how soon `harn lsp` publishes diagnostics after an edit.
 *
 * Starts the built `harn lsp` and speaks LSP to it over stdio (as an
 * editor does), opens a generated file of LINES lines (ordinary code from
 * bench/lint/units.mjs, one pipeline at the end), then makes EDITS
 * incremental edits one after another — each inserts a line in the
 * pipeline, every other one a half-typed line (`let x = foo(`) the next
 * edit completes — and times each from sending `didChange` to receiving
 * that version's `publishDiagnostics` (the server's 40 ms debounce
 * included: that is what a user waits for). Reports the median and the
 * slowest edit, for a 2,000-line and a 20,000-line file by default.
 *
 *   pnpm build && node bench/lsp/run.mjs [--edits N] [--lines 2000,20000]
 *
 * The goal (issue 26): diagnostics within 300 ms of an edit on a
 * 2,000-line file.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import {
  createProtocolConnection,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-languageserver-protocol/node";
import { unit } from "../lint/units.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const { values } = parseArgs({
  options: {
    edits: { type: "string", default: "21" },
    lines: { type: "string", default: "2000,20000" },
  },
});
const edits = Math.max(1, Number(values.edits));
const sizes = values.lines.split(",").map(Number);

const harnBin = join(repo, "cli", "bin", "harn.cjs");
if (!existsSync(join(repo, "cli", "dist", "harn.cjs"))) {
  console.error("bench/lsp: cli/dist/harn.cjs is missing; run `pnpm build` first");
  process.exit(2);
}

function generate(lines) {
  let text = "";
  let i = 0;
  while (text.split("\n").length < lines - 5) text += unit(0, i++);
  return `${text}pipeline main() {\n  let out = collect_0_0("src")\n  log(out)\n}\n`;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(dir, lines) {
  const file = join(dir, `bench_${lines}.harn`);
  const text = generate(lines);
  writeFileSync(file, text);
  const uri = pathToFileURL(file).href;
  const child = spawn(process.execPath, [harnBin, "lsp", "--stdio"], { cwd: dir, stdio: ["pipe", "pipe", "inherit"] });
  const conn = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const waiting = new Map();
  conn.onNotification(PublishDiagnosticsNotification.type, (p) => {
    const w = waiting.get(p.version);
    if (p.uri === uri && w) {
      waiting.delete(p.version);
      w(p.diagnostics.length);
    }
  });
  conn.listen();
  const published = (version) => new Promise((resolve) => waiting.set(version, resolve));
  await conn.sendRequest(InitializeRequest.type, { processId: process.pid, rootUri: pathToFileURL(dir).href, capabilities: {} });
  await conn.sendNotification(InitializedNotification.type, {});

  let t0 = performance.now();
  const opened = published(1);
  await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "harn", version: 1, text } });
  await opened;
  const openMs = performance.now() - t0;

  // edits go into the pipeline at the end of the file
  const line = text.split("\n").length - 3;
  const times = [];
  for (let k = 0; k < edits; k++) {
    const version = k + 2;
    const half = k % 2 === 0;
    const change = half
      ? { range: { start: { line, character: 0 }, end: { line, character: 0 } }, text: "  let x = foo(\n" }
      : { range: { start: { line, character: 15 }, end: { line, character: 15 } }, text: "1)" };
    const done = published(version);
    t0 = performance.now();
    await conn.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges: [change] });
    await done;
    times.push(performance.now() - t0);
  }
  await conn.sendRequest(ShutdownRequest.type);
  await conn.sendNotification(ExitNotification.type);
  await new Promise((resolve) => child.on("exit", resolve));
  conn.dispose();
  return { lines: text.split("\n").length - 1, openMs, median: median(times), max: Math.max(...times) };
}

const dir = mkdtempSync(join(tmpdir(), "harn-bench-lsp-"));
try {
  console.log(`bench/lsp: ${edits} edits per file, ${process.env.NODE_EXTRA_CA_CERTS ? "NODE_EXTRA_CA_CERTS set" : "no NODE_EXTRA_CA_CERTS"}`);
  console.log("lines    open (ms)   edit→diagnostics median (ms)   slowest (ms)");
  for (const n of sizes) {
    const r = await measure(dir, n);
    console.log(`${String(r.lines).padEnd(8)} ${r.openMs.toFixed(0).padStart(9)}   ${r.median.toFixed(0).padStart(28)}   ${r.max.toFixed(0).padStart(12)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
