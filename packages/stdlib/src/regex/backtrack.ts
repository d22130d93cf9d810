/**
 * A bounded backtracker for patterns that would make V8's backtracking
 * engine explode (`(a+)+$` on a long run of `a`s never finishes there,
 * while Rust's `regex` crate is linear-time and answers at once).
 *
 * Like Rust's `BoundedBacktracker`, it walks a Thompson program in
 * priority order (so results are leftmost-first, the same as the `RegExp`
 * path) and remembers every (instruction, position) pair it has tried: a
 * pair that failed once fails again, so a search costs at most
 * instructions × text length steps.
 *
 * Single characters and look-arounds are tested with small `RegExp`s
 * emitted by emit.ts for that node alone, so the two engines agree on
 * every class, property, case-folding and word-boundary rule.
 */
import type { ClassSet, Node } from "./syntax";
import { caseMode, emitRegex } from "./emit";

type Inst =
  | { op: "char"; test: (cp: number) => boolean }
  | { op: "look"; re: RegExp }
  | { op: "split"; x: number; y: number }
  | { op: "jmp"; to: number }
  | { op: "save"; slot: number }
  | { op: "match" };

/** Beyond this many (instruction, position) pairs the caller keeps using
 * the `RegExp` (the visited bitset would take more than 8 MB). */
const MAX_VISITED_BITS = 64 * 1024 * 1024;

/**
 * Whether a pattern needs this engine rather than the `RegExp`:
 * - it can make a backtracking engine take exponential time: a repetition
 *   that can run more than once around a body that itself contains a
 *   repetition or an alternation (`(a+)+`, `(a|aa)*`, `(\w+\s?)*`);
 * - it has a capture group inside such a repetition: JS clears the groups
 *   of a repeated body at every iteration, Rust keeps the last text each
 *   group matched (`((a)|b)+` on `"ab"`: group 2 is `"a"`, not nil);
 * - only part of it is case-insensitive and that part has a class the
 *   emitter cannot case-fold by hand (`a(?i)\p{Lu}`, `x(?i:[[:upper:]])`).
 */
export function needsLinearEngine(node: Node): boolean {
  if (caseMode(node) === "mixed" && hasUnfoldableClass(node)) return true;
  const risky = (n: Node, insideLoop: boolean): boolean => {
    switch (n.k) {
      case "rep": {
        const loops = n.max === null || n.max > 1;
        if (insideLoop && loops) return true;
        return risky(n.node, insideLoop || loops);
      }
      case "alt":
        if (insideLoop && n.items.length > 1) return true;
        return n.items.some((x) => risky(x, insideLoop));
      case "concat":
        return n.items.some((x) => risky(x, insideLoop));
      case "group":
        if (insideLoop && n.index !== null) return true;
        return risky(n.node, insideLoop);
      default:
        return false;
    }
  };
  return risky(node, false);
}

/** Rust's default compiled-size limit, as its error message states it. */
export const SIZE_LIMIT_MESSAGE = "Compiled regex exceeds size limit of 10485760 bytes.";

/** Instructions a pattern expands to; `(?:a{1000}){1000}` is a million. */
export function expandedSize(n: Node): number {
  switch (n.k) {
    case "group":
      return expandedSize(n.node) + (n.index === null ? 0 : 2);
    case "concat":
    case "alt":
      return n.items.reduce((sum, x) => sum + expandedSize(x) + 1, 0);
    case "rep":
      return (expandedSize(n.node) + 2) * Math.max(1, n.max ?? n.min + 1);
    default:
      return 1;
  }
}

/** Patterns beyond this size are rejected the way Rust rejects them. */
export const MAX_PROGRAM = 1_000_000;

/** A case-insensitive property, or a case-insensitive class holding a
 * property, POSIX or Perl class. */
function hasUnfoldableClass(n: Node): boolean {
  switch (n.k) {
    case "prop":
      return n.ci;
    case "class":
      return n.ci && setHasClass(n.set);
    case "group":
    case "rep":
      return hasUnfoldableClass(n.node);
    case "concat":
    case "alt":
      return n.items.some(hasUnfoldableClass);
    default:
      return false;
  }
}

