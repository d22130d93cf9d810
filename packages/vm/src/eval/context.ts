/**
 * What builtins see of the evaluator (runtime.ts CallContext): the call
 * context of a frame, session contexts, and the prepared callbacks list
 * methods call.
 */
import type { Span } from "@harn/parser";
import { HarnError } from "../errors";
import type { CallContext, Callback, Runtime, SessionCallContext, TaskOptions } from "../runtime";
import { HClosure, type Value } from "../values";
import { Ctl, RET } from "./control";
import { type ClosureImpl, type FnProto, Frame, type Site } from "./frame";
import { NIL_EV } from "./compile/base";
import { convertJsError } from "./helpers";
import { type Interpreter, STACK_HOP_MASK } from "./interpreter";
import { isLeaf, writtenSlots } from "./shape";
import { Task } from "./task";

function escapeContext(e: unknown): unknown {
  e = convertJsError(e);
  return e instanceof HarnError ? e.escaped(e.span?.line ?? 0) : e;
}

async function escapeAsync(r: Promise<Value>): Promise<Value> {
  try {
    return await r;
  } catch (e) {
    throw escapeContext(e);
  }
}

/** What builtins see (runtime.ts CallContext), one per frame. */
export class VmCallContext implements CallContext {
  site: Site | null = null;
  span: Span | null = null;
  constructor(
    readonly interp: Interpreter,
    readonly fr: Frame,
  ) {}
  get runtime(): Runtime {
    return this.interp.rt;
  }
  get signal(): AbortSignal {
    return this.fr.task.signal;
  }
  get task(): Task {
    return this.fr.task;
  }
  get sourceFile(): string {
    return this.fr.proto.file;
  }
  get sessionId(): string {
    return this.fr.task.sessionId;
  }
  /** See `CallContext.inSession`. */
  inSession(sessionId: string, options: { detached?: boolean } = {}): SessionCallContext {
    return this.inTask({ sessionId, detached: options.detached });
  }
  /** See `CallContext.inTask`. Calls go through a stand-in for the
   * calling frame (same function, a copy of its slots) that lives in the
   * new task, so late-bound names resolve exactly as in `call`. */
  inTask(options: TaskOptions = {}): SessionCallContext {
    const parent = this.fr.task;
    const rt = this.interp.rt;
    const id = options.id ?? `${parent.id}:session`;
    const task = options.detached
      ? new Task(id, null, options.buffered ? null : (t) => rt.stdout.write(t))
      : new Task(id, parent, options.buffered ? null : (t) => parent.write(t));
    task.sessionId = options.sessionId ?? parent.sessionId;
    if (options.name !== undefined) task.name = options.name;
    if (options.groupId !== undefined) task.groupId = options.groupId;
    task.depth = parent.depth;
    const stand = new Frame(this.fr.proto, task, this.fr.dynFr, this.fr.dynSite);
    for (let i = 0; i < this.fr.s.length; i++) stand.s[i] = this.fr.s[i]!;
    const c = new VmSessionContext(this.interp, stand);
    stand.ctx = c;
    c.site = this.site;
    c.span = this.span;
    return c;
  }
  call(fn: Value, args: Value[]): Value | Promise<Value> {
    // A callback is its own execution context: errors escaping a closure
    // get the ` (line N)` suffix (§8.1).
    let r;
    try {
      r = this.interp.callValue(this.fr, fn, args, this.site!);
    } catch (e) {
      throw fn instanceof HClosure ? escapeContext(e) : e;
    }
    if (r instanceof Promise && fn instanceof HClosure) return escapeAsync(r);
    return r;
  }
  prepare(fn: Value): Callback {
    if (fn instanceof HClosure) {
      const impl = fn.impl;
      const proto = impl.proto;
      if (impl.native === null && proto.simple) {
        if (proto.leaf === null) proto.leaf = isLeaf(proto.source, NIL_EV);
        if (proto.leaf) return new LeafCallback(this.interp, impl, this.fr, this.site!, (args) => this.call(fn, args));
      }
    }
    return new GenericCallback(this, fn);
  }
  out(text: string): void {
    this.fr.task.write(text);
  }
  err(text: string): void {
    this.interp.rt.stderr.write(text);
  }
}

