/**
 * The one traversal per file. Every rule's visitors are merged into a
 * dispatch table keyed by node kind, and a single pre-order walk feeds them
 * all (not one traversal per rule: speed is designed in).
 *
 * The walk also owns the reference's dead-code behaviour (lint.md §3.3,
 * quirk Q2): in every statement list except the file's top level, the
 * statement after a definitely-exiting one is announced as unreachable and
 * neither it nor anything after it is walked.
 */
import type { Node, Program } from "@harn/parser";
import type { AnyNode, BlockInfo, BlockRole, Visitors } from "./types";
import { forEachPatternDefault } from "./ast-util";

type Handler = (node: never) => void;

/** The enter and exit handlers of one node kind. */
interface KindHandlers {
  enter: Handler[];
  exit: Handler[];
}

export class Dispatch {
  /** By node kind: one lookup per visited node finds both lists. */
  readonly byKind = new Map<string, KindHandlers>();
  readonly block: ((b: BlockInfo) => void)[] = [];
  readonly blockExit: ((b: BlockInfo) => void)[] = [];
  readonly unreachable: ((stmt: Node, b: BlockInfo) => void)[] = [];
  readonly finalize: (() => void)[] = [];

  add(v: Visitors): void {
    for (const [key, fn] of Object.entries(v)) {
      if (typeof fn !== "function") continue;
      switch (key) {
        case "Block":
          this.block.push(fn as (b: BlockInfo) => void);
          break;
        case "Block:exit":
          this.blockExit.push(fn as (b: BlockInfo) => void);
          break;
        case "Unreachable":
          this.unreachable.push(fn as (s: Node, b: BlockInfo) => void);
          break;
        case "finalize":
          this.finalize.push(fn as () => void);
          break;
        default: {
          const isExit = key.endsWith(":exit");
          const kind = isExit ? key.slice(0, -5) : key;
          let h = this.byKind.get(kind);
          if (!h) this.byKind.set(kind, (h = { enter: [], exit: [] }));
          (isExit ? h.exit : h.enter).push(fn as Handler);
        }
      }
    }
  }
}

/** A statement that leaves its block on every path (lint.md §3.3). */
export function definitelyExits(stmt: Node): boolean {
  switch (stmt.kind) {
    case "ReturnStmt":
    case "ThrowStmt":
    case "BreakStmt":
    case "ContinueStmt":
      return true;
    case "IfElse":
      return stmt.elseBody !== null && stmt.thenBody.some(definitelyExits) && stmt.elseBody.some(definitelyExits);
    default:
      return false;
  }
}

export class Walker {
  private readonly stack: AnyNode[] = [];
  /** The statement whose enter hooks are running (see isStatement). */
  private statement: Node | null = null;

  constructor(private readonly d: Dispatch) {}

  ancestors(): readonly AnyNode[] {
    return this.stack;
  }

  /** True while the enter hooks of `n` run and `n` sits directly in a
   * statement list (rather than in an expression). */
  isStatement(n: Node): boolean {
    return this.statement === n;
  }

  walk(program: Program): void {
    const h = this.d.byKind.get("Program");
    if (h) for (const f of h.enter) (f as (n: Program) => void)(program);
    this.stack.push(program);
    this.list(program.items, program, "program");
    this.stack.pop();
    if (h) for (const f of h.exit) (f as (n: Program) => void)(program);
  }

  private visit(n: Node): void {
    const h = this.d.byKind.get(n.kind);
    if (h !== undefined) {
      const enter = h.enter;
      for (let i = 0; i < enter.length; i++) (enter[i] as (n: Node) => void)(n);
    }
    this.stack.push(n);
    this.children(n);
    this.stack.pop();
    if (h !== undefined) {
      const exit = h.exit;
      for (let i = 0; i < exit.length; i++) (exit[i] as (n: Node) => void)(n);
    }
  }

  private list(stmts: Node[] | null, owner: AnyNode, role: BlockRole): void {
    if (stmts === null) return;
    const info: BlockInfo = { stmts, owner, role };
    for (const h of this.d.block) h(info);
    if (role === "program") {
      for (const s of stmts) {
        this.statement = s;
        this.visit(s);
      }
    } else {
      let exited = false;
      for (const s of stmts) {
        if (exited) {
          for (const h of this.d.unreachable) h(s, info);
          break;
        }
        this.statement = s;
        this.visit(s);
        if (definitelyExits(s)) exited = true;
      }
    }
    for (const h of this.d.blockExit) h(info);
  }

