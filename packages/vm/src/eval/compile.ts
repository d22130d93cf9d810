/**
 * Closure compilation: each AST node is turned once into a JS closure
 * `(frame) => value | Promise<value> | Ctl`. Names are resolved to frame
 * slots here (scope.ts); only late-bound names are looked up at run time.
 *
 * Conventions:
 * - expression closures return a value or a promise of one;
 * - statement closures may also return a control signal (control.ts);
 * - errors are thrown `HarnError`s carrying the span of the failing
 *   operation (for a binary operator: its right operand, §8.12).
 */
import type * as A from "@harn/parser";
import { forEachChild } from "@harn/parser";
import { HarnError } from "../errors";
import * as ops from "../ops";
import type { BuiltinFn, MethodFn } from "../runtime";
import {
  HClosure,
  HDict,
  HDuration,
  HEnum,
  HFloat,
  HStruct,
  type CodePoints,
  type Value,
  display,
  equals,
  err,
  isResult,
  normBig,
  ok,
  truthy,
  typeOf,
} from "../values";
import { BRK, CONT, Ctl, RET, TailCall } from "./control";
import { ClosureImpl, type Ev, FnProto, Frame, type ModuleHome, type ParamInfo, Site } from "./frame";
import { fastBinary, isFastOp, type Operand } from "./fastops";
import { convertJsError, evalArgs, intern, located, runBlock, spreadDict, thenMaybe as then } from "./helpers";
import type { Interpreter } from "./interpreter";
import { BlockScope, FnScope } from "./scope";
import { CallSiteIC, LoopState, shaped } from "./shape";
import { lowerToolDecl } from "./tooldecl";

/** A compile-time error reported before anything runs (§10). */
export class CompileError extends Error {
  constructor(
    message: string,
    readonly span: A.Span,
    readonly file: string,
  ) {
    super(message);
  }
}

/** The empty block and the nil literal (shared: never given a shape). */
export const NIL_EV: Ev = () => null;

/** Statement kinds whose value is the block value when they come last. */
const VALUE_STATEMENTS = new Set<string>([
  "IfElse",
  "MatchExpr",
  "TryCatch",
  "TryExpr",
  "TryStar",
  "Parallel",
  "SpawnExpr",
  "DeadlineBlock",
  "SelectExpr",
]);
const NON_VALUE = new Set<string>([
  "LetBinding",
  "VarBinding",
  "Assignment",
  "ReturnStmt",
  "ThrowStmt",
  "BreakStmt",
  "ContinueStmt",
  "GuardStmt",
  "RequireStmt",
  "DeferStmt",
  "MutexBlock",
  "Retry",
  "YieldExpr",
  "EmitExpr",
  "ForIn",
  "WhileLoop",
  "FnDecl",
  "ToolDecl",
  "SkillDecl",
  "EvalPackDecl",
  "StructDecl",
  "EnumDecl",
  "TypeDecl",
  "InterfaceDecl",
  "ImplBlock",
  "ImportDecl",
  "SelectiveImport",
  "OverrideDecl",
  "AttributedDecl",
  "Pipeline",
]);

function isValueStatement(n: A.Node): boolean {
  return VALUE_STATEMENTS.has(n.kind) || !NON_VALUE.has(n.kind);
}

/** Statements that handle control signals of their own blocks directly. */
const BLOCK_STATEMENTS = new Set<string>([
  "IfElse",
  "MatchExpr",
  "TryCatch",
  "ForIn",
  "WhileLoop",
  "Retry",
  "DeadlineBlock",
  "MutexBlock",
  "GuardStmt",
  "ReturnStmt",
  "BreakStmt",
  "ContinueStmt",
  "SelectExpr",
  "DeferStmt",
]);

const FUNCTION_KINDS = new Set(["FnDecl", "Closure", "ToolDecl", "Pipeline", "SpawnExpr", "Parallel", "ImplBlock", "PipePlaceholder"]);

/** Whether `n` holds a node of one of `kinds`; nested functions (including
 * `n` itself when it is one) are opaque unless `crossFunctions`. */
function containsKind(n: A.Node, kinds: Set<string>, crossFunctions = false): boolean {
  if (!crossFunctions && FUNCTION_KINDS.has(n.kind)) return false;
  let found = false;
  const walk = (c: A.Node) => {
    if (found) return;
    if (kinds.has(c.kind)) {
      found = true;
      return;
    }
    if (!crossFunctions && FUNCTION_KINDS.has(c.kind)) return;
    forEachChild(c, walk);
  };
  forEachChild(n, walk);
  return found;
}

const CTL_KINDS = new Set(["ReturnStmt", "BreakStmt", "ContinueStmt"]);
const TRY_OP = new Set(["TryOperator"]);
const YIELD_KINDS = new Set(["YieldExpr", "EmitExpr"]);

interface LoopCtx {
  /** Inside a loop of the current function (break/continue allowed). */
  inLoop: boolean;
  /** Inside a try with finally (tail calls disabled). */
  inFinallyTry: boolean;
  /** The scope just outside the innermost loop: every binding declared
   * below it lives in slots that each iteration reuses. */
  loopOuter?: BlockScope | null;
}

export class Compiler {
  private fs!: FnScope;
  private scope!: BlockScope;
  private loop: LoopCtx = { inLoop: false, inFinallyTry: false };
  readonly counter = { order: 0 };
  readonly home: ModuleHome = { frame: null, scope: null };

  constructor(
    readonly interp: Interpreter,
    readonly file: string,
  ) {}

  // -------------------------------------------------------------------------
  // Functions

  /** Start compiling a function whose creation point is the current scope. */
  private enterFn(proto: FnProto, outer: BlockScope | null): { fs: FnScope; scope: BlockScope; loop: LoopCtx } {
    const saved = { fs: this.fs, scope: this.scope, loop: this.loop };
    this.fs = new FnScope(proto, outer, this.counter);
    this.scope = new BlockScope(this.fs, null);
    this.loop = { inLoop: false, inFinallyTry: false };
    return saved;
  }

  private leaveFn(saved: { fs: FnScope; scope: BlockScope; loop: LoopCtx }): void {
    this.fs.proto.setSlots(this.fs.nslots);
    this.fs = saved.fs;
    this.scope = saved.scope;
    this.loop = saved.loop;
  }

  /** The top-level function of a file (script body or pipeline entry). */
  beginRoot(name: string | null, span: A.Span): FnProto {
    const proto = new FnProto(name, this.file, span);
    proto.home = this.home;
    this.enterFn(proto, null);
    return proto;
  }

  finishRoot(): void {
    this.fs.proto.setSlots(this.fs.nslots);
  }

  get rootScope(): BlockScope {
    return this.scope;
  }

  /** Open a nested block scope for the pipeline body etc. */
  pushScope(): BlockScope {
    this.scope = new BlockScope(this.fs, this.scope);
    return this.scope;
  }

  popScope(): void {
    this.scope = this.scope.parent!;
  }

  /** Declare a binding in the current scope; returns its slot. */
  declareLocal(name: string, mutable: boolean): number {
    return this.scope.declare(name, mutable).slot;
  }

  compileFunction(
    name: string | null,
    params: A.Param[],
    body: A.Node[],
    span: A.Span,
    opts: { returnsLast: boolean; allowRest: boolean; stream?: boolean },
  ): FnProto {
    const proto = new FnProto(name, this.file, span);
    proto.interfaces = this.interp.interfaces;
    proto.home = this.home;
    proto.returnsLast = opts.returnsLast;
    const isGen = body.some((s) => YIELD_KINDS.has(s.kind) || containsKind(s, YIELD_KINDS));
    if (opts.stream) proto.generator = "stream";
    else if (isGen) proto.generator = "generator";
    const saved = this.enterFn(proto, this.scope);
    try {
      const infos: ParamInfo[] = [];
      // Parameters live in the function's root scope; defaults are compiled
      // in order so a default can see earlier parameters.
      for (let i = 0; i < params.length; i++) {
        const p = params[i]!;
        const rest = p.rest && opts.allowRest;
        const def = p.default ? this.expr(p.default) : null;
        const b = this.scope.declare(p.name, false);
        if (p.name === "_") this.scope.names.delete("_");
        infos.push({ name: p.name, slot: b.slot, def, rest, type: p.type, span: p.span });
        if (rest && proto.restIndex < 0) proto.restIndex = i;
        if (p.type) proto.typed = true;
      }
      proto.params = infos;
      proto.paramSlots = infos.map((p) => p.slot);
      proto.simple = proto.generator === "none" && !proto.typed && infos.every((p) => p.def === null && !p.rest);
      this.pushScope();
      // A trailing `return EXPR` (not a tail call) becomes the block's value:
      // the common `fn f(x) { return x + 1 }` then needs no return signal.
      const last = body.length > 0 ? body[body.length - 1]! : null;
      if (
        proto.generator === "none" &&
        last !== null &&
        last.kind === "ReturnStmt" &&
        last.value !== null &&
        !(last.value.kind === "FunctionCall" && !SPECIAL_CALLS.has(last.value.name)) &&
        !(last.value.kind === "BinaryOp" && last.value.op === "|>")
      ) {
        const ret = last.value;
        proto.body = this.block([...body.slice(0, -1), ret], true);
        proto.returnsLast = true;
      } else {
        proto.body = this.block(body, opts.returnsLast || proto.generator !== "none");
      }
      proto.source = proto.body;
      if (proto.generator === "none") proto.body = this.interp.jit.tierBody(proto);
      this.popScope();
    } finally {
      this.leaveFn(saved);
    }
    return proto;
  }

  /** Build the closure value for a compiled prototype at run time. */
  makeClosure(proto: FnProto): Ev {
    const from = proto.captureFrom;
    const n = from.length;
    const names = proto.displayParams;
    return (fr) => {
      const captured = new Array<Value>(n);
      for (let i = 0; i < n; i++) captured[i] = fr.s[from[i]!]!;
      return new HClosure(proto.name, names, new ClosureImpl(proto, captured));
    };
  }

