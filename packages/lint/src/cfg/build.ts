/**
 * Builds the control-flow graph of one owner body (see cfg.ts for the
 * model). `finally` bodies are built again on every path that crosses them
 * (normal completion, return, break, continue, exception), so each copy
 * continues to the right place and analyses stay path-precise.
 */
import type { FunctionCall, Node, TryCatch } from "@harn/parser";
import { forEachChild, patternNames } from "../ast-util";
import { isCancelCall } from "../long-running-calls";
import type {
  CallDest,
  CallNode,
  Cfg,
  CfgBlock,
  CfgElem,
  CfgOwner,
  EdgeKind,
  ExitReason,
  ScopeEndReason,
  ScopeFrame,
} from "./cfg";

type Frame =
  | { k: "owner" }
  /** `return` inside `spawn { }` ends the task body, not the function. */
  | { k: "spawn"; end: number }
  | { k: "scope"; scope: ScopeFrame }
  | { k: "loop"; brk: number; cont: number }
  /** A `try` with a handler: a catch block, or (try expression) the point
   * after it, where failures become an `Err`. */
  | { k: "try"; handler: number | null; line: number }
  | { k: "retry"; head: number; line: number }
  | { k: "finally"; body: Node[] };

const DISCARD: CallDest = { k: "discard" };
const USE: CallDest = { k: "use" };
const ESCAPE: CallDest = { k: "escape" };

export function buildCfg(owner: CfgOwner): Cfg {
  return new Builder(owner).build();
}

class Builder {
  private readonly blocks: CfgBlock[] = [];
  private readonly frames: Frame[] = [{ k: "owner" }];
  /** Current block, or -1 after a jump (what follows is unreachable). */
  private cur: number;
  private readonly exitBlock: number;
  private readonly cleanupCancels: Cfg["cleanupCancels"] = [];
  /** Exception landing chains, keyed by the frame on top when they were
   * built: the same top frame always unwinds the same way. */
  private readonly landings = new Map<Frame, number>();

  constructor(private readonly owner: CfgOwner) {
    this.cur = this.newBlock();
    this.exitBlock = this.newBlock();
  }

  build(): Cfg {
    const o = this.owner;
    const entry = this.cur;
    this.frames.push({ k: "scope", scope: { names: new Set() } });
    switch (o.kind) {
      case "Program":
        this.stmts(o.items, DISCARD);
        break;
      case "Closure":
      case "Parallel":
        // closures and parallel bodies produce their last value
        this.stmts(o.body, ESCAPE);
        break;
      default:
        this.stmts(o.body, DISCARD);
    }
    if (this.cur >= 0) {
      // a script ends with its last statement, not at the file's last line
      const end = o.kind === "Program" && o.items.length > 0 ? o.items[o.items.length - 1]!.span.endLine : o.span.endLine;
      this.emit({ k: "exit", reason: "end", line: end });
      this.edge(this.cur, this.exitBlock);
    }
    return {
      owner: o,
      blocks: this.blocks,
      entry,
      exit: this.exitBlock,
      cleanupCancels: this.cleanupCancels,
    };
  }

  // --- graph plumbing -----------------------------------------------------

  private newBlock(): number {
    const id = this.blocks.length;
    this.blocks.push({ id, elems: [], succs: [] });
    return id;
  }

  private edge(from: number, to: number, kind: EdgeKind = "normal"): void {
    if (from < 0) return;
    this.blocks[from]!.succs.push({ to, kind });
  }

  private emit(e: CfgElem): void {
    // code after a jump still gets a (dead) block so its elements exist
    if (this.cur < 0) this.cur = this.newBlock();
    this.blocks[this.cur]!.elems.push(e);
  }

  /** Continue in a fresh block reached from the current one. */
  private split(kind: EdgeKind = "normal"): number {
    const next = this.newBlock();
    this.edge(this.cur, next, kind);
    this.cur = next;
    return next;
  }

