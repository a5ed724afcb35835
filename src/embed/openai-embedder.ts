import type OpenAI from 'openai';
import { withDeadline } from '../llm/deadline.ts';
import { EmbeddingShapeError } from '../llm/errors.ts';
import { ConcurrencyLimiter } from '../llm/limiter.ts';
import {
  connectOpenAi,
  fromOpenAiError,
  type OpenAiConnectionOptions,
} from '../llm/openai-connection.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetries } from '../llm/retry.ts';
import type { Embedder } from './embedder.ts';
import { normalize } from './embedder.ts';

/** An OpenAI-compatible embeddings endpoint and its limits. */
export interface OpenAiEmbedderOptions extends OpenAiConnectionOptions {
  /** The embedding model the server knows, e.g. `text-embedding-3-small` or `BAAI/bge-m3`. */
  model: string;
  /** Size of the vectors the model returns; every answer is checked against it. */
  dimensions: number;
  /** Texts per request. Default 64. */
  batchSize?: number;
  /** Deadline of each request, ms. Default 60 000. */
  timeoutMs?: number;
  /** Retries of timeouts, 429s, 5xx and dropped connections. */
  retry?: Partial<RetryPolicy>;
  /** Batches in flight at once. Default 4. Ignored when `limiter` is given. */
  maxConcurrency?: number;
  /** A limiter shared with other clients of the same server. */
  limiter?: ConcurrencyLimiter;
}

/**
 * Embeddings from an OpenAI-compatible `/embeddings` endpoint (OpenAI, vLLM, llama.cpp server,
 * Ollama, TEI behind a gateway): batched, with the same deadline, retries and typed errors as the
 * chat client, L2-normalised. Empty texts get the zero vector without a request, as servers
 * refuse empty input.
 */
export class OpenAiEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  private readonly sdk: OpenAI;
  private readonly server: string;
  private readonly batchSize: number;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly limiter: ConcurrencyLimiter;

  constructor(private readonly options: OpenAiEmbedderOptions) {
    this.sdk = connectOpenAi(options);
    this.server = this.sdk.baseURL;
    this.id = `openai:${options.model}`;
    this.dimensions = options.dimensions;
    this.batchSize = options.batchSize ?? 64;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.limiter = options.limiter ?? new ConcurrencyLimiter(options.maxConcurrency ?? 4);
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const vectors: Float32Array[] = texts.map(() => new Float32Array(this.dimensions));
    const wanted = texts.flatMap((text, i) => (text.trim() === '' ? [] : [i]));
    const batches: number[][] = [];
    for (let i = 0; i < wanted.length; i += this.batchSize)
      batches.push(wanted.slice(i, i + this.batchSize));
    await Promise.all(
      batches.map(async (batch) => {
        const embedded = await this.embedBatch(batch.map((i) => texts[i] as string));
        batch.forEach((textIndex, j) => {
          vectors[textIndex] = embedded[j] as Float32Array;
        });
      }),
    );
    return vectors;
  }

  private async embedBatch(input: string[]): Promise<Float32Array[]> {
    const { server } = this;
    const { model } = this.options;
    const response = await withRetries(
      () =>
        this.limiter.run(
          () =>
            withDeadline(
              (signal) =>
                this.sdk.embeddings
                  .create({ model, input, encoding_format: 'float' }, { signal })
                  .catch((error: unknown) => {
                    throw fromOpenAiError(error, server, model);
                  }),
              { timeoutMs: this.timeoutMs, server },
            ),
          undefined,
          server,
        ),
      this.retry,
      { server },
    );
    const data = [...response.data].sort((a, b) => a.index - b.index);
    if (data.length !== input.length) {
      throw new EmbeddingShapeError(
        `${server}: asked for ${input.length} embeddings, got ${data.length}. The server may cap the batch size; lower batchSize.`,
      );
    }
    return data.map(({ embedding }) => {
      if (embedding.length !== this.dimensions) {
        throw new EmbeddingShapeError(
          `${server}: model ${model} returned ${embedding.length}-dimensional vectors, but dimensions is ${this.dimensions}. Set dimensions: ${embedding.length}.`,
        );
      }
      return normalize(Float32Array.from(embedding));
    });
  }
}
