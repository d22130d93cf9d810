/**
 * The module graph of a lint run (lint.md §1.1, §5.1): which names other
 * files import by name (exempt from `unused-function`), and what each
 * wildcard `import "path"` brings in (known to `undefined-function`).
 */
import { readFileSync, statSync } from "node:fs";
import { dirname, resolve, sep } from "node:path";
import { parse } from "@harn/parser";
import type { Node, Program } from "@harn/parser";
import { parseForLint, unwrapAttributes, patternNames } from "./ast-util";
import { handleSummaries, importedSummaries, type HandleSummary } from "./handles/summaries";
import type { ModuleFacts } from "./types";

/** Binding values that run nothing when a module loads. */
const LITERALS = new Set(["IntLiteral", "FloatLiteral", "StringLiteral", "RawStringLiteral", "BoolLiteral", "NilLiteral", "DurationLiteral"]);

export interface ProjectOptions {
  /** Sources of the bundled `std/...` modules by import path. */
  stdModules?: ReadonlyMap<string, string>;
  /** Read a file's text (tests may stub it); defaults to the filesystem. */
  readFile?: (path: string) => string;
  /** The run sees most files' bytes before it lints them (file-reader.ts)
   * and hands them to `noteImportsAhead`: a linted file's handle summaries
   * are then worked out only when some file may import it (see
   * `addFile`). */
  importsAhead?: boolean;
}

/** Import paths in a file's text, found without parsing it: a module
 * imported only through a path this misses still gets its summaries, just
 * later (`deferred`). */
const IMPORT_PATH = /\bimport\s*(?:\{[^}]*\}\s*from\s*)?"([^"]*)"/g;
const IMPORT_BYTES = Buffer.from("import");

/** The name a module file is known by in import paths: its last path
 * component without `.harn` (null when a path ends oddly: `.`, `..`). */
function stem(path: string): string | null {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 47) end--;
  const name = path.slice(path.lastIndexOf("/", end - 1) + 1, end);
  const bare = name.endsWith(".harn") ? name.slice(0, -".harn".length) : name;
  return bare === "" || bare === "." || bare === ".." ? null : bare;
}

/** An absolute, normalised POSIX path (what the CLI hands over) is its own
 * `resolve`: skipping the call is a few percent of linting a small file. */
const NOT_NORMAL = /\/\.\.?(?:\/|$)|\/\/|.\/$/;
export function absolute(file: string): string {
  return sep === "/" && file.charCodeAt(0) === 47 && !NOT_NORMAL.test(file) ? file : resolve(file);
}

/** Resolve an import path to a file, relative to the importing file. */
export function resolveImport(fromFile: string, path: string): string | null {
  const base = resolve(dirname(fromFile), path);
  for (const candidate of [base, `${base}.harn`]) {
    try {
      if (statSync(candidate, { throwIfNoEntry: false })?.isFile()) return candidate;
    } catch {
      // unreadable: not resolvable
    }
  }
  return null;
}

/** Names a module makes available to a wildcard import: every top-level
 * declaration (generous on purpose: a missed warning beats a false one). */
export function moduleExports(p: Program): string[] {
  const out: string[] = [];
  for (const item of p.items) {
    const n: Node = unwrapAttributes(item);
    switch (n.kind) {
      case "FnDecl":
      case "ToolDecl":
      case "Pipeline":
      case "StructDecl":
      case "EnumDecl":
      case "SkillDecl":
      case "InterfaceDecl":
      case "TypeDecl":
        out.push(n.name);
        break;
      case "EvalPackDecl":
        out.push(n.bindingName);
        break;
      case "LetBinding":
      case "VarBinding":
        out.push(...patternNames(n.pattern));
        break;
      case "SelectiveImport":
        out.push(...n.names);
        break;
      default:
        break;
    }
  }
  return out;
}

/** What a file without imports gets from the graph (most files of a large
 * run: one map fewer each). */
const NO_SUMMARIES: ReadonlyMap<string, HandleSummary> = new Map();
const NO_EXPORTS: ReadonlyMap<string, string[] | null> = new Map();

function hasImports(program: Program): boolean {
  for (const item of program.items) if (item.kind === "ImportDecl" || item.kind === "SelectiveImport") return true;
  return false;
}

/**
 * Built file by file: each added file contributes its selective imports to
 * `externallyImported`, and the files it imports are read, parsed and
 * summarised (their exports) on first use. Only names are kept, never
 * syntax trees, so a large run does not hold every file in memory.
 */
