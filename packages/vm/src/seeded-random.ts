/**
 * The project's one seeded PRNG. What a seed yields is something users
 * keep (`rng_seed(n)` draws, a seed `harn test --explore` printed for
 * replay), so its algorithm and seeding stay as they are.
 */

/** A small, fast, seedable PRNG (sfc32, seeded through splitmix64): the
 * `rng` handles of `rng_seed`, and every seeded order or draw of `harn test
 * --seed` (the scheduler, the unseeded random builtins, retry jitter). */
export class Sfc32 {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: bigint) {
    let s = BigInt.asUintN(64, seed);
    const next = () => {
      s = BigInt.asUintN(64, s + 0x9e3779b97f4a7c15n);
      let z = s;
      z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
      z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
      return z ^ (z >> 31n);
    };
    const x = next();
    const y = next();
    this.a = Number(x & 0xffffffffn);
    this.b = Number(x >> 32n);
    this.c = Number(y & 0xffffffffn);
    this.d = Number(y >> 32n) | 1;
    for (let i = 0; i < 12; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform float in [0, 1) with 53 random bits. */
  float(): number {
    return ((this.u32() >>> 5) * 67108864 + (this.u32() >>> 6)) / 9007199254740992;
  }
}

/** Uniform [0, 1) draws from an Sfc32 seeded with `seed` (any integer). */
export function seededRandom(seed: number | bigint): () => number {
  const g = new Sfc32(BigInt(seed));
  return () => g.float();
}
