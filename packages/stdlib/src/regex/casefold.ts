/**
 * Case variants of a code point under Unicode simple case folding, for the
 * mixed-case emulation in emit.ts (the whole-pattern case uses the JS `i`
 * flag instead). `toLowerCase`/`toUpperCase` find most variants; the table
 * adds the folds they cannot reach from the common letter (K → KELVIN SIGN,
 * s → LONG S, …).
 */
const EXTRA: Record<number, number[]> = {
  0x6b: [0x212a], // k: KELVIN SIGN
  0x73: [0x17f], // s: LATIN SMALL LETTER LONG S
  0xe5: [0x212b], // å: ANGSTROM SIGN
  0xdf: [0x1e9e], // ß: LATIN CAPITAL LETTER SHARP S
  0x3c9: [0x2126], // ω: OHM SIGN
  0x3bc: [0xb5], // μ: MICRO SIGN
  0x3b8: [0x3d1, 0x3f4], // θ
  0x3b2: [0x3d0], // β
  0x3b5: [0x3f5], // ε
  0x3ba: [0x3f0], // κ
  0x3c0: [0x3d6], // π
  0x3c1: [0x3f1], // ρ
  0x3c6: [0x3d5], // φ
  0x3b9: [0x345, 0x1fbe], // ι
  0x3c3: [0x3c2], // σ: final sigma
  0x1e61: [0x1e9b], // ṡ
};

function single(s: string): number | null {
  const cp = s.codePointAt(0)!;
  return s.length === (cp > 0xffff ? 2 : 1) ? cp : null;
}

export function caseVariants(cp: number): number[] {
  const out = new Set<number>([cp]);
  const queue = [cp];
  while (queue.length > 0) {
    const c = queue.pop()!;
    const s = String.fromCodePoint(c);
    const next = [single(s.toLowerCase()), single(s.toUpperCase()), ...(EXTRA[c] ?? [])];
    for (const n of next) {
      if (n !== null && !out.has(n)) {
        out.add(n);
        queue.push(n);
      }
    }
  }
  return [...out].sort((a, b) => a - b);
}
