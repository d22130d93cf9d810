/**
 * The interpreter of one Runtime: calls, late-bound names, method dispatch,
 * iteration, preemption, and the tables that declarations fill (enums,
 * structs, impl methods). Program entry lives in program.ts, tasks and
 * channels in concurrency.ts, what builtins see of a call in context.ts.
 */
import type { Span, TypeExpr } from "@harn/parser";
import { HarnError } from "../errors";
import { monotonicMs } from "../clock";
import type { BuiltinFn, MethodFn, Runtime } from "../runtime";
import {
  HBuiltinRef,
  HChannel,
  HClosure,
  HDict,
  HGenerator,
  HIter,
  HRange,
  HSet,
  HStruct,
  type Value,
  err,
  isCallable,
  normBig,
  ok,
  typeOf,
} from "../values";
import { Ctl, RET, TailCall } from "./control";
import { type Async, ClosureImpl, type Ev, Frame, type Outcome, type Result, type Site } from "./frame";
import { DONE, type Stepper, Suspend } from "./compile/loops";
import { Concurrency } from "./concurrency";
import { makeGenerator, yieldFromFrame } from "./generator";
import { convertJsError, located } from "./helpers";
export { convertJsError } from "./helpers";
import { checkParams } from "./paramcheck";
import { suggest } from "./suggest";
import { Jit, type JitMode } from "./jit";
import { Task } from "./task";
import { VmCallContext } from "./context";
export { VmCallContext };

export const MAX_FRAMES = 512;
/** Every 64 nested calls, a call hops to a fresh JS stack (see callClosure). */
export const STACK_HOP_MASK = 63;
/** How long a CPU-bound task may run before loops yield to the event loop
 * (so timers, deadlines, Ctrl-C and test timeouts get a chance). */
const QUANTUM_MS = 30;

export class Interpreter {
  readonly enumNames = new Set<string>(["Result"]);
  readonly enumVariants = new Map<string, string[]>();
  readonly structs = new Map<string, string[]>();
  readonly interfaces = new Set<string>();
  /** Type aliases (`type Name = T`) of every compiled file, for the
   * compile-time lowering of `schema_of(Alias)` and the schema guards
   * (spec/stdlib.md §11.6). */
  readonly typeAliases = new Map<string, TypeExpr>();
  readonly impls = new Map<string, Map<string, HClosure>>();
  /** Every name declared anywhere in compiled code: only these can be
   * late-bound function names, so other names skip the call-site walk. */
  readonly lateNames = new LateNames();
  readonly concurrency: Concurrency;
  ticks = 0;
  private lastYield = monotonicMs();
  /** Calls of `tickLoop` left before its early yield (see there). */
  private warmYield = 16;
  private readonly builtinRefs = new Map<string, HBuiltinRef>();
  /** The code generator for hot bodies and loops (jit.ts). */
  readonly jit: Jit;

  constructor(readonly rt: Runtime) {
    this.concurrency = new Concurrency(this);
    this.jit = new Jit(this, jitMode(rt.env.HARN_VM_JIT));
  }

  declareEnum(name: string, variants: string[]): void {
    this.enumNames.add(name);
    this.enumVariants.set(name, variants);
  }

  defineImplMethod(typeName: string, name: string, fn: HClosure): void {
    let t = this.impls.get(typeName);
    if (!t) this.impls.set(typeName, (t = new Map()));
    t.set(name, fn);
  }

  // -------------------------------------------------------------------------
  // Preemption

