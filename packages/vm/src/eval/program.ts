/**
 * Program entry (spec/semantics.md §1.1) and modules.
 *
 * A file is compiled completely before anything runs (so compile errors
 * such as `break outside of loop` are reported first), then executed as the
 * root function of the root task:
 * - pipeline mode: top-level `let`/`var` first, then declarations, then the
 *   entry pipeline's body (parents of `extends` first); other top-level
 *   statements are ignored;
 * - script mode: every top-level item in order.
 *
 * Modules are loaded through a host (the CLI reads files; the vm knows no
 * file system). A module's top-level bindings and declarations run once per
 * interpreter; `import` binds its exported names in the importer. Two
 * imports may not bind one name to two different functions, nor may a
 * module define a function it also re-exports (core-gaps.md §7.10); a
 * module with `pub` items exports them and its `pub import`s.
 */
import type * as A from "@harn/parser";
import { forEachChild } from "@harn/parser";
import { HarnError } from "../errors";
import type { Runtime } from "../runtime";
import { HBuiltinRef, HClosure, type Value } from "../values";
import { type Compiler as CompilerT, CompileError, Compiler } from "./compile";
import { Frame, type FnProto } from "./frame";
import { convertJsError, runBlock } from "./helpers";
import { Interpreter } from "./interpreter";
import type { BlockScope } from "./scope";
import { CANCELLED_TEXT, Task } from "./task";

/** How the vm reaches module sources. */
export interface ModuleHost {
  /** Resolve an import path against the importing file; returns a key
   * (absolute path or `std/...`) or null when it does not exist. */
  resolve(fromFile: string, path: string): string | null;
  /** Source text and parsed program of a resolved module. Parse failures
   * are thrown as errors whose message is the syntax error. */
  load(key: string): A.Program;
}

export interface RunOptions {
  /** Path of the entry file as given (used in error locations). */
  file: string;
  modules?: ModuleHost;
  /** Called with the root task once it exists (Ctrl-C cancels it). */
  onRootTask?: (task: Task) => void;
  /** Run this pipeline instead of the default entry (user test pipelines,
   * cli.md §5.1). */
  entry?: string;
}

interface LoadedModule {
  key: string;
  exports: Map<string, Value>;
  /** Every top-level name, exported or not (for the import error texts). */
  defined: Set<string>;
}

const isFunction = (v: Value | undefined): boolean => v instanceof HClosure || v instanceof HBuiltinRef;

const DECL_KINDS = new Set(["FnDecl", "ToolDecl", "StructDecl", "EnumDecl", "ImplBlock", "InterfaceDecl", "TypeDecl", "SkillDecl", "EvalPackDecl"]);

function unwrap(n: A.Node): A.Node {
  return n.kind === "AttributedDecl" ? unwrap(n.inner) : n;
}

/** A top-level declaration as module initialisation runs it: an eval pack
 * is bound without running its body (workflows.md §4.7). */
function declaration(n: A.Node): A.Node {
  const d = unwrap(n);
  return d.kind === "EvalPackDecl" ? { ...d, body: [], summarize: null } : n;
}

/** Collect enum/interface names and every declared name (late-binding
 * candidates) before compiling: function, tool and struct names, names
 * bound by `let`/`var`/`for` identifier patterns, parameters of functions,
 * closures and interface methods, and `catch` variables. */
function prescan(interp: Interpreter, program: A.Program): void {
  const late = interp.lateNames;
  const params = (ps: readonly A.Param[]) => {
    for (const p of ps) late.add(p.name);
  };
  const visit = (n: A.Node): void => {
    switch (n.kind) {
      case "EnumDecl":
        interp.declareEnum(n.name, n.variants.map((x) => x.name));
        break;
      case "InterfaceDecl":
        interp.interfaces.add(n.name);
        for (const m of n.methods) params(m.params);
        break;
      case "TypeDecl":
        interp.typeAliases.set(n.name, n.type);
        break;
      case "FnDecl":
      case "ToolDecl":
        late.add(n.name);
        params(n.params);
        break;
      case "StructDecl":
      case "SkillDecl":
        late.add(n.name);
        break;
      case "EvalPackDecl":
        late.add(n.bindingName);
        break;
      case "Closure":
        params(n.params);
        break;
      case "LetBinding":
      case "VarBinding":
      case "ForIn":
        if (n.pattern.kind === "ident") late.add(n.pattern.name);
        break;
      case "TryCatch":
        if (n.errorVar !== null) late.add(n.errorVar);
        break;
    }
    forEachChild(n, visit);
  };
  for (const item of program.items) visit(item);
}