  // -------------------------------------------------------------------------
  // Blocks and statements

  /** Compile statements in a fresh block scope. */
  scopedBlock(stmts: A.Node[], lastValue: boolean): Ev {
    this.pushScope();
    try {
      return this.block(stmts, lastValue);
    } finally {
      this.popScope();
    }
  }

  /** Compile statements in the current scope. */
  block(stmts: A.Node[], lastValue: boolean): Ev {
    const evs: Ev[] = [];
    for (const s of stmts) evs.push(this.stmt(s));
    const useLast = lastValue && stmts.length > 0 && isValueStatement(stmts[stmts.length - 1]!);
    if (evs.length === 0) return NIL_EV;
    const lastKind = stmts[stmts.length - 1]!.kind;
    // A block ending in return/break/continue/throw yields a signal or
    // throws: its last statement's result can be passed on as is.
    const passLast = useLast || lastKind === "ReturnStmt" || lastKind === "BreakStmt" || lastKind === "ContinueStmt" || lastKind === "ThrowStmt";
    const shape = { k: "block", evs, useLast } as const;
    if (evs.length === 1) {
      const e0 = evs[0]!;
      if (passLast) return e0;
      return shaped((fr) => {
        const r = e0(fr);
        if (r instanceof Promise) return nilUnlessCtl(r);
        return r instanceof Ctl ? r : null;
      }, shape);
    }
    if (evs.length === 2 && passLast) {
      // Unrolled: the common `if … { return … }` + last statement body.
      const e0 = evs[0]!;
      const e1 = evs[1]!;
      return shaped((fr) => {
        const r = e0(fr);
        if (r instanceof Promise) return runBlockFrom(r, evs, true, fr);
        if (r instanceof Ctl) return r;
        return e1(fr);
      }, shape);
    }
    return shaped((fr) => runBlock(evs, useLast, fr), shape);
  }

  stmt(n: A.Node): Ev {
    const ev = this.stmtInner(n);
    // A control signal thrown from expression position (`?`, or a
    // `return` inside an `if` used as a value) becomes this statement's
    // result again.
    const needsCatch = containsKind(n, TRY_OP) || (!BLOCK_STATEMENTS.has(n.kind) && containsKind(n, CTL_KINDS));
    if (!needsCatch) return ev;
    return (fr) => {
      let r;
      try {
        r = ev(fr);
      } catch (e) {
        if (e instanceof Ctl) return e;
        throw e;
      }
      if (r instanceof Promise) return r.catch((e) => {
        if (e instanceof Ctl) return e;
        throw e;
      });
      return r;
    };
  }

  private stmtInner(n: A.Node): Ev {
    switch (n.kind) {
      case "LetBinding":
      case "VarBinding":
        return this.binding(n.pattern, n.value, n.kind === "VarBinding", n.span);
      case "Assignment":
        return this.assignment(n);
      case "IfElse":
        return this.ifElse(n);
      case "WhileLoop":
        return this.whileLoop(n);
      case "ForIn":
        return this.forIn(n);
      case "MatchExpr":
        return this.match(n);
      case "TryCatch":
        return this.tryCatch(n);
      case "ReturnStmt":
        return this.returnStmt(n);
      case "ThrowStmt": {
        const v = this.expr(n.value);
        const span = n.span;
        const file = this.file;
        return (fr) =>
          then(v(fr), (x) => {
            throw located(HarnError.thrown(x), span, file);
          });
      }
      case "BreakStmt":
        if (!this.loop.inLoop) throw new CompileError("break outside of loop", n.span, this.file);
        return shaped(() => BRK, { k: "break" });
      case "ContinueStmt":
        if (!this.loop.inLoop) throw new CompileError("continue outside of loop", n.span, this.file);
        return shaped(() => CONT, { k: "continue" });
      case "GuardStmt": {
        const c = this.expr(n.condition);
        const body = this.scopedBlock(n.elseBody, false);
        const orElse = (fr: Frame, x: Value): any => {
          if (truthy(x)) return null;
          const r = body(fr);
          if (r instanceof Promise) return r.then((y) => (y instanceof Ctl ? y : null));
          return r instanceof Ctl ? r : null;
        };
        return (fr) => {
          const x = c(fr);
          return x instanceof Promise ? x.then((y) => orElse(fr, y)) : orElse(fr, x);
        };
      }
      case "RequireStmt": {
        const c = this.expr(n.condition);
        const m = n.message ? this.expr(n.message) : null;
        const span = n.span;
        const file = this.file;
        return (fr) =>
          then(c(fr), (x) => {
            if (truthy(x)) return null;
            if (!m) throw located(HarnError.thrown("require condition failed"), span, file);
            return then(m(fr), (msg) => {
              throw located(HarnError.thrown(msg), span, file);
            });
          });
      }
      case "DeferStmt": {
        // A defer registered inside a loop keeps that iteration's bindings
        // (the loop variable, the body's locals): later iterations reuse
        // their slots, so the values are put back before the body runs.
        const reused = this.iterationSlots();
        // A `return` in the body must not become a tail call: the defer
        // runs as the function is leaving.
        const savedFT = this.loop.inFinallyTry;
        this.loop.inFinallyTry = true;
        let body: Ev;
        try {
          body = this.scopedBlock(n.body, false);
        } finally {
          this.loop.inFinallyTry = savedFT;
        }
        if (reused.length === 0) {
          return (fr) => {
            (fr.defers ??= []).push(body);
            return null;
          };
        }
        return (fr) => {
          const saved = reused.map((slot) => fr.s[slot]!);
          (fr.defers ??= []).push((f: Frame) => {
            for (let i = 0; i < reused.length; i++) f.s[reused[i]!] = saved[i]!;
            return body(f);
          });
          return null;
        };
      }
      case "FnDecl":
        return this.fnDecl(n);
      case "ToolDecl": {
        // The handler is a closure (agents.md §2.4): without a `return` it
        // gives its last statement's value, as the spec's example relies on.
        const proto = this.compileFunction(n.name, n.params, n.body, n.span, { returnsLast: true, allowRest: true });
        proto.isTool = true;
        const mk = this.makeClosure(proto);
        const slot = this.scope.declare(n.name, false).slot;
        const interp = this.interp;
        return (fr) =>
          then(lowerToolDecl(n, mk(fr) as HClosure, interp.ctx(fr, null)), (reg) => {
            fr.s[slot] = reg;
            return null;
          });
      }
      case "StructDecl":
        return this.structDecl(n);
      case "EnumDecl":
        this.interp.declareEnum(n.name, n.variants.map((v) => v.name));
        return NIL_EV;
      case "ImplBlock":
        return this.implBlock(n);
      case "AttributedDecl":
        return this.stmtInner(n.inner);
      case "SkillDecl":
        return this.stmtInner(skillBinding(n));
      case "TypeDecl":
      case "InterfaceDecl":
      case "EvalPackDecl":
      case "OverrideDecl":
      case "Pipeline":
        return NIL_EV;
      case "ImportDecl":
      case "SelectiveImport":
        // imports are processed before the program runs (interpreter.ts)
        return NIL_EV;
      case "MutexBlock":
        return this.interp.concurrency.compileMutex(this, n);
      case "DeadlineBlock":
        return this.interp.concurrency.compileDeadline(this, n);
      case "Retry":
        return this.retry(n);
      case "SelectExpr":
        return this.interp.concurrency.compileSelect(this, n);
      default:
        return this.exprOrBlockValue(n);
    }
  }

  /** Expressions in statement position: block-bearing expressions keep
   * their control signals (they are handled by the enclosing block). */
  private exprOrBlockValue(n: A.Node): Ev {
    switch (n.kind) {
      case "TryExpr":
      case "Parallel":
      case "SpawnExpr":
      case "YieldExpr":
      case "EmitExpr":
        return this.exprInner(n);
    }
    return this.expr(n);
  }

  // -------------------------------------------------------------------------
  // Bindings and patterns

  private binding(p: A.Pattern, value: A.Node, mutable: boolean, span: A.Span): Ev {
    const v = this.expr(value);
    if (p.kind === "ident") {
      if (p.name === "_") return (fr) => then(v(fr), () => null);
      const own = this.scope.own(p.name);
      if (own && !own.mutable && !mutable) {
        const name = p.name;
        const file = this.file;
        return (fr) =>
          then(v(fr), () => {
            throw located(
              HarnError.runtime(`Cannot redeclare immutable variable '${name}' in the same scope (use 'var' for mutable bindings)`),
              span,
              file,
            );
          });
      }
      const slot = this.scope.declare(p.name, mutable).slot;
      return shaped((fr) => {
        const x = v(fr);
        if (x instanceof Promise) return storeAsync(x, fr, slot);
        fr.s[slot] = x;
        return null;
      }, { k: "store", slot, value: v });
    }
    const bind = this.pattern(p, mutable);
    const done = (r: unknown) => (r instanceof Promise ? r.then(() => null) : null);
    return (fr) => {
      const x = v(fr);
      return x instanceof Promise ? x.then((y) => done(bind(fr, y))) : done(bind(fr, x));
    };
  }