function setHasClass(s: ClassSet): boolean {
  if (s.k === "op") return setHasClass(s.lhs) || setHasClass(s.rhs);
  return s.items.some((i) => i.k === "prop" || i.k === "posix" || i.k === "perl" || (i.k === "nested" && setHasClass(i.set)));
}

export class BoundedBacktracker {
  private readonly prog: Inst[] = [];
  private readonly slotCount: number;
  /** The visited set, kept between searches (a `findAll` runs one per
   * match) and cleared word by word from `touched`, so a search costs what
   * it explores rather than the size of the text. */
  private visited = new Uint32Array(0);
  private readonly touched: number[] = [];
  /** One character test or look-around `RegExp` per AST node, shared by a
   * repetition's copies (`(?:\b\w){1,500}` builds one of each, not 500). */
  private readonly leaves = new Map<Node, Inst>();

  constructor(node: Node, groupCount: number) {
    this.slotCount = groupCount * 2;
    this.emit({ op: "save", slot: 0 });
    this.compile(node);
    this.emit({ op: "save", slot: 1 });
    this.emit({ op: "match" });
  }

  /** Drop a large visited set once a caller's searches are done, so the
   * compiled-pattern cache does not keep megabytes per pattern alive. */
  release(): void {
    if (this.visited.length > 65536) {
      this.visited = new Uint32Array(0);
      this.touched.length = 0;
    }
  }

  /** Whether a search over `text` fits the visited-set budget. */
  fits(text: string): boolean {
    return this.prog.length * (text.length + 1) <= MAX_VISITED_BITS;
  }

  /** The leftmost-first match starting at or after `from`, shaped like
   * `RegExp.prototype.exec`'s result (UTF-16 `index`, `undefined` for groups
   * that did not participate). */
  exec(text: string, from: number): RegExpExecArray | null {
    const width = text.length + 1;
    const words = Math.ceil((this.prog.length * width) / 32);
    if (this.visited.length < words) {
      this.visited = new Uint32Array(words);
      this.touched.length = 0;
    } else {
      for (const w of this.touched) this.visited[w] = 0;
      this.touched.length = 0;
    }
    const visited = this.visited;
    const slots: number[] = new Array<number>(this.slotCount).fill(-1);
    for (let start = from; start <= text.length; start = nextIndex(text, start)) {
      if (this.run(text, start, width, visited, slots)) return this.result(text, slots);
      if (start >= text.length) break;
    }
    return null;
  }

  private run(text: string, start: number, width: number, visited: Uint32Array, slots: number[]): boolean {
    // Frames: [pc, pos] to explore, or [-1 - slot, old value] to restore.
    const stack: number[] = [0, start];
    while (stack.length > 0) {
      const b = stack.pop()!;
      const a = stack.pop()!;
      if (a < 0) {
        slots[-1 - a] = b;
        continue;
      }
      let pc = a;
      let pos = b;
      for (;;) {
        const key = pc * width + pos;
        const word = key >>> 5;
        const bit = 1 << (key & 31);
        const seen = visited[word]!;
        if ((seen & bit) !== 0) break;
        if (seen === 0) this.touched.push(word);
        visited[word] = seen | bit;
        const inst = this.prog[pc]!;
        if (inst.op === "match") return true;
        if (inst.op === "char") {
          if (pos >= text.length) break;
          const cp = text.codePointAt(pos)!;
          if (!inst.test(cp)) break;
          pos += cp > 0xffff ? 2 : 1;
          pc++;
        } else if (inst.op === "look") {
          inst.re.lastIndex = pos;
          if (!inst.re.test(text)) break;
          pc++;
        } else if (inst.op === "split") {
          stack.push(inst.y, pos);
          pc = inst.x;
        } else if (inst.op === "jmp") {
          pc = inst.to;
        } else {
          stack.push(-1 - inst.slot, slots[inst.slot]!);
          slots[inst.slot] = pos;
          pc++;
        }
      }
    }
    return false;
  }

