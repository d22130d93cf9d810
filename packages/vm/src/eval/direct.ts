/**
 * Frameless ("direct") calls: a function whose body only computes with
 * its own parameters and locals and calls only itself runs as one plain JS
 * function with the slots in JS locals, no Frame, no slot array, no task
 * depth bookkeeping (bench/vm workload 9: 60-deep recursion).
 *
 * Why this is safe: such a body has no effects besides its result. It
 * reads no captures, writes nothing outside its own locals, creates no
 * closures, calls no builtin or method, cannot suspend, registers no
 * defers. So whenever the direct code meets something it does not handle
 * (an operand that is not an int, an int leaving the safe range, a
 * division by zero, the frame limit, a due preemption tick, a JS stack
 * overflow) it abandons the whole call (`BAIL`) and the caller runs the
 * same call again in the frame-based tier from the start, which then
 * produces the exact value or error (span, frame notes, ` (line N)`).
 *
 * Late binding (§5.4): the recursive name is resolved once at entry, the
 * way the callee's first frame would resolve it; every nested frame would
 * inherit that resolution (its call sites bind no such name, checked
 * here), so nested calls need no lookup.
 *
 * Entered only from generated call sites (jit.ts) that speculated on the
 * prototype; `HARN_VM_JIT=off` never uses it.
 */
import { HClosure, type Value, truthy } from "../values";
import { NIL_EV } from "./compile/base";
import { RET } from "./control";
import { type Async, type Ev, type FnProto, Frame, type Site } from "./frame";
import type { Interpreter } from "./interpreter";
import type { Task } from "./task";
import { emitBinary, hasIntPath } from "./optable";
import { shapeOf } from "./shape";

/** What an entry returns when the call must run in the frame-based tier. */
export const BAIL: unique symbol = Symbol("direct-bail");

/** `entry(fr, site, fn, ...args)`: the value (or promise) of calling `fn`,
 * a closure of the entry's prototype, with `args` from `site`. When the
 * direct code gives up, the entry runs the call framed itself
 * (`Interpreter.callClosure`), so the generated call site has one path
 * that always runs: a bail-out (a due preemption tick, every 30 ms)
 * cannot send V8 into a never-run branch and deoptimize a whole
 * generated loop. */
/** A callback body as a plain function of its argument and captured
 * values: its value, or it throws BAILX (leafEntry). */
export type LeafFn = (...args: Value[]) => Value;
export type DirectEntry = (fr: Frame, site: Site, fn: HClosure, ...args: Value[]) => Async<Value>;
/** `call(task, ...args)`, for a body that calls nothing: its value, or
 * undefined when the direct code gave up or the prototype stopped using it
 * (the caller then makes the call framed; undefined, not BAIL, as V8
 * compares a value with it by pointer, where it called its StrictEqual
 * builtin for a symbol). No frame, no call site, no closure: a generated
 * loop calls it with its slots in JS locals, spilling them only around the
 * framed call. */
export type DirectCall = (task: Task, ...args: Value[]) => Value | undefined;

/** Thrown inside direct code: abandon this call (retry framed). */
export const BAILX = { bail: true };
/** Thrown inside direct code: abandon, and stop using direct code for this
 * prototype (the frame limit or the host stack was reached: the framed
 * tier reports that, and retrying each level directly would cost O(n²)). */
const BAIL_OFF = { bail: true };

/** The direct entry for `proto`, built on first request; null when the
 * body does not qualify. */
export function directEntry(interp: Interpreter, proto: FnProto, maxFrames: number): DirectEntry | null {
  if (proto.direct !== undefined) return proto.direct;
  proto.direct = null;
  const g = new DirectGen(proto, maxFrames, false);
  if (!proto.simple || proto.generator !== "none" || proto.captureTo.length > 0 || proto.isTool || !g.check()) return null;
  const src = g.source();
  const factory = new Function("K", "R", src) as (K: unknown[], R: unknown) => { entry: DirectEntry; body: Ev; call: DirectCall | null };
  const made = factory(g.consts, { interp, HClosure, Frame, RET, truthy, BAIL, BAILX, BAIL_OFF, P: proto, framed: proto.source, demote: () => (proto.body = interp.jit.compileBody(proto.source) ?? proto.source) });
  proto.direct = made.entry;
  proto.directBody = made.body;
  proto.directCall = made.call;
  return proto.direct;
}

