/**
 * Statements (§5, §6): bindings, assignment, `if`, `try`, `return`,
 * `retry`, `throw`/`guard`/`require`/`defer` and declarations.
 */
import type * as A from "@harn/parser";
import { HarnError } from "../../errors";
import * as ops from "../../ops";
import { HClosure, HDict, HEnum, HStruct, type Value, truthy } from "../../values";
import type { Compiler } from "../compile";
import { BRK, CONT, Ctl, RET, TailCall } from "../control";
import { type Async, ClosureImpl, type Ev, type ExprEv, FnProto, type Frame, type Outcome, type Result } from "../frame";
import { convertJsError, located, runBlock, thenMaybe as then } from "../helpers";
import { shaped } from "../shape";
import { applyFn } from "../fastops";
import { operator } from "../optable";
import { lowerToolDecl } from "../tooldecl";
import { CompileError, NIL_EV } from "./base";
import { functionCall, SPECIAL_CALLS } from "./calls";
import { compileDeadline, compileMutex, compileSelect } from "./concurrency";
import { forIn, whileLoop } from "./loops";
import { match, pattern } from "./patterns";

export function compileStatement(c: Compiler, n: A.Node): Ev {
  switch (n.kind) {
    case "LetBinding":
    case "VarBinding":
      return binding(c, n.pattern, n.value, n.kind === "VarBinding", n.span);
    case "Assignment":
      return assignment(c, n);
    case "IfElse":
      return ifElse(c, n);
    case "WhileLoop":
      return whileLoop(c, n);
    case "ForIn":
      return forIn(c, n);
    case "MatchExpr":
      return match(c, n);
    case "TryCatch":
      return tryCatch(c, n);
    case "ReturnStmt":
      return returnStmt(c, n);
    case "ThrowStmt": {
      const v = c.expr(n.value);
      const span = n.span;
      const file = c.file;
      return (fr) =>
        then(v(fr), (x) => {
          throw located(HarnError.thrown(x), span, file);
        });
    }
    case "BreakStmt":
      if (!c.loop.inLoop) throw new CompileError("break outside of loop", n.span, c.file);
      return shaped(() => BRK, { k: "break" });
    case "ContinueStmt":
      if (!c.loop.inLoop) throw new CompileError("continue outside of loop", n.span, c.file);
      return shaped(() => CONT, { k: "continue" });
    case "GuardStmt": {
      const cond = c.expr(n.condition);
      const body = c.scopedBlock(n.elseBody, false);
      const orElse = (fr: Frame, x: Value): Result => {
        if (truthy(x)) return null;
        const r = body(fr);
        if (r instanceof Promise) return r.then((y) => (y instanceof Ctl ? y : null));
        return r instanceof Ctl ? r : null;
      };
      return (fr) => {
        const x = cond(fr);
        return x instanceof Promise ? x.then((y) => orElse(fr, y)) : orElse(fr, x);
      };
    }
    case "RequireStmt": {
      const cond = c.expr(n.condition);
      const m = n.message ? c.expr(n.message) : null;
      const span = n.span;
      const file = c.file;
      return (fr) =>
        then(cond(fr), (x) => {
          if (truthy(x)) return null;
          if (!m) throw located(HarnError.thrown("require condition failed"), span, file);
          return then(m(fr), (msg) => {
            throw located(HarnError.thrown(msg), span, file);
          });
        });
    }
    case "DeferStmt": {
      // A defer registered inside a loop keeps that iteration's bindings
      // (the loop variable, the body's locals): later iterations reuse
      // their slots, so the values are put back before the body runs.
      const reused = c.iterationSlots();
      // A `return` in the body must not become a tail call: the defer
      // runs as the function is leaving.
      const savedFT = c.loop.inFinallyTry;
      c.loop.inFinallyTry = true;
      let body: Ev;
      try {
        body = c.scopedBlock(n.body, false);
      } finally {
        c.loop.inFinallyTry = savedFT;
      }
      if (reused.length === 0) {
        return (fr) => {
          (fr.defers ??= []).push(body);
          return null;
        };
      }
      return (fr) => {
        const saved = reused.map((slot) => fr.s[slot]!);
        (fr.defers ??= []).push((f: Frame) => {
          for (let i = 0; i < reused.length; i++) f.s[reused[i]!] = saved[i]!;
          return body(f);
        });
        return null;
      };
    }
    case "FnDecl":
      return fnDecl(c, n);
    case "ToolDecl": {
      // The handler is a closure (agents.md §2.4): without a `return` it
      // gives its last statement's value, as the spec's example relies on.
      const proto = c.compileFunction(n.name, n.params, n.body, n.span, { returnsLast: true, allowRest: true });
      proto.isTool = true;
      const mk = c.makeClosure(proto);
      const slot = c.scope.declare(n.name, false).slot;
      const interp = c.interp;
      return (fr) =>
        then(lowerToolDecl(n, mk(fr) as HClosure, interp.ctx(fr, null)), (reg) => {
          fr.s[slot] = reg;
          return null;
        });
    }
    case "StructDecl":
      return structDecl(c, n);
    case "EnumDecl":
      c.interp.declareEnum(n.name, n.variants.map((v) => v.name));
      return NIL_EV;
    case "ImplBlock":
      return implBlock(c, n);
    case "AttributedDecl":
      return c.stmtInner(n.inner);
    case "SkillDecl":
      return c.stmtInner(skillBinding(n));
    case "EvalPackDecl":
      return evalPack(c, n);
    case "TypeDecl":
    case "InterfaceDecl":
    case "OverrideDecl":
    case "Pipeline":
      return NIL_EV;
    case "ImportDecl":
    case "SelectiveImport":
      // imports are processed before the program runs (interpreter.ts)
      return NIL_EV;
    case "MutexBlock":
      return compileMutex(c, n);
    case "DeadlineBlock":
      return compileDeadline(c, n);
    case "Retry":
      return retry(c, n);
    case "SelectExpr":
      return compileSelect(c, n);
    default:
      return c.exprOrBlockValue(n);
  }
}

