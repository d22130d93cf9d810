/**
 * How `harn test` compares a golden test's outcome with its files
 * (spec/cli.md §5.2.2): output normalised before the comparison, `.error`
 * specs matched as substrings or `re:` patterns, and the line diff shown
 * for a mismatch.
 */
import type { Colors } from "../color";

export function normalizeOutput(text: string): string {
  return text
    .trimEnd()
    .split("\n")
    .map((l) => {
      if (l.endsWith("\r")) l = l.slice(0, -1);
      const i = l.lastIndexOf(": ");
      if (i >= 0 && l.endsWith("ms") && l.slice(0, i).startsWith("[timer] ")) return l.slice(0, i) + ": <ms>";
      return l;
    })
    .join("\n");
}

export function errorMatches(spec: string, err: string): { ok: boolean; warnings: string[] } {
  const warnings: string[] = [];
  const matches = (p: string) => {
    if (p.startsWith("re:")) {
      const pattern = p.slice(3).trim();
      try {
        return new RegExp(pattern).test(err);
      } catch {
        warnings.push(`    warning: invalid regex in .error file: ${pattern}`);
        return false;
      }
    }
    return err.includes(p);
  };
  const trimmed = spec.trimEnd();
  const lines = trimmed.split("\n");
  // Empty lines in a multi-line spec are ignored (cli.md §5.2.2 FIX).
  const ok = lines.length > 1 ? lines.map((l) => l.trim()).filter((l) => l !== "").some(matches) : matches(trimmed.trim());
  return { ok, warnings };
}

/** Expected against actual, line by line: `  ` same, `-`/`+` differing
 * (red and green when `paint` colours). */
export function lineDiff(expected: string, actual: string, paint: Colors): string {
  const e = expected.split("\n");
  const a = actual.split("\n");
  const out: string[] = [];
  for (let i = 0; i < Math.max(e.length, a.length); i++) {
    const x = e[i] ?? "";
    const y = a[i] ?? "";
    if (x === y) out.push(`  ${x}`);
    else {
      out.push(paint.red(`- ${x}`));
      out.push(paint.green(`+ ${y}`));
    }
  }
  return out.join("\n");
}