/**
 * A body for `proto`'s frames that runs the frameless code on the frame's
 * arguments, for the calls that do not come from a generated call site
 * speculating on `proto` (closure-tier callers, tail calls through the
 * trampoline, callbacks). It computes the value from the parameter slots,
 * as the entry does, and runs the closure body whenever the direct code
 * gives up; a body that gives up often is replaced by generated code for
 * good. Null when the body does not qualify.
 */
export function directBody(interp: Interpreter, proto: FnProto, maxFrames: number): Ev | null {
  return directEntry(interp, proto, maxFrames) !== null ? proto.directBody : null;
}

/**
 * The body of a callback closure as a plain function of its argument and
 * captured values, `(x, c0, c1, …) => value`, throwing BAILX where the
 * framed call could do anything but return a value; null when the body
 * does not qualify. Qualifies: a simple one-parameter (or none) closure
 * whose body calls nothing (the same nodes as a direct body, minus calls).
 * Generated loops call it in place of `filter`/`map` callbacks (jit.ts),
 * so it is built on first request and cached on the prototype.
 */
export function leafEntry(proto: FnProto): LeafFn | null {
  if (proto.leafDirect !== undefined) return proto.leafDirect;
  proto.leafDirect = null;
  if (!proto.simple || proto.generator !== "none" || proto.isTool || proto.paramSlots.length > 1) return null;
  const g = new DirectGen(proto, 0, true);
  if (!g.check()) return null;
  const factory = new Function("K", "R", g.leafSource()) as (K: unknown[], R: unknown) => LeafFn;
  proto.leafDirect = factory(g.consts, { truthy, BAILX });
  return proto.leafDirect;
}

class DirectGen {
  readonly consts: unknown[] = [];
  private readonly out: string[] = [];
  private ntemps = 0;
  private maxTemps = 0;
  /** The one name the body calls itself by (null: no calls). */
  private selfName: string | null = null;
  /** The body has a self tail call (a jump to `top`). */
  private tailJumps = false;

  constructor(
    private readonly proto: FnProto,
    private readonly maxFrames: number,
    /** A callback body (leafEntry): captures allowed, calls not. */
    private readonly leaf = false,
  ) {}

  /** Whether every node of the body is one the generator handles. */
  check(): boolean {
    return this.stmtOk(this.proto.source);
  }

  private stmtOk(ev: Ev): boolean {
    if (ev === NIL_EV) return true;
    const sh = shapeOf(ev);
    if (sh === undefined) return false;
    switch (sh.k) {
      case "block":
        return sh.evs.every((e) => this.stmtOk(e));
      case "store":
        return sh.slot >= 0 && sh.slot < this.proto.nslots && this.exprOk(sh.value);
      case "if":
        return this.exprOk(sh.c) && this.stmtOk(sh.then) && (sh.else === null || this.stmtOk(sh.else));
      case "return":
        return sh.value === null || this.exprOk(sh.value);
      case "tail":
        // A self tail call (§7.6: no frame growth) is a jump back to the
        // top of the body with the new arguments.
        return this.exprOk(sh.call) && this.selfName !== null;
      default:
        return this.exprOk(ev);
    }
  }

  private exprOk(ev: Ev): boolean {
    if (ev === NIL_EV) return true;
    const sh = shapeOf(ev);
    if (sh === undefined) return false;
    switch (sh.k) {
      case "lit":
        return sh.v === null || typeof sh.v === "boolean" || typeof sh.v === "string" || (typeof sh.v === "number" && Number.isSafeInteger(sh.v));
      case "slot":
        return sh.slot >= 0 && sh.slot < this.proto.nslots;
      case "bin":
        return hasIntPath(sh.op) && this.exprOk(sh.l) && this.exprOk(sh.r);
      case "and":
      case "or":
        return this.exprOk(sh.l) && this.exprOk(sh.r);
      case "not":
      case "neg":
        return this.exprOk(sh.a);
      case "ternary":
        return this.exprOk(sh.c) && this.exprOk(sh.a) && this.exprOk(sh.b);
      case "call": {
        if (this.leaf) return false;
        if (sh.special || sh.slot >= 0 || sh.site.slotOf(sh.name) >= 0) return false;
        if (sh.ic.poly || sh.ic.proto !== this.proto || sh.args.length !== this.proto.paramSlots.length) return false;
        if (this.selfName !== null && this.selfName !== sh.name) return false;
        this.selfName = sh.name;
        return sh.args.every((a) => this.exprOk(a));
      }
      default:
        return false;
    }
  }

