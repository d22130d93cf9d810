/**
 * Control-flow graph of one owner body (a pipeline, fn, tool, override,
 * closure or `parallel` body, or the top level of a script), shared by the
 * flow-sensitive rules and built once per owner per file.
 *
 * Blocks hold *elements*: the events of the body in evaluation order. A call
 * element comes after the elements of its arguments, so "a scan nested in an
 * argument counts before the call itself" (lint.md §3.37) falls out of the
 * order. Closures and `parallel` bodies are opaque here (a `capture`
 * element); they are owners with graphs of their own. `spawn` bodies run
 * inline.
 *
 * Exceptions: a `throw`, `require`, `try*` or the failing of a call *inside
 * a try* leaves along an exceptional path (through `finally` bodies, which
 * are inlined on every path that crosses them, to the handler or out of the
 * function). Calls outside any `try` are not modelled as failing: a body
 * that does not expect failures is judged on its normal paths.
 */
import type {
  Assignment,
  Closure,
  DeferStmt,
  FnDecl,
  ForIn,
  FunctionCall,
  LetBinding,
  MethodCall,
  Node,
  OptionalMethodCall,
  OverrideDecl,
  Parallel,
  Pipeline,
  Program,
  ToolDecl,
  VarBinding,
} from "@harn/parser";

export type CfgOwner = Pipeline | FnDecl | ToolDecl | OverrideDecl | Closure | Parallel | Program;

export type CallNode = FunctionCall | MethodCall | OptionalMethodCall;

/** A lexical block as the graph sees it: the names its `let`/`var`
 * statements declare (filled as the builder goes). */
export interface ScopeFrame {
  readonly names: Set<string>;
}

/** Where the value of a call goes. */
export type CallDest =
  /** An expression statement (or an operand) whose value nobody keeps. */
  | { k: "discard" }
  /** Bound by `let`/`var` or assigned to a plain variable. `home` is the
   * block that declares the variable (null: declared outside this body). */
  | { k: "bind"; stmt: LetBinding | VarBinding | Assignment; names: string[]; home: ScopeFrame | null }
  /** Returned, thrown, yielded, emitted, stored into a property or
   * subscript, or the value of a value-producing body. */
  | { k: "escape" }
  /** Passed as an argument to another call. */
  | { k: "arg"; call: CallNode }
  /** Read by an operator, a condition, a receiver and the like. */
  | { k: "use" };

export type ExitReason = "end" | "return" | "throw" | "exception";
export type ScopeEndReason = "blockEnd" | "loopEnd" | "break" | "continue" | "return" | "throw" | "exception";

export type CfgElem =
  | { k: "call"; node: CallNode; dest: CallDest; line: number }
  /** `let`/`var`/assignment, after its value. */
  | { k: "bind"; node: LetBinding | VarBinding | Assignment; line: number }
  /** A value leaving the body: returned, thrown, yielded, emitted, or the
   * implicit value of a closure/spawn/parallel body. */
  | { k: "value"; node: Node; line: number }
  /** A closure or `parallel` body created here (it may capture names). */
  | { k: "capture"; node: Closure | Parallel; line: number }
  | { k: "defer"; node: DeferStmt; line: number }
  /** The branch of an `if` on which variable `name` is nil or false
   * (`if h != nil { … } else { here }`, `if h == nil { here }`). */
  | { k: "nil"; name: string; line: number }
  /** A `for` loop about to iterate (its iterable evaluated). */
  | { k: "forEach"; node: ForIn; line: number }
  /** Leaving the owner body. */
  | { k: "exit"; reason: ExitReason; line: number }
  /** Leaving a lexical block: its `let`/`var` names go out of scope. */
  | { k: "scopeEnd"; frame: ScopeFrame; reason: ScopeEndReason; line: number };

export type EdgeKind =
  | "normal"
  | "exception"
  /** `retry` seen as a loop that may run zero times (lint.md §3.37: body
   * effects do not carry out). Analyses that know better skip it. */
  | "retrySkip";

export interface CfgEdge {
  to: number;
  kind: EdgeKind;
}

export interface CfgBlock {
  readonly id: number;
  readonly elems: CfgElem[];
  readonly succs: CfgEdge[];
}

export interface Cfg {
  readonly owner: CfgOwner;
  readonly blocks: CfgBlock[];
  readonly entry: number;
  /** The single block every exit path ends in (it holds no elements). */
  readonly exit: number;
  /** Cancel calls written in this body's `defer` and `finally` blocks. */
  readonly cleanupCancels: { call: CallNode; line: number }[];
}

/** Visit blocks in an order good for forward dataflow (reverse postorder). */
export function reversePostorder(cfg: Cfg): number[] {
  const seen = new Uint8Array(cfg.blocks.length);
  const out: number[] = [];
  const stack: [number, number][] = [[cfg.entry, 0]];
  seen[cfg.entry] = 1;
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const b = cfg.blocks[top[0]]!;
    if (top[1] < b.succs.length) {
      const next = b.succs[top[1]++]!.to;
      if (!seen[next]) {
        seen[next] = 1;
        stack.push([next, 0]);
      }
    } else {
      out.push(top[0]);
      stack.pop();
    }
  }
  return out.reverse();
}
