/**
 * The one traversal per file. Every rule's visitors are merged into a
 * dispatch table keyed by node kind, and a single pre-order walk feeds them
 * all (not one traversal per rule: speed is designed in).
 *
 * The walk also owns the reference's dead-code behaviour (lint.md §3.3,
 * quirk Q2): in every statement list except the file's top level, the
 * statement after a definitely-exiting one is announced as unreachable and
 * neither it nor anything after it is walked.
 */
import { walkChildren, type ChildVisitor, type Node, type Program } from "@harn/parser";
import type { AnyNode, BlockInfo, BlockRole, Visitors } from "./types";
import { clearArray } from "./reuse";

type Handler = (node: never) => void;

/**
 * The handlers of one visitor key for the current file: the first `n` of
 * `fns`. Emptied between files by resetting `n` (truncating arrays was a
 * tenth of linting a small file); what lies past `n` is overwritten by the
 * next file's handlers.
 */
export interface Slot<F = Handler> {
  fns: F[];
  n: number;
}

const slot = <F,>(): Slot<F> => ({ fns: [], n: 0 });

/** The slots filled by a file's first visitors, how full, and with what. */
interface Prefix {
  slots: Slot[];
  counts: number[];
  fns: Handler[][];
}

/** The enter and exit handlers of one node kind. */
interface KindHandlers {
  enter: Slot;
  exit: Slot;
}

export class Dispatch {
  /** By node kind: one lookup per visited node finds both lists. */
  readonly byKind = new Map<string, KindHandlers>();
  readonly block: Slot<(b: BlockInfo) => void> = slot();
  readonly blockExit: Slot<(b: BlockInfo) => void> = slot();
  readonly unreachable: Slot<(stmt: Node, b: BlockInfo) => void> = slot();
  readonly finalize: Slot<() => void> = slot();
  /** Where each visitor key's handlers go, worked out once: a linter that
   * lints many files reuses one Dispatch (`reset` between files), so
   * merging every rule's visitors costs a lookup per key, not string
   * surgery and allocation (that was half of linting a small file). */
  private readonly slots = new Map<string, Slot>();
  /** The slots filled for the current file. */
  private readonly filled: Slot[] = [];
  /** The keys and slots the visitors of each `add` position had for the
   * last file: a rule's visitors usually have the same keys file after
   * file, and comparing keys is cheaper than looking each one up. */
  private readonly seen: { keys: string[]; slots: Slot[] }[] = [];
  private adds = 0;

  /** Empty every slot for the next file, keeping the key table. */
  reset(): void {
    const filled = this.filled;
    for (let i = 0; i < filled.length; i++) filled[i]!.n = 0;
    clearArray(filled);
    this.adds = 0;
    this.clean = false;
  }

  /** The visitors files start with (one array per set of rules run,
   * gates.ts), each with the state of the slots after them: given the same
   * array again, `begin` restores that state instead of adding them one by
   * one. The slots' handler arrays hold one set at a time: they are
   * written back when the set differs from the last file's. */
  private readonly prefixes = new Map<readonly Visitors[], Prefix>();
  private current: Prefix | null = null;
  /** Nothing was added since `current` was restored: the slots hold it. */
  private clean = false;

  /** Start a file: empty every slot, then add `visitors` (the same array
   * file after file: restored, not added again). */
  begin(visitors: readonly Visitors[]): void {
    let p = this.prefixes.get(visitors);
    if (p !== undefined && p === this.current && this.clean) return;
    this.reset();
    if (p === undefined) {
      for (const v of visitors) this.add(v);
      const slots = this.filled.slice();
      p = { slots, counts: slots.map((s) => s.n), fns: slots.map((s) => s.fns.slice(0, s.n)) };
      this.prefixes.set(visitors, p);
      this.current = p;
      this.clean = true;
      return;
    }
    const { slots, counts, fns } = p;
    if (this.current !== p) {
      for (let i = 0; i < slots.length; i++) {
        const to = slots[i]!.fns;
        const from = fns[i]!;
        for (let k = 0; k < from.length; k++) to[k] = from[k]!;
      }
      this.current = p;
    }
    for (let i = 0; i < slots.length; i++) slots[i]!.n = counts[i]!;
    for (let i = 0; i < slots.length; i++) this.filled.push(slots[i]!);
    this.adds = visitors.length;
    this.clean = true;
  }