  private currentScope(): ScopeFrame {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const f = this.frames[i]!;
      if (f.k === "scope") return f.scope;
    }
    throw new Error("cfg: no scope frame");
  }

  /** The block that declares `name`, searching outwards within this body. */
  private declaringScope(name: string): ScopeFrame | null {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const f = this.frames[i]!;
      if (f.k === "scope" && f.scope.names.has(name)) return f.scope;
    }
    return null;
  }

  private withScope(names: Iterable<string>, body: () => void, endReason: ScopeEndReason | null, endLine: number): void {
    const scope: ScopeFrame = { names: new Set(names) };
    this.frames.push({ k: "scope", scope });
    body();
    this.frames.pop();
    if (endReason && this.cur >= 0 && scope.names.size > 0) {
      this.emit({ k: "scopeEnd", frame: scope, reason: endReason, line: endLine });
    }
  }

  /**
   * Leave every frame above `target` (ending scopes, running finally
   * bodies on the way), then go to block `to`. Leaves `cur` unreachable.
   */
  private unwind(target: number, to: number, reason: ScopeEndReason, line: number, kind: EdgeKind = "normal"): void {
    for (let i = this.frames.length - 1; i > target; i--) {
      const f = this.frames[i]!;
      if (f.k === "scope") {
        // names declared later in the block still count: the set is final
        // by the time anything reads the graph
        this.emit({ k: "scopeEnd", frame: f.scope, reason, line });
      } else if (f.k === "finally") {
        const saved = this.frames.splice(i);
        this.withScope([], () => this.stmts(f.body, DISCARD), "blockEnd", line);
        this.frames.push(...saved);
      }
    }
    if (this.cur < 0) return;
    this.edge(this.cur, to, kind);
    this.cur = -1;
  }

  /** Index of the innermost frame of one of `kinds`, not crossing a spawn
   * body (whose control flow is its own). */
  private findFrame(kinds: Frame["k"][]): number {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const k = this.frames[i]!.k;
      if (kinds.includes(k)) return i;
      if (k === "spawn") return -1;
    }
    return -1;
  }

  private doReturn(line: number): void {
    const i = this.findFrame(["spawn", "owner"]);
    const f = this.frames[i === -1 ? 0 : i]!;
    if (f.k === "spawn") this.unwind(i, f.end, "return", line);
    else this.exitVia(0, "return", line);
  }

  /** Leave the body from the current point (running finally bodies on
   * the way) and record the exit. */
  private exitVia(target: number, reason: ExitReason, line: number): void {
    for (let i = this.frames.length - 1; i > target; i--) {
      const f = this.frames[i]!;
      if (f.k === "finally") {
        const saved = this.frames.splice(i);
        this.withScope([], () => this.stmts(f.body, DISCARD), "blockEnd", line);
        this.frames.push(...saved);
      }
    }
    if (this.cur < 0) return;
    this.emit({ k: "exit", reason, line });
    this.edge(this.cur, this.exitBlock);
    this.cur = -1;
  }

  /**
   * A failure at the current point: unwind to the innermost handler (catch
   * block, try expression, retry, spawn) or out of the body. The current
   * block keeps going (the caller decides whether anything follows).
   * `line` names the failure for exits out of the body. Returns whether an
   * exceptional edge left the current block.
   */
  private raise(explicit: boolean, line: number): boolean {
    let handlerIdx = -1;
    let guarded = false;
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const f = this.frames[i]!;
      if (f.k === "try") {
        guarded = true;
        if (f.handler !== null) {
          handlerIdx = i;
          break;
        }
      } else if (f.k === "finally") {
        guarded = true;
      } else if (f.k === "retry") {
        guarded = true;
        handlerIdx = i;
        break;
      } else if (f.k === "spawn" || f.k === "owner") {
        handlerIdx = i;
        break;
      }
    }
    // calls outside any try are not treated as failing (see cfg.ts)
    if (!explicit && !guarded) return false;

    const from = this.cur;
    const top = this.frames[this.frames.length - 1]!;
    const cached = explicit ? undefined : this.landings.get(top);
    if (cached !== undefined) {
      this.edge(from, cached, "exception");
      return true;
    }
    const landing = this.newBlock();
    this.edge(from, landing, "exception");
    if (!explicit) this.landings.set(top, landing);
    this.cur = landing;
    const h = this.frames[handlerIdx]!;
    const failLine = explicit ? line : this.tryLine(line);
    if (h.k === "try") {
      this.unwind(handlerIdx, h.handler!, explicit ? "throw" : "exception", failLine, "exception");
    } else if (h.k === "retry") {
      // run the body again, or (last attempt) rethrow further out
      const again = this.newBlock();
      const rethrow = this.newBlock();
      this.unwind(handlerIdx, again, explicit ? "throw" : "exception", failLine, "exception");
      this.edge(again, h.head, "exception");
      this.edge(again, rethrow, "exception");
      const saved = this.frames.splice(handlerIdx);
      this.cur = rethrow;
      this.raise(true, failLine);
      this.frames.push(...saved);
    } else if (h.k === "spawn") {
      this.unwind(handlerIdx, h.end, explicit ? "throw" : "exception", failLine, "exception");
    } else {
      this.exitVia(0, explicit ? "throw" : "exception", failLine);
    }
    this.cur = from;
    return true;
  }

  /** The line of the innermost `try`/`retry` around a failing call. */
  private tryLine(fallback: number): number {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const f = this.frames[i]!;
      if (f.k === "try" || f.k === "retry") return f.line;
    }
    return fallback;
  }

  // --- statements ---------------------------------------------------------

  /** Build a statement list; `last` is where the last statement's value
   * goes (DISCARD for ordinary statement lists). */
  private stmts(list: Node[], last: CallDest): void {
    for (let i = 0; i < list.length; i++) {
      const s = list[i]!;
      const isLast = i === list.length - 1;
      this.node(s, isLast ? last : DISCARD);
      if (isLast && last.k === "escape" && producesValueDirectly(s)) {
        this.emit({ k: "value", node: s, line: s.span.line });
      }
    }
  }

  private node(n: Node, dest: CallDest): void {
    switch (n.kind) {
      case "LetBinding":
      case "VarBinding": {
        const names = patternNames(n.pattern);
        forEachDefault(n, (d) => this.node(d, USE));
        const scope = this.currentScope();
        this.node(n.value, { k: "bind", stmt: n, names, home: scope });
        for (const name of names) scope.names.add(name);
        this.emit({ k: "bind", node: n, line: n.span.line });
        return;
      }
      case "Assignment": {
        const t = n.target;
        let d: CallDest;
        if (t.kind === "Identifier" && n.op === null) {
          d = { k: "bind", stmt: n, names: [t.name], home: this.declaringScope(t.name) };
        } else if (t.kind === "Identifier") {
          d = USE;
        } else {
          d = ESCAPE;
        }
        this.node(n.value, d);
        if (t.kind !== "Identifier") forEachChild(t, (c) => this.node(c, USE));
        this.emit({ k: "bind", node: n, line: n.span.line });
        return;
      }
      case "IfElse": {
        this.node(n.condition, USE);
        const test = nilTest(n.condition);
        const fork = this.cur;
        const after = this.newBlock();
        this.split();
        if (test?.on === "then") this.emit({ k: "nil", name: test.name, line: n.span.line });
        this.withScope([], () => this.stmts(n.thenBody, dest), "blockEnd", n.span.endLine);
        this.edge(this.cur, after);
        this.cur = fork;
        if (n.elseBody || test?.on === "else") {
          this.split();
          if (test?.on === "else") this.emit({ k: "nil", name: test.name, line: n.span.line });
          if (n.elseBody) this.withScope([], () => this.stmts(n.elseBody!, dest), "blockEnd", n.span.endLine);
        }
        this.edge(this.cur, after);
        this.cur = after;
        return;
      }
      case "ForIn":
      case "WhileLoop": {
        if (n.kind === "ForIn") {
          this.node(n.iterable, USE);
          this.emit({ k: "forEach", node: n, line: n.span.line });
        }
        const head = this.split();
        if (n.kind === "WhileLoop") this.node(n.condition, USE);
        const test = this.cur;
        const after = this.newBlock();
        this.split();
        this.frames.push({ k: "loop", brk: after, cont: head });
        const names = n.kind === "ForIn" ? patternNames(n.pattern) : [];
        this.withScope(names, () => this.stmts(n.body, DISCARD), "loopEnd", n.span.endLine);
        this.frames.pop();
        this.edge(this.cur, head);
        this.edge(test, after);
        this.cur = after;
        return;
      }
      case "MatchExpr": {
        this.node(n.value, USE);
        const dispatch = this.cur;
        const after = this.newBlock();
        for (const arm of n.arms) {
          this.cur = dispatch;
          this.split();
          this.withScope(
            [],
            () => {
              if (arm.guard) this.node(arm.guard, USE);
              this.stmts(arm.body, dest);
            },
            "blockEnd",
            arm.span.endLine,
          );
          this.edge(this.cur, after);
        }
        if (n.arms.length === 0) this.edge(dispatch, after);
        this.cur = after;
        return;
      }
      case "TryCatch":
        this.tryCatch(n, dest);
        return;
      case "TryExpr": {
        const after = this.newBlock();
        this.frames.push({ k: "try", handler: after, line: n.span.line });
        this.withScope([], () => this.stmts(n.body, dest), "blockEnd", n.span.endLine);
        this.frames.pop();
        this.edge(this.cur, after);
        this.cur = after;
        return;
      }
      case "TryStar":
        this.node(n.operand, dest);
        this.raise(true, n.span.line);
        return;
      case "TryOperator": {
        this.node(n.operand, dest);
        // `expr?` returns an Err early
        const from = this.cur;
        this.split("exception");
        this.doReturn(n.span.line);
        this.cur = from;
        this.split();
        return;
      }
      case "ReturnStmt":
        if (n.value) {
          this.node(n.value, ESCAPE);
          this.emit({ k: "value", node: n.value, line: n.span.line });
        }
        this.doReturn(n.span.line);
        return;
      case "ThrowStmt":
        this.node(n.value, ESCAPE);
        this.emit({ k: "value", node: n.value, line: n.span.line });
        this.raise(true, n.span.line);
        this.cur = -1;
        return;
      case "BreakStmt":
      case "ContinueStmt": {
        const i = this.findFrame(["loop"]);
        if (i < 0) {
          this.cur = -1; // break-outside-loop reports it
          return;
        }
        const f = this.frames[i] as Extract<Frame, { k: "loop" }>;
        const brk = n.kind === "BreakStmt";
        this.unwind(i, brk ? f.brk : f.cont, brk ? "break" : "continue", n.span.line);
        return;
      }
      case "GuardStmt": {
        this.node(n.condition, USE);
        const fork = this.cur;
        const after = this.newBlock();
        this.split();
        this.withScope([], () => this.stmts(n.elseBody, DISCARD), "blockEnd", n.span.endLine);
        this.edge(this.cur, after);
        this.edge(fork, after);
        this.cur = after;
        return;
      }
      case "RequireStmt": {
        this.node(n.condition, USE);
        const from = this.cur;
        this.split("exception");
        if (n.message) this.node(n.message, USE);
        this.raise(true, n.span.line);
        this.cur = from;
        this.split();
        return;
      }
      case "DeferStmt":
        collectCancels(n.body, this.cleanupCancels);
        this.emit({ k: "defer", node: n, line: n.span.line });
        return;
      case "MutexBlock":
        this.withScope([], () => this.stmts(n.body, dest), "blockEnd", n.span.endLine);
        return;
      case "DeadlineBlock":
        this.node(n.duration, USE);
        this.withScope([], () => this.stmts(n.body, dest), "blockEnd", n.span.endLine);
        return;
      case "Retry": {
        this.node(n.count, USE);
        const head = this.split();
        const after = this.newBlock();
        this.edge(head, after, "retrySkip");
        this.frames.push({ k: "retry", head, line: n.span.line });
        this.withScope([], () => this.stmts(n.body, DISCARD), "blockEnd", n.span.endLine);
        this.frames.pop();
        this.edge(this.cur, after);
        this.cur = after;
        return;
      }
      case "YieldExpr":
        if (n.value) {
          this.node(n.value, ESCAPE);
          this.emit({ k: "value", node: n.value, line: n.span.line });
        }
        return;
      case "EmitExpr":
        this.node(n.value, ESCAPE);
        this.emit({ k: "value", node: n.value, line: n.span.line });
        return;
      case "Parallel":
        this.node(n.expr, USE);
        for (const [, v] of n.options) this.node(v, USE);
        this.emit({ k: "capture", node: n, line: n.span.line });
        return;
      case "Closure":
        this.emit({ k: "capture", node: n, line: n.span.line });
        return;
      case "SelectExpr": {
        for (const c of n.cases) this.node(c.channel, USE);
        if (n.timeout) this.node(n.timeout.duration, USE);
        const dispatch = this.cur;
        const after = this.newBlock();
        const bodies = [
          ...n.cases.map((c) => ({ names: [c.variable], body: c.body })),
          ...(n.timeout ? [{ names: [], body: n.timeout.body }] : []),
          ...(n.defaultBody ? [{ names: [], body: n.defaultBody }] : []),
        ];
        for (const b of bodies) {
          this.cur = dispatch;
          this.split();
          this.withScope(b.names, () => this.stmts(b.body, DISCARD), "blockEnd", n.span.endLine);
          this.edge(this.cur, after);
        }
        if (bodies.length === 0) this.edge(dispatch, after);
        this.cur = after;
        return;
      }
      case "SpawnExpr": {
        const after = this.newBlock();
        this.frames.push({ k: "spawn", end: after });
        this.withScope([], () => this.stmts(n.body, ESCAPE), "blockEnd", n.span.endLine);
        this.frames.pop();
        this.edge(this.cur, after);
        this.cur = after;
        return;
      }
      case "FunctionCall":
        for (const a of n.args) this.node(a, { k: "arg", call: n });
        this.call(n, dest);
        return;
      case "MethodCall":
      case "OptionalMethodCall":
        this.node(n.object, USE);
        for (const a of n.args) this.node(a, { k: "arg", call: n });
        this.call(n, dest);
        return;
      case "DictLiteral":
        for (const e of n.entries) {
          if (e.computed) this.node(e.key, USE);
          this.node(e.value, dest);
        }
        return;
      case "StructConstruct":
        for (const e of n.fields) {
          if (e.computed) this.node(e.key, USE);
          this.node(e.value, dest);
        }
        return;
      case "ListLiteral":
        for (const e of n.elements) this.node(e, dest);
        return;
      case "Spread":
        this.node(n.expr, dest);
        return;
      case "PropertyAccess":
      case "OptionalPropertyAccess":
        this.node(n.object, dest);
        return;
      case "SubscriptAccess":
      case "OptionalSubscriptAccess":
        this.node(n.object, dest);
        this.node(n.index, USE);
        return;
      case "Ternary":
        this.node(n.condition, USE);
        this.node(n.thenExpr, dest);
        this.node(n.elseExpr, dest);
        return;
      case "BinaryOp": {
        // `a ?? b` is one of its operands; `xs + [h]` holds them
        const keeps = n.op === "??" || n.op === "+";
        this.node(n.left, keeps ? dest : USE);
        this.node(n.right, keeps ? dest : USE);
        return;
      }
      case "SliceAccess":
      case "UnaryOp":
      case "RangeExpr":
      case "OrPattern":
      case "PipePlaceholder":
        forEachChild(n, (c) => this.node(c, USE));
        return;
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
      case "IntLiteral":
      case "FloatLiteral":
      case "StringLiteral":
      case "RawStringLiteral":
      case "InterpolatedString":
      case "BoolLiteral":
      case "NilLiteral":
      case "DurationLiteral":
      case "Identifier":
        // literals, identifiers, interpolations, nested declarations
        return;
      default: {
        const never: never = n;
        throw new Error(`cfg: unknown node ${(never as Node).kind}`);
      }
    }
  }

  private call(n: CallNode, dest: CallDest): void {
    const cancels = isCancelCall(n);
    // a failing call leaves before its effect; cancelling never fails
    if (!cancels) this.failurePoint(n.span.line);
    this.emit({ k: "call", node: n, dest, line: n.span.line });
    if (cancels) this.failurePoint(n.span.line);
  }

  /** A call may fail here: if that leads anywhere, what follows the call
   * starts a new block (the exceptional edge carries the state before). */
  private failurePoint(line: number): void {
    if (this.cur >= 0 && this.raise(false, line)) this.split();
  }

  private tryCatch(n: TryCatch, dest: CallDest): void {
    const hasCatch = n.errorVar !== null || n.catchBody.length > 0;
    const after = this.newBlock();
    if (n.finallyBody) this.frames.push({ k: "finally", body: n.finallyBody });
    const catchEntry = hasCatch ? this.newBlock() : null;
    this.frames.push({ k: "try", handler: catchEntry, line: n.span.line });
    this.withScope([], () => this.stmts(n.body, dest), "blockEnd", n.span.endLine);
    this.frames.pop();
    const tryEnd = this.cur;
    let catchEnd = -1;
    if (catchEntry !== null) {
      this.cur = catchEntry;
      this.withScope(n.errorVar ? [n.errorVar] : [], () => this.stmts(n.catchBody, dest), "blockEnd", n.span.endLine);
      catchEnd = this.cur;
    }
    if (n.finallyBody) {
      this.frames.pop();
      collectCancels(n.finallyBody, this.cleanupCancels);
      // the normal completions of try and catch meet in one finally copy
      const join = this.newBlock();
      this.edge(tryEnd, join);
      this.edge(catchEnd, join);
      this.cur = join;
      this.withScope([], () => this.stmts(n.finallyBody!, DISCARD), "blockEnd", n.span.endLine);
      this.edge(this.cur, after);
    } else {
      this.edge(tryEnd, after);
      this.edge(catchEnd, after);
    }
    this.cur = after;
  }
}