  /** Compile a destructuring pattern: `(fr, value) => void | Promise`. */
  pattern(p: A.Pattern, mutable: boolean): (fr: Frame, v: Value) => unknown {
    const file = this.file;
    switch (p.kind) {
      case "ident": {
        if (p.name === "_") return () => undefined;
        const slot = this.scope.declare(p.name, mutable).slot;
        return (fr, v) => {
          fr.s[slot] = v;
        };
      }
      case "pair": {
        const a = p.first === "_" ? -1 : this.scope.declare(p.first, mutable).slot;
        const b = p.second === "_" ? -1 : this.scope.declare(p.second, mutable).slot;
        const span = p.span;
        return (fr, v) => {
          try {
            const x = ops.getProperty(v, "first", false);
            const y = ops.getProperty(v, "second", false);
            if (a >= 0) fr.s[a] = x;
            if (b >= 0) fr.s[b] = y;
          } catch (e) {
            throw located(e, span, file);
          }
        };
      }
      case "dict": {
        const fields = p.fields.map((f) => {
          const def = f.default ? this.expr(f.default) : null;
          const name = f.rest ? f.key : (f.alias ?? f.key);
          const slot = name === "_" ? -1 : this.scope.declare(name, mutable).slot;
          return { key: f.key, rest: f.rest, def, slot };
        });
        const span = p.span;
        return (fr, v) => {
          let d: HDict;
          try {
            d = spreadDict(v);
          } catch (e) {
            throw located(e, span, file);
          }
          const taken = new Set<string>();
          const run = (i: number): unknown => {
            for (; i < fields.length; i++) {
              const f = fields[i]!;
              if (f.rest) {
                const m = new Map<string, Value>();
                for (const [k, x] of d.map) if (!taken.has(k)) m.set(k, x);
                if (f.slot >= 0) fr.s[f.slot] = new HDict(m);
                continue;
              }
              taken.add(f.key);
              let x = d.get(f.key);
              if (x === null && f.def) {
                const r = f.def(fr);
                if (r instanceof Promise) {
                  const k = i;
                  return r.then((y) => {
                    if (f.slot >= 0) fr.s[f.slot] = y;
                    return run(k + 1);
                  });
                }
                x = r;
              }
              if (f.slot >= 0) fr.s[f.slot] = x;
            }
            return undefined;
          };
          return run(0);
        };
      }
      case "list": {
        const elems = p.elements.map((e) => {
          const def = e.default ? this.expr(e.default) : null;
          const slot = e.name === "_" ? -1 : this.scope.declare(e.name, mutable).slot;
          return { rest: e.rest, def, slot };
        });
        const span = p.span;
        return (fr, v) => {
          if (!Array.isArray(v)) throw located(HarnError.type(`cannot destructure ${typeOf(v)} with [...] pattern — expected list`), span, file);
          const run = (i: number): unknown => {
            for (; i < elems.length; i++) {
              const e = elems[i]!;
              if (e.rest) {
                if (e.slot >= 0) fr.s[e.slot] = v.slice(i);
                continue;
              }
              let x: Value = i < v.length ? v[i]! : null;
              if (x === null && e.def) {
                const r = e.def(fr);
                if (r instanceof Promise) {
                  const k = i;
                  return r.then((y) => {
                    if (e.slot >= 0) fr.s[e.slot] = y;
                    return run(k + 1);
                  });
                }
                x = r;
              }
              if (e.slot >= 0) fr.s[e.slot] = x;
            }
            return undefined;
          };
          return run(0);
        };
      }
    }
  }

  // -------------------------------------------------------------------------
  // Assignment (§5.3)

  private assignment(n: A.Assignment): Ev {
    const file = this.file;
    const value = this.expr(n.value);
    const opFn = n.op ? binaryFn(n.op) : null;
    const span = n.value.span;
    // Flatten the target path: root identifier + steps.
    type Step = { kind: "prop"; name: string } | { kind: "index"; ev: Ev };
    const steps: Step[] = [];
    let t: A.Node = n.target;
    for (;;) {
      if (t.kind === "PropertyAccess") {
        steps.unshift({ kind: "prop", name: t.property });
        t = t.object;
      } else if (t.kind === "SubscriptAccess") {
        steps.unshift({ kind: "index", ev: this.expr(t.index) });
        t = t.object;
      } else break;
    }
    if (t.kind !== "Identifier") {
      // `f().x = 1`: evaluate for effects, assign nothing.
      const root = this.expr(t);
      return (fr) => then(value(fr), () => then(root(fr), () => null));
    }
    const name = t.name;
    const b = this.scope.resolve(name);
    const tspan = t.span;
    if (steps.length === 0) {
      if (!b) {
        return (fr) =>
          then(value(fr), () => {
            throw located(HarnError.undefinedVariable(name), tspan, file);
          });
      }
      if (!b.mutable) {
        return (fr) =>
          then(value(fr), () => {
            throw located(HarnError.immutable(name), tspan, file);
          });
      }
      const slot = b.slot;
      if (!opFn) {
        return shaped((fr) => {
          const x = value(fr);
          if (x instanceof Promise) return storeAsync(x, fr, slot);
          fr.s[slot] = x;
          return null;
        }, { k: "store", slot, value });
      }
      const op = n.op;
      const update = (fr: Frame, x: Value): null => {
        const cur = fr.s[slot]!;
        if (op === "+" && typeof cur === "number" && typeof x === "number") {
          const r = cur + x;
          if (Number.isSafeInteger(r)) {
            fr.s[slot] = r;
            return null;
          }
        }
        try {
          fr.s[slot] = opFn(cur, x);
        } catch (e) {
          throw located(e, span, file);
        }
        return null;
      };
      return shaped((fr) => {
        const x = value(fr);
        return x instanceof Promise ? applyAsync(x, fr, update) : update(fr, x);
      }, { k: "update", slot, op: op!, value, update });
    }
    // Path assignment: `a.b[i] = v` rebuilds the path and rebinds `a`.
    return (fr) =>
      then(value(fr), (x) => {
        // Evaluate indices left to right after the value (§4.13).
        const keys: Value[] = [];
        const evalKeys = (i: number): unknown => {
          for (; i < steps.length; i++) {
            const s = steps[i]!;
            if (s.kind === "prop") keys.push(s.name);
            else {
              const r = s.ev(fr);
              if (r instanceof Promise) {
                const k = i;
                return r.then((y) => {
                  keys.push(y);
                  return evalKeys(k + 1);
                });
              }
              keys.push(r);
            }
          }
          return undefined;
        };
        return then(evalKeys(0), () => {
          if (!b) return null; // unknown root: silently ignored
          try {
            const root = fr.s[b.slot]!;
            // Walk down, remembering each container.
            const chain: Value[] = [root];
            for (let i = 0; i < steps.length - 1; i++) {
              const c = chain[i]!;
              chain.push(steps[i]!.kind === "prop" ? ops.getProperty(c, keys[i] as string, false) : ops.getIndex(c, keys[i]!));
            }
            const last = steps.length - 1;
            let nv: Value = x;
            if (opFn) {
              const cur = steps[last]!.kind === "prop" ? ops.getProperty(chain[last]!, keys[last] as string, false) : ops.getIndex(chain[last]!, keys[last]!);
              nv = opFn(cur, x);
            }
            for (let i = last; i >= 0; i--) {
              const c = chain[i]!;
              if (steps[i]!.kind === "prop") nv = ops.setProperty(c, keys[i] as string, nv);
              else {
                const r = ops.setIndex(c, keys[i]!, nv);
                if (r === undefined) return null; // silently ignored
                nv = r;
              }
            }
            if (!b.mutable) throw HarnError.immutable(name);
            fr.s[b.slot] = nv;
          } catch (e) {
            throw located(e, n.target.span, file);
          }
          return null;
        });
      });
  }

  // -------------------------------------------------------------------------
  // Control flow

  private ifElse(n: A.IfElse): Ev {
    const c = this.expr(n.condition);
    const thenB = this.scopedBlock(n.thenBody, true);
    const elseB = n.elseBody ? this.scopedBlock(n.elseBody, true) : null;
    return shaped((fr) => {
      const x = c(fr);
      if (x === true) return thenB(fr);
      if (x instanceof Promise) return ifAsync(x, fr, thenB, elseB);
      return x !== false && truthy(x) ? thenB(fr) : elseB ? elseB(fr) : null;
    }, { k: "if", c, then: thenB, else: elseB });
  }

  private withLoop<T>(f: () => T, outer: BlockScope = this.scope): T {
    const saved = this.loop.inLoop;
    const savedOuter = this.loop.loopOuter;
    this.loop.inLoop = true;
    this.loop.loopOuter = outer;
    try {
      return f();
    } finally {
      this.loop.inLoop = saved;
      this.loop.loopOuter = savedOuter;
    }
  }

  /** Slots of the bindings visible here that a later loop iteration will
   * overwrite (declared below the innermost loop's outer scope). */
  private iterationSlots(): number[] {
    const outer = this.loop.loopOuter;
    if (!this.loop.inLoop || !outer) return [];
    const slots: number[] = [];
    for (let s: BlockScope | null = this.scope; s && s !== outer; s = s.parent) {
      for (const list of s.names.values()) for (const b of list) slots.push(b.slot);
    }
    return slots;
  }

  private whileLoop(n: A.WhileLoop): Ev {
    const c = this.expr(n.condition);
    const body = this.withLoop(() => this.scopedBlock(n.body, false));
    const interp = this.interp;
    const loop = new LoopState(interp.jit.loopThreshold);
    // Phases: 0 evaluate the condition; 1 condition value in `v`, run the
    // body; 2 body result in `v`. Suspensions return to the async driver,
    // which resumes this same synchronous loop at the right phase. Once the
    // loop is hot, phase 0 continues in its generated version (jit.ts),
    // which keeps the same contract: all loop state lives in frame slots.
    const run = (fr: Frame, phase: number, v: any): any => {
      for (;;) {
        if (phase === 0) {
          if (loop.jit !== null) return loop.jit(fr);
          v = c(fr);
          if (v instanceof Promise) return new Suspend(v, 1);
          phase = 1;
        }
        if (phase === 1) {
          if (!(v === true || (v !== false && truthy(v)))) return null;
          v = body(fr);
          if (v instanceof Promise) return new Suspend(v, 2);
        }
        if (v instanceof Ctl) {
          if (v === BRK) return null;
          if (v !== CONT) return v;
        }
        if (++interp.ticks >= 1024) {
          const y = interp.slowTick(fr.task);
          if (y) return new Suspend(y, 0);
        }
        if (loop.countdown > 0 && --loop.countdown === 0) interp.jit.compileLoop(shape);
        phase = 0;
      }
    };
    const shape = { k: "while", c, body, loop, run } as const;
    return shaped((fr) => {
      const r = run(fr, 0, null);
      return r instanceof Suspend ? drive(r, (phase, v) => run(fr, phase, v)) : r;
    }, shape);
  }

