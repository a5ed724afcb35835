import type { Embedder } from './embedder.ts';
import { normalize } from './embedder.ts';

/** The hashing embedder's dimensions, character n-grams and weights. */
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
  private scratch = new Uint16Array(64);

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
    // Words are runs of letters and digits, lower-cased; scanned by char code, without building
    // substrings, because this loop is the cost of embedding a long page.
    let word = this.scratch;
    let length = 0;
    let previous = 0;
    let first = true;
    const endWord = () => {
      if (length === 0) return;
      let h = WORD_SEED;
      for (let j = 0; j < length; j++) h = Math.imul(h ^ (word[j] as number), 0x01000193);
      h = mix(h);
      add(h, this.wordWeight);
      if (!first) add(mix(Math.imul(previous, 0x9e3779b1) ^ h ^ BIGRAM_SEED), this.bigramWeight);
      this.addCharNgrams(word, length, add);
      previous = h;
      first = false;
      length = 0;
    };
    for (let i = 0; i < text.length; i++) {
      let c = text.charCodeAt(i);
      if (c >= 65 && c <= 90) c += 32;
      else if (c > 127)
        c = isWordCharacter(c) ? String.fromCharCode(c).toLowerCase().charCodeAt(0) : 32;
      if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c > 127) {
        if (length === word.length) {
          const grown = new Uint16Array(2 * word.length);
          grown.set(word);
          word = this.scratch = grown;
        }
        word[length++] = c;
      } else endWord();
    }
    endWord();
    // Damp repeated features (and collisions) like log(1 + tf), keeping the sign.
    for (let b = 0; b < vector.length; b++) {
      const x = vector[b] as number;
      if (x !== 0) vector[b] = Math.sign(x) * Math.log1p(Math.abs(x));
    }
    return normalize(vector);
  }

  /** Character n-grams of `<word>`, where `<` and `>` mark the word's boundaries. */
  private addCharNgrams(
    word: Uint16Array,
    length: number,
    add: (hash: number, weight: number) => void,
  ): void {
    const marked = length + 2;
    const n = Math.min(this.n, marked);
    for (let start = 0; start + n <= marked; start++) {
      let h = CHAR_SEED;
      for (let j = start; j < start + n; j++) {
        const c = j === 0 ? 60 : j === marked - 1 ? 62 : (word[j - 1] as number);
        h = Math.imul(h ^ c, 0x01000193);
      }
      add(mix(h), this.charWeight);
    }
  }
}

function isWordCharacter(code: number): boolean {
  return /[\p{L}\p{N}]/u.test(String.fromCharCode(code));
}

/** Distinct seeds keep words, bigrams and character n-grams apart in hash space. */
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
