/**
 * The second tier: hot function bodies and hot `while` loops become one
 * generated JS function each (`new Function`), built from the shapes the
 * closure compiler attached to its closures (shape.ts).
 *
 * Why: a closure-compiled evaluator spends its time calling node closures
 * through call sites that every instance of a closure literal shares, so V8
 * can neither inline nor specialise them. Generated code has its own call
 * sites and type feedback per unit, operands in JS locals, int fast paths
 * inline, and calls of the closure a site always called (recorded by the
 * closure tier in a `CallSiteIC`) with the frame built from a literal.
 *
 * Contracts kept:
 * - State lives in frame slots exactly as in the closure tier, so a loop can
 *   switch tiers at its back-edge and code can fall back to closures at any
 *   statement boundary.
 * - Every value is checked for a promise where the closure tier checks.
 *   Within a statement, a promise continues in a generated async function
 *   that finishes the statement (`c0`, `c1`, …: the rest of the statement's
 *   steps with awaits); the rest of the enclosing blocks then continues
 *   through their closures (`chain` + `continueBlock`). A generated loop
 *   hands suspensions to its closure loop's driver (`Suspend`, phases 0, 1,
 *   2 as in compile.ts whileLoop), which re-enters the generated loop at
 *   the next iteration, so a long-running loop never nests promises.
 * - Nodes without a shape are called as closures; errors carry the spans
 *   the closure tier gives them (slow paths are the closure tier's own
 *   located functions).
 *
 * Units are compiled lazily: a body after `bodyThreshold` calls, a loop
 * after `loopThreshold` iterations, so code that runs once never pays for
 * generation. `HARN_VM_JIT=off` disables the tier, `HARN_VM_JIT=eager`
 * compiles every unit on first use (the conformance suite runs both ways).
 */
import { type CpLengthMemo, HClosure, Tag, type Value, display, equals, truthy } from "../values";
import { BRK, CONT, Ctl, RET } from "./control";
import { NIL_EV } from "./compile/base";
import { AGAIN, type JitStep, ONCE, Suspend } from "./compile/loops";
import { type Ev, type FnProto, Frame, type Outcome, type Result } from "./frame";
import { BAIL, BAILX, directBody, directEntry } from "./direct";
import { PURE_KINDS, type SlotStore, intSlots, leaveLoop } from "./exits";
import { type Link, chain, continueBlock, located } from "./helpers";
import { type Interpreter, MAX_FRAMES } from "./interpreter";
import { emitBinary, hasIntPath, intPathGivesInt, isNumLiteral } from "./optable";
import { emitMethodCall } from "./jit-methods";
import { framedRegion, promoteSlots } from "./promote";
import { type Shape, shapeOf } from "./shape";

export type JitMode = "off" | "auto" | "eager";

const AUTO_BODY_THRESHOLD = 200;
const AUTO_LOOP_THRESHOLD = 500;
/** Back-edges a generated loop runs per call at most (see emitLoopUnit). */
const RUN_LENGTH = 128;
/** Exits a generated loop may take to the closure tier before it is
 * generated again with every slow path inline (see Unit.exit). */
const EXIT_LIMIT = 16;

type BlockShape = Extract<Shape, { k: "block" }>;
type WhileShape = Extract<Shape, { k: "while" }>;
type CallShape = Extract<Shape, { k: "call" }>;
export type MethodShape = Extract<Shape, { k: "mcall" }>;

/** Everything generated code refers to besides its own constants. */
interface Helpers {
  interp: Interpreter;
  Ctl: typeof Ctl;
  RET: typeof RET;
  BRK: typeof BRK;
  CONT: typeof CONT;
  HClosure: typeof HClosure;
  Frame: typeof Frame;
  Suspend: typeof Suspend;
  truthy: typeof truthy;
  display: typeof display;
  chain: typeof chain;
  BAIL: typeof BAIL;
  BAILX: typeof BAILX;
  cpMemo: CpLengthMemo;
  equals: typeof equals;
  AGAIN: typeof AGAIN;
  ONCE: typeof ONCE;
}
const HELPER_NAMES = ["interp", "Ctl", "RET", "BRK", "CONT", "HClosure", "Frame", "Suspend", "truthy", "display", "chain", "BAIL", "BAILX", "cpMemo", "equals", "AGAIN", "ONCE"];

type Factory = (K: unknown[], R: Helpers) => (fr: Frame) => unknown;