  /** Called every 1024 loop back-edges: honours cancellation and, after a
   * quantum of CPU time, yields to the event loop. */
  slowTick(task: Task, early = false): Promise<void> | undefined {
    this.ticks = 0;
    task.checkAborted();
    const now = monotonicMs();
    if (now - this.lastYield < QUANTUM_MS && !early) return undefined;
    return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.lastYield = monotonicMs();
      task.checkAborted();
    });
  }

  /** The tick of a frameless call or fused loop (direct.ts, jit.ts), which
   * cannot yield or throw, every 1024th tick: false when the task is
   * cancelled, or when a yield has been due for a whole quantum (the call
   * is then run again in the framed tier, whose tick yields). A yield that
   * just fell due is left to the framed tier: the counter is not reset,
   * so the caller's next tick goes to `slowTick`. Abandoning every
   * frameless call that a quantum boundary happens to cross would rerun
   * it, and send the generated caller into code V8 never saw run
   * (a deoptimization of a whole hot loop). */
  directTick(task: Task): boolean {
    if (task.signal.aborted) return false;
    const since = monotonicMs() - this.lastYield;
    // Both comparisons run every time: code V8 optimized before a yield
    // was first due has seen them.
    const due = since >= QUANTUM_MS;
    const overdue = since >= 2 * QUANTUM_MS;
    if (!due) this.ticks = 0;
    return !overdue;
  }

  /** `slowTick` for a loop's back-edge: the loop's suspension at phase 0
   * when it must yield (compile.ts whileLoop, jit.ts). */
  tickLoop(task: Task): Suspend | undefined {
    // One early yield (the 16th call: V8 records type feedback for a
    // function only after its first few calls): generated loops inline
    // this function and slowTick, and a yield that first happened in their
    // optimized code would deoptimize them (the promise and the Suspend
    // constructions had no feedback).
    const y = this.slowTick(task, this.warmYield > 0 && --this.warmYield === 0);
    return y === undefined ? undefined : new Suspend(y, 0);
  }

  // -------------------------------------------------------------------------
  // Names

  /** A late-bound closure visible from the call site chain (§5.4). */
  lookupDyn(fr: Frame, name: string): HClosure | null {
    if (fr.ck === name) return fr.cv as HClosure | null;
    if (!this.lateNames.has(name)) return null;
    let result: HClosure | null = null;
    for (let f: Frame = fr; ; ) {
      const caller = f.dynFr;
      if (!caller) break;
      // A spawn/parallel body has its creating frame as caller but no call
      // site: what that frame saw at the spawn is already captured, and the
      // walk goes on to the frame's own callers, whose closures the creating
      // function could call (§5.4).
      const site = f.dynSite;
      const slot = site === null ? -1 : site.slotOf(name);
      if (slot >= 0) {
        const v = caller.s[slot];
        result = v instanceof HClosure ? v : null;
        break;
      }
      if (caller.ck === name) {
        result = caller.cv as HClosure | null;
        break;
      }
      f = caller;
    }
    if (result === null) {
      const h = fr.proto.home;
      if (h.frame && h.scope) {
        const slot = h.scope.slotAt(name, Infinity);
        const v = slot >= 0 ? h.frame.s[slot] : null;
        if (v instanceof HClosure) result = v;
      }
    }
    fr.ck = name;
    fr.cv = result;
    return result;
  }

  lookupCallable(fr: Frame, name: string, _site: Site): HClosure | null {
    return this.lookupDyn(fr, name);
  }

  builtinRef(name: string): HBuiltinRef {
    let r = this.builtinRefs.get(name);
    if (!r) this.builtinRefs.set(name, (r = new HBuiltinRef(name)));
    return r;
  }

  hasBuiltin(name: string): boolean {
    return this.rt.builtins.has(name) || this.concurrency.specials.has(name) || name === "Ok" || name === "Err";
  }

  /** Read a name that did not resolve statically. */
  lookupName(fr: Frame, name: string, site: Site): Value {
    const c = this.lookupDyn(fr, name);
    if (c) return c;
    const g = this.rt.globals.get(name);
    if (g !== undefined) return g;
    if (this.hasBuiltin(name)) return this.builtinRef(name);
    const names = new Set<string>();
    site.scope.visibleNames(names);
    for (const k of this.rt.globals.keys()) names.add(k);
    for (const k of this.rt.builtins.keys()) names.add(k);
    const s = suggest(name, names);
    if (s) throw HarnError.runtime(`Undefined variable: ${name} (did you mean \`${s}\`?)`);
    throw HarnError.undefinedVariable(name);
  }

  // -------------------------------------------------------------------------
  // Calls

  ctx(fr: Frame, site: Site | null): VmCallContext {
    let c = fr.ctx as VmCallContext | null;
    if (!c) fr.ctx = c = new VmCallContext(this, fr);
    c.site = site;
    c.span = site ? site.span : null;
    return c;
  }

  /** The builtin a call of `name` reaches when no closure shadows it. */
  builtinFor(name: string): BuiltinFn | null {
    return this.concurrency.specials.get(name) ?? this.rt.builtins.get(name) ?? null;
  }

  invokeBuiltin(f: BuiltinFn, name: string, fr: Frame, args: Value[], site: Site): Async<Value> {
    if (this.rt.denied.size > 0 && this.rt.denied.has(name) && !this.concurrency.specials.has(name)) {
      throw located(HarnError.categorized(`Tool '${name}' is not permitted.`, "tool_rejected"), site.span, fr.proto.file);
    }
    let r;
    try {
      r = f(args, this.ctx(fr, site));
    } catch (e) {
      throw located(convertJsError(e), site.span, fr.proto.file);
    }
    if (r instanceof Promise) return this.guardBuiltin(r, site, fr);
    return r;
  }

  callBuiltinByName(fr: Frame, name: string, args: Value[], site: Site): Async<Value> {
    const f = this.builtinFor(name);
    if (f) return this.invokeBuiltin(f, name, fr, args, site);
    if (name === "Ok") return ok(args.length > 0 ? args[0]! : null);
    if (name === "Err") return err(args.length > 0 ? args[0]! : null);
    const s = suggest(name, this.rt.builtins.keys());
    const e = s ? HarnError.runtime(`Undefined builtin: ${name} (did you mean \`${s}\`?)`) : HarnError.undefinedBuiltin(name);
    throw located(e, site.span, fr.proto.file);
  }

  /** A builtin's synchronous failure, located at its call site. */
  builtinError(e: unknown, fr: Frame, site: Site): unknown {
    return located(convertJsError(e), site.span, fr.proto.file);
  }

  guardBuiltin(r: Async<Value>, site: Site, fr: Frame): Async<Value> {
    if (r instanceof Promise) return r.catch((e) => Promise.reject(located(convertJsError(e), site.span, fr.proto.file)));
    return r;
  }

  /** Call any callable value (closure or builtin reference). */
  callValue(fr: Frame, fn: Value, args: Value[], site: Site): Async<Value> {
    if (fn instanceof HClosure) return this.callClosure(fn, args, fr, site);
    if (fn instanceof HBuiltinRef) return this.callBuiltinByName(fr, fn.name, args, site);
    throw located(HarnError.type(`Cannot call ${typeOf(fn)}`), site.span, fr.proto.file);
  }

  // The call path below creates no closures in its synchronous part: an
  // inner arrow function would make V8 allocate a context on every call.
  callClosure(fn: HClosure, args: Value[], caller: Frame, site: Site): Async<Value> {
    const impl = fn.impl;
    if (impl.native !== null) return impl.native(args, this.ctx(caller, site));
    if (impl.proto.simple) return this.enterBound(this.simpleFrame(impl, args, caller, site), caller, site);
    const task = caller.task;
    if (task.depth >= MAX_FRAMES - 1) throw located(HarnError.stackOverflow(), site.span, caller.proto.file);
    task.depth++;
    let r;
    try {
      if ((task.depth & STACK_HOP_MASK) === 0) r = this.deferredCall(Promise.resolve(), impl, args, caller, site);
      else if (++this.ticks >= 1024 && (r = this.slowTick(task)) !== undefined) r = this.deferredCall(r as Promise<void>, impl, args, caller, site);
      else {
        const fr = this.newFrame(impl, args, caller, site);
        r = fr instanceof Promise ? this.startLater(fr) : this.start(fr);
      }
    } catch (e) {
      task.depth--;
      throw this.noteFrame(e, caller, site);
    }
    if (r instanceof Promise) return this.settleCall(r, task, caller, site);
    task.depth--;
    return r;
  }

  /** Run a call after `before` settles (stack hop or preemption yield). */
  private async deferredCall(before: Promise<void>, impl: ClosureImpl, args: Value[], caller: Frame, site: Site): Promise<Value> {
    await before;
    let f = this.newFrame(impl, args, caller, site);
    if (f instanceof Promise) f = await f;
    return this.start(f);
  }

  private async startLater(f: Promise<Frame>): Promise<Value> {
    return this.start(await f);
  }

  /** The async tail of a call: restore the depth, note the frame on error. */
  async settleCall(r: Promise<Value>, task: Task, caller: Frame, site: Site): Promise<Value> {
    try {
      return await r;
    } catch (e) {
      throw this.noteFrame(e, caller, site);
    } finally {
      task.depth--;
    }
  }

  noteFrame(e: unknown, caller: Frame, site: Site): unknown {
    e = convertJsError(e);
    if (e instanceof HarnError) {
      if (e.span === null && site.span) {
        e.span = site.span;
        e.file = caller.proto.file;
      }
      if (site.span) e.frames.push({ name: caller.proto.name ?? "pipeline", file: caller.proto.file, line: site.span.line });
    }
    return e;
  }

  /** Frame of a simple prototype: captures, then arguments into the
   * parameter slots (missing ones stay nil). */
  simpleFrame(impl: ClosureImpl, args: Value[], caller: Frame, site: Site): Frame {
    const proto = impl.proto;
    const fr = new Frame(proto, caller.task, caller, site);
    const s = fr.s;
    const to = proto.captureTo;
    if (to.length > 0) {
      const cap = impl.captured;
      for (let i = 0; i < to.length; i++) s[to[i]!] = cap[i]!;
    }
    const ps = proto.paramSlots;
    const n = ps.length < args.length ? ps.length : args.length;
    for (let i = 0; i < n; i++) s[ps[i]!] = args[i]!;
    const k = caller.ck;
    if (k !== null && site.slotOf(k) < 0) {
      fr.ck = k;
      fr.cv = caller.cv;
    }
    return fr;
  }

  /** A callee sees the caller's late-bound names unless the call site
   * itself binds the name (§5.4): hand the caller's one-entry cache down so
   * recursion through a late-bound name looks it up once, not per call. */
  inheritLate(nf: Frame, caller: Frame, site: Site): void {
    const k = caller.ck;
    if (k !== null && site.slotOf(k) < 0) {
      nf.ck = k;
      nf.cv = caller.cv;
    }
  }

  /**
   * Enter a frame whose parameters are bound (a simple, non-generator
   * prototype) and run it to its result: the common call. Depth, stack hop
   * and preemption cost a counter test each; a body that ends in an
   * explicit `return` or its last value needs no further dispatch, and
   * everything unusual (suspension, tail calls, defers, a control signal
   * thrown from value position) goes through `afterBody`.
   */
  enterBound(fr: Frame, caller: Frame, site: Site): Async<Value> {
    const task = caller.task;
    const depth = task.depth + 1;
    if (depth >= MAX_FRAMES) throw located(HarnError.stackOverflow(), site.span, caller.proto.file);
    task.depth = depth;
    let r;
    try {
      if ((depth & STACK_HOP_MASK) === 0) r = this.runLater(Promise.resolve(), fr);
      else if (++this.ticks >= 1024 && (r = this.slowTick(task)) !== undefined) {
        // Calls are back-edges too: recursion without loops (fib(40))
        // must stay interruptible.
        r = this.runLater(r as Promise<void>, fr);
      } else {
        r = fr.proto.body(fr);
        if (r === RET && fr.defers === null) r = fr.ret;
        else if (r instanceof Ctl || r instanceof Promise || fr.defers !== null) r = this.afterBody(fr, r);
        else if (!fr.proto.returnsLast) r = null;
      }
    } catch (e) {
      // The body threw: a control signal from value position is its
      // result; an error runs pending defers first.
      if (e instanceof Ctl || fr.defers !== null) {
        try {
          r = e instanceof Ctl ? this.afterBody(fr, e) : this.exitWithError(fr, e);
        } catch (e2) {
          task.depth--;
          throw this.noteFrame(e2, caller, site);
        }
      } else {
        task.depth--;
        throw this.noteFrame(e, caller, site);
      }
    }
    if (r instanceof Promise) return this.settleCall(r, task, caller, site);
    task.depth--;
    return r;
  }

  /** The body of a call entered by generated code threw `e` (the catch
   * block of `enterBound`): returns the call's result, or throws after
   * restoring the depth. */
  callThrew(fr: Frame, e: unknown, caller: Frame, site: Site, task: Task): Async<Value> {
    if (e instanceof Ctl || fr.defers !== null) {
      try {
        return e instanceof Ctl ? this.afterBody(fr, e) : this.exitWithError(fr, e);
      } catch (e2) {
        task.depth--;
        throw this.noteFrame(e2, caller, site);
      }
    }
    task.depth--;
    throw this.noteFrame(e, caller, site);
  }

  private async runLater(before: Promise<void>, fr: Frame): Promise<Value> {
    await before;
    return this.runFrame(fr);
  }

  /** A new frame with captures and parameters bound (§7.2, §7.3). */
  newFrame(impl: ClosureImpl, args: Value[], caller: Frame | null, site: Site | null, task?: Task): Frame | Promise<Frame> {
    const proto = impl.proto;
    const fr = new Frame(proto, task ?? caller!.task, caller, site);
    const cap = impl.captured;
    const to = proto.captureTo;
    for (let i = 0; i < to.length; i++) fr.s[to[i]!] = cap[i]!;
    const ps = proto.params;
    const n = args.length;
    for (let i = 0; i < ps.length; i++) {
      const p = ps[i]!;
      if (p.rest) {
        fr.s[p.slot] = i < n ? args.slice(i) : [];
      } else if (i < n) {
        fr.s[p.slot] = args[i]!;
      } else if (p.def !== null) {
        const d = p.def(fr);
        if (d instanceof Promise) return this.bindRestAsync(fr, args, i, d);
        fr.s[p.slot] = d;
      }
    }
    if (proto.typed) checkParams(fr);
    return fr;
  }

  private async bindRestAsync(fr: Frame, args: Value[], i: number, pending: Promise<Value>): Promise<Frame> {
    const ps = fr.proto.params;
    fr.s[ps[i]!.slot] = await pending;
    for (i++; i < ps.length; i++) {
      const p = ps[i]!;
      if (p.rest) fr.s[p.slot] = i < args.length ? args.slice(i) : [];
      else if (i < args.length) fr.s[p.slot] = args[i]!;
      else if (p.def !== null) {
        const d = p.def(fr);
        fr.s[p.slot] = d instanceof Promise ? await d : d;
      }
    }
    if (fr.proto.typed) checkParams(fr);
    return fr;
  }

  /** Run a bound frame: generator creation, body, tail-call trampoline,
   * defers. */
  start(fr: Frame): Async<Value> {
    if (fr.proto.generator !== "none") return makeGenerator(this, fr);
    return this.runFrame(fr);
  }

  runFrame(fr: Frame): Async<Value> {
    let r;
    try {
      r = fr.proto.body(fr);
    } catch (e) {
      if (e instanceof Ctl) r = e;
      else return this.exitWithError(fr, e);
    }
    return this.afterBody(fr, r);
  }

  /** Finish a frame given its body's result: suspension, the tail-call
   * trampoline, the return value, defers. */
  afterBody(fr: Frame, r: Result): Async<Value> {
    for (;;) {
      if (r instanceof Promise) return this.runFrameAsync(fr, r, null);
      if (r instanceof TailCall) {
        const next = this.tailFrame(r);
        if (next instanceof Promise) return this.runFrameAsync(fr, null, next);
        if (!(next instanceof Frame)) return next;
        fr = next;
        if (++this.ticks >= 1024) {
          const y = this.slowTick(fr.task);
          if (y) return this.runFrameAsync(fr, this.bodyAfter(y, fr), null);
        }
        try {
          r = fr.proto.body(fr);
        } catch (e) {
          if (e instanceof Ctl) r = e;
          else return this.exitWithError(fr, e);
        }
        continue;
      }
      return this.exit(fr, r);
    }
  }

  private async bodyAfter(before: Promise<void>, fr: Frame): Promise<Outcome> {
    await before;
    return fr.proto.body(fr);
  }

  /** Frame for a tail call, or the callee's immediate result (generators,
   * natives). */
  private tailFrame(tc: TailCall): Frame | Value | Promise<Frame | Value> {
    const impl = tc.fn.impl;
    const fr = this.newFrame(impl, tc.args, tc.from, tc.site);
    const go = (f: Frame): Frame | Value => (f.proto.generator !== "none" ? makeGenerator(this, f) : f);
    return fr instanceof Promise ? fr.then(go) : go(fr);
  }

  /** `afterBody` once it must wait: for the body's `pending` result, or
   * for the frame (or immediate value) of a tail call, `tail`. */
  private async runFrameAsync(fr: Frame, pending: Promise<Outcome> | null, tail: Promise<Frame | Value> | null): Promise<Value> {
    let r: Outcome;
    if (tail !== null) {
      const next = await tail;
      if (!(next instanceof Frame)) return next;
      fr = next;
      try {
        const b = fr.proto.body(fr);
        r = b instanceof Promise ? await b : b;
      } catch (e) {
        if (e instanceof Ctl) r = e;
        else return this.exitWithError(fr, e);
      }
    } else {
      try {
        r = await pending!;
      } catch (e) {
        if (e instanceof Ctl) r = e;
        else return this.exitWithError(fr, e);
      }
    }
    for (;;) {
      if (r instanceof TailCall) {
        let next = this.tailFrame(r);
        if (next instanceof Promise) next = await next;
        if (!(next instanceof Frame)) return next;
        fr = next;
        if (++this.ticks >= 1024) {
          const y = this.slowTick(fr.task);
          if (y) await y;
        }
        try {
          const b = fr.proto.body(fr);
          r = b instanceof Promise ? await b : b;
        } catch (e) {
          if (e instanceof Ctl) r = e;
          else return this.exitWithError(fr, e);
        }
        continue;
      }
      return this.exit(fr, r);
    }
  }

  private exit(fr: Frame, r: Outcome): Async<Value> {
    const v: Value = r === RET ? fr.ret : r instanceof Ctl ? null : fr.proto.returnsLast ? r : null;
    if (fr.defers !== null) return this.runDefers(fr, v, false, null);
    return v;
  }

  exitWithError(fr: Frame, e: unknown): Async<Value> {
    if (fr.defers !== null) return this.runDefers(fr, null, true, e);
    throw e;
  }

  /** Run registered defers LIFO; a failing defer's error replaces the
   * outcome (§8.6), and so does a `return` written in a defer body (like
   * one in a finally block, §8.5: the transfer out of it wins). */
  runDefers(fr: Frame, v: Value, failed: boolean, error: unknown): Async<Value> {
    const ds = fr.defers!;
    fr.defers = null;
    for (let i = ds.length - 1; i >= 0; i--) {
      let r;
      try {
        r = ds[i]!(fr);
      } catch (e) {
        failed = true;
        error = e;
        continue;
      }
      if (r instanceof Promise) return this.runDefersAsync(fr, ds, i, r, v, failed, error);
      if (r === RET) {
        v = fr.ret;
        failed = false;
        error = null;
      }
    }
    if (failed) throw error;
    return v;
  }

  private async runDefersAsync(fr: Frame, ds: Ev[], i: number, pending: Promise<Outcome>, v: Value, failed: boolean, error: unknown): Promise<Value> {
    const settle = (r: unknown) => {
      if (r !== RET) return;
      v = fr.ret;
      failed = false;
      error = null;
    };
    try {
      settle(await pending);
    } catch (e) {
      failed = true;
      error = e;
    }
    for (i--; i >= 0; i--) {
      try {
        const r = ds[i]!(fr);
        settle(r instanceof Promise ? await r : r);
      } catch (e) {
        failed = true;
        error = e;
      }
    }
    if (fr.defers !== null) return this.runDefers(fr, v, failed, error);
    if (failed) throw error;
    return v;
  }

  // -------------------------------------------------------------------------
  // Methods (§7.7)

  callMethod(fr: Frame, recv: Value, name: string, args: Value[], site: Site, span: Span): Async<Value> {
    const file = fr.proto.file;
    if (recv instanceof HDict) {
      const ns = recv.get("_namespace");
      if (typeof ns === "string") {
        const strict = this.rt.strictNamespaces.get(ns);
        if (ns === "stream" || strict !== undefined) {
          const f = recv.get(name);
          if (isCallable(f)) return this.callValue(fr, f, args, site);
          if (strict !== undefined) throw located(strict(name), span, file);
        }
      }
      const m = this.rt.methods.get("dict")?.get(name);
      if (m) return this.runMethod(m, recv, args, fr, site, span);
      const f = recv.get(name);
      if (isCallable(f)) return this.callValue(fr, f, args, site);
      return null;
    }
    if (recv instanceof HStruct) {
      const m = this.impls.get(recv.name)?.get(name);
      if (m) return this.callClosure(m, [recv, ...args], fr, site);
      const t = this.rt.methods.get("struct")?.get(name);
      if (t) return this.runMethod(t, recv, args, fr, site, span);
      return null;
    }
    if (recv instanceof HGenerator && name === "next") {
      let step;
      try {
        step = recv.pull();
      } catch (e) {
        throw located(e, span, file);
      }
      const toDict = (s: { done: boolean; value: Value }) => HDict.of({ done: s.done, value: s.value });
      return step instanceof Promise ? step.then(toDict, (e) => Promise.reject(located(e, span, file))) : toDict(step);
    }
    const table = this.rt.methods.get(typeOf(recv));
    const m = table?.get(name);
    if (m) return this.runMethod(m, recv, args, fr, site, span);
    if (name === "iter" && isIterable(recv)) {
      const it = this.rt.builtins.get("iter");
      if (it) return this.callBuiltinByName(fr, "iter", [recv], site);
    }
    return null;
  }

  /** A method's synchronous failure, located at the method name. */
  methodError(e: unknown, fr: Frame, span: Span): unknown {
    return located(convertJsError(e), span, fr.proto.file);
  }

  guardMethod(r: Promise<Value>, fr: Frame, span: Span): Promise<Value> {
    const file = fr.proto.file;
    return r.catch((e) => Promise.reject(located(convertJsError(e), span, file)));
  }

  runMethod(m: MethodFn, recv: Value, args: Value[], fr: Frame, site: Site, span: Span): Async<Value> {
    const file = fr.proto.file;
    let r;
    try {
      r = m(recv, args, this.ctx(fr, site));
    } catch (e) {
      throw located(convertJsError(e), span, file);
    }
    if (r instanceof Promise) return r.catch((e) => Promise.reject(located(convertJsError(e), span, file)));
    return r;
  }

  // -------------------------------------------------------------------------
  // Pipes (§4.11)

  pipeInto(fr: Frame, v: Value, f: Value, site: Site): Async<Value> {
    if (f instanceof HClosure) return this.callClosure(f, [v], fr, site);
    if (f instanceof HBuiltinRef) return this.callBuiltinByName(fr, f.name, [v], site);
    if (typeof f === "string") {
      const slot = site.scope.slotAt(f, site.order);
      const local = slot >= 0 ? fr.s[slot] : null;
      const c = local instanceof HClosure ? local : this.lookupDyn(fr, f);
      if (c) return this.callClosure(c, [v], fr, site);
      return this.callBuiltinByName(fr, f, [v], site);
    }
    throw HarnError.type(`cannot pipe into ${typeOf(f)}`);
  }

  // -------------------------------------------------------------------------
  // Iteration (§6.4)

  iterate(src: Value, fr: Frame): Stepper {
    if (Array.isArray(src)) {
      let i = 0;
      return { next: () => (i < src.length ? src[i++]! : DONE) };
    }
    if (src instanceof HRange) {
      if (src.small) {
        let i = src.start as number;
        const end = src.last as number;
        return { next: () => (i <= end ? i++ : DONE) };
      }
      let i = BigInt(src.start);
      const end = BigInt(src.last);
      return { next: () => (i <= end ? normBig(i++) : DONE) };
    }
    if (src instanceof HDict) {
      const keys = src.keys();
      let i = 0;
      return {
        next: () => {
          if (i >= keys.length) return DONE;
          const k = keys[i]!;
          return HDict.of({ key: k, value: src.valueAt(i++) });
        },
      };
    }
    if (src instanceof HSet) {
      let i = 0;
      const items = src.items;
      return { next: () => (i < items.length ? items[i++]! : DONE) };
    }
    if (src instanceof HIter || src instanceof HGenerator) {
      const take = (s: { done: boolean; value: Value }) => {
        if (s.done) {
          if (src instanceof HIter) src.exhausted = true;
          return DONE;
        }
        return s.value;
      };
      return {
        next: () => {
          if (src instanceof HIter && src.exhausted) return DONE;
          const s = src.pull();
          return s instanceof Promise ? s.then(take) : take(s);
        },
      };
    }
    if (src instanceof HChannel) return this.concurrency.channelStepper(src, fr);
    return { next: () => DONE };
  }

  yieldValue(fr: Frame, v: Value): Async<Value> {
    return yieldFromFrame(fr, v);
  }
}

/** The late-bindable names (Interpreter.lateNames). `version` changes with
 * every new name, so generated code can skip the lookup of a name that was
 * not among them when it was generated for as long as none was added. */
export class LateNames extends Set<string> {
  version = 0;
  override add(name: string): this {
    if (!this.has(name)) this.version++;
    return super.add(name);
  }
}

/** `HARN_VM_JIT`: `off` keeps every body and loop in the closure tier,
 * `eager` compiles each on first use (tests), anything else tiers up hot
 * code. */
function jitMode(v: string | undefined): JitMode {
  return v === "off" || v === "eager" ? v : "auto";
}

function isIterable(v: Value): boolean {
  return typeof v === "string" || Array.isArray(v) || v instanceof HSet || v instanceof HDict || v instanceof HGenerator || v instanceof HChannel || v instanceof HIter;
}
