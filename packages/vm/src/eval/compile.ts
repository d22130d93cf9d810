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
 *
 * The Compiler holds the compile-time state (the function and block scope
 * being compiled, the loop context) and the entry points; the node kinds
 * are compiled by concern in compile/: statements, expressions, patterns,
 * loops, calls, operators and the concurrency forms.
 */
import type * as A from "@harn/parser";
import { forEachChild } from "@harn/parser";
import { HClosure, type Value } from "../values";
import { Ctl } from "./control";
import { ClosureImpl, type Ev, type ExprEv, FnProto, type Outcome, type Frame, type ModuleHome, type ParamInfo, Site } from "./frame";
import { runBlock } from "./helpers";
import type { Interpreter } from "./interpreter";
import { BlockScope, FnScope } from "./scope";
import { shaped } from "./shape";
import { CompileError, NIL_EV } from "./compile/base";
import { SPECIAL_CALLS } from "./compile/calls";
import { compileExpression, tryExpr } from "./compile/expressions";
import { compileStatement } from "./compile/statements";

export { CompileError, NIL_EV };

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

export interface LoopCtx {
  /** Inside a loop of the current function (break/continue allowed). */
  inLoop: boolean;
  /** Inside a try with finally (tail calls disabled). */
  inFinallyTry: boolean;
  /** The scope just outside the innermost loop: every binding declared
   * below it lives in slots that each iteration reuses. */
  loopOuter?: BlockScope | null;
}

export class Compiler {
  fs!: FnScope;
  scope!: BlockScope;
  loop: LoopCtx = { inLoop: false, inFinallyTry: false };
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
  makeClosure(proto: FnProto): (fr: Frame) => HClosure {
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

  /** A statement without the control-signal catch of `stmt`
   * (compile/statements.ts). */
  stmtInner(n: A.Node): Ev {
    return compileStatement(this, n);
  }

  /** Expressions in statement position: `try` keeps its control signals
   * (they are handled by the enclosing block). */
  exprOrBlockValue(n: A.Node): Ev {
    return n.kind === "TryExpr" ? tryExpr(this, n) : this.expr(n);
  }

  // -------------------------------------------------------------------------
  // Loops and names

  /** Compile `f` as (part of) a loop body; `outer` is the scope just
   * outside the loop. */
  withLoop<T>(f: () => T, outer: BlockScope = this.scope): T {
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
  iterationSlots(): number[] {
    const outer = this.loop.loopOuter;
    if (!this.loop.inLoop || !outer) return [];
    const slots: number[] = [];
    for (let s: BlockScope | null = this.scope; s && s !== outer; s = s.parent) {
      for (const list of s.names.values()) for (const b of list) slots.push(b.slot);
    }
    return slots;
  }

  isEnumName(name: string): boolean {
    return this.interp.enumNames.has(name) && !this.scope.resolve(name);
  }

  // -------------------------------------------------------------------------
  // Expressions

  /** Compile an expression; a block-bearing expression that produces a
   * control signal in value position throws it (see `stmt`). */
  expr(n: A.Node): ExprEv {
    return compileExpression(this, n);
  }

  /** True while compiling a pipeline body (try* allowed at its top level). */
  inPipelineRoot = false;

  site(span: A.Span | null): Site {
    return new Site(this.scope, this.counter.order + 1, span);
  }
}

async function nilUnlessCtl(r: Promise<Outcome>): Promise<Outcome> {
  const x = await r;
  return x instanceof Ctl ? x : null;
}

/** The rest of a block after its first statement suspended. */
async function runBlockFrom(first: Promise<Outcome>, evs: Ev[], lastValue: boolean, fr: Frame): Promise<Outcome> {
  let v = await first;
  for (let i = 1; ; i++) {
    if (v instanceof Ctl) return v;
    if (i >= evs.length) return lastValue ? v : null;
    const r = evs[i]!(fr);
    v = r instanceof Promise ? await r : r;
  }
}
