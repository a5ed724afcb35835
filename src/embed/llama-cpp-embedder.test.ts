import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmModelFileError } from '../llm/errors.ts';
import { writeTinyLlamaGguf } from '../llm/testing/tiny-gguf.ts';
import { cosine } from './embedder.ts';
import { LlamaCppEmbedder } from './llama-cpp-embedder.ts';

const dir = mkdtempSync(join(tmpdir(), 'dreamgym-gguf-'));

describe('LlamaCppEmbedder on a generated tiny GGUF', () => {
  let embedder: LlamaCppEmbedder;
  beforeAll(async () => {
    const gguf = await writeTinyLlamaGguf(join(dir, 'tiny.gguf'), {
      embeddingLength: 24,
      heads: 4,
    });
    embedder = await LlamaCppEmbedder.load({ gguf, gpu: false, threads: 1, contextSize: 64 });
  });
  afterAll(async () => {
    await embedder?.close();
  });

  it('returns one L2-normalised vector of the model width per text, deterministically', async () => {
    expect(embedder.dimensions).toBe(24);
    expect(embedder.id).toBe('llama-cpp:tiny.gguf');
    const [a, b, a2] = await embedder.embed(['red shoes', 'blue lamp', 'red shoes']);
    for (const v of [a, b]) expect(cosine(v as Float32Array, v as Float32Array)).toBeCloseTo(1, 5);
    expect(a).toEqual(a2);
    expect(cosine(a as Float32Array, b as Float32Array)).toBeLessThan(0.999);
  });

  it('cuts texts longer than its context and gives empty ones the zero vector', async () => {
    const [long, empty] = await embedder.embed(['word '.repeat(500), '']);
    expect(cosine(long as Float32Array, long as Float32Array)).toBeCloseTo(1, 5);
    expect(empty).toEqual(new Float32Array(24));
  });

  it('names a missing model file', async () => {
    await expect(LlamaCppEmbedder.load({ gguf: join(dir, 'missing.gguf') })).rejects.toThrow(
      LlmModelFileError,
    );
  });
});
