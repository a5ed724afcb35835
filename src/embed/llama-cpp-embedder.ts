import { basename } from 'node:path';
import type { LlamaEmbeddingContext, LlamaModel } from 'node-llama-cpp';
import { LlmError } from '../llm/errors.ts';
import { type LlamaGpu, loadGguf } from '../llm/llama-cpp-loader.ts';
import type { Embedder } from './embedder.ts';
import { normalize } from './embedder.ts';

/** Which GGUF file to embed with, and how. */
export interface LlamaCppEmbedderOptions {
  /** Path of a local GGUF embedding model (or any model llama.cpp can pool). */
  gguf: string;
  /** CPU threads. Default: node-llama-cpp's (the machine's math cores). */
  threads?: number;
  /** Longest text in tokens; longer texts are cut to it. Default: the model's, at most 2048. */
  contextSize?: number;
  /** Default 'auto': the best GPU found, else the CPU. */
  gpu?: LlamaGpu;
}

/**
 * Embeddings from a local GGUF model through node-llama-cpp (loaded lazily, so it stays an
 * optional dependency), L2-normalised. Texts longer than the context are cut rather than
 * refused, as retrieval over long pages needs an answer for every page.
 */
export class LlamaCppEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;

  private constructor(
    private readonly path: string,
    private readonly model: LlamaModel,
    private readonly context: LlamaEmbeddingContext,
    private readonly maxTokens: number,
  ) {
    this.id = `llama-cpp:${basename(path)}`;
    this.dimensions = model.embeddingVectorSize;
  }

  /** Loads a GGUF embedding model in-process (needs the optional node-llama-cpp package). */
  static async load(options: LlamaCppEmbedderOptions): Promise<LlamaCppEmbedder> {
    const { model } = await loadGguf(options.gguf, options.gpu);
    const contextSize = options.contextSize ?? Math.min(model.trainContextSize, 2048);
    const context = await model.createEmbeddingContext({
      contextSize,
      ...(options.threads !== undefined && { threads: options.threads }),
    });
    // Leave room for the BOS/EOS tokens llama.cpp adds around the input.
    return new LlamaCppEmbedder(options.gguf, model, context, contextSize - 2);
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (const text of texts) {
      const tokens = this.model.tokenize(text).slice(0, this.maxTokens);
      try {
        const { vector } = await this.context.getEmbeddingFor(tokens);
        // No tokens, no vector: an empty text gets the zero vector, as with the other embedders.
        vectors.push(
          vector.length === 0
            ? new Float32Array(this.dimensions)
            : normalize(Float32Array.from(vector)),
        );
      } catch (error) {
        throw new LlmError(
          `${this.path}: llama.cpp embedding failed: ${(error as Error).message}`,
          {
            cause: error,
          },
        );
      }
    }
    return vectors;
  }

  /** Frees the loaded model. */
  async close(): Promise<void> {
    await this.context.dispose();
    await this.model.dispose();
  }
}
