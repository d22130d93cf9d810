/**
 * A forward dataflow solver over a Cfg. States are immutable values; an
 * unreached block has no state, so joins only see paths that exist.
 */
import { reversePostorder, type Cfg, type CfgEdge, type CfgElem } from "./cfg";

export interface ForwardAnalysis<S> {
  readonly entry: S;
  join(a: S, b: S): S;
  equals(a: S, b: S): boolean;
  /** State after `elem` given the state before it. */
  transfer(elem: CfgElem, state: S): S;
  /** Which edges the analysis follows (default: all). */
  follows?(edge: CfgEdge): boolean;
}

/** The state on entry to every block (undefined: unreachable). */
export function solveForward<S>(cfg: Cfg, a: ForwardAnalysis<S>): (S | undefined)[] {
  const order = reversePostorder(cfg);
  const rank = new Int32Array(cfg.blocks.length).fill(-1);
  order.forEach((b, i) => (rank[b] = i));
  const inState: (S | undefined)[] = new Array(cfg.blocks.length);
  inState[cfg.entry] = a.entry;
  // worklist ordered by reverse postorder, so loops converge quickly
  const queued = new Uint8Array(cfg.blocks.length);
  let pending: number[] = [cfg.entry];
  queued[cfg.entry] = 1;
  while (pending.length > 0) {
    pending.sort((x, y) => rank[x]! - rank[y]!);
    const next: number[] = [];
    for (const b of pending) {
      queued[b] = 0;
      let s = inState[b] as S;
      for (const e of cfg.blocks[b]!.elems) s = a.transfer(e, s);
      for (const edge of cfg.blocks[b]!.succs) {
        if (a.follows && !a.follows(edge)) continue;
        const old = inState[edge.to];
        const merged = old === undefined ? s : a.join(old, s);
        if (old !== undefined && a.equals(old, merged)) continue;
        inState[edge.to] = merged;
        if (!queued[edge.to]) {
          queued[edge.to] = 1;
          next.push(edge.to);
        }
      }
    }
    pending = next;
  }
  return inState;
}

/** Replay the solved states element by element, in block order. */
export function replay<S>(
  cfg: Cfg,
  a: ForwardAnalysis<S>,
  inState: (S | undefined)[],
  visit: (elem: CfgElem, before: S) => void,
): void {
  for (const b of cfg.blocks) {
    let s = inState[b.id];
    if (s === undefined) continue;
    for (const e of b.elems) {
      visit(e, s);
      s = a.transfer(e, s);
    }
  }
}