export class ProjectGraph {
  /** Names imported by name anywhere in the graph so far. */
  readonly externallyImported = new Set<string>();
  /** Exports of every module seen (null: did not parse). */
  private readonly exports = new Map<string, string[] | null>();
  /** Handle summaries of every imported module seen (handles/summaries.ts). */
  private readonly summaries = new Map<string, ReadonlyMap<string, HandleSummary>>();
  /** Linted files whose summaries are not worked out yet: their text.
   * Worked out later, they come out as they would have when the file was
   * added: every module it imports was loaded (and summarised) by then,
   * since files are added one at a time, never while another loads; only
   * the file itself was not, and `summariesOf` does not see it either. */
  private readonly deferred = new Map<string, string>();
  /** Linted files without imports that no import path seen so far can
   * name (most of a large run): their text, and nothing else yet. What
   * the graph knows of such a file (exports, facts, summaries) depends on
   * its text alone, so it is worked out the same on first use (`load`)
   * as when the file was added. */
  private readonly unread = new Map<string, string>();
  /** With `importsAhead`: the stems (`stem`) of every import path seen so
   * far, in files parsed or noted ahead; null once one could not be told. */
  private importedStems: Set<string> | null = new Set();
  /** Each module's resolved imports and the names it imports by name. */
  private readonly imports = new Map<string, { targets: string[]; names: string[] }>();
  /** What importing each module seen gives and does. */
  private readonly facts = new Map<string, ModuleFacts>();
  private readonly readFile: (path: string) => string;

  /** `resolveImport` by importing directory and path: a module is
   * imported from many files, and each import is looked at several times. */
  private readonly resolved = new Map<string, string | null>();

  constructor(private readonly options: ProjectOptions = {}) {
    this.readFile = options.readFile ?? ((p) => readFileSync(p, "utf8"));
  }

  private resolveFrom(file: string, path: string): string | null {
    const from = absolute(file);
    const key = `${dirname(from)}\0${path}`;
    let target = this.resolved.get(key);
    if (target === undefined) this.resolved.set(key, (target = resolveImport(from, path)));
    return target;
  }

  /** Add a linted file (already parsed from `source`) and, transitively,
   * what it imports. */
  addFile(file: string, program: Program, source?: string): void {
    const key = absolute(file);
    if (this.exports.get(key) || this.unread.has(key)) return;
    // another linted file may import this one. Most files of a large run
    // are imported by none, and summaries were an eighth of linting 9,000
    // small ones: when no import path seen so far, up to a thousand files
    // ahead, can name this file, it is summarised only if one later does
    // (parsed again then), and without imports of its own nothing else
    // about it is worked out either.
    const stems = this.importedStems;
    const later = this.options.importsAhead === true && source !== undefined && stems !== null && !stems.has(stem(key) ?? "");
    if (later && !hasImports(program)) {
      this.unread.set(key, source);
      return;
    }
    this.exports.set(key, moduleExports(program));
    this.scanImports(key, program);
    this.facts.set(key, this.factsOf(key, program));
    if (later) {
      this.deferred.set(key, source);
      return;
    }
    this.summaries.set(key, handleSummaries(program, this.importedHandles(key, program)));
  }

  /** With `importsAhead`: the bytes of a file the run will lint later. */
  noteImportsAhead(bytes: Buffer): void {
    if (this.importedStems === null || bytes.indexOf(IMPORT_BYTES) === -1) return;
    for (const m of bytes.toString("utf8").matchAll(IMPORT_PATH)) this.noteImportPath(m[1]!);
  }

  private noteImportPath(path: string): void {
    const s = stem(path);
    if (s === null) this.importedStems = null;
    else this.importedStems?.add(s);
  }

  /** The handle summaries of a module seen, worked out now if deferred. */
  private summariesOf(key: string): ReadonlyMap<string, HandleSummary> | null {
    const known = this.summaries.get(key);
    if (known !== undefined) return known;
    const source = this.deferred.get(key);
    if (source === undefined) return null;
    this.deferred.delete(key);
    const program = parseForLint(source, key).program;
    const summaries = handleSummaries(program, this.importedHandles(key, program));
    this.summaries.set(key, summaries);
    return summaries;
  }

  private scanImports(file: string, program: Program): void {
    const targets: string[] = [];
    const names: string[] = [];
    for (const item of program.items) {
      if (item.kind === "SelectiveImport") names.push(...item.names);
      if ((item.kind === "SelectiveImport" || item.kind === "ImportDecl") && !item.path.startsWith("std/")) {
        if (this.options.importsAhead) this.noteImportPath(item.path);
        const target = this.resolveFrom(file, item.path);
        if (target) targets.push(target);
        // a wildcard import uses every name the module exports: none of
        // them is unused, or renamed by a fix
        const exported = target ? this.load(target) : null;
        if (item.kind === "ImportDecl") names.push(...(exported ?? []));
      }
    }
    for (const n of names) this.externallyImported.add(n);
    this.imports.set(file, { targets, names });
  }

