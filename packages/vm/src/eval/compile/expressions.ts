/**
 * Expressions: literals, names, collections, property and index access,
 * unary operators, ternaries, ranges, `?`, `try` and `yield`.
 */
import type * as A from "@harn/parser";
import { HarnError } from "../../errors";
import * as ops from "../../ops";
import { HDict, HDuration, HEnum, HFloat, HStruct, type CodePoints, type Value, display, err, isResult, normBig, ok, truthy, typeOf } from "../../values";
import type { Compiler } from "../compile";
import { Ctl, RET } from "../control";
import type { Ev, ExprEv, Frame, Outcome } from "../frame";
import { convertJsError, evalArgs, intern, located, spreadDict, thenMaybe as then } from "../helpers";
import { shaped } from "../shape";
import { CompileError, NIL_EV } from "./base";
import { functionCall, methodCall } from "./calls";
import { compileParallel, compileSpawn } from "./concurrency";
import { binary } from "./operators";
import { buildStruct } from "./statements";

export function compileExpression(c: Compiler, n: A.Node): ExprEv {
  const file = c.file;
  switch (n.kind) {
    case "IntLiteral": {
      const v = normBig(n.value);
      return shaped(() => v, { k: "lit", v });
    }
    case "FloatLiteral": {
      const v = new HFloat(n.value);
      return shaped(() => v, { k: "lit", v });
    }
    case "StringLiteral":
    case "RawStringLiteral": {
      const v = n.value;
      return shaped(() => v, { k: "lit", v });
    }
    case "BoolLiteral": {
      const v = n.value;
      return shaped(() => v, { k: "lit", v });
    }
    case "NilLiteral":
      return NIL_EV;
    case "DurationLiteral": {
      const v = new HDuration(Number(n.ms));
      return shaped(() => v, { k: "lit", v });
    }
    case "InterpolatedString":
      return interpolation(c, n);
    case "Identifier":
      return identifier(c, n);
    case "ListLiteral": {
      const evs = n.elements.map((e) => c.expr(e.kind === "Spread" ? e.expr : e));
      const spread = n.elements.some((e) => e.kind === "Spread") ? n.elements.map((e) => e.kind === "Spread") : null;
      const span = n.span;
      const ev: ExprEv = (fr) => {
        try {
          return evalArgs(evs, spread, fr);
        } catch (e) {
          throw located(e, span, file);
        }
      };
      return spread === null ? shaped(ev, { k: "list", elems: evs }) : ev;
    }
    case "DictLiteral":
      return dictLiteral(c, n.entries, n.span);
    case "StructConstruct": {
      const dict = dictLiteral(c, n.fields, n.span);
      const name = n.structName;
      const interp = c.interp;
      return (fr) =>
        then(dict(fr), (d) => {
          const fields = interp.structs.get(name);
          if (fields) return buildStruct(name, fields, d);
          return new HStruct(name, new Map((d as HDict).map));
        });
    }
    case "Closure": {
      const proto = c.compileFunction(null, n.params, n.body, n.span, { returnsLast: true, allowRest: false });
      return shaped(c.makeClosure(proto), { k: "sync", proto });
    }
    case "FunctionCall":
      return functionCall(c, n, false);
    case "MethodCall":
    case "OptionalMethodCall":
      return methodCall(c, n);
    case "PropertyAccess":
    case "OptionalPropertyAccess": {
      if (n.kind === "PropertyAccess" && n.object.kind === "Identifier" && c.isEnumName(n.object.name)) {
        const v = new HEnum(n.object.name, n.property, []);
        return shaped(() => v, { k: "lit", v });
      }
      const obj = c.expr(n.object);
      const name = n.property;
      const optional = n.kind === "OptionalPropertyAccess";
      const span = n.propertySpan;
      const codePoints = c.interp.rt.codePoints;
      return shaped((fr) => {
        const o = obj(fr);
        if (o instanceof Promise) return o.then((x) => prop(x, name, optional, span, file, codePoints));
        return prop(o, name, optional, span, file, codePoints);
      }, { k: "prop", obj, name, slow: (o) => prop(o, name, optional, span, file, codePoints) });
    }
    case "SubscriptAccess":
    case "OptionalSubscriptAccess": {
      const obj = c.expr(n.object);
      const idx = c.expr(n.index);
      const optional = n.kind === "OptionalSubscriptAccess";
      const span = n.index.span;
      const codePoints = c.interp.rt.codePoints;
      const get = (o: Value, i: Value) => {
        if (optional && o === null) return null;
        if (Array.isArray(o) && typeof i === "number" && i >= 0) return i < o.length ? o[i]! : null;
        try {
          return ops.getIndex(o, i, codePoints);
        } catch (e) {
          throw located(e, span, file);
        }
      };
      return shaped((fr) => {
        const o = obj(fr);
        if (o instanceof Promise) return o.then((x) => then(idx(fr), (i) => get(x, i)));
        const i = idx(fr);
        if (i instanceof Promise) return i.then((y) => get(o, y));
        return get(o, i);
      }, { k: "index", obj, idx, get });
    }
    case "SliceAccess": {
      const obj = c.expr(n.object);
      const s = n.start ? c.expr(n.start) : NIL_EV;
      const e = n.end ? c.expr(n.end) : NIL_EV;
      const span = n.span;
      return (fr) =>
        then(evalArgs([obj, s, e], null, fr), ([o, a, b]) => {
          try {
            return ops.slice(o!, a!, b!);
          } catch (x) {
            throw located(x, span, file);
          }
        });
    }
    case "BinaryOp":
      return binary(c, n);
    case "UnaryOp": {
      const a = c.expr(n.operand);
      const span = n.operand.span;
      if (n.op === "!")
        return shaped((fr) => {
          const x = a(fr);
          return x instanceof Promise ? x.then((y) => !truthy(y)) : !truthy(x);
        }, { k: "not", a });
      const negate = (x: Value): Value => {
        if (typeof x === "number" && x !== 0) return -x;
        try {
          return ops.neg(x);
        } catch (e) {
          throw located(e, span, file);
        }
      };
      return shaped((fr) => {
        const x = a(fr);
        return x instanceof Promise ? x.then(negate) : negate(x);
      }, { k: "neg", a, negate });
    }
    case "Ternary": {
      const cond = c.expr(n.condition);
      const a = c.expr(n.thenExpr);
      const b = c.expr(n.elseExpr);
      return shaped((fr) => {
        const x = cond(fr);
        if (x instanceof Promise) return x.then((y) => (truthy(y) ? a(fr) : b(fr)));
        return truthy(x) ? a(fr) : b(fr);
      }, { k: "ternary", c: cond, a, b });
    }
    case "RangeExpr": {
      const a = c.expr(n.start);
      const b = c.expr(n.end);
      const inclusive = n.inclusive;
      return (fr) => {
        const x = a(fr);
        if (x instanceof Promise) return x.then((p) => then(b(fr), (q) => ops.makeRange(p, q, inclusive)));
        const y = b(fr);
        if (y instanceof Promise) return y.then((q) => ops.makeRange(x, q, inclusive));
        return ops.makeRange(x, y, inclusive);
      };
    }
    case "TryOperator": {
      const a = c.expr(n.operand);
      const span = n.span;
      const unwrapOk = (fr: Frame, x: Value): Value => {
        if (isResult(x)) {
          if (x.variant === "Ok") return x.fields[0] ?? null;
          fr.ret = x;
          throw RET;
        }
        throw located(HarnError.type(`? operator requires a Result value, got ${typeOf(x)}`), span, file);
      };
      return (fr) => {
        const x = a(fr);
        return x instanceof Promise ? x.then((y) => unwrapOk(fr, y)) : unwrapOk(fr, x);
      };
    }
    case "TryStar": {
      if (c.fs.outer === null && c.fs.proto.name === null && !c.inPipelineRoot) {
        throw new CompileError("try* requires an enclosing function (fn, tool, or pipeline) so the rethrow has a target", n.span, file);
      }
      return c.expr(n.operand);
    }
    case "TryExpr":
      return signalsThrown(tryExpr(c, n));
    case "PipePlaceholder": {
      const proto = c.compileFunction(null, [{ name: n.param, type: null, default: null, rest: false, span: n.span }], [n.body], n.span, {
        returnsLast: true,
        allowRest: false,
      });
      return c.makeClosure(proto);
    }
    case "Spread":
      throw new CompileError("spread (...) can only be used inside list literals, dict literals, or function call arguments", n.span, file);
    case "OrPattern": {
      const first = c.expr(n.alternatives[0]!);
      return first;
    }
    case "SpawnExpr":
      return compileSpawn(c, n);
    case "Parallel":
      return compileParallel(c, n);
    case "YieldExpr":
    case "EmitExpr": {
      const v = n.value ? c.expr(n.value) : NIL_EV;
      const interp = c.interp;
      return (fr) => then(v(fr), (x) => interp.yieldValue(fr, x));
    }
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
    case "LetBinding":
    case "VarBinding":
    case "Assignment":
    case "ForIn":
    case "WhileLoop":
    case "ReturnStmt":
    case "ThrowStmt":
    case "BreakStmt":
    case "ContinueStmt":
    case "GuardStmt":
    case "RequireStmt":
    case "DeferStmt":
    case "IfElse":
    case "MatchExpr":
    case "TryCatch":
    case "MutexBlock":
    case "DeadlineBlock":
    case "Retry":
    case "SelectExpr":
      // statements and block-bodied expressions: the statement compiler
      // gives their value
      return signalsThrown(c.stmtInner(n));
    default: {
      const never: never = n;
      throw new Error(`compile: unknown node ${(never as A.Node).kind}`);
    }
  }
}

