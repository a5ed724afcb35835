import type { Embedder } from './embedder.ts';
import { normalize } from './embedder.ts';

export interface HashingEmbedderOptions {
  /** Vector size. Default 256. */
  dimensions?: number;
  /** Character n-gram length, taken inside each word with `<`/`>` boundary marks. Default 3. */
  charNgram?: number;
  /** Weights of the three feature kinds. Defaults: words 1, word bigrams 0.5, char n-grams 0.3. */
  weights?: { word?: number; bigram?: number; char?: number };
}

/**
 * A dependency-free embedder (the "hashing trick"): word unigrams, word bigrams and character
 * n-grams are hashed into a fixed number of buckets with a hash-derived sign (so collisions cancel
 * on average rather than pile up), bucket totals are damped like log(1 + tf), and the vector is
 * L2-normalised. Deterministic, needs no model and handles any vocabulary, which is what the
 * default offline pipeline needs; a learned embedder can replace it through {@link Embedder}.
 */
export class HashingEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  private readonly n: number;
  private readonly wordWeight: number;
  private readonly bigramWeight: number;
  private readonly charWeight: number;

  constructor(options: HashingEmbedderOptions = {}) {
    this.dimensions = options.dimensions ?? 256;
    this.n = options.charNgram ?? 3;
    if (!Number.isInteger(this.dimensions) || this.dimensions < 8) {
      throw new RangeError(
        `HashingEmbedder: dimensions must be an integer ≥ 8, got ${this.dimensions}`,
      );
    }
    if (!Number.isInteger(this.n) || this.n < 1) {
      throw new RangeError(`HashingEmbedder: charNgram must be a positive integer, got ${this.n}`);
    }
    this.wordWeight = options.weights?.word ?? 1;
    this.bigramWeight = options.weights?.bigram ?? 0.5;
    this.charWeight = options.weights?.char ?? 0.3;
    this.id = `hashing-v2-d${this.dimensions}-c${this.n}-w${this.wordWeight}/${this.bigramWeight}/${this.charWeight}`;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedOne(text));
  }

  /** Synchronous form of {@link embed} for one text. */
  embedOne(text: string): Float32Array {
    const vector = new Float32Array(this.dimensions);
    const add = (hash: number, weight: number) => {
      const bucket = (hash & 0x7fffffff) % this.dimensions;
      vector[bucket] = (vector[bucket] as number) + (hash >>> 31 ? -weight : weight);
    };
    const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    let previous = 0;
    for (let i = 0; i < words.length; i++) {
      const word = words[i] as string;
      const h = murmur3(word);
      add(mix(h ^ WORD_SEED), this.wordWeight);
      if (i > 0) add(mix(Math.imul(previous, 0x9e3779b1) ^ h ^ BIGRAM_SEED), this.bigramWeight);
      previous = h;
      this.addCharNgrams(word, add);
    }
    // Damp repeated features (and collisions) like log(1 + tf), keeping the sign.
    for (let b = 0; b < vector.length; b++) {
      const x = vector[b] as number;
      if (x !== 0) vector[b] = Math.sign(x) * Math.log1p(Math.abs(x));
    }
    return normalize(vector);
  }

  /**
   * Character n-grams of `<word>` (`<` and `>` mark the boundaries), hashed from the char codes
   * directly: no substring is built, which makes this the cheap part of embedding a long page.
   */
  private addCharNgrams(word: string, add: (hash: number, weight: number) => void): void {
    const length = word.length + 2;
    const code = (i: number) => (i === 0 ? 60 : i === length - 1 ? 62 : word.charCodeAt(i - 1));
    const n = Math.min(this.n, length);
    for (let start = 0; start + n <= length; start++) {
      let h = CHAR_SEED;
      for (let j = start; j < start + n; j++) h = Math.imul(h ^ code(j), 0x01000193);
      add(mix(h), this.charWeight);
    }
  }
}

const WORD_SEED = 0x2545f491;
const BIGRAM_SEED = 0x6a09e667;
const CHAR_SEED = 0x811c9dc5;

/** MurmurHash3's finaliser: spreads every input bit over the whole 32-bit output. */
function mix(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** MurmurHash3 (x86, 32-bit, seed 0) over a string's UTF-16 code units taken two at a time. */
export function murmur3(text: string): number {
  let h = 0;
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  let i = 0;
  const length = text.length;
  for (; i + 1 < length; i += 2) {
    let k = (text.charCodeAt(i) & 0xffff) | ((text.charCodeAt(i + 1) & 0xffff) << 16);
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  if (i < length) {
    let k = text.charCodeAt(i) & 0xffff;
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
  }
  h ^= length * 2;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
