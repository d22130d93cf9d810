/**
 * Offsets → tokens for one file's token stream: the lookups the editor
 * features need where the tree has no span (a pipeline's parameters, a
 * `catch` variable, a block's braces).
 */
import type { Token } from "@harn/lexer";

export class TokenIndex {
  /** For each `{` (by token index) the index of its `}`; absent when unclosed. */
  private readonly closer = new Map<number, number>();

  constructor(readonly tokens: readonly Token[]) {
    const open: number[] = [];
    tokens.forEach((t, i) => {
      if (t.kind === "{") open.push(i);
      else if (t.kind === "}") {
        const o = open.pop();
        if (o !== undefined) this.closer.set(o, i);
      }
    });
  }

  /** Index of the first token starting at or after `offset`. */
  indexAt(offset: number): number {
    let lo = 0;
    let hi = this.tokens.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.tokens[mid]!.start < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The token covering `offset` (end inclusive, so a cursor just after a
   * word still finds it), or null. */
  tokenAt(offset: number): Token | null {
    const i = this.indexAt(offset);
    const t = this.tokens[i];
    if (t && t.start === offset && t.kind !== "NL" && t.kind !== "EOF") return t;
    const prev = this.tokens[i - 1];
    if (prev && prev.start <= offset && offset <= prev.end && prev.kind !== "NL") return prev;
    return null;
  }

  /** The first identifier token `name` in [from, to). */
  identIn(name: string, from: number, to: number): Token | null {
    for (let i = this.indexAt(from); i < this.tokens.length; i++) {
      const t = this.tokens[i]!;
      if (t.start >= to) return null;
      if (t.kind === "Ident" && t.value === name) return t;
    }
    return null;
  }

  /** The braces around a statement list: the nearest `{` before its first
   * statement whose `}` comes after its last. Offsets just inside them. */
  blockAround(firstStart: number, lastEnd: number): [number, number] | null {
    for (let i = this.indexAt(firstStart) - 1; i >= 0; i--) {
      if (this.tokens[i]!.kind !== "{") continue;
      const c = this.closer.get(i);
      if (c !== undefined && this.tokens[c]!.start >= lastEnd) return [this.tokens[i]!.end, this.tokens[c]!.start];
    }
    return null;
  }

  /** The `{` whose `}` ends at `end` (a declaration's body), searched
   * from `from`. */
  openerEndingAt(from: number, end: number): number | null {
    for (let i = this.indexAt(from); i < this.tokens.length; i++) {
      const t = this.tokens[i]!;
      if (t.start >= end) return null;
      if (t.kind !== "{") continue;
      const c = this.closer.get(i);
      if (c !== undefined && this.tokens[c]!.end === end) return t.start;
    }
    return null;
  }

  /** The braces of the first `{` at or after `offset`. */
  blockAfter(offset: number, before: number): [number, number] | null {
    for (let i = this.indexAt(offset); i < this.tokens.length; i++) {
      const t = this.tokens[i]!;
      if (t.start >= before) return null;
      if (t.kind !== "{") continue;
      const c = this.closer.get(i);
      return c === undefined ? null : [t.end, this.tokens[c]!.start];
    }
    return null;
  }
}