export class ProgramRunner {
  readonly interp: Interpreter;
  private readonly modules = new Map<string, LoadedModule>();
  private readonly loading: string[] = [];
  private rootTask: Task | null = null;

  constructor(
    readonly rt: Runtime,
    private readonly opts: RunOptions,
  ) {
    this.interp = new Interpreter(rt);
  }

  /** Compile and run a program; resolves to the entry's value, rejects
   * with the uncaught HarnError (already in its escaped form) or a
   * CompileError. */
  async run(program: A.Program): Promise<Value> {
    const task = new Task("task_root", null, (t) => this.rt.stdout.write(t));
    this.rootTask = task;
    this.opts.onRootTask?.(task);
    try {
      const { proto, inits } = this.compileFile(program, this.opts.file, false);
      const fr = new Frame(proto, task, null, null);
      for (const [slot, v] of inits) fr.s[slot] = v;
      let r = this.interp.runFrame(fr);
      if (r instanceof Promise) r = await r;
      return r as Value;
    } catch (e) {
      e = convertJsError(e);
      if (e instanceof HarnError) throw e.escaped(e.span?.line ?? 0);
      throw e;
    } finally {
      task.cancel(HarnError.thrown(CANCELLED_TEXT));
    }
  }

  /** Cancel the whole program (Ctrl-C, test timeout). */
  cancel(reason: unknown): void {
    this.rootTask?.cancel(reason);
  }

  private compileFile(
    program: A.Program,
    file: string,
    isModule: boolean,
  ): { proto: FnProto; inits: [number, Value][]; c: CompilerT; exported: Set<string> | null; reexported: Map<string, { value: Value; from: string }> } {
    prescan(this.interp, program);
    const c = new Compiler(this.interp, file);
    const proto = c.beginRoot(null, program.span);
    const inits: [number, Value][] = [];
    // 1. imports, in source order. A name an earlier import bound to a
    // function cannot be bound to another one (core-gaps.md §7.10; the same
    // function reached through two paths is fine, a TS decision).
    const imported = new Map<string, Value>();
    const reexported = new Map<string, { value: Value; from: string }>();
    for (const item of program.items) {
      const n = unwrap(item);
      if (n.kind !== "ImportDecl" && n.kind !== "SelectiveImport") continue;
      const mod = this.importModule(file, n.path, n.span);
      const names = n.kind === "SelectiveImport" ? n.names : [...mod.exports.keys()];
      for (const name of names) {
        if (!mod.exports.has(name)) {
          // A `pub import` of a name the module defines but does not export
          // fails in the reference's re-export pass (core-gaps.md §7.10).
          const text = !mod.defined.has(name)
            ? `Import error: '${name}' is not defined in ${mod.key}`
            : n.isPub
              ? `Re-export error: '${name}' is not exported by '${mod.key}'`
              : `Import error: '${name}' is not exported by "${n.path}"`;
          throw located(new CompileError(text, n.span, file));
        }
        const value = mod.exports.get(name)!;
        const earlier = imported.get(name);
        if (isFunction(earlier) && earlier !== value) {
          throw located(
            new CompileError(
              `Import collision: '${name}' is already defined when importing ${mod.key}. Use selective imports to disambiguate: import { ${name} } from "..."`,
              n.span,
              file,
            ),
          );
        }
        imported.set(name, value);
        if (n.isPub) reexported.set(name, { value, from: mod.key });
        this.interp.lateNames.add(name);
        inits.push([c.declareLocal(name, false), value]);
      }
    }
    const items = program.items.filter((i) => {
      const k = unwrap(i).kind;
      return k !== "ImportDecl" && k !== "SelectiveImport";
    });
    const pipelines = items.map(unwrap).filter((n): n is A.Pipeline => n.kind === "Pipeline");
    let exported: Set<string> | null = null;
    if (isModule) {
      // A module runs its bindings and declarations; a module that marks
      // anything `pub` exports only those names.
      const stmts = [...items.filter((i) => isBinding(unwrap(i))), ...items.filter((i) => DECL_KINDS.has(unwrap(i).kind)).map(declaration)];
      const pubs = items
        .map(unwrap)
        .filter((n) => (n as { isPub?: boolean }).isPub === true)
        .flatMap((n) => (n.kind === "EvalPackDecl" ? [n.bindingName] : "name" in n ? [(n as { name: string }).name] : []));
      if (pubs.length > 0) exported = new Set([...pubs, ...reexported.keys()]);
      const ev = c.block(stmts, false);
      proto.body = ev;
      proto.returnsLast = false;
    } else if (pipelines.length > 0) {
      const wanted = this.opts.entry;
      const entry = (wanted !== undefined ? pipelines.find((p) => p.name === wanted) : undefined) ?? pipelines.find((p) => p.name === "default") ?? pipelines[0]!;
      const p1 = items.filter((i) => isBinding(unwrap(i))).map((i) => c.stmt(i));
      const p2 = items.filter((i) => DECL_KINDS.has(unwrap(i).kind)).map((i) => c.stmt(declaration(i)));
      const chain: A.Node[] = [];
      const seen = new Set<string>();
      const addChain = (p: A.Pipeline) => {
        if (seen.has(p.name)) return;
        seen.add(p.name);
        if (p.extends) {
          const parent = pipelines.find((q) => q.name === p.extends);
          if (parent) addChain(parent);
        }
        chain.push(...p.body);
      };
      addChain(entry);
      c.pushScope();
      c.inPipelineRoot = true;
      const body = c.block(chain, true);
      c.inPipelineRoot = false;
      c.popScope();
      const all = [...p1, ...p2, body];
      proto.body = (fr) => runBlock(all, true, fr);
      proto.returnsLast = true;
    } else {
      proto.body = c.block(items, false);
      proto.returnsLast = false;
    }
    c.finishRoot();
    return { proto, inits, c, exported, reexported };
  }