export function binding(c: Compiler, p: A.Pattern, value: A.Node, mutable: boolean, span: A.Span): Ev {
  const v = c.expr(value);
  if (p.kind === "ident") {
    if (p.name === "_") return (fr) => then(v(fr), () => null);
    const own = c.scope.own(p.name);
    if (own && !own.mutable && !mutable) {
      const name = p.name;
      const file = c.file;
      return (fr) =>
        then(v(fr), () => {
          throw located(
            HarnError.runtime(`Cannot redeclare immutable variable '${name}' in the same scope (use 'var' for mutable bindings)`),
            span,
            file,
          );
        });
    }
    const slot = c.scope.declare(p.name, mutable).slot;
    return shaped((fr) => {
      const x = v(fr);
      if (x instanceof Promise) return storeAsync(x, fr, slot);
      fr.s[slot] = x;
      return null;
    }, { k: "store", slot, value: v });
  }
  const bind = pattern(c, p, mutable);
  const done = (r: unknown) => (r instanceof Promise ? r.then(() => null) : null);
  return (fr) => {
    const x = v(fr);
    return x instanceof Promise ? x.then((y) => done(bind(fr, y))) : done(bind(fr, x));
  };
}

export function assignment(c: Compiler, n: A.Assignment): Ev {
  const file = c.file;
  const value = c.expr(n.value);
  const opFn = n.op ? operator(n.op).slow : null;
  const span = n.value.span;
  // Flatten the target path: root identifier + steps.
  type Step = { kind: "prop"; name: string } | { kind: "index"; ev: ExprEv };
  const steps: Step[] = [];
  let t: A.Node = n.target;
  for (;;) {
    if (t.kind === "PropertyAccess") {
      steps.unshift({ kind: "prop", name: t.property });
      t = t.object;
    } else if (t.kind === "SubscriptAccess") {
      steps.unshift({ kind: "index", ev: c.expr(t.index) });
      t = t.object;
    } else break;
  }
  if (t.kind !== "Identifier") {
    // `f().x = 1`: evaluate for effects, assign nothing.
    const root = c.expr(t);
    return (fr) => then(value(fr), () => then(root(fr), () => null));
  }
  const name = t.name;
  const b = c.scope.resolve(name);
  const tspan = t.span;
  if (steps.length === 0) {
    if (!b) {
      return (fr) =>
        then(value(fr), () => {
          throw located(HarnError.undefinedVariable(name), tspan, file);
        });
    }
    if (!b.mutable) {
      return (fr) =>
        then(value(fr), () => {
          throw located(HarnError.immutable(name), tspan, file);
        });
    }
    const slot = b.slot;
    if (!opFn) {
      return shaped((fr) => {
        const x = value(fr);
        if (x instanceof Promise) return storeAsync(x, fr, slot);
        fr.s[slot] = x;
        return null;
      }, { k: "store", slot, value });
    }
    const op = n.op!;
    const slow = (a: Value, b: Value): Value => {
      try {
        return opFn(a, b);
      } catch (e) {
        throw located(e, span, file);
      }
    };
    const apply = applyFn(op);
    const update = (fr: Frame, x: Value): null => {
      fr.s[slot] = apply(fr.s[slot]!, x, slow);
      return null;
    };
    return shaped((fr) => {
      const x = value(fr);
      return x instanceof Promise ? applyAsync(x, fr, update) : update(fr, x);
    }, { k: "update", slot, op, value, update, slow });
  }
  // Path assignment: `a.b[i] = v` rebuilds the path and rebinds `a`.
  return (fr) =>
    then(value(fr), (x) => {
      // Evaluate indices left to right after the value (§4.13).
      const keys: Value[] = [];
      const evalKeys = (i: number): unknown => {
        for (; i < steps.length; i++) {
          const s = steps[i]!;
          if (s.kind === "prop") keys.push(s.name);
          else {
            const r = s.ev(fr);
            if (r instanceof Promise) {
              const k = i;
              return r.then((y) => {
                keys.push(y);
                return evalKeys(k + 1);
              });
            }
            keys.push(r);
          }
        }
        return undefined;
      };
      return then(evalKeys(0), () => {
        if (!b) return null; // unknown root: silently ignored
        try {
          const root = fr.s[b.slot]!;
          // Walk down, remembering each container.
          const chain: Value[] = [root];
          for (let i = 0; i < steps.length - 1; i++) {
            const c = chain[i]!;
            chain.push(steps[i]!.kind === "prop" ? ops.getProperty(c, keys[i] as string, false) : ops.getIndex(c, keys[i]!));
          }
          const last = steps.length - 1;
          let nv: Value = x;
          if (opFn) {
            const cur = steps[last]!.kind === "prop" ? ops.getProperty(chain[last]!, keys[last] as string, false) : ops.getIndex(chain[last]!, keys[last]!);
            nv = opFn(cur, x);
          }
          for (let i = last; i >= 0; i--) {
            const c = chain[i]!;
            if (steps[i]!.kind === "prop") nv = ops.setProperty(c, keys[i] as string, nv);
            else {
              const r = ops.setIndex(c, keys[i]!, nv);
              if (r === undefined) return null; // silently ignored
              nv = r;
            }
          }
          if (!b.mutable) throw HarnError.immutable(name);
          fr.s[b.slot] = nv;
        } catch (e) {
          throw located(e, n.target.span, file);
        }
        return null;
      });
    });
}

