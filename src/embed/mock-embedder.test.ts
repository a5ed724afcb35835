import { describe, expect, it } from 'vitest';
import { cosine } from './embedder.ts';
import { MockEmbedder } from './mock-embedder.ts';

describe('MockEmbedder', () => {
  it('gives equal texts equal unit vectors and records calls', async () => {
    const embedder = new MockEmbedder({ dimensions: 12 });
    const [a, b, a2] = await embedder.embed(['x', 'y', 'x']);
    expect(a).toHaveLength(12);
    expect(a).toEqual(a2);
    expect(a).not.toEqual(b);
    expect(cosine(a as Float32Array, a as Float32Array)).toBeCloseTo(1, 5);
    expect(embedder.calls).toEqual([['x', 'y', 'x']]);
    expect(embedder.id).toBe('mock-d12');
  });

  it('uses given vectors, normalised, and can fail like a real embedder', async () => {
    const embedder = new MockEmbedder({
      dimensions: 2,
      vector: (text) => {
        if (text === 'boom') throw new Error('embedding server down');
        return [3, 4];
      },
    });
    expect(await embedder.embed(['a'])).toEqual([Float32Array.from([0.6, 0.8])]);
    await expect(embedder.embed(['boom'])).rejects.toThrow('embedding server down');
    await expect(
      new MockEmbedder({ dimensions: 3, vector: () => [1] }).embed(['a']),
    ).rejects.toThrow(/has 1 values, expected 3/);
  });
});
