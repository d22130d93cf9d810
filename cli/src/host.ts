/**
 * The host side of running a script: builds a Runtime (sinks, cwd, env,
 * argv, the stdlib), loads modules from disk, parses and runs a file, and
 * renders uncaught runtime errors (spec/cli.md §2.5).
 */
import { deferredExtraCaCerts } from "./deferred-ca";
import { resolveModulePath } from "./module-path";
import { readSourceText } from "./source-file";
import { check } from "@harn/checker";
import { checkStructure, parse, plainStyle, renderDiagnostic, sourceLine, type Diagnostic, type DiagnosticStyle, type Node, type Program, type Span } from "@harn/parser";
import { bindProjectSkills, builtinNamesIn, builtinNamesOfStdModule, installStdlib, preloadBuiltins, setScriptFile, usesProjectSkills } from "@harn/stdlib";
import { type Clock, CompileError, ExitRequest, HarnError, type ModuleHost, type OutputSink, ProgramRunner, Runtime, type Value } from "@harn/vm";

// What the commands need from the engine, reachable through one dynamic
// import (cli/src/engine.ts). The agent layer is not part of it: it loads
// when a script first uses it (the stdlib's lazy groups), or through
// `loadMockFixtures` / `loadChatEngine` for the hosts that need it.
export { CANCELLED_TEXT, HarnError, VirtualClock } from "@harn/vm";
export { readDaemonRootSync, reapDeadRuns, setDaemonJournal, startDeclaredMcpServers, useProjectLlmConfig } from "@harn/stdlib";
export { cancelBackgroundTasks, costUsd, interruptTurns, mockFixtureLine, recordLlmResponses, setBackgroundGrace, setInteractive, setTurnObserver } from "@harn/stdlib";

/** Replay LLM calls from a JSONL fixture (`--llm-mock`, test sidecars);
 * loads the agent layer. Rejects with the fixture's error. */
export async function loadMockFixtures(rt: Runtime, jsonl: string): Promise<void> {
  const agent = await import("@harn/stdlib/agent");
  agent.loadMockFixtures(rt, jsonl);
}

export interface HostOptions {
  stdout: OutputSink;
  stderr: OutputSink;
  cwd: string;
  env: Record<string, string | undefined>;
  /** The `argv` global; null leaves it undefined. */
  argv: string[] | null;
  denied?: Iterable<string>;
  /** A CA bundle for the TLS clients to trust on top of Node's store;
   * defaults to the NODE_EXTRA_CA_CERTS that harn deferred (deferred-ca.ts). */
  extraCaCertsFile?: string | null;
  /** Time and task scheduling; default real (`harn test --deterministic`
   * passes a VirtualClock). */
  clock?: Clock;
}