  private forIn(n: A.ForIn): Ev {
    const iterable = this.expr(n.iterable);
    const outer = this.scope;
    this.pushScope();
    let bind: (fr: Frame, v: Value) => unknown;
    let body: Ev;
    try {
      bind = this.pattern(n.pattern, true);
      body = this.withLoop(() => this.scopedBlock(n.body, false), outer);
    } finally {
      this.popScope();
    }
    const interp = this.interp;
    const file = this.file;
    const span = n.iterable.span;
    return (fr) =>
      then(iterable(fr), (src) => {
        let stepper;
        try {
          stepper = interp.iterate(src, fr);
        } catch (e) {
          throw located(e, span, file);
        }
        return runForLoop(stepper, bind, body, fr, interp);
      });
  }

  private match(n: A.MatchExpr): Ev {
    const value = this.expr(n.value);
    const arms = n.arms.map((arm) => {
      this.pushScope();
      try {
        const test = this.matchPattern(arm.pattern);
        const guard = arm.guard ? this.expr(arm.guard) : null;
        const body = this.scopedBlock(arm.body, true);
        return { test, guard, body };
      } finally {
        this.popScope();
      }
    });
    const file = this.file;
    const span = n.span;
    const tryArms = (fr: Frame, v: Value, i: number): any => {
      for (; i < arms.length; i++) {
        const arm = arms[i]!;
        let ok = arm.test(fr, v);
        if (ok instanceof Promise) {
          const k = i;
          return ok.then((y) => (y ? afterTest(fr, v, k) : tryArms(fr, v, k + 1)));
        }
        if (!ok) continue;
        return afterTest(fr, v, i);
      }
      throw located(HarnError.thrown("No match arm matched the value"), span, file);
    };
    const afterTest = (fr: Frame, v: Value, i: number): any => {
      const arm = arms[i]!;
      if (!arm.guard) return arm.body(fr);
      const g = arm.guard(fr);
      if (g instanceof Promise) return g.then((y) => (truthy(y) ? arm.body(fr) : tryArms(fr, v, i + 1)));
      return truthy(g) ? arm.body(fr) : tryArms(fr, v, i + 1);
    };
    return (fr) => {
      const v = value(fr);
      return v instanceof Promise ? v.then((x) => tryArms(fr, x, 0)) : tryArms(fr, v, 0);
    };
  }

  /** Match-arm pattern (§6.5): `(fr, v) => boolean | Promise<boolean>`. */
  private matchPattern(p: A.Node): (fr: Frame, v: Value) => boolean | Promise<boolean> {
    const interp = this.interp;
    if (p.kind === "Identifier") {
      if (p.name === "_") return () => true;
      const slot = this.scope.declare(p.name, false).slot;
      return (fr, v) => {
        fr.s[slot] = v;
        return true;
      };
    }
    if (p.kind === "PropertyAccess" && p.object.kind === "Identifier" && this.isEnumName(p.object.name)) {
      const en = p.object.name;
      const vn = p.property;
      return (_fr, v) => v instanceof HEnum && v.enumName === en && v.variant === vn;
    }
    if (p.kind === "MethodCall" && p.object.kind === "Identifier" && this.isEnumName(p.object.name)) {
      const en = p.object.name;
      const vn = p.method;
      const slots = p.args.map((a) => (a.kind === "Identifier" && a.name !== "_" ? this.scope.declare(a.name, false).slot : -1));
      return (fr, v) => {
        if (!(v instanceof HEnum) || v.enumName !== en || v.variant !== vn) return false;
        for (let i = 0; i < slots.length; i++) {
          const s = slots[i]!;
          if (s >= 0) fr.s[s] = i < v.fields.length ? v.fields[i]! : null;
        }
        return true;
      };
    }
    if (p.kind === "DictLiteral" && p.entries.every((e) => !e.computed && e.key.kind === "StringLiteral")) {
      const entries = p.entries.map((e) => {
        const key = (e.key as A.StringLiteral).value;
        if (e.value.kind === "Identifier") {
          const slot = e.value.name === "_" ? -1 : this.scope.declare(e.value.name, false).slot;
          return { key, slot, ev: null as Ev | null };
        }
        return { key, slot: -1, ev: this.expr(e.value) };
      });
      return (fr, v) => {
        if (!(v instanceof HDict)) return false;
        return checkEntries(fr, entries.map((e) => ({ got: v.get(e.key), slot: e.slot, ev: e.ev })), 0);
      };
    }
    if (p.kind === "ListLiteral" && p.elements.every((e) => e.kind !== "Spread")) {
      const elems = p.elements.map((e) => {
        if (e.kind === "Identifier") {
          const slot = e.name === "_" ? -1 : this.scope.declare(e.name, false).slot;
          return { slot, ev: null as Ev | null };
        }
        return { slot: -1, ev: this.expr(e) };
      });
      const n = elems.length;
      return (fr, v) => {
        if (!Array.isArray(v) || v.length < n) return false;
        return checkEntries(fr, elems.map((e, i) => ({ got: v[i]!, slot: e.slot, ev: e.ev })), 0);
      };
    }
    if (p.kind === "OrPattern") {
      const alts = p.alternatives.map((a) => this.expr(a));
      return (fr, v) => {
        const step = (i: number): boolean | Promise<boolean> => {
          for (; i < alts.length; i++) {
            const x = alts[i]!(fr);
            if (x instanceof Promise) {
              const k = i;
              return x.then((y) => (equals(v, y) ? true : step(k + 1)));
            }
            if (equals(v, x)) return true;
          }
          return false;
        };
        return step(0);
      };
    }
    void interp;
    const ev = this.expr(p);
    return (fr, v) => then(ev(fr), (x) => equals(v, x));
  }

  isEnumName(name: string): boolean {
    return this.interp.enumNames.has(name) && !this.scope.resolve(name);
  }

  private tryCatch(n: A.TryCatch): Ev {
    const finallyB = n.finallyBody ? this.scopedBlock(n.finallyBody, false) : null;
    const savedFT = this.loop.inFinallyTry;
    if (finallyB) this.loop.inFinallyTry = true;
    const body = this.scopedBlock(n.body, true);
    this.loop.inFinallyTry = savedFT;
    const hasCatch = n.errorVar !== null || n.catchBody.length > 0 || (n.hasCatchClause && n.finallyBody === null);
    let handler: Ev | null = null;
    let errSlot = -1;
    let typeName: string | null = null;
    if (hasCatch) {
      this.pushScope();
      if (finallyB) this.loop.inFinallyTry = true;
      try {
        if (n.errorVar !== null && n.errorVar !== "_") errSlot = this.scope.declare(n.errorVar, false).slot;
        handler = this.block(n.catchBody, true);
      } finally {
        this.popScope();
        this.loop.inFinallyTry = savedFT;
      }
      if (n.errorType && n.errorType.kind === "Named") typeName = n.errorType.name;
    }
    const catches = (e: unknown): e is HarnError => {
      if (!(e instanceof HarnError) || !handler) return false;
      if (typeName === null) return true;
      // [extension] `catch (e: dict)`: errors that come as dicts.
      if (typeName === "dict") return e.dictForm() !== null;
      return e.kind === "thrown" && e.value instanceof HEnum && e.value.enumName === typeName;
    };
    const runHandler = (fr: Frame, e: HarnError): any => {
      if (errSlot >= 0) fr.s[errSlot] = typeName === "dict" ? e.dictForm() : e.caughtValue();
      return handler!(fr);
    };
    const withCatch = (fr: Frame): any => {
      let r;
      try {
        r = body(fr);
      } catch (e) {
        e = convertJsError(e);
        if (catches(e)) return runHandler(fr, e);
        throw e;
      }
      if (r instanceof Promise)
        return r.catch((e) => {
          e = convertJsError(e);
          return catches(e) ? runHandler(fr, e) : Promise.reject(e);
        });
      return r;
    };
    if (!finallyB) return withCatch;
    const runFinally = (fr: Frame, outcome: any, failed: boolean, error: unknown): any => {
      const f = finallyB(fr);
      const finish = (fv: any) => {
        if (fv instanceof Ctl) return fv; // a transfer out of finally wins
        if (failed) throw error;
        return outcome;
      };
      return f instanceof Promise ? f.then(finish) : finish(f);
    };
    return (fr) => {
      let r;
      try {
        r = withCatch(fr);
      } catch (e) {
        return runFinally(fr, null, true, e);
      }
      if (r instanceof Promise)
        return r.then(
          (v) => runFinally(fr, v, false, null),
          (e) => runFinally(fr, null, true, e),
        );
      return runFinally(fr, r, false, null);
    };
  }

  private returnStmt(n: A.ReturnStmt): Ev {
    if (!n.value) {
      return shaped((fr) => {
        fr.ret = null;
        return RET;
      }, { k: "return", value: null });
    }
    const v = n.value;
    // Tail calls (§7.6): `return f(args)` and `return x |> f`.
    if (!this.loop.inFinallyTry && this.fs.proto.generator === "none") {
      if (v.kind === "FunctionCall" && !SPECIAL_CALLS.has(v.name)) {
        const call = this.functionCall(v, true);
        return (fr) => {
          const r = call(fr);
          if (r instanceof Promise)
            return r.then((x) => {
              if (x instanceof TailCall) return x;
              fr.ret = x;
              return RET;
            });
          if (r instanceof TailCall) return r;
          fr.ret = r;
          return RET;
        };
      }
    }
    if (!this.loop.inFinallyTry && this.fs.proto.generator === "none" && v.kind === "BinaryOp" && v.op === "|>" && v.right.kind !== "PipePlaceholder") {
      const l = this.expr(v.left);
      const r = this.expr(v.right);
      const interp = this.interp;
      const site = this.site(v.span);
      const file = this.file;
      const span = v.right.span;
      const pipe = (fr: Frame, x: Value, f: Value): any => {
        if (f instanceof HClosure && fr.defers === null && f.impl.native === null) return new TailCall(f, [x], fr, site);
        try {
          return interp.pipeInto(fr, x, f, site);
        } catch (e) {
          throw located(e, span, file);
        }
      };
      return (fr) =>
        then(l(fr), (x) =>
          then(r(fr), (f) =>
            then(pipe(fr, x, f), (y: any) => {
              if (y instanceof TailCall) return y;
              fr.ret = y;
              return RET;
            }),
          ),
        );
    }
    const e = this.expr(v);
    return shaped((fr) => {
      const x = e(fr);
      if (x instanceof Promise) return returnAsync(x, fr);
      fr.ret = x;
      return RET;
    }, { k: "return", value: e });
  }

