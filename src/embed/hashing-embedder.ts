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
 * on average rather than pile up), counts are damped with log(1 + tf), and the vector is
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
    this.id = `hashing-v1-d${this.dimensions}-c${this.n}-w${this.wordWeight}/${this.bigramWeight}/${this.charWeight}`;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedOne(text));
  }

  /** Synchronous form of {@link embed} for one text. */
  embedOne(text: string): Float32Array {
    const counts = new Map<number, number>();
    const add = (feature: string, weight: number) => {
      const h = murmur3(feature);
      // Key: bucket in the low bits, sign in the top bit; weights add up per key.
      counts.set(h, (counts.get(h) ?? 0) + weight);
    };
    const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    for (let i = 0; i < words.length; i++) {
      const word = words[i] as string;
      add(`w:${word}`, this.wordWeight);
      if (i > 0) add(`b:${words[i - 1]} ${word}`, this.bigramWeight);
      const marked = `<${word}>`;
      if (marked.length <= this.n) add(`c:${marked}`, this.charWeight);
      else
        for (let j = 0; j + this.n <= marked.length; j++)
          add(`c:${marked.slice(j, j + this.n)}`, this.charWeight);
    }
    const vector = new Float32Array(this.dimensions);
    for (const [h, weight] of counts) {
      const sign = h >>> 31 ? -1 : 1;
      const bucket = (h & 0x7fffffff) % this.dimensions;
      vector[bucket] = (vector[bucket] as number) + sign * Math.log1p(weight);
    }
    return normalize(vector);
  }
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
