/**
 * Shapes: what a compiled node does, in a form the code generator can read.
 *
 * The closure compiler (compile.ts) turns every node into an `Ev` closure;
 * for the node kinds the generator understands it also attaches a shape
 * that names the node's parts (child closures, slots, the located slow-path
 * functions). The generator (jit.ts) later turns a hot function body or
 * loop into one JS function by walking shapes; a closure without a shape is
 * called as it is. The closures stay the reference: every shape describes
 * exactly what its closure does, and the generated code falls back to the
 * closures to finish a statement that suspended.
 */
import type { Span } from "@harn/parser";
import type { HClosure, Value } from "../values";
import type { JitStep, LoopStep } from "./compile/loops";
import type { Async, Ev, FnProto, Frame, Result, Site } from "./frame";

/** What a call site saw in the closure tier: the one simple prototype it
 * called (the generator speculates on it), or `poly` after a second one. */
export class CallSiteIC {
  proto: FnProto | null = null;
  poly = false;
  /** A call reached a builtin (no closure of that name was visible). */
  builtin = false;
  see(proto: FnProto): void {
    if (this.proto !== proto) {
      if (this.proto === null && !this.poly) this.proto = proto;
      else {
        this.proto = null;
        this.poly = true;
      }
    }
  }
}

/** A loop's tiering state: iterations run in the closure tier, and the
 * generated version once there is one (see jit.ts). */
export class LoopState {
  /** Iterations left before the loop is compiled; -1 when compilation
   * failed or is off. */
  countdown: number;
  /** The generated loop: same contract as the closure loop at phase 0. */
  jit: ((fr: Frame) => JitStep) | null = null;
  /** Exits the generated loop took to the closure tier (jit.ts). */
  exits = 0;
  constructor(countdown: number) {
    this.countdown = countdown;
  }
}

export type Slow = (a: Value, b: Value) => Value;

export type Shape =
  // ---- expressions (the closure returns the value or a promise of it)
  | { k: "lit"; v: Value }
  | { k: "slot"; slot: number }
  /** An operator with an int fast path (optable.ts) and `slow` for
   * everything else (located). */
  | { k: "bin"; op: string; l: Ev; r: Ev; slow: Slow }
  /** Any other binary operator: always `slow(a, b)`. */
  | { k: "op"; l: Ev; r: Ev; slow: Slow }
  | { k: "and" | "or" | "coalesce"; l: Ev; r: Ev }
  | { k: "not"; a: Ev }
  | { k: "neg"; a: Ev; negate: (x: Value) => Value }
  | { k: "prop"; obj: Ev; name: string; slow: (o: Value) => Value }
  | { k: "index"; obj: Ev; idx: Ev; get: (o: Value, i: Value) => Value }
  | { k: "interp"; parts: (string | Ev)[]; span: Span; file: string }
  | { k: "ternary"; c: Ev; a: Ev; b: Ev }
  | { k: "list"; elems: Ev[] }
  /** A closure that never suspends (closure creation, late-bound name read);
   * `proto` when it creates a closure from a literal. */
  | { k: "sync"; proto?: FnProto }
  | {
      k: "call";
      name: string;
      /** Slot of a statically visible binding of the name, or -1. */
      slot: number;
      /** `await`/`cancel`/…: never a late-bound closure. */
      special: boolean;
      args: Ev[];
      site: Site;
      span: Span;
      file: string;
      ic: CallSiteIC;
      /** The closure tier's call with evaluated arguments: `fn` is the
       * resolved closure or null (builtins). */
      call: (fr: Frame, fn: HClosure | null, args: Value[]) => Result;
    }
  | {
      k: "mcall";
      obj: Ev;
      args: Ev[];
      name: string;
      optional: boolean;
      site: Site;
      span: Span;
      /** The closure tier's dispatch with evaluated receiver and arguments. */
      invoke: (fr: Frame, recv: Value, args: Value[]) => Async<Value>;
    }
  // ---- statements (the closure returns null, a control signal, or a promise)
  | { k: "store"; slot: number; value: Ev }
  /** `return f(args)` (§7.6): `call` (shape "call") returns a `TailCall`
   * to the caller's trampoline when `f` is a closure. */
  | { k: "tail"; call: Ev }
  /** `slot OP= value`: `update` runs it whole, `slow` is the located
   * operator (optable.ts) for generated code's int path. */
  | { k: "update"; slot: number; op: string; value: Ev; update: (fr: Frame, x: Value) => null; slow: Slow }
  | { k: "if"; c: Ev; then: Ev; else: Ev | null }
  | { k: "block"; evs: Ev[]; useLast: boolean }
  | { k: "return"; value: Ev | null }
  | { k: "break" }
  | { k: "continue" }
  | { k: "while"; c: Ev; body: Ev; loop: LoopState; run: (fr: Frame, phase: number, v: unknown) => LoopStep };