export class Jit {
  /** Calls before a body is compiled; -1 never. */
  readonly bodyThreshold: number;
  /** Iterations before a loop is compiled; -1 never. */
  readonly loopThreshold: number;
  private readonly helpers: Helpers;
  /** Generated sources already turned into factories (units of the same
   * shape share one; their constants differ). */
  private readonly factories = new Map<string, Factory>();

  constructor(
    readonly interp: Interpreter,
    mode: JitMode,
  ) {
    this.bodyThreshold = mode === "off" ? -1 : mode === "eager" ? 1 : AUTO_BODY_THRESHOLD;
    this.loopThreshold = mode === "off" ? -1 : mode === "eager" ? 1 : AUTO_LOOP_THRESHOLD;
    this.helpers = { interp, Ctl, RET, BRK, CONT, HClosure, Frame, Suspend, truthy, display, chain, BAIL, BAILX, cpMemo: interp.rt.cpMemo, equals, AGAIN, ONCE };
  }

  /** The body a prototype starts with: the closure body behind a call
   * counter that compiles it once it is hot. */
  tierBody(proto: FnProto): Ev {
    const ev = proto.body;
    if (this.bodyThreshold < 0) return ev;
    let left = this.bodyThreshold;
    return (fr) => {
      if (--left !== 0) return ev(fr);
      // A body that qualifies for frameless code runs that way from any
      // caller (direct.ts directBody); otherwise generated code.
      proto.body = directBody(this.interp, proto, MAX_FRAMES) ?? this.compileBody(ev) ?? ev;
      // Eager mode runs even a function called once as generated code.
      return this.bodyThreshold === 1 ? proto.body(fr) : ev(fr);
    };
  }

  compileBody(root: Ev): Ev | null {
    const u = new Unit(this.interp, "body");
    if (!u.worthIt(root)) return null;
    u.emitBodyUnit(root);
    return this.instantiate<Ev>(u);
  }

  /** Generate `shape`'s loop; `exits`: int paths leave the loop when
   * they fail (Unit.exit), until the loop took EXIT_LIMIT exits. */
  compileLoop(shape: WhileShape, exits = true): void {
    const u = new Unit(this.interp, "loop", exits ? shape : null);
    if (!u.worthIt(shape.body) && !u.worthIt(shape.c)) {
      shape.loop.countdown = -1;
      return;
    }
    u.emitLoopUnit(shape);
    shape.loop.jit = this.instantiate<(fr: Frame) => JitStep>(u);
  }

  /** A generated loop left to the closure tier: past the limit, its
   * replacement merges every slow path instead. */
  exited(shape: WhileShape): void {
    if (++shape.loop.exits === EXIT_LIMIT) this.compileLoop(shape, false);
  }

  /** The unit's function. Where types meet generated JS: a body unit is
   * an `Ev`, a loop unit a `LoopStep` function (the contracts above). */
  private instantiate<F extends (fr: Frame) => unknown>(u: Unit): F {
    const src = u.source();
    let f = this.factories.get(src);
    if (f === undefined) {
      f = new Function("K", "R", src) as Factory;
      this.factories.set(src, f);
    }
    return f(u.consts, this.helpers) as F;
  }
}

// ---------------------------------------------------------------------------
// Code generation

/** Straight-line code of one statement, in evaluation order. `susp` steps
 * produce a value that may be a promise (the statement suspends there);
 * `br` steps are the branches of `&&`, `||`, `??` and `?:`. */
export type Step = { t: "js"; js: string } | { t: "susp"; tmp: string; js: string } | { t: "br"; cond: string; a: Step[]; b: Step[] };

/** Where a statement sits: the enclosing blocks of the unit (outermost
 * first) and its index in each. */
interface PathEntry {
  block: BlockShape;
  index: number;
}

const js = (code: string): Step => ({ t: "js", js: code });

function contains(steps: Step[], p: Step): boolean {
  for (const s of steps) {
    if (s === p) return true;
    if (s.t === "br" && (contains(s.a, p) || contains(s.b, p))) return true;
  }
  return false;
}

/** `truthy(x)` with the bool cases inline. */
function T(x: string): string {
  if (x === "true" || x === "false") return x;
  return `(${x} === true || (${x} !== false && truthy(${x})))`;
}