  private result(text: string, slots: number[]): RegExpExecArray {
    const out: (string | undefined)[] = [];
    for (let g = 0; g < this.slotCount; g += 2) {
      const s = slots[g]!;
      const e = slots[g + 1]!;
      out.push(s >= 0 && e >= 0 ? text.slice(s, e) : undefined);
    }
    const m = out as unknown as RegExpExecArray;
    m.index = slots[0]!;
    m.input = text;
    return m;
  }

  private emit(inst: Inst): number {
    this.prog.push(inst);
    return this.prog.length - 1;
  }

  private compile(n: Node): void {
    switch (n.k) {
      case "empty":
        return;
      case "lit":
      case "dot":
      case "class":
      case "perl":
      case "prop":
      case "look": {
        let leaf = this.leaves.get(n);
        if (leaf === undefined) this.leaves.set(n, (leaf = leafInst(n)));
        this.emit(leaf);
        return;
      }
      case "group":
        if (n.index === null) {
          this.compile(n.node);
          return;
        }
        this.emit({ op: "save", slot: n.index * 2 });
        this.compile(n.node);
        this.emit({ op: "save", slot: n.index * 2 + 1 });
        return;
      case "concat":
        for (const x of n.items) this.compile(x);
        return;
      case "alt": {
        const jumps: number[] = [];
        n.items.forEach((x, i) => {
          if (i === n.items.length - 1) {
            this.compile(x);
            return;
          }
          const split = this.emit({ op: "split", x: 0, y: 0 });
          this.compile(x);
          jumps.push(this.emit({ op: "jmp", to: 0 }));
          this.patchSplit(split, split + 1, this.prog.length);
        });
        for (const j of jumps) (this.prog[j] as { to: number }).to = this.prog.length;
        return;
      }
      case "rep":
        this.compileRep(n.node, n.min, n.max, n.greedy);
        return;
    }
  }

  private compileRep(body: Node, min: number, max: number | null, greedy: boolean): void {
    for (let i = 0; i < min; i++) this.compile(body);
    if (max === null) {
      const split = this.emit({ op: "split", x: 0, y: 0 });
      this.compile(body);
      this.emit({ op: "jmp", to: split });
      this.patchSplit(split, split + 1, this.prog.length, greedy);
      return;
    }
    const splits: number[] = [];
    for (let i = min; i < max; i++) {
      splits.push(this.emit({ op: "split", x: 0, y: 0 }));
      this.compile(body);
    }
    for (const s of splits) this.patchSplit(s, s + 1, this.prog.length, greedy);
  }

  /** Point a split at `body` (preferred when greedy) and `skip`. */
  private patchSplit(at: number, body: number, skip: number, greedy = true): void {
    this.prog[at] = greedy ? { op: "split", x: body, y: skip } : { op: "split", x: skip, y: body };
  }
}

/** The instruction for a character node or a look-around, tested with the
 * `RegExp` emit.ts writes for that node alone. A look-around's is sticky
 * (`lastIndex` is set before each test), so copies can share it. */
function leafInst(n: Node): Inst {
  const { source, flags } = emitRegex(n);
  if (n.k === "look") return { op: "look", re: new RegExp(source, "y" + flags) };
  return { op: "char", test: charTest(source, flags) };
}

/** A single-code-point test, remembering its answers. */
function charTest(source: string, flags: string): (cp: number) => boolean {
  const re = new RegExp("^(?:" + source + ")$", flags);
  const seen = new Map<number, boolean>();
  return (cp) => {
    let hit = seen.get(cp);
    if (hit === undefined) {
      hit = re.test(String.fromCodePoint(cp));
      if (seen.size < 4096) seen.set(cp, hit);
    }
    return hit;
  };
}

/** The index one code point after `i` (where a search moves on to). */
export function nextIndex(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return i + (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length ? 2 : 1);
}