  /** The modules `file` imports, transitively, and the names it and they
   * import by name (what it adds to `externallyImported`): what a cached
   * result of `file` depends on, and what it contributes. */
  closure(file: string): { files: string[]; names: string[] } {
    const key = absolute(file);
    const files = new Set<string>();
    const names = new Set<string>();
    const visit = (k: string): void => {
      const own = this.imports.get(k);
      if (!own) return;
      for (const n of own.names) names.add(n);
      for (const t of own.targets) {
        if (t === key || files.has(t)) continue;
        files.add(t);
        visit(t);
      }
    };
    visit(key);
    return { files: [...files], names: [...names] };
  }

  /** Exports and effects of a parsed module (the runtime's rules,
   * vm eval/program.ts: a module runs its bindings and declarations, and
   * one that marks anything `pub` exports only those names). */
  private factsOf(file: string, program: Program): ModuleFacts {
    const pubs: string[] = [];
    const all: string[] = [];
    let pure = true;
    for (const item of program.items) {
      const n = unwrapAttributes(item);
      if (n.kind === "ImportDecl" || n.kind === "SelectiveImport") {
        if (!(this.moduleAt(file, n.path)?.pure ?? false)) pure = false;
        if (n.kind === "SelectiveImport") all.push(...n.names);
        continue;
      }
      if (n.kind === "LetBinding" || n.kind === "VarBinding") {
        all.push(...patternNames(n.pattern));
        if (!LITERALS.has(n.value.kind)) pure = false;
        continue;
      }
      if ("name" in n && typeof n.name === "string") {
        all.push(n.name);
        if ((n as { isPub?: boolean }).isPub === true) pubs.push(n.name);
      }
    }
    return { exports: new Set(pubs.length > 0 ? pubs : all), pure };
  }

  /** The module `path` names from `file`: its facts, or null when it does
   * not resolve or parse. */
  moduleAt(file: string, path: string): ModuleFacts | null {
    if (path.startsWith("std/")) {
      const known = this.facts.get(path);
      if (known) return known;
      const src = this.options.stdModules?.get(path);
      if (src === undefined) return null;
      const r = parse(src, { file: path });
      if (r.errors.length > 0) return null;
      const facts = this.factsOf(path, r.program);
      this.facts.set(path, facts);
      return facts;
    }
    const target = this.resolveFrom(file, path);
    if (!target) return null;
    this.load(target);
    return this.facts.get(target) ?? null;
  }

  private load(path: string): string[] | null {
    const known = this.exports.get(path);
    if (known !== undefined) return known;
    this.exports.set(path, null); // cycles end here
    const text = this.unread.get(path);
    if (text !== undefined) this.unread.delete(path);
    // a linted file parsed, within this thread's depth (addFile)
    const program = text !== undefined ? parseForLint(text, path).program : this.readModule(path);
    const names = program ? moduleExports(program) : null;
    this.exports.set(path, names);
    if (program) {
      this.scanImports(path, program);
      this.facts.set(path, this.factsOf(path, program));
      this.summaries.set(path, handleSummaries(program, this.importedHandles(path, program)));
    }
    return names;
  }

  /** A module no file of the run lints, read from disk; null when it
   * cannot be read or does not parse. */
  private readModule(path: string): Program | null {
    try {
      // Not parseForLint: MAX_NESTING keeps a module read here within what
      // this thread's recursive walks (summaries, facts) can take; a
      // longer chain is an unknown module, as one that does not parse.
      const r = parse(this.readFile(path), { file: path });
      return r.errors.length === 0 ? r.program : null;
    } catch {
      return null;
    }
  }

  /** Handle summaries of the functions `file` imports, by the names it
   * imports them as (std/ modules and unresolvable imports have none). */
  importedHandles(file: string, program: Program): ReadonlyMap<string, HandleSummary> {
    if (!hasImports(program)) return NO_SUMMARIES;
    return importedSummaries(program, (path) => {
      if (path.startsWith("std/")) return null;
      const target = this.resolveFrom(file, path);
      if (!target) return null;
      this.load(target);
      return this.summariesOf(target);
    });
  }

  /** What each wildcard import of `file` brings in (null: unknown). */
  wildcardExports(file: string, program: Program): ReadonlyMap<string, string[] | null> {
    if (!hasImports(program)) return NO_EXPORTS;
    const out = new Map<string, string[] | null>();
    for (const item of program.items) {
      if (item.kind !== "ImportDecl") continue;
      out.set(item.path, this.exportsOf(file, item.path));
    }
    return out;
  }

  private exportsOf(file: string, path: string): string[] | null {
    if (path.startsWith("std/")) {
      const src = this.options.stdModules?.get(path);
      if (src === undefined) return null;
      try {
        const r = parse(src, { file: path });
        return r.errors.length === 0 ? moduleExports(r.program) : null;
      } catch {
        return null;
      }
    }
    const target = this.resolveFrom(file, path);
    return target ? this.load(target) : null;
  }
}
