/**
 * Calls (§7): function calls (closures first, then builtins), method
 * calls and the pipe operator.
 */
import type * as A from "@harn/parser";
import type { BuiltinFn, MethodFn } from "../../runtime";
import { HClosure, HEnum, type Value } from "../../values";
import type { Compiler } from "../compile";
import { TailCall } from "../control";
import { type Async, type Ev, type ExprEv, Frame, type Outcome, type Result } from "../frame";
import { evalArgs, intern, located, thenMaybe as then } from "../helpers";
import { CallSiteIC, shaped } from "../shape";

export function args(c: Compiler, args: A.Node[]): { evs: ExprEv[]; spread: boolean[] | null } {
  const evs = args.map((a) => c.expr(a.kind === "Spread" ? a.expr : a));
  const spread = args.some((a) => a.kind === "Spread") ? args.map((a) => a.kind === "Spread") : null;
  return { evs, spread };
}

/** A call by name; with `tail` (`return f(…)`), a call of a closure is a
 * `TailCall` for the caller's trampoline instead of a value. */
export function functionCall(c: Compiler, n: A.FunctionCall, tail: false): ExprEv;
export function functionCall(c: Compiler, n: A.FunctionCall, tail: boolean): Ev;
export function functionCall(c: Compiler, n: A.FunctionCall, tail: boolean): Ev {
  const { evs, spread } = args(c, n.args);
  lowerAliasArg(c, n, evs);
  // Interned: late-bound names are compared with the frames' cached name
  // on every call.
  const name = intern(n.name);
  const b = c.scope.resolve(name);
  const site = c.site(n.span);
  const interp = c.interp;
  const file = c.file;
  const span = n.span;
  const slot = b ? b.slot : -1;
  const special = SPECIAL_CALLS.has(name);
  const resolve = (fr: Frame): HClosure | null => {
    if (slot >= 0) {
      const v = fr.s[slot]!;
      if (v instanceof HClosure) return v;
    }
    if (special) return null;
    // The frame's one-entry cache first (recursion through a late-bound
    // name hits it on every call).
    return fr.ck === name ? (fr.cv as HClosure | null) : interp.lookupDyn(fr, name);
  };
  let builtin: BuiltinFn | null = null;
  const ic = new CallSiteIC();
  const call = (fr: Frame, fn: HClosure | null, args: Value[]): Result => {
    if (fn !== null) {
      if (tail && fr.defers === null && fn.impl.native === null) {
        // The site's callee is known to frameless code too (direct.ts
        // runs a self tail call as a loop).
        if (ic.proto !== fn.impl.proto) ic.see(fn.impl.proto);
        return new TailCall(fn, args, fr, site);
      }
      return interp.callClosure(fn, args, fr, site);
    }
    if (builtin === null) builtin = interp.builtinFor(name);
    ic.builtin = true;
    if (builtin !== null) return interp.invokeBuiltin(builtin, name, fr, args, site);
    return interp.callBuiltinByName(fr, name, args, site);
  };
  const generic = (fr: Frame, fn: HClosure | null): Result => {
    let args;
    try {
      args = evalArgs(evs, spread, fr);
    } catch (e) {
      throw located(e, span, file);
    }
    if (args instanceof Promise) return args.then((a) => call(fr, fn, a));
    return call(fr, fn, args);
  };
  if (spread !== null) return (fr) => generic(fr, resolve(fr));
  const nargs = evs.length;
  // Direct calls of simple closures evaluate the arguments straight into
  // the callee's parameter slots: no argument array, no binding loop.
  const finishAsync = async (fr: Frame, nf: Frame, i: number, pending: Promise<Value>): Promise<Value> => {
    const ps = nf.proto.paramSlots;
    for (;;) {
      const v = await pending;
      if (i < ps.length) nf.s[ps[i]!] = v;
      if (++i >= nargs) break;
      const r = evs[i]!(fr);
      pending = r instanceof Promise ? r : Promise.resolve(r);
    }
    return interp.enterBound(nf, fr, site);
  };
  const ev: Ev = (fr) => {
    const fn = resolve(fr);
    if (fn !== null && !(tail && fr.defers === null)) {
      const impl = fn.impl;
      const proto = impl.proto;
      if (proto.simple && impl.native === null) {
        if (ic.proto !== proto) ic.see(proto);
        const nf = new Frame(proto, fr.task, fr, site);
        interp.inheritLate(nf, fr, site);
        const s = nf.s;
        const to = proto.captureTo;
        const cap = impl.captured;
        for (let i = 0; i < to.length; i++) s[to[i]!] = cap[i]!;
        const ps = proto.paramSlots;
        const np = ps.length;
        for (let i = 0; i < nargs; i++) {
          const v = evs[i]!(fr);
          if (v instanceof Promise) return finishAsync(fr, nf, i, v);
          if (i < np) s[ps[i]!] = v;
        }
        return interp.enterBound(nf, fr, site);
      }
    }
    if (fn === null && nargs === 1) {
      // Builtins take one argument most often: no argument-list growth.
      const x = evs[0]!(fr);
      if (!(x instanceof Promise)) return call(fr, null, [x]);
      return callOneAsync(fr, x, call);
    }
    return generic(fr, fn);
  };
  // A tail call's shape is read only through its `return` (shape "tail"):
  // generated code must not run it as a call that grows the stack.
  return shaped(ev, { k: "call", name, slot, special, args: evs, site, span, file, ic, call });
}