export function ifElse(c: Compiler, n: A.IfElse): Ev {
  const cond = c.expr(n.condition);
  const thenB = c.scopedBlock(n.thenBody, true);
  const elseB = n.elseBody ? c.scopedBlock(n.elseBody, true) : null;
  return shaped((fr) => {
    const x = cond(fr);
    if (x === true) return thenB(fr);
    if (x instanceof Promise) return ifAsync(x, fr, thenB, elseB);
    return x !== false && truthy(x) ? thenB(fr) : elseB ? elseB(fr) : null;
  }, { k: "if", c: cond, then: thenB, else: elseB });
}

export function tryCatch(c: Compiler, n: A.TryCatch): Ev {
  const finallyB = n.finallyBody ? c.scopedBlock(n.finallyBody, false) : null;
  const savedFT = c.loop.inFinallyTry;
  if (finallyB) c.loop.inFinallyTry = true;
  const body = c.scopedBlock(n.body, true);
  c.loop.inFinallyTry = savedFT;
  const hasCatch = n.errorVar !== null || n.catchBody.length > 0 || (n.hasCatchClause && n.finallyBody === null);
  let handler: Ev | null = null;
  let errSlot = -1;
  let typeName: string | null = null;
  if (hasCatch) {
    c.pushScope();
    if (finallyB) c.loop.inFinallyTry = true;
    try {
      if (n.errorVar !== null && n.errorVar !== "_") errSlot = c.scope.declare(n.errorVar, false).slot;
      handler = c.block(n.catchBody, true);
    } finally {
      c.popScope();
      c.loop.inFinallyTry = savedFT;
    }
    if (n.errorType && n.errorType.kind === "Named") typeName = n.errorType.name;
  }
  const catches = (e: unknown): e is HarnError => {
    if (!(e instanceof HarnError) || !handler) return false;
    if (typeName === null) return true;
    // [extension] `catch (e: dict)`: errors that come as dicts.
    if (typeName === "dict") return e.dictForm() !== null;
    return e.kind === "thrown" && e.value instanceof HEnum && e.value.enumName === typeName;
  };
  const runHandler = (fr: Frame, e: HarnError): Result => {
    if (errSlot >= 0) fr.s[errSlot] = typeName === "dict" ? e.dictForm() : e.caughtValue();
    return handler!(fr);
  };
  const withCatch = (fr: Frame): Result => {
    let r;
    try {
      r = body(fr);
    } catch (e) {
      e = convertJsError(e);
      if (catches(e)) return runHandler(fr, e);
      throw e;
    }
    if (r instanceof Promise)
      return r.catch((e) => {
        e = convertJsError(e);
        return catches(e) ? runHandler(fr, e) : Promise.reject(e);
      });
    return r;
  };
  if (!finallyB) return withCatch;
  const runFinally = (fr: Frame, outcome: Outcome, failed: boolean, error: unknown): Result => {
    const f = finallyB(fr);
    const finish = (fv: Outcome): Outcome => {
      if (fv instanceof Ctl) return fv; // a transfer out of finally wins
      if (failed) throw error;
      return outcome;
    };
    return f instanceof Promise ? f.then(finish) : finish(f);
  };
  return (fr) => {
    let r;
    try {
      r = withCatch(fr);
    } catch (e) {
      return runFinally(fr, null, true, e);
    }
    if (r instanceof Promise)
      return r.then(
        (v) => runFinally(fr, v, false, null),
        (e) => runFinally(fr, null, true, e),
      );
    return runFinally(fr, r, false, null);
  };
}

