/**
 * Patterns: destructuring in bindings and loops (§5.2), and `match` with
 * its arm patterns (§6.5).
 */
import type * as A from "@harn/parser";
import { HarnError } from "../../errors";
import * as ops from "../../ops";
import { HDict, HEnum, type Value, equals, truthy, typeOf } from "../../values";
import type { Compiler } from "../compile";
import type { Ev, ExprEv, Frame, Result } from "../frame";
import { located, spreadDict, thenMaybe as then } from "../helpers";

export function pattern(c: Compiler, p: A.Pattern, mutable: boolean): (fr: Frame, v: Value) => unknown {
  const file = c.file;
  switch (p.kind) {
    case "ident": {
      if (p.name === "_") return () => undefined;
      const slot = c.scope.declare(p.name, mutable).slot;
      return (fr, v) => {
        fr.s[slot] = v;
      };
    }
    case "pair": {
      const a = p.first === "_" ? -1 : c.scope.declare(p.first, mutable).slot;
      const b = p.second === "_" ? -1 : c.scope.declare(p.second, mutable).slot;
      const span = p.span;
      return (fr, v) => {
        try {
          const x = ops.getProperty(v, "first", false);
          const y = ops.getProperty(v, "second", false);
          if (a >= 0) fr.s[a] = x;
          if (b >= 0) fr.s[b] = y;
        } catch (e) {
          throw located(e, span, file);
        }
      };
    }
    case "dict": {
      const fields = p.fields.map((f) => {
        const def = f.default ? c.expr(f.default) : null;
        const name = f.rest ? f.key : (f.alias ?? f.key);
        const slot = name === "_" ? -1 : c.scope.declare(name, mutable).slot;
        return { key: f.key, rest: f.rest, def, slot };
      });
      const span = p.span;
      return (fr, v) => {
        let d: HDict;
        try {
          d = spreadDict(v);
        } catch (e) {
          throw located(e, span, file);
        }
        const taken = new Set<string>();
        const run = (i: number): unknown => {
          for (; i < fields.length; i++) {
            const f = fields[i]!;
            if (f.rest) {
              const m = new Map<string, Value>();
              for (const [k, x] of d.map) if (!taken.has(k)) m.set(k, x);
              if (f.slot >= 0) fr.s[f.slot] = new HDict(m);
              continue;
            }
            taken.add(f.key);
            let x = d.get(f.key);
            if (x === null && f.def) {
              const r = f.def(fr);
              if (r instanceof Promise) {
                const k = i;
                return r.then((y) => {
                  if (f.slot >= 0) fr.s[f.slot] = y;
                  return run(k + 1);
                });
              }
              x = r;
            }
            if (f.slot >= 0) fr.s[f.slot] = x;
          }
          return undefined;
        };
        return run(0);
      };
    }
    case "list": {
      const elems = p.elements.map((e) => {
        const def = e.default ? c.expr(e.default) : null;
        const slot = e.name === "_" ? -1 : c.scope.declare(e.name, mutable).slot;
        return { rest: e.rest, def, slot };
      });
      const span = p.span;
      return (fr, v) => {
        if (!Array.isArray(v)) throw located(HarnError.type(`cannot destructure ${typeOf(v)} with [...] pattern — expected list`), span, file);
        const run = (i: number): unknown => {
          for (; i < elems.length; i++) {
            const e = elems[i]!;
            if (e.rest) {
              if (e.slot >= 0) fr.s[e.slot] = v.slice(i);
              continue;
            }
            let x: Value = i < v.length ? v[i]! : null;
            if (x === null && e.def) {
              const r = e.def(fr);
              if (r instanceof Promise) {
                const k = i;
                return r.then((y) => {
                  if (e.slot >= 0) fr.s[e.slot] = y;
                  return run(k + 1);
                });
              }
              x = r;
            }
            if (e.slot >= 0) fr.s[e.slot] = x;
          }
          return undefined;
        };
        return run(0);
      };
    }
  }
}