  private k(v: unknown): string {
    this.consts.push(v);
    return `K[${this.consts.length - 1}]`;
  }

  private temp(): string {
    const t = `t${this.ntemps++}`;
    if (this.ntemps > this.maxTemps) this.maxTemps = this.ntemps;
    return t;
  }

  source(): string {
    const p = this.proto;
    const params = p.paramSlots.map((s) => `v${s}`);
    const locals: string[] = [];
    for (let i = 0; i < p.nslots; i++) if (!p.paramSlots.includes(i)) locals.push(`v${i} = null`);
    this.stmt(p.source, p.returnsLast ? "r" : null);
    const temps: string[] = [];
    for (let i = 0; i < this.maxTemps; i++) temps.push(`t${i}`);
    const name = JSON.stringify(this.selfName ?? "");
    const args = params.map((_, i) => `a${i}`);
    const body = [
      locals.length > 0 ? `let ${locals.join(", ")};` : "",
      temps.length > 0 ? `let ${temps.join(", ")};` : "",
      "let r = null;",
      // A self tail call continues here with new arguments (a tick each,
      // as each framed call takes one).
      this.tailJumps ? "top: for (;;) {" : "",
      // Every 1024th tick (the counter is not reset while a yield is due,
      // so the caller's next framed tick yields; interpreter.ts directTick).
      // A body that calls nothing runs a bounded number of steps and is
      // entered only from code that ticks (a framed call, a generated loop
      // or a generated body, which a framed call entered): no tick of its
      // own.
      this.selfName === null ? "" : "if ((++interp.ticks & 1023) === 0 && !interp.directTick(task)) throw BAILX;",
      ...this.out,
      p.returnsLast ? "return r;" : "return null;",
      this.tailJumps ? "}" : "",
      "}",
    ].join("\n");
    const fn = (name: string, callee: string): string =>
      `function ${name}(task, depth${params.map((x) => `, ${x}`).join("")}) {\n${body.split(SELF).join(callee)}`;
    return [
      '"use strict";',
      "const { interp, HClosure, Frame, RET, truthy, BAIL, BAILX, BAIL_OFF, P, framed, demote } = R;",
      "function bail() { throw BAILX; }",
      // A recursive body is written twice, D calling D2 and D2 calling D:
      // TurboFan does not inline a function into itself but does inline
      // its twin, so half the levels of a recursion make no real call.
      this.selfName === null ? fn("D", "D") : fn("D", "D2") + "\n" + fn("D2", "D"),
      // Entries 33 to 64 (framed or not) make the first call of each copy
      // (D, D2) tick:
      // V8 then has seen both tick paths run when it optimizes them (a
      // copy optimized without is deoptimized at its first tick, and
      // compiled again). Not the first entries: V8 allocates a function's
      // type feedback only after it ran a while.
      this.selfName === null ? "" : "let warm = 64;",
      `function entry(fr, site, fn${args.map((a) => `, ${a}`).join("")}) {`,
      this.selfName === null ? "" : "if (warm > 0 && --warm < 32) interp.ticks = 1022 + (warm & 1);",
      "const task = fr.task; const d = task.depth + 1;",
      `if (d < ${this.maxFrames}) {`,
      // Resolve the recursive name as the callee's first frame would
      // (interpreter.ts lookupDyn from a frame whose caller is `fr`).
      this.selfName === null
        ? ""
        : [
            // A binding of the name at the call site is what the walk
            // finds first; a cache entry the callee inherits comes next.
            `const sl = site.slotOf(${name});`,
            `let v = sl >= 0 ? fr.s[sl] : fr.ck === ${name} ? fr.cv : undefined;`,
            `if (v === undefined || (sl >= 0 && !(v instanceof HClosure))) v = interp.lookupDyn(new Frame(P, task, fr, site, P.blank.slice()), ${name});`,
            "if (v instanceof HClosure && v.impl.proto === P) {",
          ].join("\n"),
      `try { return D(task, d${args.map((a) => `, ${a}`).join("")}); }`,
      "catch (e) {",
      "if (e === BAIL_OFF || e instanceof RangeError) P.direct = null;",
      "else if (e !== BAILX) throw e;",
      "}",
      this.selfName === null ? "" : "}",
      "}",
      `return interp.callClosure(fn, [${args.join(", ")}], fr, site);`,
      "}",
      // The frame-based body (directBody): the callee's frame is bound and
      // counted already (task.depth is its depth).
      "let calls = 0, bails = 0;",
      "function body(fr) {",
      this.selfName === null ? "" : "if (warm > 0 && --warm < 32) interp.ticks = 1022 + (warm & 1);",
      this.selfName === null
        ? "{"
        : [
            // The recursive name as this frame resolves it.
            `const v = fr.ck === ${name} ? fr.cv : interp.lookupDyn(fr, ${name});`,
            "if (v instanceof HClosure && v.impl.proto === P) {",
          ].join("\n"),
      "calls++;",
      `try { fr.ret = D(fr.task, fr.task.depth${p.paramSlots.map((sl) => `, fr.s[${sl}]`).join("")}); return RET; }`,
      "catch (e) {",
      "if (e === BAIL_OFF || e instanceof RangeError) { P.direct = null; demote(); }",
      "else if (e !== BAILX) throw e;",
      // Bail-outs on most calls (operands that are not ints): stop trying.
      "else if (++bails > 32 && bails * 8 > calls) demote();",
      "}",
      "}",
      "return framed(fr);",
      "}",
      this.selfName !== null
        ? "const call = null;"
        : [
            `function call(task${args.map((a) => `, ${a}`).join("")}) {`,
            "const d = task.depth + 1;",
            `if (d < ${this.maxFrames} && P.direct !== null) {`,
            `try { return D(task, d${args.map((a) => `, ${a}`).join("")}); }`,
            "catch (e) {",
            "if (e instanceof RangeError) P.direct = null;",
            "else if (e !== BAILX) throw e;",
            "}",
            "}",
            "return undefined;",
            "}",
          ].join("\n"),
      "return { entry, body, call };",
    ].join("\n");
  }