class Unit {
  readonly consts: unknown[] = [];
  private readonly constIndex = new Map<unknown, number>();
  /** Mutable cells of the unit (`var cN_;`), shared by its calls. */
  private ncells = 0;
  /** Where emitted lines go (the main function's body while it is built). */
  private out: string[] = [];
  private readonly conts: string[] = [];
  private ntemps = 0;
  private maxTemps = 0;
  private path: PathEntry[] = [];
  /** Inside a loop unit's condition (suspensions resume at phase 1). */
  private inCond = false;
  /** Whether what the current statement evaluated so far can be evaluated
   * again without anyone noticing (no call, no closure statement): then a
   * failing int path may exit and restart the statement (`exit`). */
  private pure = false;
  /** The current statement's operands known to hold ints (temps of exiting
   * int paths, int literals), and the slot each slot-read temp holds. */
  private num = new Set<string>();
  private slotTemps = new Map<string, number>();
  /** Every slot store of a loop unit: whether the value is an int, or a
   * copy of which slot (-1: neither). */
  private readonly stores: SlotStore[] = [];

  constructor(
    readonly interp: Interpreter,
    readonly kind: "body" | "loop",
    /** The loop whose int paths exit instead of merging their slow path,
     * or null. */
    private readonly exitsOf: WhileShape | null = null,
  ) {}

  /** Whether generating code for `ev` saves anything: at least one shaped
   * node that is not just a call of a closure. */
  worthIt(ev: Ev): boolean {
    const sh = shapeOf(ev);
    return sh !== undefined && sh.k !== "sync";
  }

  k(v: unknown): string {
    let i = this.constIndex.get(v);
    if (i === undefined) {
      i = this.consts.length;
      this.consts.push(v);
      this.constIndex.set(v, i);
    }
    return `k${i}`;
  }

  temp(): string {
    const t = `t${this.ntemps++}`;
    if (this.ntemps > this.maxTemps) this.maxTemps = this.ntemps;
    return t;
  }

  source(): string {
    const lines: string[] = ['"use strict";', `const { ${HELPER_NAMES.join(", ")} } = R;`];
    for (let i = 0; i < this.consts.length; i++) lines.push(`const k${i} = K[${i}];`);
    // Undefined, which no Harn value is; `var`, as a `let` the unit's
    // functions share is checked for its temporal dead zone at each use.
    for (let i = 0; i < this.ncells; i++) lines.push(`var c${i}_;`);
    lines.push(...this.out, ...this.conts, "return main;");
    return lines.join("\n");
  }

  private tempDecl(): string {
    if (this.maxTemps === 0) return "";
    const ts: string[] = [];
    for (let i = 0; i < this.maxTemps; i++) ts.push(`t${i}`);
    return `let ${ts.join(", ")};`;
  }

  // ---- units

  emitBodyUnit(root: Ev): void {
    const body: string[] = [];
    this.withOut(body, () => this.emitStmt(root, "r0"));
    this.out.push("function main(fr) {", "const s = fr.s;", "const task = fr.task;", this.tempDecl(), "let r0 = null;", ...body, "return r0;", "}");
  }

  emitLoopUnit(sh: WhileShape): void {
    const body: string[] = [];
    this.withOut(body, () => {
      body.push("for (;;) {");
      // The yield is built by the interpreter: a `new` that never ran before
      // V8 optimized this loop would deoptimize it at the first yield, and
      // every later entry would start over in the interpreter.
      // Every RUN_LENGTH back-edges (`run`, a local countdown: a frameless
      // call in the body resets the shared counter at its own ticks) the
      // unit ticks RUN_LENGTH at once and returns to be called again. V8
      // then compiles it once as a function; a unit that ran long in
      // unoptimized code was compiled again for on-stack replacement,
      // whose loop starts from tagged values (boxing the ints). The tick
      // and the return share one exit, which V8 saw run before optimizing.
      body.push(`if (--run === 0) { if ((interp.ticks += ${RUN_LENGTH}) >= 1024) { const y = interp.tickLoop(fr.task); return y === undefined ? AGAIN : y; } return AGAIN; }`);
      const steps: Step[] = [];
      this.ntemps = 0;
      this.inCond = true;
      const c = this.emitExpr(sh.c, steps);
      this.renderSteps(steps, `return ${c};`);
      this.inCond = false;
      body.push(`if (!${T(c)}) return null;`);
      this.emitStmt(sh.body, null);
      body.push("}");
    });
    // The first run's last back-edge (the RUN_LENGTH-th) takes
    // the tick path, so V8 has seen it run before it optimizes the loop;
    // otherwise the first preemption yield (or a yield a frameless call
    // left due) deoptimizes the whole loop, and it runs unoptimized until
    // compiled again. Not the first back-edge: V8 allocates a function's
    // type feedback only after some bytecode has run, and what ran before
    // that left none.
    const promoted = promoteSlots(body, intSlots(this.stores));
    this.out.push(
      "let cold = true;",
      "function main(fr) {",
      "const s = fr.s;",
      "const task = fr.task;",
      this.tempDecl(),
      `if (cold) { cold = false; if (interp.ticks < ${1024 - RUN_LENGTH}) interp.ticks = ${1024 - RUN_LENGTH}; }`,
      `let run = ${RUN_LENGTH};`,
      ...(promoted ?? body),
      "}",
    );
  }