/** Statements whose own value is the block's value (as opposed to
 * constructs whose branches produce it, which recurse). */
function producesValueDirectly(s: Node): boolean {
  switch (s.kind) {
    case "LetBinding":
    case "VarBinding":
    case "Assignment":
    case "ReturnStmt":
    case "ThrowStmt":
    case "BreakStmt":
    case "ContinueStmt":
    case "DeferStmt":
    case "GuardStmt":
    case "RequireStmt":
    case "ForIn":
    case "WhileLoop":
    case "Retry":
    case "IfElse":
    case "MatchExpr":
    case "TryCatch":
    case "TryExpr":
    case "MutexBlock":
    case "DeadlineBlock":
    case "SpawnExpr":
    case "SelectExpr":
    case "YieldExpr":
    case "EmitExpr":
    case "FnDecl":
    case "ToolDecl":
    case "StructDecl":
    case "EnumDecl":
    case "TypeDecl":
    case "InterfaceDecl":
    case "ImplBlock":
    case "AttributedDecl":
    case "SkillDecl":
    case "EvalPackDecl":
      return false;
    case "Pipeline":
    case "ImportDecl":
    case "SelectiveImport":
    case "OverrideDecl":
    case "TryStar":
    case "Parallel":
    case "IntLiteral":
    case "FloatLiteral":
    case "StringLiteral":
    case "RawStringLiteral":
    case "InterpolatedString":
    case "BoolLiteral":
    case "NilLiteral":
    case "DurationLiteral":
    case "Identifier":
    case "ListLiteral":
    case "DictLiteral":
    case "Spread":
    case "Closure":
    case "FunctionCall":
    case "MethodCall":
    case "OptionalMethodCall":
    case "PropertyAccess":
    case "OptionalPropertyAccess":
    case "SubscriptAccess":
    case "OptionalSubscriptAccess":
    case "SliceAccess":
    case "BinaryOp":
    case "UnaryOp":
    case "Ternary":
    case "RangeExpr":
    case "TryOperator":
    case "StructConstruct":
    case "OrPattern":
    case "PipePlaceholder":
      return true;
    default: {
      const never: never = s;
      throw new Error(`producesValueDirectly: unknown node ${(never as Node).kind}`);
    }
  }
}

