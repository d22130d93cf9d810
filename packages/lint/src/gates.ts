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
import type { Token } from "@harn/lexer";
import type { ProjectFacts, Rule } from "./types";

export class Gates {
  /** The bit of each gated rule. */
  private readonly bits = new Map<Rule, number>();
  /** The rules each word lets run. */
  private readonly words = new Map<string, number>();
  /** The words that are punctuation (`==`): looked for by text in `${…}`. */
  private readonly symbols: string[] = [];
  /** The rules a handle-returning import lets run. */
  private handleRules = 0;
  /** Texts that let rules run, with those rules. */
  private readonly texts: [string, number][] = [];
  /** Every gated rule. */
  readonly all: number;

  constructor(rules: readonly Rule[]) {
    let all = 0;
    for (const rule of rules) {
      const t = rule.meta.triggers;
      // one bit each, in an int
      if (t === undefined || this.bits.size === 31) continue;
      const bit = 1 << this.bits.size;
      this.bits.set(rule, bit);
      all |= bit;
      for (const x of t.text ?? []) this.texts.push([x, bit]);
      for (const w of t.words ?? []) {
        if (!/^\w+$/.test(w) && !this.words.has(w)) this.symbols.push(w);
        this.words.set(w, (this.words.get(w) ?? 0) | bit);
      }
      if (t.importedHandles === true) this.handleRules |= bit;
    }
    this.all = all;
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
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      const k = t.kind;
      // keywords and punctuation are their own kind; classes never a word
      if (k === "IString") mask |= this.wordsOfCode(t.value as readonly { kind: string; source?: string }[]);
      else mask |= this.word(k === "Ident" ? t.image : k);
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
        if (!isWordStart(text.charCodeAt(i))) {
          i++;
          continue;
        }
        let j = i + 1;
        while (j < text.length && isWordPart(text.charCodeAt(j))) j++;
        mask |= this.word(text.slice(i, j));
        i = j;
      }
      for (const w of this.symbols) if (text.includes(w)) mask |= this.words.get(w)!;
    }
    return mask;
  }

  /** The rules word `w` lets run. */
  private word(w: string): number {
    return this.words.get(w) ?? 0;
  }
}

const isWordStart = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
const isWordPart = (c: number): boolean => isWordStart(c) || (c >= 48 && c <= 57);