export function createRuntime(opts: HostOptions): Runtime {
  const rt = new Runtime({
    stdout: opts.stdout,
    stderr: opts.stderr,
    cwd: opts.cwd,
    env: opts.env,
    argv: opts.argv,
    extraCaCertsFile: opts.extraCaCertsFile === undefined ? deferredExtraCaCerts() : opts.extraCaCertsFile,
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  if (opts.argv) rt.globals.set("argv", opts.argv);
  installStdlib(rt);
  for (const d of opts.denied ?? []) rt.denied.add(d);
  return rt;
}

/** Modules on disk, relative to the importing file; `std/...` from the
 * runtime's bundled sources. */
export function fileModuleHost(rt: Runtime): FileModuleHost {
  /** Modules already parsed (by `preloadImports`), handed to the evaluator
   * when it loads them instead of being read and parsed a second time. */
  const parsed = new Map<string, Program>();
  return {
    resolve(fromFile, path) {
      return resolveModulePath(fromFile, path, rt.stdModules, rt.cwd);
    },
    load(key) {
      const ready = parsed.get(key);
      if (ready !== undefined) {
        parsed.delete(key);
        return ready;
      }
      let source: string;
      try {
        source = key.startsWith("std/") ? rt.stdModules.get(key)! : readSourceText(key);
      } catch (e) {
        // Reported like a module's syntax error: a compile error naming the file.
        throw new ModuleSyntaxError(`Error reading ${key}: ${(e as Error).message}`);
      }
      const { program, errors } = parse(source, { file: key });
      if (errors.length > 0) throw new ModuleSyntaxError(`${key}: ${errors[0]!.message}`);
      return program;
    },
    parsed,
  };
}

interface FileModuleHost extends ModuleHost {
  readonly parsed: Map<string, Program>;
}

/**
 * Before a program runs: load the stdlib's lazy builtin groups that it or
 * the modules it imports (transitively) name, so those builtins answer
 * synchronously, as they would had everything been loaded at start-up
 * (a first call that had to load would be a point where other tasks run).
 * Imported modules are parsed here once and kept for the evaluator; one
 * that cannot be read or parsed is left for the evaluator to report.
 */
function preloadImports(rt: Runtime, program: Program, file: string, modules: FileModuleHost): { names: Set<string>; loading: Promise<void> | null } {
  const names = builtinNamesIn(program);
  const seen = new Set<string>();
  const pending: { program: Program; file: string }[] = [{ program, file }];
  while (pending.length > 0) {
    const { program: p, file: from } = pending.pop()!;
    for (const item of p.items) {
      const decl = item.kind === "AttributedDecl" ? item.inner : item;
      if (decl.kind !== "ImportDecl" && decl.kind !== "SelectiveImport") continue;
      let key: string | null;
      try {
        key = modules.resolve(from, decl.path);
      } catch {
        continue;
      }
      if (key === null || seen.has(key)) continue;
      seen.add(key);
      let imported: Program;
      try {
        const source = key.startsWith("std/") ? rt.stdModules.get(key)! : readSourceText(key);
        const r = parse(source, { file: key });
        if (r.errors.length > 0) continue;
        imported = r.program;
      } catch {
        continue;
      }
      modules.parsed.set(key, imported);
      builtinNamesIn(imported, names);
      for (const n of builtinNamesOfStdModule(key)) names.add(n);
      pending.push({ program: imported, file: key });
    }
  }
  return { names, loading: preloadBuiltins(rt, names) };
}

/** The static checker's errors (cli.md §2.2 step 2). Runs once the
 * interpreter exists, so `rt.builtins` holds every builtin it registers;
 * imports come from what `preloadImports` parsed. */
function staticCheck(rt: Runtime, program: Program, file: string, modules: FileModuleHost, callTargets: boolean): Diagnostic[] {
  const builtins = new Set([...rt.builtins.keys(), ...rt.globals.keys()]);
  return check(program, {
    file,
    builtins,
    callTargets,
    resolveImport(from, path) {
      const key = modules.resolve(from, path);
      if (key === null) return null;
      const parsed = modules.parsed.get(key);
      return parsed === undefined ? null : { file: key, program: parsed };
    },
  });
}

/** A runtime with the interpreter's own builtins registered, and the names
 * the checker counts as defined (every builtin and runtime global). */
function checkerRuntime(file: string): { rt: Runtime; builtins: Set<string> } {
  const sink = { write() {} };
  const rt = createRuntime({ stdout: sink, stderr: sink, cwd: process.cwd(), env: {}, argv: null });
  new ProgramRunner(rt, { file }); // registers the interpreter's own builtins
  return { rt, builtins: new Set([...rt.builtins.keys(), ...rt.globals.keys()]) };
}

/** What `harn lsp` checks with: the checker's defined names, as
 * `checkProgram` takes them. */
export function checkerBuiltins(): Set<string> {
  return checkerRuntime("").builtins;
}

/** `harn check`'s checker run for a file with imports: the builtins of a
 * runtime like `harn run`'s, imports read and parsed from disk. */
export function checkProgram(program: Program, file: string): Diagnostic[] {
  const { rt, builtins } = checkerRuntime(file);
  const modules = fileModuleHost(rt);
  return check(program, {
    file,
    builtins,
    resolveImport(from, path) {
      const key = modules.resolve(from, path);
      if (key === null) return null;
      try {
        return { file: key, program: modules.load(key) };
      } catch {
        return null;
      }
    },
  });
}

export class ModuleSyntaxError extends Error {}

export type Outcome =
  | { kind: "ok"; value: Value }
  /** Lex/parse errors: `message` is the plain reference text of the first. */
  | { kind: "syntax"; program: Program | null; errors: ReturnType<typeof parse>["errors"] }
  /** `checked` holds the static checker's errors when it rejected the
   * program (cli.md §2.2 step 2); `message` is then the first one's. */
  | { kind: "compile"; message: string; span: Span | null; checked?: Diagnostic[]; /** The file `span` is in, when not the entry file (an import inside a module). */ file?: string }
  | { kind: "error"; error: HarnError }
  /** `exit(n)` was called. */
  | { kind: "exit"; code: number };

export interface RunHandle {
  outcome: Promise<Outcome>;
  /** Cancel the running program (Ctrl-C, timeout). */
  cancel(reason: unknown): void;
}

/**
 * Parse, check and run `source` (a text, or a program parsed before, as
 * `harn bench` runs one parse many times). Never rejects for script
 * faults. `entry` names the pipeline to run (else cli.md §2.3 chooses);
 * with `checkOnlyEntry`, static-check findings inside other pipelines are
 * ignored, as `harn test` compiles only the test pipeline plus the file's
 * top-level declarations (cli.md §5.1); `callTargets: false` skips the
 * call-target check, as the REPL does (core-gaps.md §9.6). `afterEntry`
 * runs once the entry pipeline has succeeded, before the runtime shuts
 * down (`harn serve mcp` serves the script's registrations there).
 */
export function runSource(
  rt: Runtime,
  source: string | Program,
  file: string,
  entry?: string,
  options: { checkOnlyEntry?: boolean; callTargets?: boolean; afterEntry?: () => Promise<void> } = {},
): RunHandle {
  const checkOnlyEntry = options.checkOnlyEntry ?? false;
  const afterEntry = options.afterEntry;
  let runner: ProgramRunner | null = null;
  let cancelled: unknown = undefined;
  setScriptFile(rt, file);
  const outcome = (async (): Promise<Outcome> => {
    let program: Program;
    if (typeof source === "string") {
      const parsed = parse(source, { file });
      if (parsed.errors.length > 0) return { kind: "syntax", program: parsed.program, errors: parsed.errors };
      program = parsed.program;
    } else program = source;
    const structural = checkStructure(program);
    if (structural.length > 0) return { kind: "compile", message: structural[0]!.message, span: structural[0]!.span };
    const modules = fileModuleHost(rt);
    const preloading = preloadImports(rt, program, file, modules);
    if (preloading.loading !== null) await preloading.loading;
    // The project's skills are found before the program runs (workflows.md §2.3).
    if (usesProjectSkills(preloading.names)) await bindProjectSkills(rt, file);
    runner = new ProgramRunner(rt, { file, modules, entry });
    let checked = staticCheck(rt, program, file, modules, options.callTargets ?? true);
    if (checkOnlyEntry && entry !== undefined) {
      const others = otherPipelineSpans(program, entry);
      checked = checked.filter((d) => d.span === null || !others.some((o) => o.start <= d.span!.start && d.span!.start < o.end));
    }
    if (checked.length > 0) {
      await rt.shutdown();
      return { kind: "compile", message: checked[0]!.message, span: checked[0]!.span, checked };
    }
    if (cancelled !== undefined) return { kind: "error", error: toHarnError(cancelled) };
    try {
      const value = await runner.run(program);
      if (afterEntry) await afterEntry();
      return { kind: "ok", value };
    } catch (e) {
      if (e instanceof HarnError) return { kind: "error", error: e };
      if (e instanceof CompileError) return { kind: "compile", message: e.message, span: e.span, file: e.file };
      if (e instanceof ModuleSyntaxError) return { kind: "compile", message: e.message, span: null };
      if (e instanceof ExitRequest) return { kind: "exit", code: e.code };
      throw e;
    } finally {
      await rt.shutdown();
    }
  })();
  return {
    outcome,
    cancel(reason) {
      cancelled = reason;
      runner?.cancel(reason);
    },
  };
}

/** The spans of the file's top-level pipelines other than `entry`. */
function otherPipelineSpans(program: Program, entry: string): Span[] {
  const spans: Span[] = [];
  for (const item of program.items) {
    let n: Node = item;
    while (n.kind === "AttributedDecl") n = n.inner;
    if (n.kind === "Pipeline" && n.name !== entry) spans.push(item.span);
  }
  return spans;
}

function toHarnError(e: unknown): HarnError {
  return e instanceof HarnError ? e : HarnError.runtime(String(e));
}

// ---------------------------------------------------------------------------
// Rendering of uncaught runtime errors (cli.md §2.5)

/** At most this many `= note:` lines under a runtime error. */
const MAX_NOTES = 12;

/** The one-line notes of the outer frames (cli.md §2.5), innermost first.
 * Deep recursion would print hundreds: runs of identical frames collapse
 * after three, and when the recursion alternates (a function re-entered
 * through a callback) the list keeps its innermost and outermost notes
 * around a count. */
function frameNotes(e: HarnError): string[] {
  const notes: string[] = [];
  for (let i = 0; i < e.frames.length; ) {
    const f = e.frames[i]!;
    let j = i + 1;
    while (j < e.frames.length && e.frames[j]!.name === f.name && e.frames[j]!.file === f.file && e.frames[j]!.line === f.line) j++;
    const run = j - i;
    for (let k = 0; k < Math.min(run, 3); k++) notes.push(`called from ${f.name} at ${f.file}:${f.line}`);
    if (run > 3) notes.push(`… ${run - 3} more calls from ${f.name} at ${f.file}:${f.line}`);
    i = j;
  }
  if (notes.length > MAX_NOTES) {
    const head = notes.slice(0, MAX_NOTES - 3);
    const tail = notes.slice(notes.length - 2);
    const skipped = notes.length - head.length - tail.length;
    notes.splice(0, notes.length, ...head, `… ${skipped} more notes`, ...tail);
  }
  return notes;
}

/**
 * An uncaught runtime error as a diagnostic of the file it happened in
 * (cli.md §2.5): no label, carets under the identifier starting at the
 * error's column (one for punctuation; the whole trimmed line when the
 * column is unknown), one note per outer frame.
 */
export function runtimeDiagnostic(e: HarnError, entryFile: string, readSource: (file: string) => string | null): { diagnostic: Diagnostic; file: string; source: string } {
  const file = e.file ?? entryFile;
  const notes = frameNotes(e);
  const diagnostic: Diagnostic = { code: "runtime", severity: "error", message: e.description(), span: null, ...(notes.length > 0 ? { notes } : {}) };
  const span = e.span;
  if (!span || span.line <= 0) return { diagnostic, file, source: "" };
  const source = readSource(file) ?? "";
  const text = sourceLine(source, span.line) ?? "";
  const ident = span.column > 0 ? /^[\p{Alphabetic}\p{N}_]+/u.exec(Array.from(text).slice(span.column - 1).join("")) : null;
  const width = ident ? Array.from(ident[0]).length : 1;
  diagnostic.span = { ...span, endLine: span.line, endColumn: span.column + width, end: span.start + (ident ? ident[0].length : 1) };
  diagnostic.label = "";
  return { diagnostic, file, source };
}

/** `error: …` plus the code frame and `= note:` lines, through the one
 * renderer. `readSource` gives a file's text (the frame's own file is read). */
export function renderRuntimeError(e: HarnError, entryFile: string, readSource: (file: string) => string | null, style: DiagnosticStyle = plainStyle): string {
  const { diagnostic, file, source } = runtimeDiagnostic(e, entryFile, readSource);
  return renderDiagnostic(diagnostic, file, source, style);
}

/** Exit status for an entry value (cli.md §2.6); writes Err payloads. */
export function exitCodeFor(value: Value, stderr: OutputSink): number {
  if (typeof value === "number" || typeof value === "bigint") {
    const n = typeof value === "bigint" ? (value < 0n ? 0 : 255) : value;
    return Math.max(0, Math.min(255, n));
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value) && "enumName" in value && value.enumName === "Result" && value.variant === "Err") {
    const text = displayValue(value.fields[0] ?? null);
    stderr.write(text === "" ? "error\n" : text.endsWith("\n") ? text : text + "\n");
    return 1;
  }
  return 0;
}

import { display as displayValue } from "@harn/vm";

export function readSourceFile(path: string): string | null {
  try {
    return readSourceText(path);
  } catch {
    return null;
  }
}

export { readSourceText } from "./source-file";