export function returnStmt(c: Compiler, n: A.ReturnStmt): Ev {
  if (!n.value) {
    return shaped((fr) => {
      fr.ret = null;
      return RET;
    }, { k: "return", value: null });
  }
  const v = n.value;
  // Tail calls (§7.6): `return f(args)` and `return x |> f`.
  if (!c.loop.inFinallyTry && c.fs.proto.generator === "none") {
    if (v.kind === "FunctionCall" && !SPECIAL_CALLS.has(v.name)) {
      const call = functionCall(c, v, true);
      return shaped((fr) => {
        const r = call(fr);
        if (r instanceof Promise)
          return r.then((x) => {
            if (x instanceof Ctl) return x;
            fr.ret = x;
            return RET;
          });
        // A tail call's only signal is the `TailCall` itself.
        if (r instanceof Ctl) return r;
        fr.ret = r;
        return RET;
      }, { k: "tail", call });
    }
  }
  if (!c.loop.inFinallyTry && c.fs.proto.generator === "none" && v.kind === "BinaryOp" && v.op === "|>" && v.right.kind !== "PipePlaceholder") {
    const l = c.expr(v.left);
    const r = c.expr(v.right);
    const interp = c.interp;
    const site = c.site(v.span);
    const file = c.file;
    const span = v.right.span;
    const pipe = (fr: Frame, x: Value, f: Value): Async<Value> | TailCall => {
      if (f instanceof HClosure && fr.defers === null && f.impl.native === null) return new TailCall(f, [x], fr, site);
      try {
        return interp.pipeInto(fr, x, f, site);
      } catch (e) {
        throw located(e, span, file);
      }
    };
    return (fr) =>
      then(l(fr), (x) =>
        then(r(fr), (f) =>
          then(pipe(fr, x, f), (y: Value | TailCall) => {
            if (y instanceof TailCall) return y;
            fr.ret = y;
            return RET;
          }),
        ),
      );
  }
  const e = c.expr(v);
  return shaped((fr) => {
    const x = e(fr);
    if (x instanceof Promise) return returnAsync(x, fr);
    fr.ret = x;
    return RET;
  }, { k: "return", value: e });
}