  private retry(n: A.Retry): Ev {
    const count = this.expr(n.count);
    const body = this.scopedBlock(n.body, false);
    return (fr) =>
      then(count(fr), (c) => {
        const max = typeof c === "number" && c > 0 ? c : 1;
        const attempt = (i: number): any => {
          let r;
          try {
            r = body(fr);
          } catch (e) {
            e = convertJsError(e);
            if (e instanceof HarnError && i + 1 < max) return attempt(i + 1);
            throw e;
          }
          if (r instanceof Promise)
            return r.then(
              (x) => (x instanceof Ctl ? x : null),
              (e) => {
                e = convertJsError(e);
                if (e instanceof HarnError && i + 1 < max) return attempt(i + 1);
                throw e;
              },
            );
          return r instanceof Ctl ? r : null;
        };
        return attempt(0);
      });
  }

  // -------------------------------------------------------------------------
  // Declarations

  private fnDecl(n: A.FnDecl): Ev {
    const proto = this.compileFunction(n.name, n.params, n.body, n.span, { returnsLast: false, allowRest: true, stream: n.isStream });
    const mk = this.makeClosure(proto);
    const slot = this.scope.declare(n.name, false).slot;
    return shaped((fr) => {
      fr.s[slot] = mk(fr);
      return null;
    }, { k: "sync" });
  }

  private structDecl(n: A.StructDecl): Ev {
    const fields = n.fields.map((f) => f.name);
    this.interp.structs.set(n.name, fields);
    const name = n.name;
    const proto = new FnProto(name, this.file, n.span);
    proto.params = [{ name: "fields", slot: 0, def: null, rest: false, type: null, span: n.span }];
    const ctor = new HClosure(name, ["fields"], new ClosureImpl(proto, [], (args) => buildStruct(name, fields, args[0] ?? null)));
    const slot = this.scope.declare(n.name, false).slot;
    return (fr) => {
      fr.s[slot] = ctor;
      return null;
    };
  }

  private implBlock(n: A.ImplBlock): Ev {
    const methods = n.methods.map((m) => ({
      name: m.name,
      mk: this.makeClosure(this.compileFunction(m.name, m.params, m.body, m.span, { returnsLast: false, allowRest: true })),
    }));
    const typeName = n.typeName;
    const interp = this.interp;
    return (fr) => {
      for (const m of methods) interp.defineImplMethod(typeName, m.name, m.mk(fr) as HClosure);
      return null;
    };
  }

  // -------------------------------------------------------------------------
  // Expressions

  /** Compile an expression; a block-bearing expression that produces a
   * control signal in value position throws it (see `stmt`). */
  expr(n: A.Node): Ev {
    switch (n.kind) {
      case "IfElse":
      case "MatchExpr":
      case "TryCatch":
      case "TryExpr":
      case "Retry":
      case "DeadlineBlock":
      case "SelectExpr":
      case "MutexBlock": {
        const inner = this.stmtInner(n);
        return (fr) => {
          const r = inner(fr);
          if (r instanceof Promise)
            return r.then((x) => {
              if (x instanceof Ctl) throw x;
              return x;
            });
          if (r instanceof Ctl) throw r;
          return r;
        };
      }
    }
    return this.exprInner(n);
  }

  private exprInner(n: A.Node): Ev {
    const file = this.file;
    switch (n.kind) {
      case "IntLiteral": {
        const v = normBig(n.value);
        return shaped(() => v, { k: "lit", v });
      }
      case "FloatLiteral": {
        const v = new HFloat(n.value);
        return shaped(() => v, { k: "lit", v });
      }
      case "StringLiteral":
      case "RawStringLiteral": {
        const v = n.value;
        return shaped(() => v, { k: "lit", v });
      }
      case "BoolLiteral": {
        const v = n.value;
        return shaped(() => v, { k: "lit", v });
      }
      case "NilLiteral":
        return NIL_EV;
      case "DurationLiteral": {
        const v = new HDuration(Number(n.ms));
        return shaped(() => v, { k: "lit", v });
      }
      case "InterpolatedString":
        return this.interpolation(n);
      case "Identifier":
        return this.identifier(n);
      case "ListLiteral": {
        const evs = n.elements.map((e) => this.expr(e.kind === "Spread" ? e.expr : e));
        const spread = n.elements.some((e) => e.kind === "Spread") ? n.elements.map((e) => e.kind === "Spread") : null;
        const span = n.span;
        const ev: Ev = (fr) => {
          try {
            return evalArgs(evs, spread, fr);
          } catch (e) {
            throw located(e, span, file);
          }
        };
        return spread === null ? shaped(ev, { k: "list", elems: evs }) : ev;
      }
      case "DictLiteral":
        return this.dictLiteral(n.entries, n.span);
      case "StructConstruct": {
        const dict = this.dictLiteral(n.fields, n.span);
        const name = n.structName;
        const interp = this.interp;
        return (fr) =>
          then(dict(fr), (d) => {
            const fields = interp.structs.get(name);
            if (fields) return buildStruct(name, fields, d);
            return new HStruct(name, new Map((d as HDict).map));
          });
      }
      case "Closure": {
        const proto = this.compileFunction(null, n.params, n.body, n.span, { returnsLast: true, allowRest: false });
        return shaped(this.makeClosure(proto), { k: "sync", proto });
      }
      case "FunctionCall":
        return this.functionCall(n, false);
      case "MethodCall":
      case "OptionalMethodCall":
        return this.methodCall(n);
      case "PropertyAccess":
      case "OptionalPropertyAccess": {
        if (n.kind === "PropertyAccess" && n.object.kind === "Identifier" && this.isEnumName(n.object.name)) {
          const v = new HEnum(n.object.name, n.property, []);
          return shaped(() => v, { k: "lit", v });
        }
        const obj = this.expr(n.object);
        const name = n.property;
        const optional = n.kind === "OptionalPropertyAccess";
        const span = n.propertySpan;
        const codePoints = this.interp.rt.codePoints;
        return shaped((fr) => {
          const o = obj(fr);
          if (o instanceof Promise) return o.then((x) => prop(x, name, optional, span, file, codePoints));
          return prop(o, name, optional, span, file, codePoints);
        }, { k: "prop", obj, name, slow: (o) => prop(o, name, optional, span, file, codePoints) });
      }
      case "SubscriptAccess":
      case "OptionalSubscriptAccess": {
        const obj = this.expr(n.object);
        const idx = this.expr(n.index);
        const optional = n.kind === "OptionalSubscriptAccess";
        const span = n.index.span;
        const codePoints = this.interp.rt.codePoints;
        const get = (o: Value, i: Value) => {
          if (optional && o === null) return null;
          if (Array.isArray(o) && typeof i === "number" && i >= 0) return i < o.length ? o[i]! : null;
          try {
            return ops.getIndex(o, i, codePoints);
          } catch (e) {
            throw located(e, span, file);
          }
        };
        return shaped((fr) => {
          const o = obj(fr);
          if (o instanceof Promise) return o.then((x) => then(idx(fr), (i) => get(x, i)));
          const i = idx(fr);
          if (i instanceof Promise) return i.then((y) => get(o, y));
          return get(o, i);
        }, { k: "index", obj, idx, get });
      }
      case "SliceAccess": {
        const obj = this.expr(n.object);
        const s = n.start ? this.expr(n.start) : NIL_EV;
        const e = n.end ? this.expr(n.end) : NIL_EV;
        const span = n.span;
        return (fr) =>
          then(evalArgs([obj, s, e], null, fr), ([o, a, b]) => {
            try {
              return ops.slice(o!, a!, b!);
            } catch (x) {
              throw located(x, span, file);
            }
          });
      }
      case "BinaryOp":
        return this.binary(n);
      case "UnaryOp": {
        const a = this.expr(n.operand);
        const span = n.operand.span;
        if (n.op === "!")
          return shaped((fr) => {
            const x = a(fr);
            return x instanceof Promise ? x.then((y) => !truthy(y)) : !truthy(x);
          }, { k: "not", a });
        const negate = (x: Value): Value => {
          if (typeof x === "number" && x !== 0) return -x;
          try {
            return ops.neg(x);
          } catch (e) {
            throw located(e, span, file);
          }
        };
        return shaped((fr) => {
          const x = a(fr);
          return x instanceof Promise ? x.then(negate) : negate(x);
        }, { k: "neg", a, negate });
      }
      case "Ternary": {
        const c = this.expr(n.condition);
        const a = this.expr(n.thenExpr);
        const b = this.expr(n.elseExpr);
        return shaped((fr) => {
          const x = c(fr);
          if (x instanceof Promise) return x.then((y) => (truthy(y) ? a(fr) : b(fr)));
          return truthy(x) ? a(fr) : b(fr);
        }, { k: "ternary", c, a, b });
      }
      case "RangeExpr": {
        const a = this.expr(n.start);
        const b = this.expr(n.end);
        const inclusive = n.inclusive;
        return (fr) => {
          const x = a(fr);
          if (x instanceof Promise) return x.then((p) => then(b(fr), (q) => ops.makeRange(p, q, inclusive)));
          const y = b(fr);
          if (y instanceof Promise) return y.then((q) => ops.makeRange(x, q, inclusive));
          return ops.makeRange(x, y, inclusive);
        };
      }
      case "TryOperator": {
        const a = this.expr(n.operand);
        const span = n.span;
        const unwrapOk = (fr: Frame, x: Value): Value => {
          if (isResult(x)) {
            if (x.variant === "Ok") return x.fields[0] ?? null;
            fr.ret = x;
            throw RET;
          }
          throw located(HarnError.type(`? operator requires a Result value, got ${typeOf(x)}`), span, file);
        };
        return (fr) => {
          const x = a(fr);
          return x instanceof Promise ? x.then((y) => unwrapOk(fr, y)) : unwrapOk(fr, x);
        };
      }
      case "TryStar": {
        if (this.fs.outer === null && this.fs.proto.name === null && !this.inPipelineRoot) {
          throw new CompileError("try* requires an enclosing function (fn, tool, or pipeline) so the rethrow has a target", n.span, file);
        }
        return this.expr(n.operand);
      }
      case "TryExpr": {
        const body = this.scopedBlock(n.body, true);
        const wrap = (v: any) => (v instanceof Ctl ? v : isResult(v) ? v : ok(v));
        const fail = (e: unknown) => {
          e = convertJsError(e);
          if (e instanceof HarnError) return err(e.caughtValue());
          throw e;
        };
        return (fr) => {
          let r;
          try {
            r = body(fr);
          } catch (e) {
            return fail(e);
          }
          if (r instanceof Promise) return r.then(wrap, fail);
          return wrap(r);
        };
      }
      case "PipePlaceholder": {
        const proto = this.compileFunction(null, [{ name: n.param, type: null, default: null, rest: false, span: n.span }], [n.body], n.span, {
          returnsLast: true,
          allowRest: false,
        });
        return this.makeClosure(proto);
      }
      case "Spread":
        throw new CompileError("spread (...) can only be used inside list literals, dict literals, or function call arguments", n.span, file);
      case "OrPattern": {
        const first = this.expr(n.alternatives[0]!);
        return first;
      }
      case "SpawnExpr":
        return this.interp.concurrency.compileSpawn(this, n);
      case "Parallel":
        return this.interp.concurrency.compileParallel(this, n);
      case "YieldExpr":
      case "EmitExpr": {
        const v = n.value ? this.expr(n.value) : NIL_EV;
        const interp = this.interp;
        return (fr) => then(v(fr), (x) => interp.yieldValue(fr, x));
      }
      case "Pipeline":
      case "FnDecl":
      case "ToolDecl":
      case "SkillDecl":
      case "EvalPackDecl":
      case "StructDecl":
      case "EnumDecl":
      case "TypeDecl":
      case "InterfaceDecl":
      case "ImplBlock":
      case "ImportDecl":
      case "SelectiveImport":
      case "OverrideDecl":
      case "AttributedDecl":
      case "LetBinding":
      case "VarBinding":
      case "Assignment":
      case "ForIn":
      case "WhileLoop":
      case "ReturnStmt":
      case "ThrowStmt":
      case "BreakStmt":
      case "ContinueStmt":
      case "GuardStmt":
      case "RequireStmt":
      case "DeferStmt":
      case "IfElse":
      case "MatchExpr":
      case "TryCatch":
      case "MutexBlock":
      case "DeadlineBlock":
      case "Retry":
      case "SelectExpr":
        // statements and block-bodied expressions: the statement compiler gives their value
        return this.stmtInner(n);
      default: {
        const never: never = n;
        throw new Error(`compile: unknown node ${(never as A.Node).kind}`);
      }
    }
  }

