import { describe, expect, it } from 'vitest';
import { cosine } from './embedder.ts';
import { HashingEmbedder } from './hashing-embedder.ts';

describe('HashingEmbedder', () => {
  const embedder = new HashingEmbedder({ dimensions: 256 });

  it('scores similar texts higher than unrelated ones', async () => {
    const [a, b, c] = await embedder.embed([
      'click[Buy Now] on the item page of a red running shoe',
      'click[Buy Now] on the item page of a blue running shoe',
      'go to countertop 1 and take the apple',
    ]);
    if (!a || !b || !c) throw new Error('missing vectors');
    expect(cosine(a, b)).toBeGreaterThan(0.7);
    expect(cosine(a, c)).toBeLessThan(0.3);
    expect(cosine(a, b)).toBeGreaterThan(cosine(a, c) + 0.4);
  });

  it('catches morphology through character n-grams', () => {
    const shoes = embedder.embedOne('shoes');
    expect(cosine(shoes, embedder.embedOne('shoe'))).toBeGreaterThan(
      cosine(shoes, embedder.embedOne('lamp')) + 0.2,
    );
  });

  it('is deterministic, L2-normalised and sized as configured', async () => {
    const [x] = await embedder.embed(['the same text']);
    const [y] = await new HashingEmbedder({ dimensions: 256 }).embed(['the same text']);
    expect(x).toEqual(y);
    expect(cosine(x as Float32Array, x as Float32Array)).toBeCloseTo(1, 5);
    expect(new HashingEmbedder({ dimensions: 64 }).embedOne('abc')).toHaveLength(64);
    expect(embedder.embedOne('')).toEqual(new Float32Array(256));
  });

  it('names its embedding space by its settings', () => {
    expect(new HashingEmbedder({ dimensions: 64 }).id).not.toBe(embedder.id);
    expect(() => new HashingEmbedder({ dimensions: 3 })).toThrow(/dimensions/);
  });

  it('keeps unrelated words nearly orthogonal (features spread over the buckets)', () => {
    const wide = new HashingEmbedder({ dimensions: 1024 });
    const words = Array.from(
      { length: 60 },
      (_, i) => `w${i.toString(36)}x${(i * 7919).toString(36)}`,
    );
    const vectors = words.map((w) => wide.embedOne(w));
    let sum = 0;
    let pairs = 0;
    for (let i = 0; i < vectors.length; i++) {
      for (let j = i + 1; j < vectors.length; j++) {
        sum += Math.abs(cosine(vectors[i] as Float32Array, vectors[j] as Float32Array));
        pairs++;
      }
    }
    expect(sum / pairs).toBeLessThan(0.1);
  });

  it('lower-cases and treats punctuation as word breaks, non-ASCII letters as letters', () => {
    expect(embedder.embedOne('Buy NOW!')).toEqual(embedder.embedOne('buy now'));
    expect(cosine(embedder.embedOne('café crème'), embedder.embedOne('café crème'))).toBeCloseTo(
      1,
      5,
    );
    expect(cosine(embedder.embedOne('café'), embedder.embedOne('caf'))).toBeLessThan(0.9);
  });
});
