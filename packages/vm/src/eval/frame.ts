/**
 * Run-time structures of the evaluator: function prototypes (compiled once),
 * closures (prototype + captured snapshot), frames (one per invocation) and
 * call sites.
 *
 * Variables are resolved at compile time to slots of the invocation's frame
 * array: `[captured..., parameters..., locals...]`. Because closures capture
 * *copies* (spec/semantics.md §5.4), a flat per-invocation array is exact:
 * creating a closure copies the captured slots, calling it copies them into
 * the new frame, and writes never leak out.
 */
import type { DirectCall, DirectEntry, LeafFn } from "./direct";
import type { Span, TypeExpr } from "@harn/parser";
import type { Value } from "../values";
import type { CallContext } from "../runtime";
import type { BlockScope } from "./scope";
import type { Task } from "./task";
import type { Ctl } from "./control";

/** What a compiled node produces when it finishes synchronously: an
 * expression's value, or a statement's control signal (`break`,
 * `continue`, `return` with the value in `frame.ret`, a tail call). */
export type Outcome = Value | Ctl;
/** What a compiled node returns: its outcome, or a promise of it when it
 * suspended (callers await only when they got a promise). */
export type Result = Async<Outcome>;
/** A value now, or a promise of it. */
export type Async<T> = T | Promise<T>;
/** A compiled statement, block or body. */
export type Ev = (fr: Frame) => Result;
/** A compiled expression: never a control signal (an expression-position
 * block throws its signal; compile.ts `stmt` turns it back). */
export type ExprEv = (fr: Frame) => Async<Value>;

export interface ParamInfo {
  name: string;
  slot: number;
  def: ExprEv | null;
  rest: boolean;
  type: TypeExpr | null;
  span: Span;
}

const NO_INTERFACES = new Set<string>();

/** The root frame of the module a function was compiled in, once it ran:
 * module functions late-bind the module's own top-level names from it. */
export interface ModuleHome {
  frame: Frame | null;
  scope: BlockScope | null;
}
const NO_HOME: ModuleHome = { frame: null, scope: null };

export class FnProto {
  /** Slots copied from the creating frame, in capture order. */
  captureFrom: number[] = [];
  /** Where each captured value goes in this function's frame. */
  captureTo: number[] = [];
  nslots = 0;
  /** A nil-filled array of `nslots` entries: each frame starts as a copy
   * (cloning a small packed array is cheaper than filling a new one). */
  blank: Value[] = [];
  params: ParamInfo[] = [];
  body: Ev = () => null;
  /** Closures and `fn` expressions return their last value; named `fn`
   * declarations and impl methods return nil without `return`. */
  returnsLast = false;
  generator: "none" | "generator" | "stream" = "none";
  /** Any parameter carries a checkable type annotation (§7.3). */
  typed = false;
  /** Interface names declared in the program (§7.8 parameter checks). */
  interfaces: Set<string> = NO_INTERFACES;
  home: ModuleHome = NO_HOME;
  /** Rest parameter index, or -1. */
  restIndex = -1;
  /** No defaults, rest or typed parameters and not a generator: calls bind
   * arguments straight into parameter slots. */
  simple = false;
  /** Parameter slots, in order (for simple prototypes). */
  paramSlots: number[] = [];
  /** The body as the closure compiler built it (`body` may be its tiering
   * wrapper or generated code, jit.ts). */
  source: Ev = () => null;
  /** Whether the body calls nothing and creates nothing that could keep
   * its frame (shape.ts isLeaf): a prepared callback may then reuse one
   * frame for all its calls. Computed on first use. */
  leaf: boolean | null = null;
  /** The handler of a `tool` declaration (see tooldecl.ts). */
  isTool = false;
  /** The frameless version of this function (direct.ts): undefined until
   * a generated call site asks, null when the body does not qualify or
   * reached the frame limit. */
  direct: DirectEntry | null | undefined = undefined;
  /** With `direct`: a body for frames that runs the frameless code
   * (direct.ts directBody). */
  directBody: Ev | null = null;
  /** With `direct`, when the body calls nothing: the frameless code alone
   * (direct.ts DirectCall), for generated call sites. */
  directCall: DirectCall | null = null;
  /** The body as a plain function of argument and captures, for generated
   * filter/map loops (direct.ts leafEntry); same states as `direct`. */
  leafDirect: LeafFn | null | undefined = undefined;
  constructor(
    readonly name: string | null,
    readonly file: string,
    readonly span: Span,
  ) {}
  /** Fix the slot count once compilation of the body is done. */
  setSlots(n: number): void {
    this.nslots = n;
    const b: Value[] = [];
    for (let i = 0; i < n; i++) b.push(null);
    this.blank = b;
  }
  get displayParams(): string[] {
    return this.params.map((p) => p.name);
  }
}

/** A closure's evaluator half: `HClosure.impl`. */
export class ClosureImpl {
  constructor(
    readonly proto: FnProto,
    readonly captured: Value[],
    /** Native body (struct constructors, `nativeClosure`), given the
     * caller's context. */
    readonly native: ((args: Value[], ctx: CallContext) => Value | Promise<Value>) | null = null,
  ) {}
}

/** A call site: where late-bound function names are looked up (§5.4). */
export class Site {
  /** One-entry memo of `scope.slotAt(name, order)` (late-bound lookups
   * through this site ask for the same name again and again). */
  memoName: string | null = null;
  memoSlot = -1;
  constructor(
    readonly scope: BlockScope,
    /** Declarations with a smaller order are visible here. */
    readonly order: number,
    readonly span: Span | null,
  ) {}
  slotOf(name: string): number {
    if (this.memoName === name) return this.memoSlot;
    const slot = this.scope.slotAt(name, this.order);
    this.memoName = name;
    this.memoSlot = slot;
    return slot;
  }
}

export class Frame {
  // Fields are `declare`d and assigned in the constructor, in one order: a
  // class field declaration would compile to a separate define-semantics
  // initializer that runs on every call before the constructor body.
  declare readonly proto: FnProto;
  declare readonly task: Task;
  /** The caller frame and call site, for late-bound names. */
  declare readonly dynFr: Frame | null;
  declare readonly dynSite: Site | null;
  declare readonly s: Value[];
  declare ret: Value;
  /** Registered `defer` bodies (LIFO at exit). */
  declare defers: Ev[] | null;
  /** Generator state when this frame runs a generator body. */
  declare gen: unknown;
  /** One-entry cache of late-bound name lookups (most functions late-bind
   * at most their own name). */
  declare ck: string | null;
  declare cv: Value;
  declare ctx: unknown;
  /** `slots` is the frame's slot array when the caller built it (generated
   * code passes a literal); otherwise a nil-filled copy. */
  constructor(proto: FnProto, task: Task, dynFr: Frame | null, dynSite: Site | null, slots?: Value[]) {
    this.proto = proto;
    this.task = task;
    this.dynFr = dynFr;
    this.dynSite = dynSite;
    this.s = slots === undefined ? proto.blank.slice() : slots;
    this.ret = null;
    this.defers = null;
    this.gen = null;
    this.ck = null;
    this.cv = null;
    this.ctx = null;
  }
}
