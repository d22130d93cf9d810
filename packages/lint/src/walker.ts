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

type Handler = (node: never) => void;

/** The enter and exit handlers of one node kind. */
interface KindHandlers {
  enter: Handler[];
  exit: Handler[];
}

export class Dispatch {
  /** By node kind: one lookup per visited node finds both lists. */
  readonly byKind = new Map<string, KindHandlers>();
  readonly block: ((b: BlockInfo) => void)[] = [];
  readonly blockExit: ((b: BlockInfo) => void)[] = [];
  readonly unreachable: ((stmt: Node, b: BlockInfo) => void)[] = [];
  readonly finalize: (() => void)[] = [];
  /** Where each visitor key's handlers go, worked out once: a linter that
   * lints many files reuses one Dispatch (`reset` between files), so
   * merging every rule's visitors costs a lookup per key, not string
   * surgery and allocation (that was half of linting a small file). */
  private readonly slots = new Map<string, Handler[]>();
  /** The lists filled for the current file. */
  private readonly filled: Handler[][] = [];
  /** The keys and slots the visitors of each `add` position had for the
   * last file: a rule's visitors usually have the same keys file after
   * file, and comparing keys is cheaper than looking each one up. */
  private readonly seen: { keys: string[]; slots: Handler[][] }[] = [];
  private adds = 0;

  /** Empty every list for the next file, keeping the key table. */
  reset(): void {
    for (const list of this.filled) list.length = 0;
    this.filled.length = 0;
    this.adds = 0;
  }

  add(v: Visitors): void {
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
      const slot = slots[i]!;
      if (slot.length === 0) this.filled.push(slot);
      slot.push(fn as Handler);
    }
  }

  private slotFor(key: string): Handler[] {
    let slot = this.slots.get(key);
    if (slot === undefined) this.slots.set(key, (slot = this.slotOf(key)));
    return slot;
  }

  private slotOf(key: string): Handler[] {
    switch (key) {
      case "Block":
        return this.block as Handler[];
      case "Block:exit":
        return this.blockExit as Handler[];
      case "Unreachable":
        return this.unreachable as unknown as Handler[];
      case "finalize":
        return this.finalize as Handler[];
      default: {
        const isExit = key.endsWith(":exit");
        const kind = isExit ? key.slice(0, -5) : key;
        let h = this.byKind.get(kind);
        if (!h) this.byKind.set(kind, (h = { enter: [], exit: [] }));
        return isExit ? h.exit : h.enter;
      }
    }
  }
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

  /** True while the enter hooks of `n` run and `n` sits directly in a
   * statement list (rather than in an expression). */
  isStatement(n: Node): boolean {
    return this.statement === n;
  }

  walk(program: Program): void {
    const h = this.d.byKind.get("Program");
    if (h) for (const f of h.enter) (f as (n: Program) => void)(program);
    this.stack.push(program);
    this.list(program.items, program, "program");
    this.stack.pop();
    if (h) for (const f of h.exit) (f as (n: Program) => void)(program);
  }

  private visit(n: Node): void {
    const h = this.d.byKind.get(n.kind);
    if (h !== undefined) {
      const enter = h.enter;
      for (let i = 0; i < enter.length; i++) (enter[i] as (n: Node) => void)(n);
    }
    this.stack.push(n);
    walkChildren(n, this.children);
    this.stack.pop();
    if (h !== undefined) {
      const exit = h.exit;
      for (let i = 0; i < exit.length; i++) (exit[i] as (n: Node) => void)(n);
    }
  }

  private list(stmts: Node[] | null, owner: AnyNode, role: BlockRole): void {
    if (stmts === null) return;
    const info: BlockInfo = { stmts, owner, role };
    for (const h of this.d.block) h(info);
    if (role === "program") {
      for (const s of stmts) {
        this.statement = s;
        this.visit(s);
      }
    } else {
      let exited = false;
      for (const s of stmts) {
        if (exited) {
          for (const h of this.d.unreachable) h(s, info);
          break;
        }
        this.statement = s;
        this.visit(s);
        if (definitelyExits(s)) exited = true;
      }
    }
    for (const h of this.d.blockExit) h(info);
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