export function retry(c: Compiler, n: A.Retry): Ev {
  const count = c.expr(n.count);
  const body = c.scopedBlock(n.body, false);
  return (fr) =>
    then(count(fr), (c) => {
      const max = typeof c === "number" && c > 0 ? c : 1;
      const attempt = (i: number): Result => {
        let r;
        try {
          r = body(fr);
        } catch (e) {
          e = convertJsError(e);
          if (e instanceof HarnError && i + 1 < max) return attempt(i + 1);
          throw e;
        }
        if (r instanceof Promise)
          return r.then(
            (x) => (x instanceof Ctl ? x : null),
            (e) => {
              e = convertJsError(e);
              if (e instanceof HarnError && i + 1 < max) return attempt(i + 1);
              throw e;
            },
          );
        return r instanceof Ctl ? r : null;
      };
      return attempt(0);
    });
}

export function fnDecl(c: Compiler, n: A.FnDecl): Ev {
  const proto = c.compileFunction(n.name, n.params, n.body, n.span, { returnsLast: false, allowRest: true, stream: n.isStream });
  const mk = c.makeClosure(proto);
  const slot = c.scope.declare(n.name, false).slot;
  return shaped((fr) => {
    fr.s[slot] = mk(fr);
    return null;
  }, { k: "sync" });
}

export function structDecl(c: Compiler, n: A.StructDecl): Ev {
  const fields = n.fields.map((f) => f.name);
  c.interp.structs.set(n.name, fields);
  const name = n.name;
  const proto = new FnProto(name, c.file, n.span);
  proto.params = [{ name: "fields", slot: 0, def: null, rest: false, type: null, span: n.span }];
  const ctor = new HClosure(name, ["fields"], new ClosureImpl(proto, [], (args) => buildStruct(name, fields, args[0] ?? null)));
  const slot = c.scope.declare(n.name, false).slot;
  return (fr) => {
    fr.s[slot] = ctor;
    return null;
  };
}

export function implBlock(c: Compiler, n: A.ImplBlock): Ev {
  const methods = n.methods.map((m) => ({
    name: m.name,
    mk: c.makeClosure(c.compileFunction(m.name, m.params, m.body, m.span, { returnsLast: false, allowRest: true })),
  }));
  const typeName = n.typeName;
  const interp = c.interp;
  return (fr) => {
    for (const m of methods) interp.defineImplMethod(typeName, m.name, m.mk(fr) as HClosure);
    return null;
  };
}

