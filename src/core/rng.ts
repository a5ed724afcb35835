/**
 * A small seedable random number generator (sfc32, seeded through splitmix32).
 *
 * Hand-written rather than a dependency because we need two things libraries rarely give
 * together: exact reproducibility across platforms and `fork(label)`, which derives an
 * independent stream from a parent seed and a name. Forking keeps one part of a program (say
 * catalog generation) from shifting another's random numbers when it draws more or fewer.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  readonly seed: number;

  constructor(seed: number | string = 0) {
    this.seed = typeof seed === 'number' ? seed >>> 0 : hashString(seed);
    let s = this.seed;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.uint32();
  }

  /** A new generator whose stream depends only on this one's seed and the labels. */
  fork(...labels: Array<string | number>): Rng {
    return new Rng(hashString(`${this.seed}/${labels.join('/')}`));
  }

  /** Uniform integer in [0, 2^32). */
  uint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** Uniform float in [0, 1). */
  float(): number {
    return this.uint32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    if (!(n >= 1)) throw new RangeError(`Rng.int(n) needs n >= 1, got ${n}`);
    return Math.floor(this.float() * n);
  }

  /** Uniform integer in [min, max] (both inclusive). */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  /** One element, uniformly. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('Rng.pick() from an empty list');
    return items[this.int(items.length)] as T;
  }

  /** One element with probability proportional to its weight. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    const total = weights.reduce((s, w) => s + w, 0);
    let r = this.float() * total;
    for (let i = 0; i < items.length; i++) {
      r -= weights[i] as number;
      if (r < 0) return items[i] as T;
    }
    return items[items.length - 1] as T;
  }

  /** A new array with the elements in random order (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  }

  /** k distinct elements (all of them if k ≥ length), in random order. */
  sample<T>(items: readonly T[], k: number): T[] {
    return this.shuffle(items).slice(0, Math.max(0, k));
  }
}

/** 32-bit FNV-1a hash of a string, for seeds derived from names. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