  /**
   * The code a failing int path runs instead of its slow path, or null:
   * in a loop unit, when everything the statement evaluated before can be
   * evaluated again, leave the loop there (exits.ts leaveLoop).
   */
  private exit(): string | null {
    const shape = this.exitsOf;
    if (shape === null || this.inCond || !this.pure || this.path.length === 0) return null;
    return `return ${this.k(leaveLoop(this.path, shape, this.interp.jit))}(fr);`;
  }

  private withOut(buf: string[], f: () => void): void {
    const saved = this.out;
    this.out = buf;
    try {
      f();
    } finally {
      this.out = saved;
    }
  }

  // ---- suspension

  /** Code that leaves the unit with `p`, the promise of the current
   * statement's result. */
  private suspend(p: string): string {
    if (this.kind === "loop" && this.inCond) return `return new Suspend(${p}, 1);`;
    let v = p;
    if (this.path.length > 0) {
      const links: Link[] = [];
      for (let i = this.path.length - 1; i >= 0; i--) {
        const { block, index } = this.path[i]!;
        links.push((fr, x) => continueBlock(block.evs, index + 1, block.useLast, fr, x));
      }
      v = `chain(fr, ${p}, ${this.k(links)})`;
    }
    return this.kind === "loop" ? `return new Suspend(${v}, 2);` : `return ${v};`;
  }

  /** What a control signal from a closure statement does here. */
  private ctl(r: string): string {
    if (this.kind === "loop") return `if (${r} === BRK) return null; if (${r} === CONT) continue; return ${r};`;
    return `return ${r};`;
  }

  /** Emit the steps of the current statement; every suspension point gets
   * an async continuation that runs the remaining steps, then `asyncTail`
   * (which returns the statement's result). */
  private renderSteps(steps: Step[], asyncTail: string): void {
    const n = this.ntemps;
    const params = ["fr"];
    for (let i = 0; i < n; i++) params.push(`t${i}`);
    const render = (list: Step[]) => {
      for (const st of list) {
        if (st.t === "js") this.out.push(st.js);
        else if (st.t === "br") {
          this.out.push(`if (${st.cond}) {`);
          render(st.a);
          this.out.push("} else {");
          render(st.b);
          this.out.push("}");
        } else {
          this.out.push(st.js);
          const name = `c${this.conts.length}`;
          this.conts.push(""); // reserve the name
          const body: string[] = [];
          this.restAfter(steps, st, body);
          this.conts[Number(name.slice(1))] = [`async function ${name}(${params.join(", ")}) {`, "const s = fr.s;", "const task = fr.task;", ...body, asyncTail, "}"].join("\n");
          this.out.push(`if (${st.tmp} instanceof Promise) ${this.suspend(`${name}(${params.join(", ")})`)}`);
        }
      }
    };
    render(steps);
  }

  /** The async rest of `steps` after the suspension point `p`. */
  private restAfter(steps: Step[], p: Step & { t: "susp" }, out: string[]): void {
    let found = false;
    const asyncStep = (st: Step): void => {
      if (st.t === "js") out.push(st.js);
      else if (st.t === "susp") out.push(st.js, `if (${st.tmp} instanceof Promise) ${st.tmp} = await ${st.tmp};`);
      else {
        out.push(`if (${st.cond}) {`);
        st.a.forEach(asyncStep);
        out.push("} else {");
        st.b.forEach(asyncStep);
        out.push("}");
      }
    };
    const walk = (list: Step[]): void => {
      for (const st of list) {
        if (found) asyncStep(st);
        else if (st === p) {
          found = true;
          out.push(`${p.tmp} = await ${p.tmp};`);
        } else if (st.t === "br") {
          if (contains(st.a, p)) walk(st.a);
          else if (contains(st.b, p)) walk(st.b);
        }
      }
    };
    walk(steps);
  }

