/**
 * Running one program in each tier (HARN_VM_JIT=off, eager, auto) with a
 * small set of builtins, for the tier tests (jit.test.ts, direct.test.ts).
 */
import { parse } from "@harn/parser";
import { expect } from "vitest";
import { HarnError, ProgramRunner, Runtime, display, equals, isPromise, truthy, type Value } from "../src/index";

export type Mode = "off" | "eager" | "auto";

export interface Outcome {
  out: string;
  error: string | null;
  /** Line of the error's span and the frame notes (innermost first). */
  where: string | null;
}

export async function runIn(mode: Mode, source: string, opts: { timeoutMs?: number } = {}): Promise<Outcome> {
  const out: string[] = [];
  const rt = new Runtime({ stdout: { write: (t) => void out.push(t) }, stderr: { write: () => undefined }, cwd: "/", env: { HARN_VM_JIT: mode } });
  rt.defineBuiltin("println", (args, ctx) => {
    ctx.out(display(args[0] ?? "") + "\n");
    return null;
  });
  rt.defineBuiltin("sleep", (args, ctx) => rt.clock.sleep(args[0] as number, ctx.signal).then(() => null));
  // A builtin that always suspends: its value arrives as a promise.
  rt.defineBuiltin("later", (args) => Promise.resolve(args[0] ?? null));
  rt.defineBuiltin("len", (args) => {
    const v = args[0] ?? null;
    return typeof v === "string" ? [...v].length : Array.isArray(v) ? v.length : 0;
  });
  // A list builtin written like the stdlib's map (CallContext.prepare):
  // a prepared callback, synchronous until the first call that suspends.
  rt.defineBuiltin("each", (args, ctx) => {
    const xs = args[0] as Value[];
    const cb = ctx.prepare(args[1] ?? null);
    const out: Value[] = [];
    for (let i = 0; i < xs.length; i++) {
      const r = cb.one(xs[i]!);
      if (isPromise(r)) {
        return (async () => {
          out.push(await r);
          for (i++; i < xs.length; i++) {
            const q = cb.one(xs[i]!);
            out.push(isPromise(q) ? await q : q);
          }
          return out;
        })();
      }
      out.push(r);
    }
    return out;
  });
  // List filter/map as the stdlib defines them (packages/stdlib
  // methods/list.ts): generated code may run them as fused loops.
  const each = rt.builtins.get("each")!;
  rt.defineMethod("list", "map", (xs, a, ctx) => each([xs, a[0] ?? null], ctx));
  rt.defineMethod("list", "filter", (xs, a, ctx) => {
    const kept = each([xs, a[0] ?? null], ctx);
    const pick = (ks: Value) => (xs as Value[]).filter((_, i) => truthy((ks as Value[])[i] ?? null));
    return isPromise(kept) ? kept.then(pick) : pick(kept);
  });
  // As the stdlib defines it (packages/stdlib methods/list.ts): generated
  // code runs it as a loop for an int argument.
  rt.defineMethod("list", "contains", (xs, a) => (xs as Value[]).some((x) => equals(x, a[0] ?? null)));
  const { program, errors } = parse(source);
  expect(errors).toEqual([]);
  const runner = new ProgramRunner(rt, { file: "t.harn" });
  const timer = opts.timeoutMs ? setTimeout(() => runner.cancel(HarnError.thrown("timed out")), opts.timeoutMs) : null;
  try {
    await runner.run(program);
    return { out: out.join(""), error: null, where: null };
  } catch (e) {
    if (!(e instanceof HarnError)) throw e;
    const where = `${e.span?.line ?? "?"}:${e.span?.column ?? "?"} ${e.frames.map((f) => `${f.name}@${f.line}`).join(" ")}`;
    return { out: out.join(""), error: e.description(), where };
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** Runs `source` in all three modes; they must agree. Returns the outcome. */
export async function same(source: string, opts: { timeoutMs?: number } = {}): Promise<Outcome> {
  const off = await runIn("off", source, opts);
  const eager = await runIn("eager", source, opts);
  const auto = await runIn("auto", source, opts);
  expect(eager).toEqual(off);
  expect(auto).toEqual(off);
  return off;
}
