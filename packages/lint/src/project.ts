/**
 * The module graph of a lint run (lint.md §1.1, §5.1): which names other
 * files import by name (exempt from `unused-function`), and what each
 * wildcard `import "path"` brings in (known to `undefined-function`).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse } from "@harn/parser";
import type { Node, Program } from "@harn/parser";
import { unwrapAttributes, patternNames } from "./ast-util";

export interface ProjectOptions {
  /** Sources of the bundled `std/...` modules by import path. */
  stdModules?: ReadonlyMap<string, string>;
  /** Read a file's text (tests may stub it); defaults to the filesystem. */
  readFile?: (path: string) => string;
}

interface Module {
  program: Program | null;
}

/** Resolve an import path to a file, relative to the importing file. */
export function resolveImport(fromFile: string, path: string): string | null {
  const base = resolve(dirname(fromFile), path);
  for (const candidate of [base, `${base}.harn`]) {
    try {
      if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
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
        if (n.bindingName) out.push(n.bindingName);
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

export class ProjectGraph {
  /** Names imported by name anywhere in the graph. */
  readonly externallyImported = new Set<string>();
  private readonly modules = new Map<string, Module>();
  private readonly readFile: (path: string) => string;

  constructor(private readonly options: ProjectOptions = {}) {
    this.readFile = options.readFile ?? ((p) => readFileSync(p, "utf8"));
  }

  /** Add a linted file (already parsed) and, transitively, what it imports. */
  addFile(file: string, program: Program): void {
    const key = resolve(file);
    if (this.modules.get(key)?.program) return;
    this.modules.set(key, { program });
    this.scanImports(key, program);
  }

  private scanImports(file: string, program: Program): void {
    for (const item of program.items) {
      if (item.kind === "SelectiveImport") for (const n of item.names) this.externallyImported.add(n);
      if (item.kind === "SelectiveImport" || item.kind === "ImportDecl") {
        if (item.path.startsWith("std/")) continue;
        const target = resolveImport(file, item.path);
        if (target) this.load(target);
      }
    }
  }

  private load(path: string): Program | null {
    const known = this.modules.get(path);
    if (known) return known.program;
    this.modules.set(path, { program: null }); // cycles end here
    let program: Program | null = null;
    try {
      const r = parse(this.readFile(path), { file: path });
      if (r.errors.length === 0) program = r.program;
    } catch {
      program = null;
    }
    this.modules.set(path, { program });
    if (program) this.scanImports(path, program);
    return program;
  }

  /** What each wildcard import of `file` brings in (null: unknown). */
  wildcardExports(file: string, program: Program): Map<string, string[] | null> {
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
    const target = resolveImport(resolve(file), path);
    const p = target ? this.load(target) : null;
    return p ? moduleExports(p) : null;
  }
}