  // ---- statements

  private emitStmt(ev: Ev, target: string | null): void {
    if (ev === NIL_EV) {
      if (target) this.out.push(`${target} = null;`);
      return;
    }
    const sh = shapeOf(ev);
    this.ntemps = 0;
    this.num.clear();
    this.slotTemps.clear();
    const steps: Step[] = [];
    switch (sh?.k) {
      case "block":
        this.emitBlock(sh, target);
        return;
      case "store": {
        const v = this.emitExpr(sh.value, steps);
        this.renderSteps(steps, `s[${sh.slot}] = ${v}; return null;`);
        this.out.push(`s[${sh.slot}] = ${v};`);
        this.stores.push({ slot: sh.slot, num: this.num.has(v) || isNumLiteral(v), from: this.slotTemps.get(v) ?? -1 });
        if (target) this.out.push(`${target} = null;`);
        return;
      }
      case "update": {
        const v = this.emitExpr(sh.value, steps);
        const upd = this.k(sh.update);
        this.renderSteps(steps, `return ${upd}(fr, ${v});`);
        if (hasIntPath(sh.op)) {
          const c = this.temp();
          const x = this.temp();
          const exit = intPathGivesInt(sh.op) ? this.exit() : null;
          this.out.push(`${c} = s[${sh.slot}];`, emitBinary(sh.op, c, v, x, exit ?? `${x} = ${this.k(sh.slow)}(${c}, ${v});`), `s[${sh.slot}] = ${x};`);
          this.stores.push({ slot: sh.slot, num: exit !== null, from: -1 });
        } else {
          this.out.push(`${upd}(fr, ${v});`);
          this.stores.push({ slot: sh.slot, num: false, from: -1 });
        }
        if (target) this.out.push(`${target} = null;`);
        return;
      }
      case "if": {
        const c = this.emitExpr(sh.c, steps);
        const thenK = this.k(sh.then);
        const elseK = sh.else ? `${this.k(sh.else)}(fr)` : "null";
        this.renderSteps(steps, `return ${T(c)} ? ${thenK}(fr) : ${elseK};`);
        this.out.push(`if (${T(c)}) {`);
        this.emitStmt(sh.then, target);
        this.out.push("} else {");
        if (sh.else) this.emitStmt(sh.else, target);
        else if (target) this.out.push(`${target} = null;`);
        this.out.push("}");
        return;
      }
      case "return": {
        const v = sh.value ? this.emitExpr(sh.value, steps) : "null";
        this.renderSteps(steps, `fr.ret = ${v}; return RET;`);
        this.out.push(`fr.ret = ${v};`, "return RET;");
        return;
      }
      case "break":
        if (this.kind === "loop") {
          this.out.push("return null;");
          return;
        }
        break;
      case "continue":
        if (this.kind === "loop") {
          this.out.push("continue;");
          return;
        }
        break;
      case "while":
      case "tail":
      case undefined:
        break;
      default: {
        // An expression statement: its value is the statement's result.
        const v = this.emitExpr(ev, steps);
        this.renderSteps(steps, `return ${v};`);
        if (target) this.out.push(`${target} = ${v};`);
        return;
      }
    }
    // A statement the generator does not know: call its closure.
    this.pure = false;
    const r = this.temp();
    this.out.push(`${r} = ${this.k(ev)}(fr);`, `if (${r} instanceof Promise) ${this.suspend(r)}`, `if (${r} instanceof Ctl) { ${this.ctl(r)} }`);
    if (target) this.out.push(`${target} = ${r};`);
  }

  private emitBlock(sh: BlockShape, target: string | null): void {
    const n = sh.evs.length;
    for (let i = 0; i < n; i++) {
      this.path.push({ block: sh, index: i });
      const pure = this.pure;
      this.pure = true;
      try {
        this.emitStmt(sh.evs[i]!, i === n - 1 && sh.useLast ? target : null);
      } finally {
        this.path.pop();
        this.pure = pure;
      }
    }
    if (target && !sh.useLast) this.out.push(`${target} = null;`);
  }

  // ---- expressions