  add(v: Visitors): void {
    this.clean = false;
    const keys = Object.keys(v);
    const at = this.adds++;
    let seen = this.seen[at];
    if (seen === undefined || !sameKeys(seen.keys, keys)) {
      seen = { keys, slots: keys.map((k) => this.slotFor(k)) };
      this.seen[at] = seen;
    }
    const slots = seen.slots;
    for (let i = 0; i < keys.length; i++) {
      const fn = (v as Record<string, unknown>)[keys[i]!];
      if (typeof fn !== "function") continue;
      const s = slots[i]!;
      if (s.n === 0) this.filled.push(s);
      s.fns[s.n++] = fn as Handler;
    }
  }

  private slotFor(key: string): Slot {
    let s = this.slots.get(key);
    if (s === undefined) this.slots.set(key, (s = this.slotOf(key)));
    return s;
  }

  private slotOf(key: string): Slot {
    switch (key) {
      case "Block":
        return this.block as unknown as Slot;
      case "Block:exit":
        return this.blockExit as unknown as Slot;
      case "Unreachable":
        return this.unreachable as unknown as Slot;
      case "finalize":
        return this.finalize as unknown as Slot;
      default: {
        const isExit = key.endsWith(":exit");
        const kind = isExit ? key.slice(0, -5) : key;
        let h = this.byKind.get(kind);
        if (!h) this.byKind.set(kind, (h = { enter: slot(), exit: slot() }));
        return isExit ? h.exit : h.enter;
      }
    }
  }
}

/** Call the first `n` handlers of a slot with a node. */
function call(s: Slot, node: AnyNode): void {
  const fns = s.fns as unknown as ((n: AnyNode) => void)[];
  for (let i = 0; i < s.n; i++) fns[i]!(node);
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A statement that leaves its block on every path (lint.md §3.3). */
export function definitelyExits(stmt: Node): boolean {
  switch (stmt.kind) {
    case "ReturnStmt":
    case "ThrowStmt":
    case "BreakStmt":
    case "ContinueStmt":
      return true;
    case "IfElse":
      return stmt.elseBody !== null && stmt.thenBody.some(definitelyExits) && stmt.elseBody.some(definitelyExits);
    default:
      return false;
  }
}

export class Walker {
  private readonly stack: AnyNode[] = [];
  /** The statement whose enter hooks are running (see isStatement). */
  private statement: Node | null = null;

  constructor(private readonly d: Dispatch) {}

  ancestors(): readonly AnyNode[] {
    return this.stack;
  }

  /** Forget the last file (a walk a stack overflow ended leaves nodes). */
  reset(): void {
    clearArray(this.stack);
    this.statement = null;
  }

  /** True while the enter hooks of `n` run and `n` sits directly in a
   * statement list (rather than in an expression). */
  isStatement(n: Node): boolean {
    return this.statement === n;
  }

  walk(program: Program): void {
    const h = this.d.byKind.get("Program");
    if (h) call(h.enter, program);
    this.stack.push(program);
    this.list(program.items, program, "program");
    this.stack.pop();
    if (h) call(h.exit, program);
  }

  private visit(n: Node): void {
    const h = this.d.byKind.get(n.kind);
    if (h !== undefined) call(h.enter, n);
    this.stack.push(n);
    walkChildren(n, this.children);
    this.stack.pop();
    if (h !== undefined) call(h.exit, n);
  }

  private list(stmts: Node[] | null, owner: AnyNode, role: BlockRole): void {
    if (stmts === null) return;
    const info: BlockInfo = { stmts, owner, role };
    const { block, blockExit, unreachable } = this.d;
    for (let i = 0; i < block.n; i++) block.fns[i]!(info);
    if (role === "program") {
      for (const s of stmts) {
        this.statement = s;
        this.visit(s);
      }
    } else {
      let exited = false;
      for (const s of stmts) {
        if (exited) {
          for (let i = 0; i < unreachable.n; i++) unreachable.fns[i]!(s, info);
          break;
        }
        this.statement = s;
        this.visit(s);
        if (definitelyExits(s)) exited = true;
      }
    }
    for (let i = 0; i < blockExit.n; i++) blockExit.fns[i]!(info);
  }

  /** The parser's child walk, as the reference sees the tree (no
   * interpolation segments, no annotations; ast-util `forEachChild`), with
   * statement lists through `list` for their blocks and reachability. */
  private readonly children: ChildVisitor = {
    node: (c) => this.visit(c),
    block: (stmts, owner, role) => this.list(stmts, owner, role),
    interpolation: () => {},
    annotation: () => {},
  };
}