  private children(n: Node): void {
    switch (n.kind) {
      // the most frequent kinds first: a switch on strings tests in order
      case "Identifier":
      case "StringLiteral":
      case "IntLiteral":
      case "BoolLiteral":
      case "NilLiteral":
      case "FloatLiteral":
      case "InterpolatedString":
      case "RawStringLiteral":
      case "DurationLiteral":
        return;
      case "FunctionCall":
        for (let i = 0; i < n.args.length; i++) this.visit(n.args[i]!);
        return;
      case "MethodCall":
      case "OptionalMethodCall":
        this.visit(n.object);
        for (let i = 0; i < n.args.length; i++) this.visit(n.args[i]!);
        return;
      case "PropertyAccess":
      case "OptionalPropertyAccess":
        this.visit(n.object);
        return;
      case "LetBinding":
      case "VarBinding":
        if (n.pattern.kind !== "ident") forEachPatternDefault(n.pattern, (x) => this.visit(x));
        this.visit(n.value);
        return;
      case "Pipeline":
      case "OverrideDecl":
        this.list(n.body, n, "body");
        return;
      case "FnDecl":
      case "ToolDecl":
      case "Closure":
        for (const p of n.params) if (p.default) this.visit(p.default);
        this.list(n.body, n, "body");
        return;
      case "SkillDecl":
        for (const [, v] of n.fields) this.visit(v);
        return;
      case "EvalPackDecl":
        for (const [, v] of n.fields) this.visit(v);
        this.list(n.body, n, "body");
        this.list(n.summarize, n, "summarize");
        return;
      case "ImplBlock":
        for (const m of n.methods) this.visit(m);
        return;
      case "AttributedDecl":
        this.visit(n.inner);
        return;
      case "Assignment":
        this.visit(n.target);
        this.visit(n.value);
        return;
      case "IfElse":
        this.visit(n.condition);
        this.list(n.thenBody, n, "then");
        this.list(n.elseBody, n, "else");
        return;
      case "ForIn":
        forEachPatternDefault(n.pattern, (x) => this.visit(x));
        this.visit(n.iterable);
        this.list(n.body, n, "loop");
        return;
      case "WhileLoop":
        this.visit(n.condition);
        this.list(n.body, n, "loop");
        return;
      case "MatchExpr":
        this.visit(n.value);
        for (const arm of n.arms) {
          this.visit(arm.pattern);
          if (arm.guard) this.visit(arm.guard);
          this.list(arm.body, n, "arm");
        }
        return;
      case "TryCatch":
        this.list(n.body, n, "try");
        if (n.hasCatchClause || n.catchBody.length > 0) this.list(n.catchBody, n, "catch");
        this.list(n.finallyBody, n, "finally");
        return;
      case "TryExpr":
        this.list(n.body, n, "tryExpr");
        return;
      case "GuardStmt":
        this.visit(n.condition);
        this.list(n.elseBody, n, "guardElse");
        return;
      case "DeferStmt":
        this.list(n.body, n, "defer");
        return;
      case "MutexBlock":
        this.list(n.body, n, "mutex");
        return;
      case "DeadlineBlock":
        this.visit(n.duration);
        this.list(n.body, n, "deadline");
        return;
      case "Retry":
        this.visit(n.count);
        this.list(n.body, n, "retry");
        return;
      case "Parallel":
        this.visit(n.expr);
        for (const [, v] of n.options) this.visit(v);
        this.list(n.body, n, "parallel");
        return;
      case "SelectExpr":
        for (const c of n.cases) {
          this.visit(c.channel);
          this.list(c.body, n, "selectCase");
        }
        if (n.timeout) {
          this.visit(n.timeout.duration);
          this.list(n.timeout.body, n, "selectTimeout");
        }
        this.list(n.defaultBody, n, "selectDefault");
        return;
      case "SpawnExpr":
        this.list(n.body, n, "spawn");
        return;
      case "TryStar":
      case "TryOperator":
      case "UnaryOp":
        this.visit(n.operand);
        return;
      case "ReturnStmt":
      case "YieldExpr":
        if (n.value) this.visit(n.value);
        return;
      case "ThrowStmt":
      case "EmitExpr":
        this.visit(n.value);
        return;
      case "RequireStmt":
        this.visit(n.condition);
        if (n.message) this.visit(n.message);
        return;
      case "ListLiteral":
        for (const e of n.elements) this.visit(e);
        return;
      case "DictLiteral":
        for (const e of n.entries) {
          if (e.computed) this.visit(e.key);
          this.visit(e.value);
        }
        return;
      case "StructConstruct":
        for (const e of n.fields) {
          if (e.computed) this.visit(e.key);
          this.visit(e.value);
        }
        return;
      case "Spread":
        this.visit(n.expr);
        return;
      case "SubscriptAccess":
      case "OptionalSubscriptAccess":
        this.visit(n.object);
        this.visit(n.index);
        return;
      case "SliceAccess":
        this.visit(n.object);
        if (n.start) this.visit(n.start);
        if (n.end) this.visit(n.end);
        return;
      case "BinaryOp":
        this.visit(n.left);
        this.visit(n.right);
        return;
      case "Ternary":
        this.visit(n.condition);
        this.visit(n.thenExpr);
        this.visit(n.elseExpr);
        return;
      case "RangeExpr":
        this.visit(n.start);
        this.visit(n.end);
        return;
      case "OrPattern":
        for (const a of n.alternatives) this.visit(a);
        return;
      case "PipePlaceholder":
        this.visit(n.body);
        return;
      default:
        return;
    }
  }
}
