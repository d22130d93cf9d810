/**
 * "Did you mean" suggestions for unknown names (spec/semantics.md §8.1).
 */

export function levenshtein(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  let prev = Array.from({ length: y.length + 1 }, (_, i) => i);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[y.length]!;
}

/** Edit-distance limit for a name of this length. */
export function distanceLimit(name: string): number {
  const n = Array.from(name).length;
  return n <= 2 ? 1 : n <= 5 ? 2 : 3;
}

/** The closest candidate within the limit: smallest distance, then the
 * smallest length difference, then alphabetical. */
export function suggest(name: string, candidates: Iterable<string>): string | null {
  const limit = distanceLimit(name);
  let best: string | null = null;
  let bestD = Infinity;
  let bestL = Infinity;
  for (const c of candidates) {
    if (c === name || c.startsWith("__")) continue;
    if (Math.abs(c.length - name.length) > limit) continue;
    const d = levenshtein(name, c);
    if (d > limit) continue;
    const l = Math.abs(c.length - name.length);
    if (d < bestD || (d === bestD && (l < bestL || (l === bestL && best !== null && c < best)))) {
      best = c;
      bestD = d;
      bestL = l;
    }
  }
  return best;
}