export function match(c: Compiler, n: A.MatchExpr): Ev {
  const value = c.expr(n.value);
  const arms = n.arms.map((arm) => {
    c.pushScope();
    try {
      const test = matchPattern(c, arm.pattern);
      const guard = arm.guard ? c.expr(arm.guard) : null;
      const body = c.scopedBlock(arm.body, true);
      return { test, guard, body };
    } finally {
      c.popScope();
    }
  });
  const file = c.file;
  const span = n.span;
  const tryArms = (fr: Frame, v: Value, i: number): Result => {
    for (; i < arms.length; i++) {
      const arm = arms[i]!;
      let ok = arm.test(fr, v);
      if (ok instanceof Promise) {
        const k = i;
        return ok.then((y) => (y ? afterTest(fr, v, k) : tryArms(fr, v, k + 1)));
      }
      if (!ok) continue;
      return afterTest(fr, v, i);
    }
    throw located(HarnError.thrown("No match arm matched the value"), span, file);
  };
  const afterTest = (fr: Frame, v: Value, i: number): Result => {
    const arm = arms[i]!;
    if (!arm.guard) return arm.body(fr);
    const g = arm.guard(fr);
    if (g instanceof Promise) return g.then((y) => (truthy(y) ? arm.body(fr) : tryArms(fr, v, i + 1)));
    return truthy(g) ? arm.body(fr) : tryArms(fr, v, i + 1);
  };
  return (fr) => {
    const v = value(fr);
    return v instanceof Promise ? v.then((x) => tryArms(fr, x, 0)) : tryArms(fr, v, 0);
  };
}

/** Match-arm pattern (§6.5): `(fr, v) => boolean | Promise<boolean>`. */
export function matchPattern(c: Compiler, p: A.Node): (fr: Frame, v: Value) => boolean | Promise<boolean> {
  const interp = c.interp;
  if (p.kind === "Identifier") {
    if (p.name === "_") return () => true;
    const slot = c.scope.declare(p.name, false).slot;
    return (fr, v) => {
      fr.s[slot] = v;
      return true;
    };
  }
  if (p.kind === "PropertyAccess" && p.object.kind === "Identifier" && c.isEnumName(p.object.name)) {
    const en = p.object.name;
    const vn = p.property;
    return (_fr, v) => v instanceof HEnum && v.enumName === en && v.variant === vn;
  }
  if (p.kind === "MethodCall" && p.object.kind === "Identifier" && c.isEnumName(p.object.name)) {
    const en = p.object.name;
    const vn = p.method;
    const slots = p.args.map((a) => (a.kind === "Identifier" && a.name !== "_" ? c.scope.declare(a.name, false).slot : -1));
    return (fr, v) => {
      if (!(v instanceof HEnum) || v.enumName !== en || v.variant !== vn) return false;
      for (let i = 0; i < slots.length; i++) {
        const s = slots[i]!;
        if (s >= 0) fr.s[s] = i < v.fields.length ? v.fields[i]! : null;
      }
      return true;
    };
  }
  if (p.kind === "DictLiteral" && p.entries.every((e) => !e.computed && e.key.kind === "StringLiteral")) {
    const entries = p.entries.map((e) => {
      const key = (e.key as A.StringLiteral).value;
      if (e.value.kind === "Identifier") {
        const slot = e.value.name === "_" ? -1 : c.scope.declare(e.value.name, false).slot;
        return { key, slot, ev: null as ExprEv | null };
      }
      return { key, slot: -1, ev: c.expr(e.value) };
    });
    return (fr, v) => {
      if (!(v instanceof HDict)) return false;
      return checkEntries(fr, entries.map((e) => ({ got: v.get(e.key), slot: e.slot, ev: e.ev })), 0);
    };
  }
  if (p.kind === "ListLiteral" && p.elements.every((e) => e.kind !== "Spread")) {
    const elems = p.elements.map((e) => {
      if (e.kind === "Identifier") {
        const slot = e.name === "_" ? -1 : c.scope.declare(e.name, false).slot;
        return { slot, ev: null as ExprEv | null };
      }
      return { slot: -1, ev: c.expr(e) };
    });
    const n = elems.length;
    return (fr, v) => {
      if (!Array.isArray(v) || v.length < n) return false;
      return checkEntries(fr, elems.map((e, i) => ({ got: v[i]!, slot: e.slot, ev: e.ev })), 0);
    };
  }
  if (p.kind === "OrPattern") {
    const alts = p.alternatives.map((a) => c.expr(a));
    return (fr, v) => {
      const step = (i: number): boolean | Promise<boolean> => {
        for (; i < alts.length; i++) {
          const x = alts[i]!(fr);
          if (x instanceof Promise) {
            const k = i;
            return x.then((y) => (equals(v, y) ? true : step(k + 1)));
          }
          if (equals(v, x)) return true;
        }
        return false;
      };
      return step(0);
    };
  }
  void interp;
  const ev = c.expr(p);
  return (fr, v) => then(ev(fr), (x) => equals(v, x));
}

function checkEntries(fr: Frame, entries: { got: Value; slot: number; ev: ExprEv | null }[], i: number): boolean | Promise<boolean> {
  for (; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.ev) {
      const x = e.ev(fr);
      if (x instanceof Promise) {
        const k = i;
        return x.then((y) => (equals(e.got, y) ? checkEntries(fr, entries, k + 1) : false));
      }
      if (!equals(e.got, x)) return false;
    } else if (e.slot >= 0) fr.s[e.slot] = e.got;
  }
  return true;
}