export function identifier(c: Compiler, n: A.Identifier): ExprEv {
  const name = intern(n.name);
  const file = c.file;
  const span = n.span;
  if (name === "_") {
    return () => {
      throw located(HarnError.undefinedVariable("_"), span, file);
    };
  }
  const b = c.scope.resolve(name);
  if (b) {
    const slot = b.slot;
    return shaped((fr) => fr.s[slot]!, { k: "slot", slot });
  }
  const site = c.site(span);
  const interp = c.interp;
  return shaped((fr) => {
    try {
      return interp.lookupName(fr, name, site);
    } catch (e) {
      throw located(e, span, file);
    }
  }, { k: "sync" });
}

export function interpolation(c: Compiler, n: A.InterpolatedString): ExprEv {
  const parts: (string | ExprEv)[] = [];
  for (const seg of n.segments) {
    if (seg.kind === "text") parts.push(seg.text);
    else if (seg.expr) parts.push(c.expr(seg.expr));
  }
  const run = (fr: Frame, i: number, acc: string): string | Promise<string> => {
    for (; i < parts.length; i++) {
      const p = parts[i]!;
      if (typeof p === "string") acc += p;
      else {
        const v = p(fr);
        if (v instanceof Promise) {
          const k = i;
          const a = acc;
          return v.then((x) => run(fr, k + 1, a + display(x)));
        }
        acc += typeof v === "string" ? v : display(v);
      }
    }
    return acc;
  };
  const file = c.file;
  const span = n.span;
  return shaped((fr) => {
    try {
      return run(fr, 0, "");
    } catch (e) {
      throw located(e, span, file);
    }
  }, { k: "interp", parts, span, file });
}