  /** Emit the steps computing `ev`; returns a JS operand (a temp or a
   * literal) holding its value. */
  emitExpr(ev: Ev, steps: Step[]): string {
    if (ev === NIL_EV) return "null";
    const sh = shapeOf(ev);
    if (sh === undefined) return this.opaque(ev, steps);
    const t = this.emitShaped(ev, sh, steps);
    // What may have effects, or call code that does.
    if (!PURE_KINDS.has(sh.k)) this.pure = false;
    return t;
  }

  private emitShaped(ev: Ev, sh: Shape, steps: Step[]): string {
    switch (sh.k) {
      case "lit":
        return this.literal(sh.v);
      case "slot": {
        const t = this.temp();
        steps.push(js(`${t} = s[${sh.slot}];`));
        this.slotTemps.set(t, sh.slot);
        return t;
      }
      case "sync": {
        const t = this.temp();
        steps.push(js(`${t} = ${this.k(ev)}(fr);`));
        return t;
      }
      case "bin": {
        const a = this.emitExpr(sh.l, steps);
        const b = this.emitExpr(sh.r, steps);
        const t = this.temp();
        const exit = intPathGivesInt(sh.op) ? this.exit() : null;
        steps.push(js(emitBinary(sh.op, a, b, t, exit ?? `${t} = ${this.k(sh.slow)}(${a}, ${b});`)));
        if (exit !== null) this.num.add(t);
        return t;
      }
      case "op": {
        const a = this.emitExpr(sh.l, steps);
        const b = this.emitExpr(sh.r, steps);
        const t = this.temp();
        steps.push(js(`${t} = ${this.k(sh.slow)}(${a}, ${b});`));
        return t;
      }
      case "and":
      case "or": {
        const a = this.emitExpr(sh.l, steps);
        const t = this.temp();
        const right: Step[] = [];
        const b = this.emitExpr(sh.r, right);
        right.push(js(`${t} = ${T(b)};`));
        if (sh.k === "and") steps.push({ t: "br", cond: T(a), a: right, b: [js(`${t} = false;`)] });
        else steps.push({ t: "br", cond: T(a), a: [js(`${t} = true;`)], b: right });
        return t;
      }
      case "coalesce": {
        const a = this.emitExpr(sh.l, steps);
        const t = this.temp();
        const right: Step[] = [];
        const b = this.emitExpr(sh.r, right);
        right.push(js(`${t} = ${b};`));
        steps.push({ t: "br", cond: `${a} !== null`, a: [js(`${t} = ${a};`)], b: right });
        return t;
      }
      case "ternary": {
        const c = this.emitExpr(sh.c, steps);
        const t = this.temp();
        const sa: Step[] = [];
        const a = this.emitExpr(sh.a, sa);
        sa.push(js(`${t} = ${a};`));
        const sb: Step[] = [];
        const b = this.emitExpr(sh.b, sb);
        sb.push(js(`${t} = ${b};`));
        steps.push({ t: "br", cond: T(c), a: sa, b: sb });
        return t;
      }
      case "not": {
        const a = this.emitExpr(sh.a, steps);
        const t = this.temp();
        steps.push(js(`${t} = !${T(a)};`));
        return t;
      }
      case "neg": {
        const a = this.emitExpr(sh.a, steps);
        const t = this.temp();
        steps.push(js(`${t} = typeof ${a} === "number" && ${a} !== 0 ? -${a} : ${this.k(sh.negate)}(${a});`));
        return t;
      }
      case "prop": {
        const o = this.emitExpr(sh.obj, steps);
        const t = this.temp();
        const key = JSON.stringify(sh.name);
        // A dict's key and a struct's field (ops.getProperty's first two
        // cases) inline, told apart by the value's tag (one load with an
        // inline cache, where `instanceof` walks the prototype chain); a
        // struct's field from its field record once it has one (values.ts).
        const slow = `${t} = ${this.k(sh.slow)}(${o});`;
        steps.push(
          js(
            [
              `if (typeof ${o} === "object" && ${o} !== null) {`,
              `${t} = ${o}.tag;`,
              `if (${t} === ${Tag.Struct}) { if ((${t} = ${o}.rec) === undefined || (${t} = ${t}[${key}]) === undefined) { if ((${t} = ${o}.field(${key})) === undefined) ${slow} } }`,
              `else if (${t} === ${Tag.Dict}) ${t} = ${o}.get(${key});`,
              `else ${slow}`,
              `} else ${slow}`,
            ].join("\n"),
          ),
        );
        return t;
      }
      case "index": {
        const o = this.emitExpr(sh.obj, steps);
        const i = this.emitExpr(sh.idx, steps);
        const t = this.temp();
        steps.push(
          js(`${t} = Array.isArray(${o}) && typeof ${i} === "number" && ${i} >= 0 ? (${i} < ${o}.length ? ${o}[${i}] : null) : ${this.k(sh.get)}(${o}, ${i});`),
        );
        return t;
      }
      case "interp": {
        const parts: string[] = [];
        for (const p of sh.parts) {
          if (typeof p === "string") parts.push(JSON.stringify(p));
          else {
            const v = this.emitExpr(p, steps);
            parts.push(`(typeof ${v} === "string" ? ${v} : typeof ${v} === "number" ? "" + ${v} : display(${v}))`);
          }
        }
        const t = this.temp();
        const span = sh.span;
        const file = sh.file;
        const loc = this.k((e: unknown) => located(e, span, file));
        // A string that starts with an interpolated value may extend the
        // string whose code-point length the runtime remembers (`text =
        // "${text}${piece}"`, values.ts CpLengthMemo).
        const value =
          parts.length === 0 ? '""' : parts.length > 1 && typeof sh.parts[0] !== "string" ? `cpMemo.concat(${parts[0]}, ${parts.slice(1).join(" + ")})` : parts.join(" + ");
        steps.push(js(`try { ${t} = ${value}; } catch (e) { throw ${loc}(e); }`));
        return t;
      }
      case "list": {
        const xs = sh.elems.map((e) => this.emitExpr(e, steps));
        const t = this.temp();
        steps.push(js(`${t} = [${xs.join(", ")}];`));
        return t;
      }
      case "call":
        return this.call(sh, steps);
      case "mcall":
        return emitMethodCall(this, sh, steps);
      default:
        return this.opaque(ev, steps);
    }
  }