  /** True while compiling a pipeline body (try* allowed at its top level). */
  inPipelineRoot = false;

  private identifier(n: A.Identifier): Ev {
    const name = intern(n.name);
    const file = this.file;
    const span = n.span;
    if (name === "_") {
      return () => {
        throw located(HarnError.undefinedVariable("_"), span, file);
      };
    }
    const b = this.scope.resolve(name);
    if (b) {
      const slot = b.slot;
      return shaped((fr) => fr.s[slot]!, { k: "slot", slot });
    }
    const site = this.site(span);
    const interp = this.interp;
    return shaped((fr) => {
      try {
        return interp.lookupName(fr, name, site);
      } catch (e) {
        throw located(e, span, file);
      }
    }, { k: "sync" });
  }

  site(span: A.Span | null): Site {
    return new Site(this.scope, this.counter.order + 1, span);
  }

  private interpolation(n: A.InterpolatedString): Ev {
    const parts: (string | Ev)[] = [];
    for (const seg of n.segments) {
      if (seg.kind === "text") parts.push(seg.text);
      else if (seg.expr) parts.push(this.expr(seg.expr));
    }
    const run = (fr: Frame, i: number, acc: string): string | Promise<string> => {
      for (; i < parts.length; i++) {
        const p = parts[i]!;
        if (typeof p === "string") acc += p;
        else {
          const v = p(fr);
          if (v instanceof Promise) {
            const k = i;
            const a = acc;
            return v.then((x) => run(fr, k + 1, a + display(x)));
          }
          acc += typeof v === "string" ? v : display(v);
        }
      }
      return acc;
    };
    const file = this.file;
    const span = n.span;
    return shaped((fr) => {
      try {
        return run(fr, 0, "");
      } catch (e) {
        throw located(e, span, file);
      }
    }, { k: "interp", parts, span, file });
  }

  private dictLiteral(entries: A.DictEntry[], span: A.Span): Ev {
    const file = this.file;
    const items = entries.map((e) => {
      if (e.value.kind === "Spread") return { spread: true, key: null as Ev | null, lit: "", value: this.expr(e.value.expr) };
      if (!e.computed && (e.key.kind === "StringLiteral" || e.key.kind === "RawStringLiteral")) return { spread: false, key: null, lit: e.key.value, value: this.expr(e.value) };
      return { spread: false, key: this.expr(e.key), lit: "", value: this.expr(e.value) };
    });
    return (fr) => {
      const m = new Map<string, Value>();
      const run = (i: number): HDict | Promise<HDict> => {
        for (; i < items.length; i++) {
          const it = items[i]!;
          if (it.spread) {
            const v = it.value(fr);
            if (v instanceof Promise) {
              const k = i;
              return v.then((x) => {
                addSpread(m, x, span, file);
                return run(k + 1);
              });
            }
            addSpread(m, v, span, file);
            continue;
          }
          let key: string = it.lit;
          if (it.key) {
            const kv = it.key(fr);
            if (kv instanceof Promise) {
              const k = i;
              return kv.then((x) => then(it.value(fr), (v) => {
                m.set(typeof x === "string" ? x : display(x), v);
                return run(k + 1);
              }));
            }
            key = typeof kv === "string" ? kv : display(kv);
          }
          const v = it.value(fr);
          if (v instanceof Promise) {
            const k = i;
            return v.then((x) => {
              m.set(key, x);
              return run(k + 1);
            });
          }
          m.set(key, v);
        }
        return new HDict(m);
      };
      return run(0);
    };
  }

  // -------------------------------------------------------------------------
  // Calls

  private args(args: A.Node[]): { evs: Ev[]; spread: boolean[] | null } {
    const evs = args.map((a) => this.expr(a.kind === "Spread" ? a.expr : a));
    const spread = args.some((a) => a.kind === "Spread") ? args.map((a) => a.kind === "Spread") : null;
    return { evs, spread };
  }

  functionCall(n: A.FunctionCall, tail: boolean): Ev {
    const { evs, spread } = this.args(n.args);
    this.lowerAliasArg(n, evs);
    // Interned: late-bound names are compared with the frames' cached name
    // on every call.
    const name = intern(n.name);
    const b = this.scope.resolve(name);
    const site = this.site(n.span);
    const interp = this.interp;
    const file = this.file;
    const span = n.span;
    const slot = b ? b.slot : -1;
    const special = SPECIAL_CALLS.has(name);
    const resolve = (fr: Frame): HClosure | null => {
      if (slot >= 0) {
        const v = fr.s[slot]!;
        if (v instanceof HClosure) return v;
      }
      if (special) return null;
      // The frame's one-entry cache first (recursion through a late-bound
      // name hits it on every call).
      return fr.ck === name ? (fr.cv as HClosure | null) : interp.lookupDyn(fr, name);
    };
    let builtin: BuiltinFn | null = null;
    const ic = new CallSiteIC();
    const call = (fr: Frame, fn: HClosure | null, args: Value[]): any => {
      if (fn !== null) {
        if (tail && fr.defers === null && fn.impl.native === null) return new TailCall(fn, args, fr, site);
        return interp.callClosure(fn, args, fr, site);
      }
      if (builtin === null) builtin = interp.builtinFor(name);
      ic.builtin = true;
      if (builtin !== null) return interp.invokeBuiltin(builtin, name, fr, args, site);
      return interp.callBuiltinByName(fr, name, args, site);
    };
    const generic = (fr: Frame, fn: HClosure | null): any => {
      let args;
      try {
        args = evalArgs(evs, spread, fr);
      } catch (e) {
        throw located(e, span, file);
      }
      if (args instanceof Promise) return args.then((a) => call(fr, fn, a));
      return call(fr, fn, args);
    };
    if (spread !== null) return (fr) => generic(fr, resolve(fr));
    const nargs = evs.length;
    // Direct calls of simple closures evaluate the arguments straight into
    // the callee's parameter slots: no argument array, no binding loop.
    const finishAsync = async (fr: Frame, nf: Frame, i: number, pending: Promise<Value>): Promise<any> => {
      const ps = nf.proto.paramSlots;
      for (;;) {
        const v = await pending;
        if (i < ps.length) nf.s[ps[i]!] = v;
        if (++i >= nargs) break;
        const r = evs[i]!(fr);
        pending = r instanceof Promise ? r : Promise.resolve(r);
      }
      return interp.enterBound(nf, fr, site);
    };
    const ev: Ev = (fr) => {
      const fn = resolve(fr);
      if (fn !== null && !(tail && fr.defers === null)) {
        const impl = fn.impl;
        const proto = impl.proto;
        if (proto.simple && impl.native === null) {
          if (ic.proto !== proto) ic.see(proto);
          const nf = new Frame(proto, fr.task, fr, site);
          interp.inheritLate(nf, fr, site);
          const s = nf.s;
          const to = proto.captureTo;
          const cap = impl.captured;
          for (let i = 0; i < to.length; i++) s[to[i]!] = cap[i]!;
          const ps = proto.paramSlots;
          const np = ps.length;
          for (let i = 0; i < nargs; i++) {
            const v = evs[i]!(fr);
            if (v instanceof Promise) return finishAsync(fr, nf, i, v);
            if (i < np) s[ps[i]!] = v;
          }
          return interp.enterBound(nf, fr, site);
        }
      }
      if (fn === null && nargs === 1) {
        // Builtins take one argument most often: no argument-list growth.
        const x = evs[0]!(fr);
        if (!(x instanceof Promise)) return call(fr, null, [x]);
        return callOneAsync(fr, x, call);
      }
      return generic(fr, fn);
    };
    return tail ? ev : shaped(ev, { k: "call", name, slot, special, args: evs, site, span, file, ic, call });
  }