export function dictLiteral(c: Compiler, entries: A.DictEntry[], span: A.Span): ExprEv {
  const file = c.file;
  const items = entries.map((e) => {
    if (e.value.kind === "Spread") return { spread: true, key: null as ExprEv | null, lit: "", value: c.expr(e.value.expr) };
    if (!e.computed && (e.key.kind === "StringLiteral" || e.key.kind === "RawStringLiteral")) return { spread: false, key: null, lit: e.key.value, value: c.expr(e.value) };
    return { spread: false, key: c.expr(e.key), lit: "", value: c.expr(e.value) };
  });
  return (fr) => {
    const m = new Map<string, Value>();
    const run = (i: number): HDict | Promise<HDict> => {
      for (; i < items.length; i++) {
        const it = items[i]!;
        if (it.spread) {
          const v = it.value(fr);
          if (v instanceof Promise) {
            const k = i;
            return v.then((x) => {
              addSpread(m, x, span, file);
              return run(k + 1);
            });
          }
          addSpread(m, v, span, file);
          continue;
        }
        let key: string = it.lit;
        if (it.key) {
          const kv = it.key(fr);
          if (kv instanceof Promise) {
            const k = i;
            return kv.then((x) => then(it.value(fr), (v) => {
              m.set(typeof x === "string" ? x : display(x), v);
              return run(k + 1);
            }));
          }
          key = typeof kv === "string" ? kv : display(kv);
        }
        const v = it.value(fr);
        if (v instanceof Promise) {
          const k = i;
          return v.then((x) => {
            m.set(key, x);
            return run(k + 1);
          });
        }
        m.set(key, v);
      }
      return new HDict(m);
    };
    return run(0);
  };
}

function prop(o: Value, name: string, optional: boolean, span: A.Span, file: string, codePoints: CodePoints): Value {
  if (o instanceof HDict) return o.get(name);
  if (optional && o === null) return null;
  try {
    return ops.getProperty(o, name, optional, codePoints);
  } catch (e) {
    throw located(e, span, file);
  }
}

function addSpread(m: Map<string, Value>, v: Value, span: A.Span, file: string): void {
  let d: HDict;
  try {
    d = spreadDict(v);
  } catch (e) {
    throw located(e, span, file);
  }
  for (const [k, x] of d.map) m.set(k, x);
}

/** `try { … }` as a value: a Result (`Ok` of the block's value, `Err` of
 * what it threw). The block's control signals pass through, so in
 * statement position (compile.ts `exprOrBlockValue`) a `return` inside it
 * returns. */
export function tryExpr(c: Compiler, n: A.TryExpr): Ev {
  const body = c.scopedBlock(n.body, true);
  const wrap = (v: Outcome): Outcome => (v instanceof Ctl ? v : isResult(v) ? v : ok(v));
  const fail = (e: unknown) => {
    e = convertJsError(e);
    if (e instanceof HarnError) return err(e.caughtValue());
    throw e;
  };
  return (fr) => {
    let r;
    try {
      r = body(fr);
    } catch (e) {
      return fail(e);
    }
    if (r instanceof Promise) return r.then(wrap, fail);
    return wrap(r);
  };
}

/** A statement or block as an expression: its control signal, if any, is
 * thrown (and turned back into the enclosing statement's result by
 * compile.ts `stmt`). */
function signalsThrown(inner: Ev): ExprEv {
  return (fr) => {
    const r = inner(fr);
    if (r instanceof Promise)
      return r.then((x) => {
        if (x instanceof Ctl) throw x;
        return x;
      });
    if (r instanceof Ctl) throw r;
    return r;
  };
}
