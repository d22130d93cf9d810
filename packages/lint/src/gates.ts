/**
 * Rules that cannot report in a file are not run on it. A rule that looks
 * for calls of certain builtins says which names (`RuleMeta.triggers`);
 * one pass over the file's tokens tells which of them occur. Most files
 * call none of them, and every rule run on every file was a quarter of
 * linting 9,000 small ones (bench/lint): each visitor called, and each
 * compiled while the run is cold.
 *
 * A word counts when it is an identifier, keyword or punctuation token
 * (`==`), or occurs in the code inside `${…}` (the lexer keeps that as
 * text in the string's token). Extra words (in a nested string, say) only
 * run a rule that then finds nothing, as it would have. A rule about
 * comments, which are not tokens, names a text instead (`//`).
 */
import { matchIdentifier, type Token } from "@harn/lexer";
import type { ProjectFacts, Rule } from "./types";

/** What a word does: the rules it lets run, and those it counts for
 * (`RuleTriggers.atLeast`). */
interface Word {
  open: number;
  counts: number;
}

export class Gates {
  /** The bit of each gated rule. */
  private readonly bits = new Map<Rule, number>();
  /** The rules each word lets run or counts for. */
  private readonly words = new Map<string, Word>();
  /** Rules run on enough words (their bits), and by bit position how
   * many each rule needs (Infinity: not counted) and this file's count. */
  private counted = 0;
  private readonly needs: number[] = [];
  private readonly tally: number[] = [];
  /** The words that are punctuation (`==`): looked for by text in `${…}`. */
  private readonly symbols: string[] = [];
  /** The rules a handle-returning import lets run. */
  private handleRules = 0;
  /** Texts that let rules run, with those rules. */
  private readonly texts: [string, number][] = [];
  /** Every gated rule. */
  readonly all: number;

  /** `rules`: each with its options (a count may depend on them). */
  constructor(rules: readonly { rule: Rule; options: object }[]) {
    let all = 0;
    for (const { rule, options } of rules) {
      const t = rule.meta.triggers;
      // one bit each, in an int
      if (t === undefined || this.bits.size === 31) continue;
      const bit = 1 << this.bits.size;
      this.bits.set(rule, bit);
      all |= bit;
      for (const x of t.text ?? []) this.texts.push([x, bit]);
      for (const w of t.words ?? []) this.wordOf(w).open |= bit;
      this.needs.push(t.atLeast === undefined ? Infinity : t.atLeast.count(options as never));
      this.tally.push(0);
      if (t.atLeast !== undefined) {
        this.counted |= bit;
        for (const w of t.atLeast.words) this.wordOf(w).counts |= bit;
      }
      if (t.importedHandles === true) this.handleRules |= bit;
    }
    this.all = all;
  }

  private wordOf(w: string): Word {
    let e = this.words.get(w);
    if (e === undefined) {
      if (!/^\w+$/.test(w)) this.symbols.push(w);
      this.words.set(w, (e = { open: 0, counts: 0 }));
    }
    return e;
  }

  /** Whether `rule` runs on a file with these gated rules open (`mask`). */
  runs(rule: Rule, mask: number): boolean {
    const bit = this.bits.get(rule);
    return bit === undefined || (mask & bit) !== 0;
  }

  /** The gated rules that may report in a file; all of them when its
   * tokens and text are not known. */
  open(tokens: readonly Token[] | null, text: string | null, project: ProjectFacts): number {
    if (tokens === null || text === null) return this.all;
    let mask = 0;
    const tally = this.tally;
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      const k = t.kind;
      // keywords and punctuation are their own kind; classes never a word
      if (k === "IString") {
        mask |= this.wordsOfCode(t.value as readonly { kind: string; source?: string }[]);
        continue;
      }
      const e = this.words.get(k === "Ident" ? t.image : k);
      if (e === undefined) continue;
      mask |= e.open;
      for (let c = e.counts, at = 0; c !== 0; c >>>= 1, at++) if ((c & 1) !== 0) tally[at]!++;
    }
    if (this.counted !== 0) {
      for (let at = 0; at < tally.length; at++) {
        if (tally[at]! >= this.needs[at]!) mask |= 1 << at;
        tally[at] = 0;
      }
    }
    for (const [x, bit] of this.texts) if ((mask & bit) === 0 && text.includes(x)) mask |= bit;
    if ((mask & this.handleRules) !== this.handleRules) {
      for (const s of project.importedHandles.values()) {
        if (s.returnsHandle) {
          mask |= this.handleRules;
          break;
        }
      }
    }
    return mask;
  }

  /** The gated rules the words of a string's `${…}` parts let run. */
  private wordsOfCode(segments: readonly { kind: string; source?: string }[]): number {
    let mask = 0;
    for (const s of segments) {
      if (s.kind !== "expr") continue;
      const text = s.source!;
      for (let i = 0; i < text.length; ) {
        // words as the lexer takes identifiers (and keywords)
        const m = matchIdentifier(text, i);
        if (m === null) {
          i++;
          continue;
        }
        const e = this.words.get(m[0]);
        // a counted word here runs its rules: the count is not kept
        if (e !== undefined) mask |= e.open | e.counts;
        i += m[0].length;
      }
      for (const w of this.symbols) {
        if (!text.includes(w)) continue;
        const e = this.words.get(w)!;
        mask |= e.open | e.counts;
      }
    }
    return mask;
  }
}
