/**
 * `undefined-function` (lint.md §3.8): a plain call to a name that nothing
 * defines. Every name bound anywhere in the file counts as callable,
 * including pipeline parameters, loop and catch variables (quirk Q5, FIX).
 */
import { BUILTIN_NAMES, isBuiltinName } from "../builtins";
import type { Rule } from "../types";

export const undefinedFunction: Rule = {
  id: "undefined-function",
  severity: "warning",
  description: "A call to a name that is not a builtin, declaration, import or variable",
  fixable: false,
  create(ctx) {
    return {
      finalize() {
        const { facts, options } = ctx;
        const imported = new Set<string>();
        for (const w of facts.wildcardImports) {
          const names = options.wildcardExports.get(w.path);
          if (!names) return; // the module graph cannot list them: skip the file
          for (const n of names) imported.add(n);
        }
        const known = (name: string): boolean =>
          name.startsWith("__") ||
          name.startsWith("hostlib_") ||
          isBuiltinName(name, options.extraBuiltins) ||
          facts.knownFunctions.has(name) ||
          facts.callableVariables.has(name) ||
          imported.has(name);
        let candidates: string[] | null = null;
        for (const call of facts.calls) {
          if (known(call.name)) continue;
          candidates ??= [...new Set([...BUILTIN_NAMES, ...options.extraBuiltins, ...facts.knownFunctions, ...imported])].sort();
          const closest = closestName(call.name, candidates);
          ctx.report({
            node: call,
            message: `function \`${call.name}\` is not defined`,
            help: closest ? `did you mean \`${closest}\`?` : `check the spelling or import \`${call.name}\``,
          });
        }
      },
    };
  },
};

/** The candidate within edit distance 2 (lengths within 2), nearest first,
 * ties broken by sorted order. */
export function closestName(name: string, sortedCandidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestDist = 3;
  for (const c of sortedCandidates) {
    if (c === name || Math.abs(c.length - name.length) > 2) continue;
    const d = levenshtein(name, c, bestDist);
    if (d < bestDist) {
      best = c;
      bestDist = d;
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