  /**
   * `schema_of(Alias)` and the schema guards with an alias as their schema
   * argument get the alias's schema literal in place of the name, which is
   * no runtime value (spec/stdlib.md §11.6). Names the lowering has no
   * schema for (structs, generics) and calls of a user function with the
   * same name are left alone.
   */
  private lowerAliasArg(n: A.FunctionCall, evs: Ev[]): void {
    const idx = SCHEMA_ALIAS_ARG.get(n.name);
    if (idx === undefined) return;
    const arg = n.args[idx];
    if (arg === undefined || arg.kind !== "Identifier") return;
    const aliases = this.interp.typeAliases;
    const type = aliases.get(arg.name);
    const lower = this.interp.rt.typeSchema;
    if (type === undefined || lower === null || this.scope.resolve(n.name) !== null) return;
    const schema = lower(type, (name) => aliases.get(name) ?? null);
    // Schema dicts are immutable values: every evaluation can share one.
    if (schema !== null) evs[idx] = () => schema;
  }

  private methodCall(n: A.MethodCall | A.OptionalMethodCall): Ev {
    const { evs, spread } = this.args(n.args);
    const file = this.file;
    const span = n.methodSpan;
    if (n.kind === "MethodCall" && n.object.kind === "Identifier" && this.isEnumName(n.object.name)) {
      const en = n.object.name;
      const vn = n.method;
      return (fr) => then(evalArgs(evs, spread, fr), (args) => new HEnum(en, vn, args));
    }
    const obj = this.expr(n.object);
    const name = n.method;
    const optional = n.kind === "OptionalMethodCall";
    const interp = this.interp;
    const site = this.site(n.span);
    // One-entry cache of the method table entry for list and string
    // receivers (the tables are fixed once the stdlib is installed).
    let cacheKind: string | null = null;
    let cacheFn: MethodFn | undefined;
    const call = (fr: Frame, recv: Value, args: Value[]): any => {
      if (optional && recv === null) return null;
      const kind = Array.isArray(recv) ? "list" : typeof recv === "string" ? "string" : null;
      if (kind !== null) {
        if (kind !== cacheKind) {
          cacheKind = kind;
          cacheFn = interp.rt.methods.get(kind)?.get(name);
        }
        if (cacheFn !== undefined) return interp.runMethod(cacheFn, recv, args, fr, site, span);
      }
      return interp.callMethod(fr, recv, name, args, site, span);
    };
    const callAsync = async (fr: Frame, recv: Value | Promise<Value>, first: Value | Promise<Value> | null): Promise<any> => {
      const r = recv instanceof Promise ? await recv : recv;
      if (evs.length === 0) return call(fr, r, []);
      let a = first ?? evs[0]!(fr);
      if (a instanceof Promise) a = await a;
      return call(fr, r, [a]);
    };
    const shape = { k: "mcall", obj, args: evs, name, optional, site, span, invoke: call } as const;
    if (spread === null && evs.length === 0) {
      return shaped((fr) => {
        const r = obj(fr);
        if (r instanceof Promise) return callAsync(fr, r, null);
        return call(fr, r, []);
      }, shape);
    }
    if (spread === null && evs.length === 1) {
      const a0 = evs[0]!;
      return shaped((fr) => {
        const r = obj(fr);
        if (r instanceof Promise) return callAsync(fr, r, null);
        const a = a0(fr);
        if (a instanceof Promise) return callAsync(fr, r, a);
        return call(fr, r, [a]);
      }, shape);
    }
    const general: Ev = (fr) =>
      then(obj(fr), (r) => {
        let args;
        try {
          args = evalArgs(evs, spread, fr);
        } catch (e) {
          throw located(e, span, file);
        }
        return then(args, (a) => call(fr, r, a));
      });
    return spread === null ? shaped(general, shape) : general;
  }

  // -------------------------------------------------------------------------
  // Binary operators (§4)

  private binary(n: A.BinaryOp): Ev {
    const file = this.file;
    const op = n.op;
    if (op === "|>") return this.pipe(n);
    if (isFastOp(op)) {
      const fn = binaryFn(op);
      const span = n.right.span;
      const slow = (a: Value, b: Value): Value => {
        try {
          return fn(a, b);
        } catch (e) {
          throw located(e, span, file);
        }
      };
      const left = this.operand(n.left);
      const right = this.operand(n.right);
      const fast = fastBinary(op, left, right, slow);
      if (fast) return shaped(fast, { k: "bin", op, l: operandEv(left), r: operandEv(right), slow });
    }
    const l = this.expr(n.left);
    const r = this.expr(n.right);
    const span = n.right.span;
    switch (op) {
      case "&&": {
        const right = (fr: Frame): any => {
          const b = r(fr);
          return b instanceof Promise ? b.then(truthy) : truthy(b);
        };
        return shaped((fr) => {
          const a = l(fr);
          if (a instanceof Promise) return a.then((x) => (truthy(x) ? right(fr) : false));
          return truthy(a) ? right(fr) : false;
        }, { k: "and", l, r });
      }
      case "||": {
        const right = (fr: Frame): any => {
          const b = r(fr);
          return b instanceof Promise ? b.then(truthy) : truthy(b);
        };
        return shaped((fr) => {
          const a = l(fr);
          if (a instanceof Promise) return a.then((x) => (truthy(x) ? true : right(fr)));
          return truthy(a) ? true : right(fr);
        }, { k: "or", l, r });
      }
      case "??":
        return shaped((fr) => {
          const a = l(fr);
          if (a instanceof Promise) return a.then((x) => (x !== null ? x : r(fr)));
          return a !== null ? a : r(fr);
        }, { k: "coalesce", l, r });
    }
    const fn = binaryFn(op);
    const slow = (a: Value, b: Value): Value => {
      try {
        return fn(a, b);
      } catch (e) {
        throw located(e, span, file);
      }
    };
    const both = (fr: Frame, a: Promise<Value> | Value): any => then(a, (x) => then(r(fr), (y) => slow(x, y)));
    switch (op) {
      case "+":
        return (fr) => {
          const a = l(fr);
          if (a instanceof Promise) return both(fr, a);
          const b = r(fr);
          if (typeof a === "number" && typeof b === "number") {
            const x = a + b;
            if (Number.isSafeInteger(x)) return x;
          }
          if (b instanceof Promise) return b.then((y) => slow(a, y));
          return slow(a, b);
        };
      case "-":
        return (fr) => {
          const a = l(fr);
          if (a instanceof Promise) return both(fr, a);
          const b = r(fr);
          if (typeof a === "number" && typeof b === "number") {
            const x = a - b;
            if (Number.isSafeInteger(x)) return x;
          }
          if (b instanceof Promise) return b.then((y) => slow(a, y));
          return slow(a, b);
        };
      case "*":
        return (fr) => {
          const a = l(fr);
          if (a instanceof Promise) return both(fr, a);
          const b = r(fr);
          if (typeof a === "number" && typeof b === "number") {
            const x = a * b;
            if (Number.isSafeInteger(x)) return x + 0;
          }
          if (b instanceof Promise) return b.then((y) => slow(a, y));
          return slow(a, b);
        };
      case "%":
        return (fr) => {
          const a = l(fr);
          if (a instanceof Promise) return both(fr, a);
          const b = r(fr);
          if (typeof a === "number" && typeof b === "number" && b !== 0) return (a % b) + 0;
          if (b instanceof Promise) return b.then((y) => slow(a, y));
          return slow(a, b);
        };
      case "==":
      case "!=": {
        const neq = op === "!=";
        return (fr) => {
          const a = l(fr);
          if (a instanceof Promise) return a.then((x) => then(r(fr), (y) => equals(x, y) !== neq));
          const b = r(fr);
          if (typeof a === "number" && typeof b === "number") return (a === b) !== neq;
          if (b instanceof Promise) return b.then((y) => equals(a, y) !== neq);
          return equals(a, b) !== neq;
        };
      }
      case "<":
        return (fr) => {
          const a = l(fr);
          if (a instanceof Promise) return both(fr, a);
          const b = r(fr);
          if (typeof a === "number" && typeof b === "number") return a < b;
          if (b instanceof Promise) return b.then((y) => ops.lt(a, y));
          return ops.lt(a, b);
        };
      case ">":
        return (fr) => {
          const a = l(fr);
          if (a instanceof Promise) return both(fr, a);
          const b = r(fr);
          if (typeof a === "number" && typeof b === "number") return a > b;
          if (b instanceof Promise) return b.then((y) => ops.gt(a, y));
          return ops.gt(a, b);
        };
      case "<=":
        return (fr) => {
          const a = l(fr);
          if (a instanceof Promise) return both(fr, a);
          const b = r(fr);
          if (typeof a === "number" && typeof b === "number") return a <= b;
          if (b instanceof Promise) return b.then((y) => ops.le(a, y));
          return ops.le(a, b);
        };
      case ">=":
        return (fr) => {
          const a = l(fr);
          if (a instanceof Promise) return both(fr, a);
          const b = r(fr);
          if (typeof a === "number" && typeof b === "number") return a >= b;
          if (b instanceof Promise) return b.then((y) => ops.ge(a, y));
          return ops.ge(a, b);
        };
    }
    return shaped((fr) => {
      const a = l(fr);
      if (a instanceof Promise) return both(fr, a);
      const b = r(fr);
      if (b instanceof Promise) return b.then((y) => slow(a, y));
      return slow(a, b);
    }, { k: "op", l, r, slow });
  }