function forEachDefault(n: Extract<Node, { kind: "LetBinding" | "VarBinding" }>, fn: (d: Node) => void): void {
  const p = n.pattern;
  if (p.kind === "dict") for (const f of p.fields) if (f.default) fn(f.default);
  if (p.kind === "list") for (const e of p.elements) if (e.default) fn(e.default);
}

/** Every cancel call anywhere in a cleanup block (closures excluded: they
 * do not run when the block does). */
function collectCancels(body: Node[], out: { call: CallNode; line: number }[]): void {
  const visit = (x: Node): void => {
    if (x.kind === "Closure" || x.kind === "FnDecl" || x.kind === "ToolDecl") return;
    if ((x.kind === "FunctionCall" || x.kind === "MethodCall") && isCancelCall(x)) out.push({ call: x, line: x.span.line });
    forEachChild(x, visit);
  };
  body.forEach(visit);
}

/** Which branch of an `if` on `cond` knows a variable to be nil or false:
 * `x != nil` and `x` (else), `x == nil` and `!x` (then). */
function nilTest(cond: Node): { name: string; on: "then" | "else" } | null {
  if (cond.kind === "Identifier") return { name: cond.name, on: "else" };
  if (cond.kind === "UnaryOp" && cond.op === "!" && cond.operand.kind === "Identifier") return { name: cond.operand.name, on: "then" };
  if (cond.kind === "BinaryOp" && (cond.op === "!=" || cond.op === "==")) {
    const [a, b] = [cond.left, cond.right];
    const v = a.kind === "Identifier" && b.kind === "NilLiteral" ? a : b.kind === "Identifier" && a.kind === "NilLiteral" ? b : null;
    if (v && v.kind === "Identifier") return { name: v.name, on: cond.op === "!=" ? "else" : "then" };
  }
  return null;
}
