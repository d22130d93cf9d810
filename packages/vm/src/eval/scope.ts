/**
 * Compile-time scopes: static resolution of names to frame slots.
 *
 * Compilation runs in source order, so at any point a scope holds exactly
 * the bindings declared before that point: a function compiled at its
 * creation point sees (and captures) only the names visible then, which is
 * the snapshot rule of spec/semantics.md §5.4. Names that do not resolve are
 * *late-bound*: looked up at run time among the closure-valued bindings of
 * the call site, then globals, then builtins.
 */
import type { FnProto } from "./frame";

export interface Binding {
  name: string;
  slot: number;
  mutable: boolean;
  /** Declaration order, for run-time visibility checks at call sites. */
  order: number;
}

export class FnScope {
  /** name -> binding of a captured outer variable (slot in this frame). */
  readonly captures = new Map<string, Binding>();
  nslots = 0;
  constructor(
    readonly proto: FnProto,
    /** The enclosing function's scope at this function's creation point. */
    readonly outer: BlockScope | null,
    /** Counter shared by the whole compilation. */
    readonly counter: { order: number },
  ) {}
  alloc(): number {
    return this.nslots++;
  }
}

export class BlockScope {
  readonly names = new Map<string, Binding[]>();
  constructor(
    readonly fn: FnScope,
    readonly parent: BlockScope | null,
  ) {}

  declare(name: string, mutable: boolean): Binding {
    const b: Binding = { name, slot: this.fn.alloc(), mutable, order: ++this.fn.counter.order };
    const list = this.names.get(name);
    if (list) list.push(b);
    else this.names.set(name, [b]);
    return b;
  }

  /** The binding declared in this very scope (for redeclaration checks). */
  own(name: string): Binding | undefined {
    const list = this.names.get(name);
    return list ? list[list.length - 1] : undefined;
  }

  /** Resolve at compile time (capturing through function boundaries). */
  resolve(name: string): Binding | null {
    for (let s: BlockScope | null = this; s; s = s.parent) {
      const list = s.names.get(name);
      if (list) return list[list.length - 1]!;
    }
    const fn = this.fn;
    const cap = fn.captures.get(name);
    if (cap) return cap;
    if (!fn.outer) return null;
    const outer = fn.outer.resolve(name);
    if (!outer) return null;
    const b: Binding = { name, slot: fn.alloc(), mutable: outer.mutable, order: -1 };
    fn.captures.set(name, b);
    fn.proto.captureFrom.push(outer.slot);
    fn.proto.captureTo.push(b.slot);
    return b;
  }

  /** Run-time lookup from a call site: bindings of this function only
   * (locals and captures) declared before `order`. Returns the slot or -1. */
  slotAt(name: string, order: number): number {
    for (let s: BlockScope | null = this; s; s = s.parent) {
      const list = s.names.get(name);
      if (list) {
        for (let i = list.length - 1; i >= 0; i--) if (list[i]!.order < order) return list[i]!.slot;
      }
    }
    const cap = this.fn.captures.get(name);
    return cap ? cap.slot : -1;
  }

  /** Names visible here (for "did you mean" suggestions). */
  visibleNames(out: Set<string>): void {
    for (let s: BlockScope | null = this; s; s = s.parent) for (const k of s.names.keys()) out.add(k);
    for (const k of this.fn.captures.keys()) out.add(k);
    if (this.fn.outer) this.fn.outer.visibleNames(out);
  }
}