  /** How a binary operand is read (fastops.ts). */
  private operand(n: A.Node): Operand {
    if (n.kind === "Identifier" && n.name !== "_") {
      const b = this.scope.resolve(n.name);
      if (b) return { kind: "slot", slot: b.slot };
    }
    if (n.kind === "IntLiteral") {
      const v = normBig(n.value);
      if (typeof v === "number") return { kind: "int", value: v };
    }
    return { kind: "ev", ev: this.expr(n) };
  }

  private pipe(n: A.BinaryOp): Ev {
    const l = this.expr(n.left);
    const file = this.file;
    const span = n.right.span;
    const interp = this.interp;
    const site = this.site(n.span);
    // `x |> f` with a bare function name: resolve like a call (closures
    // first, then builtins) so the common case allocates no reference.
    const r = this.expr(n.right);
    const tail = false;
    void tail;
    return (fr) =>
      then(l(fr), (v) =>
        then(r(fr), (f) => {
          try {
            return interp.pipeInto(fr, v, f, site);
          } catch (e) {
            throw located(e, span, file);
          }
        }),
      );
  }
}

/** A closure reading a binary operand (for the operand's shape). */
function operandEv(o: Operand): Ev {
  switch (o.kind) {
    case "slot": {
      const slot = o.slot;
      return shaped((fr) => fr.s[slot]!, { k: "slot", slot });
    }
    case "int": {
      const v = o.value;
      return shaped(() => v, { k: "lit", v });
    }
    case "ev":
      return o.ev;
  }
}

/** Builtins whose argument at the given index may name a type alias that
 * the compiler lowers to a schema (spec/stdlib.md §11.6). */
const SCHEMA_ALIAS_ARG = new Map<string, number>([
  ["schema_of", 0],
  ["schema_is", 1],
  ["schema_check", 1],
  ["schema_parse", 1],
  ["schema_expect", 1],
  ["is_type", 1],
  ["json_validate", 1],
]);

/** Names the interpreter handles itself (§7.5) unless a closure shadows them. */
/** `skill NAME { FIELD expr … }` binds an immutable NAME to
 * `skill_define(skill_registry(), "NAME", {FIELD: expr, …})` (core-gaps.md
 * §7.2). */
function skillBinding(n: A.SkillDecl): A.LetBinding {
  const span = n.span;
  const str = (value: string): A.Node => ({ kind: "StringLiteral", value, span });
  const call = (name: string, args: A.Node[]): A.Node => ({ kind: "FunctionCall", name, nameSpan: span, typeArgs: [], args, span });
  const config: A.Node = { kind: "DictLiteral", entries: n.fields.map(([k, v]) => ({ key: str(k), value: v, computed: false })), span };
  return { kind: "LetBinding", pattern: { kind: "ident", name: n.name, span }, type: null, value: call("skill_define", [call("skill_registry", []), str(n.name), config]), span };
}

export const SPECIAL_CALLS = new Set(["await", "cancel", "cancel_graceful", "is_cancelled"]);

function binaryFn(op: string): (a: Value, b: Value) => Value {
  switch (op) {
    case "+":
      return ops.add;
    case "-":
      return ops.sub;
    case "*":
      return ops.mul;
    case "/":
      return ops.div;
    case "%":
      return ops.mod;
    case "**":
      return ops.pow;
    case "==":
      return (a, b) => equals(a, b);
    case "!=":
      return (a, b) => !equals(a, b);
    case "<":
      return ops.lt;
    case ">":
      return ops.gt;
    case "<=":
      return ops.le;
    case ">=":
      return ops.ge;
    case "in":
      return (a, b) => ops.contains(b, a);
    case "not_in":
      return (a, b) => !ops.contains(b, a);
  }
  throw new Error(`unknown operator ${op}`);
}

function prop(o: Value, name: string, optional: boolean, span: A.Span, file: string, codePoints: CodePoints): Value {
  if (o instanceof HDict) return o.get(name);
  if (optional && o === null) return null;
  try {
    return ops.getProperty(o, name, optional, codePoints);
  } catch (e) {
    throw located(e, span, file);
  }
}

function addSpread(m: Map<string, Value>, v: Value, span: A.Span, file: string): void {
  let d: HDict;
  try {
    d = spreadDict(v);
  } catch (e) {
    throw located(e, span, file);
  }
  for (const [k, x] of d.map) m.set(k, x);
}

export function buildStruct(name: string, fields: string[], arg: Value): HStruct {
  const m = new Map<string, Value>();
  if (arg instanceof HDict) {
    for (const f of fields) if (arg.has(f)) m.set(f, arg.get(f));
  } else if (arg instanceof HStruct) {
    for (const f of fields) if (arg.fields.has(f)) m.set(f, arg.fields.get(f)!);
  }
  return new HStruct(name, m);
}

function checkEntries(fr: Frame, entries: { got: Value; slot: number; ev: Ev | null }[], i: number): boolean | Promise<boolean> {
  for (; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.ev) {
      const x = e.ev(fr);
      if (x instanceof Promise) {
        const k = i;
        return x.then((y) => (equals(e.got, y) ? checkEntries(fr, entries, k + 1) : false));
      }
      if (!equals(e.got, x)) return false;
    } else if (e.slot >= 0) fr.s[e.slot] = e.got;
  }
  return true;
}

/** A source of loop items: `next()` gives an item, DONE, or a promise. */
export interface Stepper {
  next(): Value | typeof DONE | Promise<Value | typeof DONE>;
}
export const DONE: unique symbol = Symbol("done");

/** A loop waiting for a promise; `drive` resumes it at `phase`. */
export class Suspend {
  constructor(
    readonly pending: Promise<any>,
    readonly phase: number,
  ) {}
}

export async function drive(first: Suspend, resume: (phase: number, v: any) => any): Promise<any> {
  let s = first;
  for (;;) {
    const v = await s.pending;
    const r = resume(s.phase, v);
    if (!(r instanceof Suspend)) return r;
    s = r;
  }
}

/** Phases: 0 pull the next item; 1 item in `v`, bind it; 2 bound, run the
 * body; 3 body result in `v`. */
function forStep(st: Stepper, bind: (fr: Frame, v: Value) => unknown, body: Ev, fr: Frame, interp: Interpreter, phase: number, v: any): any {
  for (;;) {
    if (phase === 0) {
      v = st.next();
      if (v instanceof Promise) return new Suspend(v, 1);
      phase = 1;
    }
    if (phase === 1) {
      if (v === DONE) return null;
      const b = bind(fr, v);
      if (b instanceof Promise) return new Suspend(b, 2);
      phase = 2;
    }
    if (phase === 2) {
      v = body(fr);
      if (v instanceof Promise) return new Suspend(v, 3);
    }
    if (v instanceof Ctl) {
      if (v === BRK) return null;
      if (v !== CONT) return v;
    }
    if (++interp.ticks >= 1024) {
      const y = interp.slowTick(fr.task);
      if (y) return new Suspend(y, 0);
    }
    phase = 0;
  }
}

function runForLoop(st: Stepper, bind: (fr: Frame, v: Value) => unknown, body: Ev, fr: Frame, interp: Interpreter): any {
  const r = forStep(st, bind, body, fr, interp, 0, null);
  return r instanceof Suspend ? drive(r, (phase, v) => forStep(st, bind, body, fr, interp, phase, v)) : r;
}

// Async continuations of hot closures live out here, so the closures
// themselves create no inner functions (which would cost a V8 context
// allocation on every evaluation, async or not).

async function ifAsync(x: Promise<Value>, fr: Frame, thenB: Ev, elseB: Ev | null): Promise<any> {
  return truthy(await x) ? thenB(fr) : elseB ? elseB(fr) : null;
}

async function storeAsync(x: Promise<Value>, fr: Frame, slot: number): Promise<null> {
  fr.s[slot] = await x;
  return null;
}

async function applyAsync(x: Promise<Value>, fr: Frame, update: (fr: Frame, v: Value) => null): Promise<null> {
  return update(fr, await x);
}

async function returnAsync(x: Promise<Value>, fr: Frame): Promise<Ctl> {
  fr.ret = await x;
  return RET;
}

async function callOneAsync(fr: Frame, x: Promise<Value>, call: (fr: Frame, fn: HClosure | null, args: Value[]) => any): Promise<any> {
  return call(fr, null, [await x]);
}

async function nilUnlessCtl(r: Promise<any>): Promise<any> {
  const x = await r;
  return x instanceof Ctl ? x : null;
}

/** The rest of a block after its first statement suspended. */
async function runBlockFrom(first: Promise<any>, evs: Ev[], lastValue: boolean, fr: Frame): Promise<any> {
  let v = await first;
  for (let i = 1; ; i++) {
    if (v instanceof Ctl) return v;
    if (i >= evs.length) return lastValue ? v : null;
    v = evs[i]!(fr);
    if (v instanceof Promise) v = await v;
  }
}