export function buildStruct(name: string, fields: string[], arg: Value): HStruct {
  const m = new Map<string, Value>();
  if (arg instanceof HDict) {
    for (const f of fields) if (arg.has(f)) m.set(f, arg.get(f));
  } else if (arg instanceof HStruct) {
    for (const f of fields) if (arg.fields.has(f)) m.set(f, arg.fields.get(f)!);
  }
  return new HStruct(name, m);
}

// Async continuations of hot closures live out here, so the closures
// themselves create no inner functions (which would cost a V8 context
// allocation on every evaluation, async or not).

async function ifAsync(x: Promise<Value>, fr: Frame, thenB: Ev, elseB: Ev | null): Promise<Outcome> {
  return truthy(await x) ? thenB(fr) : elseB ? elseB(fr) : null;
}

async function storeAsync(x: Promise<Value>, fr: Frame, slot: number): Promise<null> {
  fr.s[slot] = await x;
  return null;
}

async function applyAsync(x: Promise<Value>, fr: Frame, update: (fr: Frame, v: Value) => null): Promise<null> {
  return update(fr, await x);
}

async function returnAsync(x: Promise<Value>, fr: Frame): Promise<Ctl> {
  fr.ret = await x;
  return RET;
}

/** `skill NAME { FIELD expr … }` binds an immutable NAME to
 * `skill_define(skill_registry(), "NAME", {FIELD: expr, …})` (core-gaps.md
 * §7.2). */
function skillBinding(n: A.SkillDecl): A.LetBinding {
  const span = n.span;
  const str = (value: string): A.Node => ({ kind: "StringLiteral", value, span });
  const call = (name: string, args: A.Node[]): A.Node => ({ kind: "FunctionCall", name, nameSpan: span, typeArgs: [], args, span });
  const config: A.Node = { kind: "DictLiteral", entries: n.fields.map(([k, v]) => ({ key: str(k), value: v, computed: false })), span };
  return { kind: "LetBinding", pattern: { kind: "ident", name: n.name, span }, type: null, value: call("skill_define", [call("skill_registry", []), str(n.name), config]), span };
}

/**
 * `eval_pack NAME "id" { field: expr … body … summarize { … } }`
 * (workflows.md §4.7) binds an immutable NAME to
 * `eval_pack_manifest({fields…, version: 1, id: "id" ?? "NAME"})` (version
 * and id only when not given); then, when there are statements, runs the
 * body and the summarize block in a scope that binds each field name, `id`
 * and `version` to the normalised manifest's value.
 */
function evalPack(c: Compiler, n: A.EvalPackDecl): Ev {
  const span = n.span;
  const str = (value: string): A.Node => ({ kind: "StringLiteral", value, span });
  const given = n.fields.map(([k]) => k);
  const entries = n.fields.map(([k, v]) => ({ key: str(k), value: v, computed: false }));
  if (!given.includes("version")) entries.push({ key: str("version"), value: { kind: "IntLiteral", value: 1n, span }, computed: false });
  if (!given.includes("id")) entries.push({ key: str("id"), value: str(n.packId ?? n.bindingName), computed: false });
  const manifest: A.Node = { kind: "FunctionCall", name: "eval_pack_manifest", nameSpan: span, typeArgs: [], args: [{ kind: "DictLiteral", entries, span }], span };
  const bind = c.stmtInner({ kind: "LetBinding", pattern: { kind: "ident", name: n.bindingName, span }, type: null, value: manifest, span });
  if (n.body.length === 0 && n.summarize === null) return bind;
  const pack: A.Node = { kind: "Identifier", name: n.bindingName, span };
  const fields: A.Node[] = [...new Set([...given, "id", "version"])].map((name) => ({
    kind: "LetBinding",
    pattern: { kind: "ident", name, span },
    type: null,
    value: { kind: "PropertyAccess", object: pack, property: name, propertySpan: span, span },
    span,
  }));
  c.pushScope();
  try {
    const evs = [bind, c.block([...fields, ...n.body], false)];
    if (n.summarize !== null) evs.push(c.scopedBlock(n.summarize, false));
    return (fr) => runBlock(evs, false, fr);
  } finally {
    c.popScope();
  }
}
