import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EmbeddingShapeError, LlmModelNotFoundError, LlmTimeoutError } from '../llm/errors.ts';
import { FakeOpenAiServer } from '../llm/testing/fake-openai-server.ts';
import { cosine } from './embedder.ts';
import { OpenAiEmbedder, type OpenAiEmbedderOptions } from './openai-embedder.ts';

let server: FakeOpenAiServer;
beforeEach(async () => {
  server = await FakeOpenAiServer.start({ models: ['embed-model'], embeddingDimensions: 16 });
});
afterEach(async () => {
  await server.close();
});

const embedder = (options: Partial<OpenAiEmbedderOptions> = {}) =>
  new OpenAiEmbedder({
    baseURL: server.url,
    model: 'embed-model',
    dimensions: 16,
    retry: { initialDelayMs: 1 },
    ...options,
  });

describe('OpenAiEmbedder', () => {
  it('batches, keeps order and L2-normalises', async () => {
    const texts = Array.from({ length: 10 }, (_, i) => `text number ${i}`);
    const vectors = await embedder({ batchSize: 4 }).embed(texts);
    const inputs = server.posts('embeddings').map((r) => (r.body as { input: string[] }).input);
    expect(inputs.map((b) => b.length)).toEqual([4, 4, 2]);
    expect(inputs.flat()).toEqual(texts);
    expect(vectors).toHaveLength(10);
    for (const v of vectors) expect(cosine(v, v)).toBeCloseTo(1, 5);
    const [again] = await embedder().embed(['text number 3']);
    expect(again).toEqual(vectors[3]);
    expect(cosine(vectors[0] as Float32Array, vectors[1] as Float32Array)).toBeLessThan(0.99);
  });

  it('gives empty texts the zero vector without asking the server', async () => {
    const [empty, full] = await embedder().embed(['  ', 'something']);
    expect(empty).toEqual(new Float32Array(16));
    expect(cosine(full as Float32Array, full as Float32Array)).toBeCloseTo(1, 5);
    const [request] = server.posts('embeddings');
    expect(request?.body).toMatchObject({ input: ['something'] });
  });

  it('retries faults and times out slow answers like the chat client', async () => {
    server.inject({ kind: 'status', status: 500 }, { kind: 'drop' }, { kind: 'delay', ms: 3_000 });
    const vectors = await embedder({ timeoutMs: 1_000 }).embed(['a', 'b']);
    expect(vectors).toHaveLength(2);
    expect(server.posts('embeddings')).toHaveLength(4);
    server.inject({ kind: 'delay', ms: 3_000 }, { kind: 'delay', ms: 3_000 });
    await expect(
      embedder({ timeoutMs: 100, retry: { maxRetries: 1, initialDelayMs: 1 } }).embed(['c']),
    ).rejects.toThrow(LlmTimeoutError);
  });

  it('names a wrong model and a wrong vector size', async () => {
    await expect(embedder({ model: 'nope' }).embed(['a'])).rejects.toThrow(LlmModelNotFoundError);
    server.inject({ kind: 'malformed' });
    const error = await embedder()
      .embed(['a'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingShapeError);
    expect((error as Error).message).toMatch(/returned 15-dimensional vectors.*Set dimensions: 15/);
  });
});
