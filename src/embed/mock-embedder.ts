import { Rng } from '../core/rng.ts';
import type { Embedder } from './embedder.ts';
import { normalize } from './embedder.ts';

/** The mock embedder's dimensions, a fixed vector if wanted, and its id. */
export interface MockEmbedderOptions {
  /** Default 8. */
  dimensions?: number;
  /**
   * The vector for a text (normalised afterwards); it may throw to simulate a failure. Default:
   * pseudo-random from the text, so equal texts get equal vectors and different ones do not.
   */
  vector?: (text: string) => ArrayLike<number>;
  /** Default `mock-d<dimensions>`. */
  id?: string;
}

/** A test double for {@link Embedder} that records every call. */
export class MockEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  /** The texts of every embed() call, in order. */
  readonly calls: string[][] = [];

  constructor(private readonly options: MockEmbedderOptions = {}) {
    this.dimensions = options.dimensions ?? 8;
    this.id = options.id ?? `mock-d${this.dimensions}`;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    return texts.map((text) => {
      const vector = Float32Array.from(this.options.vector?.(text) ?? this.randomVector(text));
      if (vector.length !== this.dimensions) {
        throw new RangeError(
          `MockEmbedder: vector for "${text}" has ${vector.length} values, expected ${this.dimensions}`,
        );
      }
      return normalize(vector);
    });
  }

  private randomVector(text: string): number[] {
    const rng = new Rng(text);
    return Array.from({ length: this.dimensions }, () => rng.float() * 2 - 1);
  }
}
