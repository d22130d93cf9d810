/**
 * "Did you mean" candidates for static diagnostics: the nearest name within
 * edit distance 2 (semantics.md §10.1, lint.md's `undefined-function`).
 * Shared by the checker and the linter, which both depend on the parser
 * only. (The evaluator's runtime suggestions use the runtime's own,
 * length-dependent limit, semantics.md §8.1.)
 */

/** The candidate within edit distance 2 (lengths within 2): nearest
 * first, then the smallest length difference, then sorted order (the
 * runtime's rule for its own suggestions, semantics.md §8.1). */
export function closestName(name: string, sortedCandidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestDist = 3;
  let bestLen = Infinity;
  for (const c of sortedCandidates) {
    const lenDiff = Math.abs(c.length - name.length);
    if (c === name || lenDiff > 2) continue;
    const d = levenshtein(name, c, bestDist + 1);
    if (d > 2) continue;
    if (d < bestDist || (d === bestDist && lenDiff < bestLen)) {
      best = c;
      bestDist = d;
      bestLen = lenDiff;
    }
  }
  return best;
}

/** Edit distance, giving up (returning `limit`) once it cannot be below it. */
export function levenshtein(a: string, b: string, limit = Infinity): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin >= limit) return limit;
    prev = cur;
  }
  return prev[b.length]!;
}
