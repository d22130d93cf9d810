/**
 * Generated code for method calls (jit.ts's units call in here): list and
 * string receivers go straight to their method table entry, `contains` on
 * an int runs inline, and `filter`/`map` with a plain callback body run as
 * a fused loop.
 */
import type { Ev, FnProto, Frame } from "./frame";
import { type LeafFn, leafEntry } from "./direct";
import type { Interpreter } from "./interpreter";
import type { MethodShape, Step } from "./jit";
import { framedRegion } from "./promote";
import { shapeOf } from "./shape";

/** What of a unit (jit.ts) method-call emission uses. */
export interface UnitEmitter {
  readonly interp: Interpreter;
  /** The unit's constant holding `v`. */
  k(v: unknown): string;
  temp(): string;
  emitExpr(ev: Ev, steps: Step[]): string;
}

type Fused = { proto: FnProto; leaf: LeafFn; make: Ev };

/** A method call: list and string receivers go straight to the method
 * table entry (the tables are fixed once the stdlib is installed), the
 * rest through the closure tier's dispatch. */
export function emitMethodCall(u: UnitEmitter, sh: MethodShape, steps: Step[]): string {
  const o = u.emitExpr(sh.obj, steps);
  const fused = fusedCallback(u, sh);
  // A fused loop runs before the callback closure exists; the closure is
  // created (an effect-free snapshot of the same slots) only when the
  // loop gives way to the method.
  const args = fused !== null ? [u.temp()] : sh.args.map((a) => u.emitExpr(a, steps));
  const t = u.temp();
  const argList = `[${args.join(", ")}]`;
  const generic = `${t} = ${u.k(sh.invoke)}(fr, ${o}, ${argList});`;
  const methods = u.interp.rt.methods;
  const listM = methods.get("list")?.get(sh.name);
  const strM = methods.get("string")?.get(sh.name);
  let code = generic;
  if (listM !== undefined || strM !== undefined) {
    const m = u.temp();
    const site = u.k(sh.site);
    const span = sh.span;
    const interp = u.interp;
    const fail = u.k((e: unknown, fr: Frame) => interp.methodError(e, fr, span));
    const pick = [
      listM !== undefined ? `Array.isArray(${o}) ? ${u.k(listM)}` : "",
      strM !== undefined ? `typeof ${o} === "string" ? ${u.k(strM)}` : "",
    ]
      .filter((x) => x !== "")
      .join(" : ");
    code = [
      `${m} = ${pick} : null;`,
      `if (${m} !== null) {`,
      `try { ${t} = ${m}(${o}, ${argList}, interp.ctx(fr, ${site})); } catch (e) { throw ${fail}(e, fr); }`,
      `if (${t} instanceof Promise) ${t} = interp.guardMethod(${t}, fr, ${u.k(span)});`,
      `} else ${generic}`,
    ].join("\n");
  }
  if (sh.name === "contains" && listM !== undefined && args.length === 1 && fused === null) {
    // `list.contains(int)` as a loop here (stdlib.md: true when an item
    // == the value; an int is == only to the same int or an equal
    // float, semantics.md §2.5), the method itself for anything else.
    const a = args[0]!;
    code = [
      `if (Array.isArray(${o}) && typeof ${a} === "number") {`,
      `${t} = false;`,
      `for (let cq = 0; cq < ${o}.length; cq++) { const ce = ${o}[cq]; if (ce === ${a} || (typeof ce !== "number" && equals(ce, ${a}))) { ${t} = true; break; } }`,
      `} else { ${framedRegion(code)} }`,
    ].join("\n");
  }
  if (sh.optional) code = `if (${o} === null) ${t} = null; else {\n${code}\n}`;
  if (fused !== null) code = fusedLoop(u, fused, sh, o, t, args[0]!, code);
  steps.push({ t: "susp", tmp: t, js: code });
  return t;
}

/** `list.filter({ x -> … })` and `list.map({ x -> … })` with a closure
 * literal whose body direct.ts can turn into a plain function: the
 * callback's prototype and that function, or null. */
function fusedCallback(u: UnitEmitter, sh: MethodShape): Fused | null {
  if ((sh.name !== "filter" && sh.name !== "map") || sh.args.length !== 1 || sh.optional) return null;
  if (u.interp.rt.methods.get("list")?.get(sh.name) === undefined) return null;
  const make = sh.args[0]!;
  const ash = shapeOf(make);
  if (ash?.k !== "sync" || ash.proto === undefined) return null;
  const leaf = leafEntry(ash.proto);
  return leaf === null ? null : { proto: ash.proto, leaf, make };
}

/**
 * The loop of the list method inline, calling the callback body as a
 * plain function (stdlib.md: `filter` keeps the items whose callback
 * result is truthy, `map` collects the results, both in order). The
 * callback has no effects, so when its function bails (anything but a
 * plain value), a tick is due, or the call would need a stack hop or
 * pass the frame limit, the loop's work is dropped and `methodCode`
 * runs the method itself from the start.
 */
function fusedLoop(u: UnitEmitter, f: Fused, sh: MethodShape, o: string, t: string, a0: string, methodCode: string): string {
  const L = u.k(f.leaf);
  const caps = f.proto.captureFrom.map((slot, i) => `fx_c${i} = s[${slot}]`);
  const callArgs = ["fx_x", ...f.proto.captureFrom.map((_, i) => `fx_c${i}`)].join(", ");
  const isMap = sh.name === "map";
  return [
    `${t} = BAIL;`,
    `if (Array.isArray(${o}) && ((fr.task.depth + 1) & 63) !== 0) {`,
    caps.length > 0 ? `const ${caps.join(", ")};` : "",
    `const fx_n = ${o}.length;`,
    `const fx_out = ${isMap ? "new Array(fx_n)" : "[]"};`,
    "let fx_i = 0;",
    "try {",
    "for (; fx_i < fx_n; fx_i++) {",
    "if ((++interp.ticks & 1023) === 0 && !interp.directTick(fr.task)) break;",
    `const fx_x = ${o}[fx_i];`,
    `const fx_r = ${L}(${callArgs});`,
    isMap ? "fx_out[fx_i] = fx_r;" : "if (fx_r === true || (fx_r !== false && truthy(fx_r))) fx_out.push(fx_x);",
    "}",
    "} catch (e) { if (e !== BAILX) throw e; fx_i = -1; }",
    `if (fx_i === fx_n) ${t} = fx_out;`,
    "}",
    `if (${t} === BAIL) {`,
    `${a0} = ${u.k(f.make)}(fr);`,
    methodCode,
    "}",
  ]
    .filter((l) => l !== "")
    .join("\n");
}
