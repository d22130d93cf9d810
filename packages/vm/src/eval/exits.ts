/**
 * Exits of generated loops (jit.ts): where an int path fails, a loop unit
 * may leave to the closure tier instead of running the operator's slow
 * path inline. The slow path's result (any value) then never merges into
 * the loop, so locals that only ever hold ints stay ints, which V8 keeps
 * unboxed (a sum past 2^30 was boxed at every iteration: bench/vm README).
 *
 * An exit restarts the current statement in the closure tier, so it is
 * only taken where everything the statement evaluated before it can be
 * evaluated again unnoticed (`PURE_KINDS`: no call, no closure statement),
 * and runs the rest of the iteration there; the loop is then called again
 * at its back-edge (`AGAIN`). A loop that keeps exiting is generated again
 * with every slow path inline (Jit.exited).
 */
import { AGAIN, type JitStep, Suspend } from "./compile/loops";
import { BRK, CONT, Ctl } from "./control";
import type { Frame, Outcome } from "./frame";
import { type Link, chain, continueBlock } from "./helpers";
import type { Jit } from "./jit";
import type { Shape } from "./shape";

type BlockShape = Extract<Shape, { k: "block" }>;
type WhileShape = Extract<Shape, { k: "while" }>;

/** Shapes whose evaluation has no effect but its value (or an error):
 * evaluating them twice is the same as once. */
export const PURE_KINDS: ReadonlySet<string> = new Set(["lit", "slot", "bin", "op", "and", "or", "coalesce", "ternary", "not", "neg", "prop", "index"]);

/** A slot store in a loop unit: whether the value is an int (an int path
 * that exits, an int literal), or a copy of which slot (-1: neither). */
export interface SlotStore {
  slot: number;
  num: boolean;
  from: number;
}

/** The slots a loop unit only ever stores ints in (int paths that exit,
 * int literals, copies of such slots): promote.ts guards and converts
 * them on entry, so V8 sees nothing but numbers flow into them. */
export function intSlots(stores: readonly SlotStore[]): number[] {
  const out = new Set<number>();
  for (const st of stores) out.add(st.slot);
  for (let changed = true; changed; ) {
    changed = false;
    for (const st of stores) {
      if (out.has(st.slot) && !st.num && !out.has(st.from)) {
        out.delete(st.slot);
        changed = true;
      }
    }
  }
  return [...out];
}

/**
 * What an exit calls once the loop stored its slots: the statement at the
 * innermost entry of `path` (the unit's enclosing blocks, outermost first)
 * again, then the rest of each enclosing block, in the closure tier; then
 * the loop goes on at its back-edge (or stops at a `break`, a `return`).
 */
export function leaveLoop(path: readonly { block: BlockShape; index: number }[], shape: WhileShape, jit: Jit): (fr: Frame) => JitStep {
  const inner = path[path.length - 1]!;
  const links: Link[] = [(fr) => continueBlock(inner.block.evs, inner.index, inner.block.useLast, fr, null)];
  for (let i = path.length - 2; i >= 0; i--) {
    const { block, index } = path[i]!;
    links.push((fr, x) => continueBlock(block.evs, index + 1, block.useLast, fr, x));
  }
  return (fr) => {
    jit.exited(shape);
    let v: Outcome = null;
    for (let i = 0; i < links.length; i++) {
      const r = links[i]!(fr, v);
      if (r instanceof Promise) return new Suspend(i + 1 < links.length ? chain(fr, r, links.slice(i + 1)) : r, 2);
      v = r;
    }
    if (v instanceof Ctl) return v === BRK ? null : v === CONT ? AGAIN : v;
    return AGAIN;
  };
}