/** `call(fn, args)` for any callee (CallContext.prepare). */
class GenericCallback implements Callback {
  constructor(
    private readonly ctx: CallContext,
    private readonly fn: Value,
  ) {}
  one(a: Value): Value | Promise<Value> {
    return this.ctx.call(this.fn, [a]);
  }
  two(a: Value, b: Value): Value | Promise<Value> {
    return this.ctx.call(this.fn, [a, b]);
  }
}

/**
 * A closure with a leaf body (shape.ts isLeaf) prepared for many calls:
 * one frame serves every call, because nothing can refer to it once the
 * body returned. Each call binds the arguments and, when the body assigns
 * to a captured variable, puts the captured values back (captures are per
 * call, §5.4), then runs the body as `enterBound` would. A leaf calls
 * nothing, so the depth only needs checking, not recording. Calls on which
 * a stack hop or preemption falls due go through `call`, and so does every
 * error's bookkeeping (frame note, the callback's ` (line N)` suffix).
 */
class LeafCallback implements Callback {
  private readonly frame: Frame;
  private readonly s: Value[];
  private readonly p0: number;
  private readonly p1: number;
  private readonly rebinds: boolean;
  private readonly returnsLast: boolean;
  constructor(
    private readonly interp: Interpreter,
    private readonly impl: ClosureImpl,
    private readonly caller: Frame,
    private readonly site: Site,
    private readonly general: (args: Value[]) => Value | Promise<Value>,
  ) {
    const proto = impl.proto;
    this.frame = interp.simpleFrame(impl, [], caller, site);
    this.s = this.frame.s;
    // A missing argument is nil (the frame started nil-filled and a leaf
    // never assigns to a parameter), so absent parameters get slot -1.
    this.p0 = proto.paramSlots.length > 0 ? proto.paramSlots[0]! : -1;
    this.p1 = proto.paramSlots.length > 1 ? proto.paramSlots[1]! : -1;
    this.rebinds = proto.captureTo.length > 0 && assignsCapture(proto);
    this.returnsLast = proto.returnsLast;
  }

  one(a: Value): Value | Promise<Value> {
    const depth = this.frame.task.depth + 1;
    if ((depth & STACK_HOP_MASK) === 0 || ++this.interp.ticks >= 1024) return this.general([a]);
    if (this.rebinds) this.rebind();
    if (this.p0 >= 0) this.s[this.p0] = a;
    return this.run();
  }

  two(a: Value, b: Value): Value | Promise<Value> {
    const depth = this.frame.task.depth + 1;
    if ((depth & STACK_HOP_MASK) === 0 || ++this.interp.ticks >= 1024) return this.general([a, b]);
    if (this.rebinds) this.rebind();
    if (this.p0 >= 0) this.s[this.p0] = a;
    if (this.p1 >= 0) this.s[this.p1] = b;
    return this.run();
  }

  private rebind(): void {
    const to = this.impl.proto.captureTo;
    const s = this.s;
    const cap = this.impl.captured;
    for (let i = 0; i < to.length; i++) s[to[i]!] = cap[i]!;
  }

  private run(): Value {
    const fr = this.frame;
    let r;
    try {
      r = fr.proto.body(fr);
    } catch (e) {
      throw escapeContext(this.interp.noteFrame(e, this.caller, this.site));
    }
    if (r === RET) return fr.ret;
    // A leaf calls nothing, so it never suspends, and its only control
    // signal is `return` (shape.ts isLeaf).
    if (r instanceof Ctl || r instanceof Promise) throw new Error("a leaf body suspended or signalled");
    return this.returnsLast ? r : null;
  }
}

/** Whether a leaf body assigns to one of its captured variables. */
function assignsCapture(proto: FnProto): boolean {
  const captured = new Set(proto.captureTo);
  return writtenSlots(proto.source).some((slot) => captured.has(slot));
}

class VmSessionContext extends VmCallContext implements SessionCallContext {
  cancel(): void {
    this.fr.task.cancel();
  }
}