  private opaque(ev: Ev, steps: Step[]): string {
    this.pure = false;
    const t = this.temp();
    steps.push({ t: "susp", tmp: t, js: `${t} = ${this.k(ev)}(fr);` });
    return t;
  }

  private literal(v: Value): string {
    if (v === null) return "null";
    if (typeof v === "boolean") return String(v);
    // Always parenthesised: a literal can be the object of a member access
    // in the generated code (`5.get(…)`, `5.length` do not parse).
    if (typeof v === "number") return `(${v})`;
    if (typeof v === "string") return JSON.stringify(v);
    return this.k(v);
  }

  /** A call by name. The callee is resolved as the closure tier does
   * (slot, then late-bound name); when the site only ever called one
   * simple closure, a guarded fast path builds its frame from a literal
   * and runs its body here, with the hop/tick/overflow cases, suspension,
   * tail calls, defers and errors handed to the interpreter. */
  private call(sh: CallShape, steps: Step[]): string {
    const f = this.temp();
    const name = JSON.stringify(sh.name);
    const lookup = `(fr.ck === ${name} ? fr.cv : interp.lookupDyn(fr, ${name}))`;
    const names = this.interp.lateNames;
    const late = sh.special ? "null" : names.has(sh.name) ? lookup : `(interp.lateNames.version === ${names.version} ? null : ${lookup})`;
    const resolve = late === "null" ? `${f} = null;` : framedRegion(`${f} = ${late};`);
    const ic = sh.ic;
    const p = ic.proto !== null && !ic.poly && ic.proto.simple ? ic.proto : null;
    // A callee that calls nothing runs its frameless code right here (no
    // frame, no call context, nothing of the caller's frame), and only
    // when that gives up does the call run framed, in a framed region (a
    // loop keeps its slots in JS locals around it).
    const call = p !== null && sh.args.length === p.paramSlots.length && directEntry(this.interp, p, MAX_FRAMES) !== null ? p.directCall : null;
    // The closure that last passed the checks of such a call (a closure's
    // prototype is fixed): a loop calling the same function skips them.
    const cell = call !== null ? `c${this.ncells++}_` : null;
    const resolved = cell !== null ? `${f} !== ${cell} && !(${f} instanceof HClosure)` : `!(${f} instanceof HClosure)`;
    steps.push(js(sh.slot >= 0 ? `${f} = s[${sh.slot}]; if (${resolved}) { ${resolve} }` : resolve));
    const args = sh.args.map((a) => this.emitExpr(a, steps));
    const t = this.temp();
    const generic = `${t} = ${this.k(sh.call)}(fr, ${f}, [${args.join(", ")}]);`;
    const site = this.k(sh.site);
    let code = generic;
    if (p !== null) {
      const P = this.k(p);
      const slots: string[] = [];
      for (let i = 0; i < p.nslots; i++) slots.push("null");
      for (let i = 0; i < p.captureTo.length; i++) slots[p.captureTo[i]!] = `${f}.impl.captured[${i}]`;
      for (let i = 0; i < p.paramSlots.length && i < args.length; i++) slots[p.paramSlots[i]!] = args[i]!;
      // The callee inherits the caller's late-bound cache unless this site
      // binds the cached name (interpreter.ts inheritLate); the callee's
      // own name, the usual entry, is decided here once.
      const inheritOwn = sh.site.slotOf(sh.name) < 0 ? "nf.ck = ck; nf.cv = fr.cv;" : "";
      // A callee that qualifies for frameless calls (direct.ts) runs that
      // way, its entry falling back to a framed call itself; the framed
      // code here runs once the prototype stopped using direct code.
      const direct = args.length === p.paramSlots.length && directEntry(this.interp, p, MAX_FRAMES) !== null;
      code = [
        `if (${f} !== null && ${f}.impl.proto === ${P}) {`,
        direct && call === null ? `if (${P}.direct !== null) ${t} = ${P}.direct(fr, ${site}, ${f}${args.map((a) => `, ${a}`).join("")}); else {` : "{",
        `const task = fr.task; const d = task.depth + 1;`,
        `const nf = new Frame(${P}, task, fr, ${site}, [${slots.join(", ")}]);`,
        `const ck = fr.ck;`,
        `if (ck === ${name}) { ${inheritOwn} } else if (ck !== null && ${site}.slotOf(ck) < 0) { nf.ck = ck; nf.cv = fr.cv; }`,
        // Every 64th level (which includes the 512-frame limit) and every
        // 1024th call take the interpreter's path: stack hop, overflow
        // error, preemption.
        `if ((d & 63) === 0 || ++interp.ticks >= 1024) ${t} = interp.enterBound(nf, fr, ${site});`,
        `else {`,
        `task.depth = d;`,
        `try {`,
        `${t} = ${P}.body(nf);`,
        `if (${t} === RET && nf.defers === null) ${t} = nf.ret;`,
        `else if (${t} instanceof Ctl || ${t} instanceof Promise || nf.defers !== null) ${t} = interp.afterBody(nf, ${t});`,
        p.returnsLast ? "" : `else ${t} = null;`,
        `} catch (e) { ${t} = interp.callThrew(nf, e, fr, ${site}, task); }`,
        `if (${t} instanceof Promise) ${t} = interp.settleCall(${t}, task, fr, ${site}); else task.depth = d - 1;`,
        `}`,
        `}`,
        `} else ${generic}`,
      ]
        .filter((l) => l !== "")
        .join("\n");
      if (call !== null && cell !== null) {
        const dc = `${t} = ${this.k(call)}(task${args.map((a) => `, ${a}`).join("")});`;
        const fast = `if (${f} === ${cell}) ${dc} else if (${f} !== null && ${f}.impl.proto === ${P} && ${P}.direct !== null) { ${cell} = ${f}; ${dc} } else ${t} = undefined;`;
        code = `${fast}\nif (${t} === undefined) { ${framedRegion(code)} }`;
      }
    } else if (ic.builtin && !ic.poly && ic.proto === null) {
      const b = this.interp.builtinFor(sh.name);
      const unary = b !== null && args.length === 1 ? this.interp.rt.unaryForms.get(b) : undefined;
      if (unary !== undefined) {
        // The builtin's one-argument form: no argument list, no context.
        code = [
          `if (${f} === null && interp.rt.denied.size === 0) {`,
          `try { ${t} = ${this.k(unary)}(${args[0]}); } catch (e) { throw interp.builtinError(e, fr, ${site}); }`,
          `} else ${generic}`,
        ].join("\n");
      } else if (b !== null) {
        const B = this.k(b);
        code = [
          `if (${f} === null && interp.rt.denied.size === 0) {`,
          `try { ${t} = ${B}([${args.join(", ")}], interp.ctx(fr, ${site})); } catch (e) { throw interp.builtinError(e, fr, ${site}); }`,
          `if (${t} instanceof Promise) ${t} = interp.guardBuiltin(${t}, ${site}, fr);`,
          `} else ${generic}`,
        ].join("\n");
      }
    }
    steps.push({ t: "susp", tmp: t, js: code });
    return t;
  }
}