  private importModule(fromFile: string, path: string, span: A.Span): LoadedModule {
    const host = this.opts.modules;
    const key = host ? host.resolve(fromFile, path) : null;
    if (!key) throw located(new CompileError(`Import error: cannot find module "${path}"`, span, fromFile));
    const cached = this.modules.get(key);
    if (cached) return cached;
    if (this.loading.includes(key)) {
      const cycle = [...this.loading.slice(this.loading.indexOf(key)), key].join(" -> ");
      throw located(new CompileError(`Import cycle: ${cycle}`, span, fromFile));
    }
    this.loading.push(key);
    try {
      const program = host!.load(key);
      const { proto, inits, c, exported, reexported } = this.compileFile(program, key, true);
      const fr = new Frame(proto, this.rootTask!, null, null);
      for (const [slot, v] of inits) fr.s[slot] = v;
      const r = this.interp.runFrame(fr);
      if (r instanceof Promise) throw located(new CompileError(`Import error: module "${path}" suspends while loading`, span, fromFile));
      const exports = new Map<string, Value>();
      const root: BlockScope = c.rootScope;
      for (const [name, list] of root.names) {
        if (exported && !exported.has(name)) continue;
        const b = list[list.length - 1]!;
        const value = fr.s[b.slot]!;
        const re = reexported.get(name);
        if (re && re.value !== value && isFunction(value)) {
          throw located(new CompileError(`Re-export collision: '${name}' is defined here and also re-exported from '${re.from}'`, program.span, key));
        }
        exports.set(name, value);
      }
      setHome(proto, fr, root);
      const mod = { key, exports, defined: new Set(root.names.keys()) };
      this.modules.set(key, mod);
      return mod;
    } finally {
      this.loading.pop();
    }
  }
}

function isBinding(n: A.Node): boolean {
  return n.kind === "LetBinding" || n.kind === "VarBinding";
}

function located(e: CompileError): CompileError {
  return e;
}

/** Let a module's functions late-bind the module's own top-level names. */
function setHome(proto: FnProto, fr: Frame, scope: BlockScope): void {
  proto.home.frame = fr;
  proto.home.scope = scope;
}