/** Shapes of the nodes a leaf body may contain: values, operators and
 * control flow over its own slots, nothing that calls out or captures. */
const LEAF_KINDS = new Set<string>(["lit", "slot", "bin", "op", "and", "or", "coalesce", "not", "neg", "prop", "index", "interp", "ternary", "list", "block", "store", "update", "if", "return"]);

/**
 * Whether a body evaluates only operators over its own slots: no calls
 * (so no callee frame can refer to it as its caller), no builtin or method
 * (so no call context holds it), no closure creation, no suspension, no
 * defers. Such a frame is unreachable once the body returned, and can be
 * reused for the next call. `nil` is the shared NIL closure (`nilEv`).
 */
export function isLeaf(ev: Ev, nilEv: Ev): boolean {
  if (ev === nilEv) return true;
  const sh = shapeOf(ev);
  if (sh === undefined || !LEAF_KINDS.has(sh.k)) return false;
  switch (sh.k) {
    case "lit":
    case "slot":
      return true;
    case "bin":
    case "op":
    case "and":
    case "or":
    case "coalesce":
      return isLeaf(sh.l, nilEv) && isLeaf(sh.r, nilEv);
    case "not":
    case "neg":
      return isLeaf(sh.a, nilEv);
    case "prop":
      return isLeaf(sh.obj, nilEv);
    case "index":
      return isLeaf(sh.obj, nilEv) && isLeaf(sh.idx, nilEv);
    case "interp":
      return sh.parts.every((p) => typeof p === "string" || isLeaf(p, nilEv));
    case "ternary":
      return isLeaf(sh.c, nilEv) && isLeaf(sh.a, nilEv) && isLeaf(sh.b, nilEv);
    case "list":
      return sh.elems.every((e) => isLeaf(e, nilEv));
    case "block":
      return sh.evs.every((e) => isLeaf(e, nilEv));
    case "store":
    case "update":
      return isLeaf(sh.value, nilEv);
    case "if":
      return isLeaf(sh.c, nilEv) && isLeaf(sh.then, nilEv) && (sh.else === null || isLeaf(sh.else, nilEv));
    case "return":
      return sh.value === null || isLeaf(sh.value, nilEv);
    default:
      return false;
  }
}

/** Slots a leaf body assigns to (its `store` and `update` targets). */
export function writtenSlots(ev: Ev): number[] {
  const out: number[] = [];
  const walk = (e: Ev | null): void => {
    if (e === null) return;
    const sh = shapeOf(e);
    if (sh === undefined) return;
    switch (sh.k) {
      case "store":
      case "update":
        out.push(sh.slot);
        walk(sh.value);
        return;
      case "block":
        sh.evs.forEach(walk);
        return;
      case "if":
        walk(sh.then);
        walk(sh.else);
        return;
      default:
        return; // expressions assign nothing
    }
  };
  walk(ev);
  return out;
}

interface Shaped {
  shape?: Shape;
}

/** Attach a shape to a freshly created closure (never to a shared one). */
export function shaped<T extends Ev>(ev: T, shape: Shape): T {
  (ev as Shaped).shape = shape;
  return ev;
}

export function shapeOf(ev: Ev): Shape | undefined {
  return (ev as Shaped).shape;
}