/**
 * `schema_of(Alias)` and the schema guards with an alias as their schema
 * argument get the alias's schema literal in place of the name, which is
 * no runtime value (spec/stdlib.md §11.6). Names the lowering has no
 * schema for (structs, generics) and calls of a user function with the
 * same name are left alone.
 */
export function lowerAliasArg(c: Compiler, n: A.FunctionCall, evs: ExprEv[]): void {
  const idx = SCHEMA_ALIAS_ARG.get(n.name);
  if (idx === undefined) return;
  const arg = n.args[idx];
  if (arg === undefined || arg.kind !== "Identifier") return;
  const aliases = c.interp.typeAliases;
  const type = aliases.get(arg.name);
  const lower = c.interp.rt.typeSchema;
  if (type === undefined || lower === null || c.scope.resolve(n.name) !== null) return;
  const schema = lower(type, (name) => aliases.get(name) ?? null);
  // Schema dicts are immutable values: every evaluation can share one.
  if (schema !== null) evs[idx] = () => schema;
}

export function methodCall(c: Compiler, n: A.MethodCall | A.OptionalMethodCall): ExprEv {
  const { evs, spread } = args(c, n.args);
  const file = c.file;
  const span = n.methodSpan;
  if (n.kind === "MethodCall" && n.object.kind === "Identifier" && c.isEnumName(n.object.name)) {
    const en = n.object.name;
    const vn = n.method;
    return (fr) => then(evalArgs(evs, spread, fr), (args) => new HEnum(en, vn, args));
  }
  const obj = c.expr(n.object);
  const name = n.method;
  const optional = n.kind === "OptionalMethodCall";
  const interp = c.interp;
  const site = c.site(n.span);
  // One-entry cache of the method table entry for list and string
  // receivers (the tables are fixed once the stdlib is installed).
  let cacheKind: string | null = null;
  let cacheFn: MethodFn | undefined;
  const call = (fr: Frame, recv: Value, args: Value[]): Async<Value> => {
    if (optional && recv === null) return null;
    const kind = Array.isArray(recv) ? "list" : typeof recv === "string" ? "string" : null;
    if (kind !== null) {
      if (kind !== cacheKind) {
        cacheKind = kind;
        cacheFn = interp.rt.methods.get(kind)?.get(name);
      }
      if (cacheFn !== undefined) return interp.runMethod(cacheFn, recv, args, fr, site, span);
    }
    return interp.callMethod(fr, recv, name, args, site, span);
  };
  const callAsync = async (fr: Frame, recv: Async<Value>, first: Async<Value> | null): Promise<Value> => {
    const r = recv instanceof Promise ? await recv : recv;
    if (evs.length === 0) return call(fr, r, []);
    let a = first ?? evs[0]!(fr);
    if (a instanceof Promise) a = await a;
    return call(fr, r, [a]);
  };
  const shape = { k: "mcall", obj, args: evs, name, optional, site, span, invoke: call } as const;
  if (spread === null && evs.length === 0) {
    return shaped((fr) => {
      const r = obj(fr);
      if (r instanceof Promise) return callAsync(fr, r, null);
      return call(fr, r, []);
    }, shape);
  }
  if (spread === null && evs.length === 1) {
    const a0 = evs[0]!;
    return shaped((fr) => {
      const r = obj(fr);
      if (r instanceof Promise) return callAsync(fr, r, null);
      const a = a0(fr);
      if (a instanceof Promise) return callAsync(fr, r, a);
      return call(fr, r, [a]);
    }, shape);
  }
  const general: ExprEv = (fr) =>
    then(obj(fr), (r) => {
      let args;
      try {
        args = evalArgs(evs, spread, fr);
      } catch (e) {
        throw located(e, span, file);
      }
      return then(args, (a) => call(fr, r, a));
    });
  return spread === null ? shaped(general, shape) : general;
}

export function pipe(c: Compiler, n: A.BinaryOp): ExprEv {
  const l = c.expr(n.left);
  const file = c.file;
  const span = n.right.span;
  const interp = c.interp;
  const site = c.site(n.span);
  // `x |> f` with a bare function name: resolve like a call (closures
  // first, then builtins) so the common case allocates no reference.
  const r = c.expr(n.right);
  const tail = false;
  void tail;
  return (fr) =>
    then(l(fr), (v) =>
      then(r(fr), (f) => {
        try {
          return interp.pipeInto(fr, v, f, site);
        } catch (e) {
          throw located(e, span, file);
        }
      }),
    );
}

/** Builtins whose argument at the given index may name a type alias that
 * the compiler lowers to a schema (spec/stdlib.md §11.6). */
const SCHEMA_ALIAS_ARG = new Map<string, number>([
  ["schema_of", 0],
  ["schema_is", 1],
  ["schema_check", 1],
  ["schema_parse", 1],
  ["schema_expect", 1],
  ["is_type", 1],
  ["json_validate", 1],
]);

/** Names the interpreter handles itself (§7.5) unless a closure shadows them. */
export const SPECIAL_CALLS = new Set(["await", "cancel", "cancel_graceful", "is_cancelled"]);

async function callOneAsync(fr: Frame, x: Promise<Value>, call: (fr: Frame, fn: HClosure | null, args: Value[]) => Result): Promise<Outcome> {
  return call(fr, null, [await x]);
}