  leafSource(): string {
    const p = this.proto;
    const args = ["x", ...p.captureTo.map((_, i) => `c${i}`)];
    const init: string[] = [];
    const bound = new Set<number>();
    p.captureTo.forEach((slot, i) => {
      init.push(`v${slot} = c${i}`);
      bound.add(slot);
    });
    // A parameter slot is written after the captures, as a frame binds
    // arguments after copying captures.
    if (p.paramSlots.length === 1) {
      init.push(`v${p.paramSlots[0]} = x`);
      bound.add(p.paramSlots[0]!);
    }
    for (let i = 0; i < p.nslots; i++) if (!bound.has(i)) init.push(`v${i} = null`);
    this.stmt(p.source, p.returnsLast ? "r" : null);
    const temps: string[] = [];
    for (let i = 0; i < this.maxTemps; i++) temps.push(`t${i}`);
    return [
      '"use strict";',
      "const { truthy, BAILX } = R;",
      "function bail() { throw BAILX; }",
      `return function leaf(${args.join(", ")}) {`,
      init.length > 0 ? `let ${init.join(", ")};` : "",
      temps.length > 0 ? `let ${temps.join(", ")};` : "",
      "let r = null;",
      ...this.out,
      p.returnsLast ? "return r;" : "return null;",
      "};",
    ].join("\n");
  }

  // ---- statements (`target`: where a value-producing block puts its value)

