/**
 * A small test double of the evaluator: a Runtime with the stdlib installed,
 * a CallContext that records stdout/stderr, and closures backed by JS
 * functions (`fn(...)`), so builtins and methods can be tested directly.
 */
import { HarnError, HBuiltinRef, HClosure, isPromise, Runtime, type CallContext, type Value } from "@harn/vm";
import { installStdlibEagerly as installStdlib } from "../../src/eager";

export type JsFn = (...args: Value[]) => Value | Promise<Value>;

export interface TestRig {
  rt: Runtime;
  ctx: CallContext;
  out: string[];
  err: string[];
  abort: AbortController;
  /** Call a builtin that must answer synchronously. */
  call(name: string, ...args: Value[]): Value;
  /** Call a builtin that may suspend. */
  callP(name: string, ...args: Value[]): Value | Promise<Value>;
  /** Call a method (through the receiver kind's table) synchronously. */
  method(recv: Value, name: string, ...args: Value[]): Value;
  /** Call a method that may suspend. */
  methodP(recv: Value, name: string, ...args: Value[]): Value | Promise<Value>;
  stdout(): string;
}

/** The JS body of each closure `fn` made: the rig's `call` runs it. These
 * closures never reach the evaluator, so they have no evaluator half. */
const BODIES = new WeakMap<HClosure, JsFn>();
const NO_EVALUATOR = null as unknown as HClosure["impl"];

export function fn(impl: JsFn, params: string[] = ["x"]): HClosure {
  const c = new HClosure(null, params, NO_EVALUATOR);
  BODIES.set(c, impl);
  return c;
}

export function rig(opts: { cwd?: string; env?: Record<string, string | undefined>; stdoutTTY?: boolean } = {}): TestRig {
  const out: string[] = [];
  const err: string[] = [];
  const rt = new Runtime({
    stdout: { write: (t) => out.push(t), ...(opts.stdoutTTY === undefined ? {} : { isTTY: opts.stdoutTTY }) },
    stderr: { write: (t) => err.push(t) },
    cwd: opts.cwd ?? process.cwd(),
    env: opts.env ?? { ...process.env },
  });
  installStdlib(rt);
  const abort = new AbortController();
  const ctx: CallContext = {
    runtime: rt,
    call(f: Value, args: Value[]) {
      if (f instanceof HClosure) return BODIES.get(f)!(...args);
      if (f instanceof HBuiltinRef) {
        const b = rt.builtins.get(f.name);
        if (!b) throw HarnError.undefinedBuiltin(f.name);
        return b(args, ctx);
      }
      throw HarnError.type("Cannot call " + String(f));
    },
    // no frames to reuse: each call of a prepared callback is a plain call
    prepare: (f: Value) => ({ one: (a) => ctx.call(f, [a]), two: (a, b) => ctx.call(f, [a, b]) }),
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    signal: abort.signal,
    span: null,
    task: null,
  };
  const typeName = (v: Value) => (rt.builtins.get("type_of")!([v], ctx) as string);
  const callBuiltin = (name: string, args: Value[]) => {
    const b = rt.builtins.get(name);
    if (!b) throw new Error("no builtin " + name);
    return b(args, ctx);
  };
  const callMethod = (recv: Value, name: string, args: Value[]) => {
    const m = rt.methods.get(typeName(recv))?.get(name);
    if (!m) return null; // unknown methods are nil (§7.7)
    return m(recv, args, ctx);
  };
  return {
    rt,
    ctx,
    out,
    err,
    abort,
    call(name, ...args) {
      return sync(callBuiltin(name, args));
    },
    callP(name, ...args) {
      return callBuiltin(name, args);
    },
    method(recv, name, ...args) {
      return sync(callMethod(recv, name, args));
    },
    methodP(recv, name, ...args) {
      return callMethod(recv, name, args);
    },
    stdout: () => out.join(""),
  };
}

function sync(v: Value | Promise<Value>): Value {
  if (isPromise(v)) throw new Error("expected a synchronous answer, got a promise");
  return v;
}

/** Await only when needed, like the evaluator. */
export async function settle(v: Value | Promise<Value>): Promise<Value> {
  return isPromise(v) ? await v : v;
}

/** The HarnError a call raised (sync or async), or fail. */
export async function raised(f: () => Value | Promise<Value>): Promise<HarnError> {
  try {
    await settle(f());
  } catch (e) {
    if (e instanceof HarnError) return e;
    throw e;
  }
  throw new Error("expected a HarnError, but the call succeeded");
}