  private stmt(ev: Ev, target: string | null): void {
    if (ev === NIL_EV) {
      if (target) this.out.push(`${target} = null;`);
      return;
    }
    const sh = shapeOf(ev)!;
    this.ntemps = 0;
    switch (sh.k) {
      case "block": {
        const n = sh.evs.length;
        for (let i = 0; i < n; i++) this.stmt(sh.evs[i]!, i === n - 1 && sh.useLast ? target : null);
        if (target && (!sh.useLast || n === 0)) this.out.push(`${target} = null;`);
        return;
      }
      case "store": {
        const v = this.expr(sh.value);
        this.out.push(`v${sh.slot} = ${v};`);
        if (target) this.out.push(`${target} = null;`);
        return;
      }
      case "if": {
        const c = this.expr(sh.c);
        this.out.push(`if (${T(c)}) {`);
        this.stmt(sh.then, target);
        this.out.push("} else {");
        if (sh.else) this.stmt(sh.else, target);
        else if (target) this.out.push(`${target} = null;`);
        this.out.push("}");
        return;
      }
      case "return": {
        const v = sh.value ? this.expr(sh.value) : "null";
        this.out.push(`return ${v};`);
        return;
      }
      case "tail": {
        const call = shapeOf(sh.call)!;
        if (call.k !== "call") throw new Error("direct.ts: a tail shape without a call");
        const args = call.args.map((a) => this.expr(a));
        const p = this.proto;
        const reset: string[] = [];
        p.paramSlots.forEach((slot, i) => reset.push(`v${slot} = ${args[i]};`));
        // A new frame starts with its locals unset.
        for (let i = 0; i < p.nslots; i++) if (!p.paramSlots.includes(i)) reset.push(`v${i} = null;`);
        this.out.push(...reset, "continue top;");
        this.tailJumps = true;
        return;
      }
      default: {
        const v = this.expr(ev);
        if (target) this.out.push(`${target} = ${v};`);
        return;
      }
    }
  }

  // ---- expressions: emit the code computing `ev`, return its operand

  private expr(ev: Ev): string {
    if (ev === NIL_EV) return "null";
    const sh = shapeOf(ev)!;
    switch (sh.k) {
      case "lit": {
        const v = sh.v;
        if (v === null) return "null";
        if (typeof v === "string") return JSON.stringify(v);
        return `(${String(v)})`;
      }
      case "slot": {
        const t = this.temp();
        this.out.push(`${t} = v${sh.slot};`);
        return t;
      }
      case "bin": {
        const a = this.expr(sh.l);
        const b = this.expr(sh.r);
        const t = this.temp();
        this.out.push(emitBinary(sh.op, a, b, t, "bail();"));
        return t;
      }
      case "and":
      case "or": {
        const a = this.expr(sh.l);
        const t = this.temp();
        this.out.push(`if (${sh.k === "and" ? "" : "!"}${T(a)}) {`);
        const b = this.expr(sh.r);
        this.out.push(`${t} = ${T(b)};`, `} else ${t} = ${sh.k === "and" ? "false" : "true"};`);
        return t;
      }
      case "not": {
        const a = this.expr(sh.a);
        const t = this.temp();
        this.out.push(`${t} = !${T(a)};`);
        return t;
      }
      case "neg": {
        const a = this.expr(sh.a);
        const t = this.temp();
        this.out.push(`if (typeof ${a} !== "number") bail(); ${t} = 0 - ${a};`);
        return t;
      }
      case "ternary": {
        const c = this.expr(sh.c);
        const t = this.temp();
        this.out.push(`if (${T(c)}) {`);
        this.out.push(`${t} = ${this.expr(sh.a)};`, "} else {");
        this.out.push(`${t} = ${this.expr(sh.b)};`, "}");
        return t;
      }
      case "call": {
        const args = sh.args.map((a) => this.expr(a));
        const t = this.temp();
        this.out.push(`if (depth + 1 >= ${this.maxFrames}) throw BAIL_OFF;`, `${t} = ${SELF}(task, depth + 1${args.map((a) => `, ${a}`).join("")});`);
        return t;
      }
      default:
        throw new Error(`direct.ts: unexpected shape ${sh.k}`);
    }
  }
}

/** Where the direct code calls itself; source() names the callee (a
 * control character: no literal's JSON text contains one). */
const SELF = "\u0001";

/** `truthy(x)` with the bool cases inline. */
function T(x: string): string {
  if (x === "true" || x === "false") return x;
  return `(${x} === true || (${x} !== false && truthy(${x})))`;
}
